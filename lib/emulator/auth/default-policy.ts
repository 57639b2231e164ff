/**
 * The default ClusterRoles and ClusterRoleBindings a real cluster bootstraps, the ones that
 * matter here: cluster-admin (bound to system:masters), system:discovery (authenticated users),
 * system:public-info-viewer (everyone, anonymous included: /healthz, /livez, /readyz, /version),
 * system:basic-user (self reviews), and the user-facing admin, edit and view.
 *
 * Known difference: admin, edit and view carry their rules directly over the types the emulator
 * serves, where a real cluster aggregates them (aggregationRule) over every built-in type.
 */
import type { JsonObject, KubeObject } from "../apimachinery/json.js";
import { AUTHENTICATED_GROUP, MASTERS_GROUP, UNAUTHENTICATED_GROUP } from "../apimachinery/user.js";
import { RBAC_GROUP } from "../registry/rbac/strategy.js";

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const AUTHORIZATION = "authorization.k8s.io";
const AUTHENTICATION = "authentication.k8s.io";

const rule = (apiGroups: string[], resources: string[], verbs: string[]): JsonObject => ({ verbs, apiGroups, resources });
const urls = (nonResourceURLs: string[], verbs: string[]): JsonObject => ({ verbs, nonResourceURLs });

const VIEW_RULES: JsonObject[] = [
  rule([""], ["configmaps", "events", "serviceaccounts", "services", "services/status"], READ),
  rule([""], ["namespaces", "namespaces/status"], READ),
  rule(["events.k8s.io"], ["events"], READ),
  rule(["discovery.k8s.io"], ["endpointslices"], READ),
];
const EDIT_RULES: JsonObject[] = [
  rule([""], ["configmaps", "events", "serviceaccounts", "services"], [...WRITE, ...READ]),
  rule([""], ["serviceaccounts/token"], ["create"]),
  rule(["events.k8s.io"], ["events"], [...WRITE, ...READ]),
  rule([""], ["namespaces", "namespaces/status", "services/status"], READ),
  // As on a real cluster, edit reads EndpointSlices but does not write them.
  rule(["discovery.k8s.io"], ["endpointslices"], READ),
];
const ADMIN_RULES: JsonObject[] = [
  ...EDIT_RULES,
  rule([RBAC_GROUP], ["rolebindings", "roles"], [...WRITE, ...READ]),
  rule([AUTHORIZATION], ["localsubjectaccessreviews"], ["create"]),
];

const BOOTSTRAP_META = (name: string): JsonObject => ({
  name,
  labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
});

function clusterRole(name: string, rules: JsonObject[]): KubeObject {
  return { kind: "ClusterRole", apiVersion: `${RBAC_GROUP}/v1`, metadata: BOOTSTRAP_META(name), rules };
}

function groupBinding(name: string, groups: string[]): KubeObject {
  return {
    kind: "ClusterRoleBinding",
    apiVersion: `${RBAC_GROUP}/v1`,
    metadata: BOOTSTRAP_META(name),
    subjects: groups.map((g) => ({ kind: "Group", apiGroup: RBAC_GROUP, name: g })),
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name },
  };
}

export function defaultClusterRoles(): KubeObject[] {
  return [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("admin", ADMIN_RULES),
    clusterRole("edit", EDIT_RULES),
    clusterRole("view", VIEW_RULES),
    clusterRole("system:discovery", [
      urls(["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"], ["get"]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["/healthz", "/livez", "/readyz", "/version", "/version/"], ["get"])]),
    clusterRole("system:basic-user", [
      rule([AUTHORIZATION], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], ["create"]),
      rule([AUTHENTICATION], ["selfsubjectreviews"], ["create"]),
    ]),
  ];
}

export function defaultClusterRoleBindings(): KubeObject[] {
  return [
    groupBinding("cluster-admin", [MASTERS_GROUP]),
    groupBinding("system:discovery", [AUTHENTICATED_GROUP]),
    groupBinding("system:public-info-viewer", [AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP]),
    groupBinding("system:basic-user", [AUTHENTICATED_GROUP]),
  ];
}

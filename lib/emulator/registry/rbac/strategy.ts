/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole (rules), RoleBinding and ClusterRoleBinding
 * (subjects and an immutable roleRef), with the v1 defaults (a User or Group subject's apiGroup)
 * and the real validation texts (pkg/apis/rbac/validation): verbs required, resource rules need
 * apiGroups and resources, non-resource URLs only in cluster roles and never mixed with
 * resources, roleRef kind and apiGroup, subject kinds. Names are path segment names (`:` allowed).
 * Also what auth's authorizer and escalation check ask of these types (rules, subjects, which
 * type is a role or a binding, where a roleRef's role is stored), so auth reads facts from here
 * rather than comparing strategies.
 *
 * Known differences: ClusterRole aggregationRule is stored but never aggregated.
 */
import { type FieldError, invalid, notSupported, required } from "../../apimachinery/field-errors.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import { dns1123Subdomain, pathSegmentName } from "../../apimachinery/name-validation.js";
import { nameOf, namespaceOf, objectHead, validateObjectMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";
import { field, listOf, mapOf, STRING, type StructShape, struct } from "../../apimachinery/typed-json.js";
import type { ResourceStrategy, TypeIdentity, Verb } from "../generic/strategy.js";

export const RBAC_GROUP = "rbac.authorization.k8s.io";
const ALL_VERBS: readonly Verb[] = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

const POLICY_RULE = struct("v1", "PolicyRule", [
  field("verbs", listOf(STRING), "always"),
  field("apiGroups", listOf(STRING)),
  field("resources", listOf(STRING)),
  field("resourceNames", listOf(STRING)),
  field("nonResourceURLs", listOf(STRING)),
]);
const LABEL_SELECTOR_REQUIREMENT = struct("v1", "LabelSelectorRequirement", [
  field("key", STRING, "always"),
  field("operator", STRING, "always"),
  field("values", listOf(STRING)),
]);
const LABEL_SELECTOR = struct("v1", "LabelSelector", [field("matchLabels", mapOf(STRING)), field("matchExpressions", listOf(LABEL_SELECTOR_REQUIREMENT))]);
const AGGREGATION_RULE = struct("v1", "AggregationRule", [field("clusterRoleSelectors", listOf(LABEL_SELECTOR))]);
const SUBJECT = struct("v1", "Subject", [
  field("kind", STRING, "always"),
  field("apiGroup", STRING),
  field("name", STRING, "always"),
  field("namespace", STRING),
]);
const ROLE_REF = struct("v1", "RoleRef", [field("apiGroup", STRING, "always"), field("kind", STRING, "always"), field("name", STRING, "always")]);

const ROLE_SHAPE = struct("v1", "Role", [...objectHead(), field("rules", listOf(POLICY_RULE), "always")]);
const CLUSTER_ROLE_SHAPE = struct("v1", "ClusterRole", [
  ...objectHead(),
  field("rules", listOf(POLICY_RULE), "always"),
  field("aggregationRule", AGGREGATION_RULE, "pointer"),
]);
const ROLE_BINDING_SHAPE = struct("v1", "RoleBinding", [...objectHead(), field("subjects", listOf(SUBJECT)), field("roleRef", ROLE_REF, "always")]);
const CLUSTER_ROLE_BINDING_SHAPE = struct("v1", "ClusterRoleBinding", [
  ...objectHead(),
  field("subjects", listOf(SUBJECT)),
  field("roleRef", ROLE_REF, "always"),
]);

const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);
const strings = (v: Json | undefined): string[] => list(v).filter((x): x is string => typeof x === "string");

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export function rulesOf(o: KubeObject): PolicyRule[] {
  return list(o["rules"])
    .filter(isJsonObject)
    .map((r) => ({
      verbs: strings(r["verbs"]),
      apiGroups: strings(r["apiGroups"]),
      resources: strings(r["resources"]),
      resourceNames: strings(r["resourceNames"]),
      nonResourceURLs: strings(r["nonResourceURLs"]),
    }));
}

export interface Subject {
  readonly kind: string;
  readonly apiGroup: string;
  readonly name: string;
  readonly namespace: string;
}

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

export function subjectsOf(o: KubeObject): Subject[] {
  return list(o["subjects"])
    .filter(isJsonObject)
    .map((s) => ({
      kind: String(s["kind"] ?? ""),
      apiGroup: String(s["apiGroup"] ?? ""),
      name: String(s["name"] ?? ""),
      namespace: String(s["namespace"] ?? ""),
    }));
}

export function roleRefOf(o: KubeObject): RoleRef {
  const r = isJsonObject(o["roleRef"]) ? o["roleRef"] : {};
  return { apiGroup: String(r["apiGroup"] ?? ""), kind: String(r["kind"] ?? ""), name: String(r["name"] ?? "") };
}

function validatePolicyRule(rule: JsonObject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (strings(rule["verbs"]).length === 0) errs.push(required(`${path}.verbs`, "verbs must contain at least one value"));
  const urls = strings(rule["nonResourceURLs"]);
  if (urls.length > 0) {
    if (namespaced) errs.push(invalid(`${path}.nonResourceURLs`, urls, "namespaced rules cannot apply to non-resource URLs"));
    if (strings(rule["apiGroups"]).length || strings(rule["resources"]).length || strings(rule["resourceNames"]).length) {
      errs.push(invalid(`${path}.nonResourceURLs`, urls, "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errs;
  }
  if (strings(rule["apiGroups"]).length === 0) errs.push(required(`${path}.apiGroups`, "resource rules must supply at least one api group"));
  if (strings(rule["resources"]).length === 0) errs.push(required(`${path}.resources`, "resource rules must supply at least one resource"));
  return errs;
}

function validateRole(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs = validateObjectMeta(o, namespaced, pathSegmentName);
  list(o["rules"]).forEach((r, i) => {
    if (isJsonObject(r)) errs.push(...validatePolicyRule(r, namespaced, `rules[${i}]`));
  });
  return errs;
}

function validateSubject(s: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.name === "") errs.push(required(`${path}.name`));
  switch (s.kind) {
    case "ServiceAccount":
      if (s.name !== "") for (const msg of dns1123Subdomain(s.name)) errs.push(invalid(`${path}.name`, s.name, msg));
      if (s.apiGroup !== "") errs.push(notSupported(`${path}.apiGroup`, s.apiGroup, [""]));
      if (!namespaced && s.namespace === "") errs.push(required(`${path}.namespace`));
      break;
    case "User":
    case "Group":
      if (s.apiGroup !== RBAC_GROUP) errs.push(notSupported(`${path}.apiGroup`, s.apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, s.kind, ["ServiceAccount", "User", "Group"]));
  }
  return errs;
}

function validateBinding(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs = validateObjectMeta(o, namespaced, pathSegmentName);
  const ref = roleRefOf(o);
  if (ref.apiGroup !== RBAC_GROUP) errs.push(notSupported("roleRef.apiGroup", ref.apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(ref.kind)) errs.push(notSupported("roleRef.kind", ref.kind, kinds));
  if (ref.name === "") errs.push(required("roleRef.name"));
  else for (const msg of pathSegmentName(ref.name)) errs.push(invalid("roleRef.name", ref.name, msg));
  for (const [i, s] of subjectsOf(o).entries()) errs.push(...validateSubject(s, namespaced, `subjects[${i}]`));
  return errs;
}

/** v1 defaults (SetDefaults_Subject): a User or Group subject without apiGroup gets rbac's. */
function defaultSubjects(o: KubeObject): void {
  for (const s of list(o["subjects"])) {
    if (isJsonObject(s) && (s["apiGroup"] === undefined || s["apiGroup"] === "") && (s["kind"] === "User" || s["kind"] === "Group")) s["apiGroup"] = RBAC_GROUP;
  }
}

function rbacStrategy(init: { resource: string; kind: string; namespaced: boolean; hash: string; shape: StructShape; binding: boolean }): ResourceStrategy {
  const { namespaced, binding } = init;
  const validate = (o: KubeObject): FieldError[] => (binding ? validateBinding(o, namespaced) : validateRole(o, namespaced));
  return {
    group: RBAC_GROUP,
    version: "v1",
    resource: init.resource,
    kind: init.kind,
    listKind: `${init.kind}List`,
    singularName: init.kind.toLowerCase(),
    shortNames: [],
    namespaced,
    verbs: ALL_VERBS,
    storageVersionHash: init.hash,
    storagePrefix: `/registry/${init.resource}`,
    watchCache: true,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    internalKind: { group: RBAC_GROUP, kind: init.kind },
    shape: init.shape,
    fieldLabels: namespaced ? ["metadata.name", "metadata.namespace"] : ["metadata.name"],
    selectableFields: (o): Record<string, string> =>
      namespaced ? { "metadata.name": nameOf(o), "metadata.namespace": namespaceOf(o) } : { "metadata.name": nameOf(o) },
    prepareForCreate: (o) => {
      if (binding) defaultSubjects(o);
    },
    prepareForUpdate: (o) => {
      if (binding) defaultSubjects(o);
    },
    validateCreate: validate,
    validateUpdate(o, old) {
      const errs = validateObjectMetaUpdate(o, old);
      if (binding && JSON.stringify(roleRefOf(o)) !== JSON.stringify(roleRefOf(old))) {
        errs.push(invalid("roleRef", o["roleRef"] ?? null, "cannot change roleRef"));
      }
      return [...errs, ...validate(o)];
    },
    canonicalize() {},
    pendingFinalizers: () => [],
  };
}

const roleStrategy = rbacStrategy({ resource: "roles", kind: "Role", namespaced: true, hash: "7FuwZcIIItM=", shape: ROLE_SHAPE, binding: false });
export const clusterRoleStrategy = rbacStrategy({
  resource: "clusterroles",
  kind: "ClusterRole",
  namespaced: false,
  hash: "bYE5ZWDrJ44=",
  shape: CLUSTER_ROLE_SHAPE,
  binding: false,
});
export const roleBindingStrategy = rbacStrategy({
  resource: "rolebindings",
  kind: "RoleBinding",
  namespaced: true,
  hash: "eGsCzGH6b1g=",
  shape: ROLE_BINDING_SHAPE,
  binding: true,
});
export const clusterRoleBindingStrategy = rbacStrategy({
  resource: "clusterrolebindings",
  kind: "ClusterRoleBinding",
  namespaced: false,
  hash: "48tpQ8gZHFc=",
  shape: CLUSTER_ROLE_BINDING_SHAPE,
  binding: true,
});

export const RBAC_STRATEGIES: readonly ResourceStrategy[] = [clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy];

/** What a type is to RBAC: a role (Role, ClusterRole: it grants rules), a binding (RoleBinding, ClusterRoleBinding: it grants a role), or neither. */
export function rbacKindOf(strategy: TypeIdentity): "role" | "binding" | undefined {
  if (strategy === roleStrategy || strategy === clusterRoleStrategy) return "role";
  if (strategy === roleBindingStrategy || strategy === clusterRoleBindingStrategy) return "binding";
  return undefined;
}

/** Where the role a roleRef names is stored: a Role in the binding's namespace, anything else a ClusterRole. */
export function referencedRole(ref: Pick<RoleRef, "kind">, bindingNamespace: string): { readonly strategy: ResourceStrategy; readonly namespace: string } {
  return ref.kind === "Role" ? { strategy: roleStrategy, namespace: bindingNamespace } : { strategy: clusterRoleStrategy, namespace: "" };
}

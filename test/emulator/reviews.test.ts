/**
 * The review types (wire-facts §17): served with and without auth (without: AlwaysAllow, and no
 * token authenticator), discovery included, and SelfSubjectRulesReview's contents for a
 * ServiceAccount with a Role, for system:masters and for anonymous.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, uniq } from "./support.js";

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

const AUTHZ = "/apis/authorization.k8s.io/v1";
const AUTHN = "/apis/authentication.k8s.io/v1";
const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const SSRR = `${AUTHZ}/selfsubjectrulesreviews`;
const rulesReview = (namespace?: string) => ({ apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", spec: namespace ? { namespace } : {} });
const ALL_RULES = {
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false,
};

describe("reviews without auth", () => {
  it("are served and discovered; answers come from AlwaysAllow, and no token is authenticated", async () => {
    const emu = await startEmulator({ port: 0 });
    started.push(emu);
    const call = client(emu.url);
    const groups = (await call("GET", "/apis")).json.groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(expect.arrayContaining(["authentication.k8s.io", "authorization.k8s.io"]));
    const authz = (await call("GET", AUTHZ)).json.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs]);
    expect(authz).toEqual(
      expect.arrayContaining([
        ["selfsubjectrulesreviews", ["create"]],
        ["selfsubjectaccessreviews", ["create"]],
        ["subjectaccessreviews", ["create"]],
        ["localsubjectaccessreviews", ["create"]],
      ]),
    );
    const authn = (await call("GET", AUTHN)).json.resources.map((r: { name: string }) => r.name);
    expect(authn).toEqual(expect.arrayContaining(["selfsubjectreviews", "tokenreviews"]));

    const sar = await call("POST", `${AUTHZ}/subjectaccessreviews`, {
      spec: { user: "nobody", resourceAttributes: { verb: "delete", resource: "namespaces" } },
    });
    expect(sar.status, sar.text).toBe(201);
    expect(sar.json.status).toEqual({ allowed: true });
    const ssar = await call("POST", `${AUTHZ}/selfsubjectaccessreviews`, { spec: { nonResourceAttributes: { verb: "get", path: "/x" } } });
    expect(ssar.json.status).toEqual({ allowed: true });
    const ssrr = await call("POST", SSRR, rulesReview("default"));
    expect(ssrr.status, ssrr.text).toBe(201);
    expect(ssrr.json).toEqual({ kind: "SelfSubjectRulesReview", apiVersion: "authorization.k8s.io/v1", metadata: {}, spec: {}, status: ALL_RULES });
    const tr = await call("POST", `${AUTHN}/tokenreviews`, { spec: { token: "anything" } });
    expect(tr.status, tr.text).toBe(201);
    expect(tr.json.status).toEqual({ user: {} });
  });
});

describe("SelfSubjectRulesReview with auth", () => {
  async function setup() {
    const emu = await startEmulator({ port: 0, auth: true });
    started.push(emu);
    const raw = client(emu.url);
    const admin = (method: string, path: string, body?: unknown) => raw(method, path, body, { headers: { authorization: `Bearer ${emu.adminToken}` } });
    const ns = uniq("ssrr");
    expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
    return { raw, admin, ns };
  }

  it("needs a namespace: 400 `no namespace on request`", async () => {
    const { admin } = await setup();
    const r = await admin("POST", SSRR, rulesReview());
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("no namespace on request");
  });

  it("lists a ServiceAccount's Role rules in its namespace, and only the cluster-wide ones elsewhere", async () => {
    const { raw, admin, ns } = await setup();
    expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" } })).status).toBe(201);
    const role = {
      metadata: { name: "cm" },
      rules: [
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
        { apiGroups: [""], resources: ["configmaps"], resourceNames: ["one"], verbs: ["delete"] },
      ],
    };
    expect((await admin("POST", `${RBAC}/namespaces/${ns}/roles`, role)).status).toBe(201);
    const rb = {
      metadata: { name: "cm" },
      subjects: [{ kind: "ServiceAccount", name: "robot", namespace: ns }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cm" },
    };
    expect((await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, rb)).status).toBe(201);
    const token = (await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: {} })).json.status.token;
    const robot = (namespace: string) => raw("POST", SSRR, rulesReview(namespace), { headers: { authorization: `Bearer ${token}` } });
    const inNs = await robot(ns);
    expect(inNs.status, inNs.text).toBe(201);
    // The default cluster-wide grants to system:authenticated come first (cluster role bindings), then the Role's.
    const basic = [
      { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] },
      { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] },
    ];
    expect(inNs.json.status.resourceRules).toEqual([
      ...basic,
      { verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"] },
      { verbs: ["delete"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["one"] },
    ]);
    expect(inNs.json.status.incomplete).toBe(false);
    expect(inNs.json.status.nonResourceRules).toContainEqual({ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] });
    expect(inNs.json.status.evaluationError).toBeUndefined();
    const elsewhere = await robot("default");
    expect(elsewhere.json.status.resourceRules).toEqual(basic);
  });

  it("reports a binding to a missing role in evaluationError, still complete", async () => {
    const { admin, ns } = await setup();
    const rb = {
      metadata: { name: "ghost" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "tollgate-admin" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "ghost" },
    };
    expect((await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, rb)).status).toBe(201);
    const r = await admin("POST", SSRR, rulesReview(ns));
    expect(r.json.status.incomplete).toBe(false);
    expect(r.json.status.evaluationError).toBe('role.rbac.authorization.k8s.io "ghost" not found');
  });

  it("shows system:masters the `*` rules cluster-admin grants it", async () => {
    const { admin, ns } = await setup();
    const r = await admin("POST", SSRR, rulesReview(ns));
    expect(r.status, r.text).toBe(201);
    expect(r.json.status.resourceRules[0]).toEqual({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
    expect(r.json.status.nonResourceRules).toContainEqual({ verbs: ["*"], nonResourceURLs: ["*"] });
  });

  it("is refused to anonymous by default, and lists only the public non-resource rules once allowed", async () => {
    const { raw, admin, ns } = await setup();
    const refused = await raw("POST", SSRR, rulesReview(ns));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      'selfsubjectrulesreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectrulesreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
    const rules = [{ apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectrulesreviews"], verbs: ["create"] }];
    expect((await admin("POST", `${RBAC}/clusterroles`, { metadata: { name: "anon-rules" }, rules })).status).toBe(201);
    const crb = {
      metadata: { name: "anon-rules" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "system:anonymous" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "anon-rules" },
    };
    expect((await admin("POST", `${RBAC}/clusterrolebindings`, crb)).status).toBe(201);
    const r = await raw("POST", SSRR, rulesReview(ns));
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toEqual({
      resourceRules: [{ verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectrulesreviews"] }],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] }],
      incomplete: false,
    });
  });
});

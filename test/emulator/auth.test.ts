/**
 * Authentication and RBAC in the emulator (auth: true): 401 for unknown tokens, anonymous
 * limits, ServiceAccount tokens through the TokenRequest subresource, Roles and RoleBindings,
 * the 403 texts, dry runs, escalation prevention, and the unsafe force delete's second verb.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, uniq } from "./support.js";

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

async function setup(options: EmulatorOptions = {}) {
  const emu = await startEmulator({ port: 0, auth: true, ...options });
  started.push(emu);
  const raw = client(emu.url);
  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    raw(method, path, body, { headers: { authorization: `Bearer ${emu.adminToken}`, ...headers } });
  const as = (token: string) => (method: string, path: string, body?: unknown) => raw(method, path, body, { headers: { authorization: `Bearer ${token}` } });
  const ns = uniq("auth");
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  return { emu, raw, admin, as, ns };
}

/** A ServiceAccount with a Role over configmaps (the given verbs) bound to it, and its token. */
async function serviceAccountWith(s: Awaited<ReturnType<typeof setup>>, verbs: string[], name = "robot") {
  const { admin, ns } = s;
  expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } })).status).toBe(201);
  const role = { metadata: { name: `${name}-role` }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs }] };
  expect((await admin("POST", `${RBAC}/namespaces/${ns}/roles`, role)).status).toBe(201);
  const binding = {
    metadata: { name: `${name}-binding` },
    subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${name}-role` },
  };
  const rb = await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, binding);
  expect(rb.status, rb.text).toBe(201);
  const tr = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: {},
  });
  expect(tr.status, tr.text).toBe(201);
  return tr.json.status.token as string;
}

describe("authentication", () => {
  it("is off by default: no token needed; the RBAC types still served, the default roles seeded (a real server's, whatever its authorizer)", async () => {
    const emu = await startEmulator({ port: 0 });
    started.push(emu);
    const call = client(emu.url);
    expect(emu.adminToken).toBeUndefined();
    expect((await call("GET", "/api/v1/namespaces")).status).toBe(200);
    const roles = await call("GET", `${RBAC}/clusterroles`);
    expect(roles.status).toBe(200);
    expect(roles.json.items.map((r: { metadata: { name: string } }) => r.metadata.name)).toEqual(expect.arrayContaining(["cluster-admin", "view"]));
  });

  it("answers an unknown token 401 Unauthorized, everywhere", async () => {
    const { raw } = await setup();
    for (const path of ["/api/v1/namespaces", "/healthz", "/version", "/nowhere"]) {
      const r = await raw("GET", path, undefined, { headers: { authorization: "Bearer nope" } });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    }
  });

  it("lets anonymous callers read health and /version only; discovery and resources are 403 with the real texts", async () => {
    const { raw, ns } = await setup();
    for (const path of ["/healthz", "/livez", "/readyz", "/version"]) expect((await raw("GET", path)).status, path).toBe(200);
    const apis = await raw("GET", "/apis");
    expect(apis.status).toBe(403);
    expect(apis.json).toMatchObject({ reason: "Forbidden", code: 403, message: 'forbidden: User "system:anonymous" cannot get path "/apis"', details: {} });
    const list = await raw("GET", `/api/v1/namespaces/${ns}/configmaps`);
    expect(list.json.message).toBe(
      `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    expect(list.json.details).toEqual({ kind: "configmaps" });
    const one = await raw("GET", `/api/v1/namespaces/${ns}/configmaps/x`);
    expect(one.json.message).toBe(
      `configmaps "x" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    expect(one.json.details).toEqual({ name: "x", kind: "configmaps" });
    const crb = await raw("GET", `${RBAC}/clusterrolebindings`);
    expect(crb.json.message).toBe(
      'clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "system:anonymous" cannot list resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    // Before routing: a type nobody serves is still 403, not 404.
    expect((await raw("GET", "/apis/nothing.example/v1/things")).status).toBe(403);
    const watch = await raw("GET", `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    expect(watch.json.message).toContain('cannot watch resource "configmaps"');
  });

  it("serves the admin token as system:masters", async () => {
    const { admin } = await setup();
    const r = await admin("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo.groups).toContain("system:masters");
    expect((await admin("GET", "/apis")).status).toBe(200);
  });
});

describe("service accounts and their tokens", () => {
  it("issues a token (default 3600 s) that acts within the bound role; the role's limits give 403", async () => {
    const s = await setup();
    const { admin, as, ns, emu } = s;
    const token = await serviceAccountWith(s, ["get", "list", "create"]);
    const robot = as(token);
    expect((await robot("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("a", { k: "v" }))).status).toBe(201);
    expect((await robot("GET", `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
    const del = await robot("DELETE", `/api/v1/namespaces/${ns}/configmaps/a`);
    expect(del.status).toBe(403);
    expect(del.json.message).toBe(
      `configmaps "a" is forbidden: User "system:serviceaccount:${ns}:robot" cannot delete resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    // Namespaced types are authorized on the namespace scope: the cluster-wide list is refused.
    expect((await robot("GET", "/api/v1/configmaps")).status).toBe(403);
    expect((await robot("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(403);
    // A dry run needs exactly the real request's authorization.
    expect((await robot("DELETE", `/api/v1/namespaces/${ns}/configmaps/a?dryRun=All`)).status).toBe(403);
    expect((await robot("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMapBody("b", {}))).status).toBe(201);
    // Discovery is open to any authenticated user.
    expect((await robot("GET", "/api")).status).toBe(200);

    const tr = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: {} });
    expect(tr.json).toMatchObject({ kind: "TokenRequest", apiVersion: "authentication.k8s.io/v1", spec: { expirationSeconds: 3600 } });
    const expires = Date.parse(tr.json.status.expirationTimestamp) - Date.now();
    expect(expires).toBeGreaterThan(3590_000);
    expect(expires).toBeLessThan(3610_000);
    void emu;
  });

  it("validates expirationSeconds (600 minimum) and needs the account (404)", async () => {
    const s = await setup();
    const { admin, ns } = s;
    await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "sa" } });
    const short = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/sa/token`, { spec: { expirationSeconds: 599 } });
    expect(short.status).toBe(422);
    expect(short.json.message).toBe(
      'TokenRequest.authentication.k8s.io "sa" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
    );
    expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/sa/token`, { spec: { expirationSeconds: 600 } })).status).toBe(201);
    expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/nobody/token`, { spec: {} })).status).toBe(404);
    expect((await admin("GET", `/api/v1/namespaces/${ns}/serviceaccounts/sa/token`)).status).toBe(405);
  });

  it("invalidates the tokens of a deleted account (401), and of one re-created with the same name", async () => {
    const s = await setup();
    const { admin, as, ns } = s;
    const token = await serviceAccountWith(s, ["list"]);
    // A second token, first presented only after the account is re-created under the same name.
    const unused = (await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, {})).json.status.token as string;
    expect((await as(token)("GET", `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
    expect((await admin("DELETE", `/api/v1/namespaces/${ns}/serviceaccounts/robot`)).status).toBe(200);
    expect((await as(token)("GET", `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(401);
    await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" } });
    expect((await as(unused)("GET", `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(401);
  });

  it("lists service accounts in discovery with the token subresource as a TokenRequest", async () => {
    const { admin } = await setup();
    const core = await admin("GET", "/api/v1");
    const token = core.json.resources.find((r: { name: string }) => r.name === "serviceaccounts/token");
    expect(token).toEqual({
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
    const authz = await admin("GET", "/apis/authorization.k8s.io/v1");
    expect(authz.json.resources.map((r: { name: string }) => r.name)).toEqual([
      "localsubjectaccessreviews",
      "selfsubjectaccessreviews",
      "selfsubjectrulesreviews",
      "subjectaccessreviews",
    ]);
  });
});

describe("RBAC objects", () => {
  it("validates rules and bindings with the real texts", async () => {
    const { admin, ns } = await setup();
    const role = await admin("POST", `${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: "r" },
      rules: [
        { resources: ["pods"], verbs: [] },
        { nonResourceURLs: ["/x"], verbs: ["get"] },
      ],
    });
    expect(role.status).toBe(422);
    expect(role.json.details.causes.map((c: { field: string }) => c.field)).toEqual(["rules[0].verbs", "rules[0].apiGroups", "rules[1].nonResourceURLs"]);
    const rb = await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: "b" },
      subjects: [{ kind: "Robot", name: "x" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Thing", name: "r" },
    });
    expect(rb.status).toBe(422);
    expect(rb.json.message).toContain('roleRef.kind: Unsupported value: "Thing": supported values: "Role", "ClusterRole"');
    expect(rb.json.message).toContain('subjects[0].kind: Unsupported value: "Robot"');
    const ok = await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: "b" },
      subjects: [{ kind: "User", name: "u" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    });
    expect(ok.status).toBe(201);
    expect(ok.json.subjects).toEqual([{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "u" }]);
    const change = await admin("PUT", `${RBAC}/namespaces/${ns}/rolebindings/b`, { ...ok.json, roleRef: { ...ok.json.roleRef, name: "edit" } });
    expect(change.status).toBe(422);
    expect(change.json.message).toContain("roleRef: Invalid value:");
    expect(change.json.message).toContain("cannot change roleRef");
  });

  it("limits a rule with resourceNames to those names (and never to a list)", async () => {
    const s = await setup();
    const { admin, as, ns } = s;
    const token = await serviceAccountWith(s, ["get", "list"]);
    await admin("PUT", `${RBAC}/namespaces/${ns}/roles/robot-role`, {
      metadata: { name: "robot-role" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["mine"], verbs: ["get", "list"] }],
    });
    await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("mine", {}));
    await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("theirs", {}));
    const robot = as(token);
    expect((await robot("GET", `/api/v1/namespaces/${ns}/configmaps/mine`)).status).toBe(200);
    expect((await robot("GET", `/api/v1/namespaces/${ns}/configmaps/theirs`)).status).toBe(403);
    expect((await robot("GET", `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(403);
    // A list pinned to the name by a field selector is authorized for that name.
    expect((await robot("GET", `/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dmine`)).status).toBe(200);
  });

  it("seeds the default cluster roles and bindings", async () => {
    const { admin } = await setup();
    const names = (await admin("GET", `${RBAC}/clusterroles`)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    for (const n of ["cluster-admin", "admin", "edit", "view", "system:discovery", "system:public-info-viewer", "system:basic-user"])
      expect(names).toContain(n);
    const crb = await admin("GET", `${RBAC}/clusterrolebindings/cluster-admin`);
    expect(crb.json.subjects).toEqual([{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "system:masters" }]);
  });

  it("refuses to let a user grant what it does not hold (escalation), and allows what it holds", async () => {
    const s = await setup();
    const { admin, as, ns } = s;
    // The robot may manage roles and bindings, and only read configmaps.
    await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "mgr" } });
    await admin("POST", `${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: "mgr" },
      rules: [
        { apiGroups: ["rbac.authorization.k8s.io"], resources: ["roles", "rolebindings"], verbs: ["create"] },
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
      ],
    });
    await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: "mgr" },
      subjects: [{ kind: "ServiceAccount", name: "mgr" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "mgr" },
    });
    const token = (await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/mgr/token`, {})).json.status.token as string;
    const mgr = as(token);
    const held = await mgr("POST", `${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    });
    expect(held.status, held.text).toBe(201);
    const more = await mgr("POST", `${RBAC}/namespaces/${ns}/roles`, {
      metadata: { name: "writer" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "delete", "update"] }],
    });
    expect(more.status).toBe(403);
    expect(more.json.message).toBe(
      `roles.rbac.authorization.k8s.io "writer" is forbidden: user "system:serviceaccount:${ns}:mgr" (groups=["system:serviceaccounts" "system:serviceaccounts:${ns}" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete" "update"]}`,
    );
    const bindEdit = await mgr("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: "e" },
      subjects: [{ kind: "User", name: "u" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
    });
    expect(bindEdit.status).toBe(403);
    const bindHeld = await mgr("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: "r" },
      subjects: [{ kind: "User", name: "u" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
    });
    expect(bindHeld.status, bindHeld.text).toBe(201);
  });
});

describe("reviews", () => {
  it("answers SubjectAccessReviews from RBAC, with the real reasons, storing nothing", async () => {
    const s = await setup();
    const { admin, ns } = s;
    await serviceAccountWith(s, ["get"]);
    const sar = (spec: unknown) =>
      admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec });
    const user = `system:serviceaccount:${ns}:robot`;
    const yes = await sar({ user, resourceAttributes: { namespace: ns, verb: "get", resource: "configmaps" } });
    expect(yes.status).toBe(201);
    expect(yes.json.status).toEqual({
      allowed: true,
      reason: `RBAC: allowed by RoleBinding "robot-binding/${ns}" of Role "robot-role" to ServiceAccount "robot/${ns}"`,
    });
    expect((await sar({ user, resourceAttributes: { namespace: ns, verb: "delete", resource: "configmaps" } })).json.status).toEqual({ allowed: false });
    expect((await sar({ groups: ["system:masters"], resourceAttributes: { verb: "delete", resource: "nodes" } })).json.status).toEqual({ allowed: true });
    const pub = await sar({ groups: ["system:unauthenticated"], nonResourceAttributes: { path: "/healthz", verb: "get" } });
    expect(pub.json.status.reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
    );
    const bad = await sar({ resourceAttributes: { verb: "get" } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    expect((await sar({ user: "u" })).json.details.causes[0].field).toBe("spec.resourceAttributes");
    expect((await admin("GET", "/apis/authorization.k8s.io/v1/subjectaccessreviews")).status).toBe(405);
  });

  it("answers self and local reviews for the caller, and TokenReviews", async () => {
    const s = await setup();
    const { admin, as, ns } = s;
    const token = await serviceAccountWith(s, ["list"]);
    const robot = as(token);
    const self = await robot("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      spec: { resourceAttributes: { namespace: ns, verb: "list", resource: "configmaps" } },
    });
    expect(self.status).toBe(201);
    expect(self.json.status.allowed).toBe(true);
    const local = await admin("POST", `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`, {
      spec: { user: "x", resourceAttributes: { namespace: "other", verb: "list", resource: "configmaps" } },
    });
    expect(local.status).toBe(400);
    expect(local.json.message).toBe(`spec.resourceAttributes.namespace must match namespace: ${ns}`);
    const review = await admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token } });
    expect(review.status).toBe(201);
    expect(review.json.status).toMatchObject({
      authenticated: true,
      user: { username: `system:serviceaccount:${ns}:robot`, groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"] },
    });
    expect((await admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "nope" } })).json.status).toEqual({ user: {} });
    expect((await admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: {} })).status).toBe(400);
    // A token review is not for everyone.
    expect((await robot("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token } })).status).toBe(403);
  });
});

describe("the unsafe force delete", () => {
  it("needs unsafe-delete-ignore-read-errors besides delete", async () => {
    const s = await setup({ admin: true, featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
    const { admin, as, ns } = s;
    const token = await serviceAccountWith(s, ["delete"]);
    await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("c", {}));
    expect((await admin("POST", "/tollgate/admin/corrupt", { path: `/api/v1/namespaces/${ns}/configmaps/c` })).status).toBe(200);
    const body = { kind: "DeleteOptions", apiVersion: "v1", ignoreStoreReadErrorWithClusterBreakingPotential: true };
    const refused = await as(token)("DELETE", `/api/v1/namespaces/${ns}/configmaps/c`, body);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('configmaps "c" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: ');
    await admin("PUT", `${RBAC}/namespaces/${ns}/roles/robot-role`, {
      metadata: { name: "robot-role" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["delete", "unsafe-delete-ignore-read-errors"] }],
    });
    expect((await as(token)("DELETE", `/api/v1/namespaces/${ns}/configmaps/c`, body)).status).toBe(200);
  });
});

describe("tollgate emulator --auth", () => {
  it("turns auth on only when asked, with an optional admin token", async () => {
    const { parseEmulatorArgs } = await import("../../lib/cli/emulator.js");
    expect(parseEmulatorArgs([]).auth).toBeUndefined();
    expect(parseEmulatorArgs(["--auth"])).toMatchObject({ auth: true });
    expect(parseEmulatorArgs(["--auth", "--admin-token", "s3cret"])).toMatchObject({ auth: true, adminToken: "s3cret" });
    expect(() => parseEmulatorArgs(["--admin-token", "s3cret"])).toThrow("--admin-token needs --auth");
    const emu = await startEmulator({ port: 0, auth: true, adminToken: "s3cret" });
    started.push(emu);
    expect(emu.adminToken).toBe("s3cret");
    expect((await client(emu.url)("GET", "/api", undefined, { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
  });
});

describe("generated admin tokens", () => {
  it("are plain hex, so `--token T` on a command line never reads as an option", async () => {
    const { resolveSettings } = await import("../../lib/emulator/options.js");
    for (let i = 0; i < 50; i++) expect(resolveSettings({ auth: true }).adminToken).toMatch(/^[0-9a-f]{48}$/);
  });
});

/**
 * Impersonation (wire-facts §15): the Impersonate-* headers, the `impersonate` check on each
 * item with the real 403 texts, the impersonated user's own permissions, SelfSubjectReview as
 * the impersonated user, and the same headers without auth (AlwaysAllow: anyone may).
 */
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { uniq } from "./support.js";

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
type Headers = Record<string, string | string[]>;

async function call(base: string, method: string, path: string, body: unknown, headers: Headers) {
  const res = await request(base + path, {
    method: method as "GET",
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) };
}

async function setup(auth: boolean) {
  const emu = await startEmulator({ port: 0, auth });
  started.push(emu);
  const admin = (method: string, path: string, body?: unknown, headers: Headers = {}) =>
    call(emu.url, method, path, body, auth ? { authorization: `Bearer ${emu.adminToken}`, ...headers } : headers);
  const ns = uniq("imp");
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  return { emu, admin, ns };
}

/** A ServiceAccount "alice" that may impersonate exactly what `rules` say (a ClusterRole), and its token. */
async function impersonator(s: Awaited<ReturnType<typeof setup>>, rules: unknown[]) {
  const { admin, ns } = s;
  const name = uniq("alice");
  expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } })).status).toBe(201);
  expect((await admin("POST", `${RBAC}/clusterroles`, { metadata: { name }, rules })).status).toBe(201);
  const crb = {
    metadata: { name },
    subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
  };
  expect((await admin("POST", `${RBAC}/clusterrolebindings`, crb)).status).toBe(201);
  const tr = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { spec: {} });
  expect(tr.status).toBe(201);
  return { username: `system:serviceaccount:${ns}:${name}`, auth: { authorization: `Bearer ${tr.json.status.token}` } };
}

describe("impersonation with auth", () => {
  it("acts as the impersonated ServiceAccount: its groups, its permissions (a delete without the right is 403)", async () => {
    const s = await setup(true);
    const { admin, ns } = s;
    expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "sa" } })).status).toBe(201);
    expect((await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "cm" } })).status).toBe(201);
    const as = { "impersonate-user": `system:serviceaccount:${ns}:sa` };
    const who = await admin("POST", SSR, {}, as);
    expect(who.status).toBe(201);
    expect(who.json.status.userInfo).toEqual({
      username: `system:serviceaccount:${ns}:sa`,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
    });
    const del = await admin("DELETE", `/api/v1/namespaces/${ns}/configmaps/cm`, undefined, as);
    expect(del.status).toBe(403);
    expect(del.json.message).toBe(
      `configmaps "cm" is forbidden: User "system:serviceaccount:${ns}:sa" cannot delete resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    expect((await admin("GET", `/api/v1/namespaces/${ns}/configmaps/cm`)).status).toBe(200);
    const ssar = await admin(
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      { spec: { resourceAttributes: { namespace: ns, verb: "create", resource: "configmaps" } } },
      as,
    );
    expect(ssar.json.status).toEqual({ allowed: false });
  });

  it("takes repeated groups, a uid and percent-decoded extra keys; groups given replace the defaults", async () => {
    const { admin } = await setup(true);
    const who = await admin(
      "POST",
      SSR,
      {},
      {
        "impersonate-user": "bob",
        "impersonate-group": ["dev", "ops"],
        "impersonate-uid": "u-1",
        "impersonate-extra-Example.com%2fScopes": ["a", "b"],
      },
    );
    expect(who.status, who.text).toBe(201);
    expect(who.json.status.userInfo).toEqual({
      username: "bob",
      uid: "u-1",
      groups: ["dev", "ops", "system:authenticated"],
      extra: { "example.com/scopes": ["a", "b"] },
    });
    // system:unauthenticated given: no system:authenticated added; system:anonymous gets system:unauthenticated.
    // Unauthenticated users may not review themselves by default (system:basic-user is for system:authenticated).
    const refused = await admin("POST", SSR, {}, { "impersonate-user": "system:anonymous" });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    const crb = {
      metadata: { name: "basic-unauthenticated" },
      subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "system:unauthenticated" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:basic-user" },
    };
    expect((await admin("POST", `${RBAC}/clusterrolebindings`, crb)).status).toBe(201);
    const unauth = await admin("POST", SSR, {}, { "impersonate-user": "carol", "impersonate-group": "system:unauthenticated" });
    expect(unauth.json.status.userInfo).toEqual({ username: "carol", groups: ["system:unauthenticated"] });
    const anon = await admin("POST", SSR, {}, { "impersonate-user": "system:anonymous" });
    expect(anon.json.status.userInfo).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("refuses groups, extras or a uid without a user: the real filter's 500", async () => {
    const { admin } = await setup(true);
    const r = await admin("GET", "/api/v1/namespaces", undefined, { "impersonate-group": "dev", "impersonate-uid": "u-1" });
    expect(r.status).toBe(500);
    expect(r.json.reason).toBe("InternalError");
    expect(r.json.message).toBe("Internal error occurred: requested [{Group  dev    } {UID  u-1  authentication.k8s.io/v1  }] without impersonating a user");
  });

  it("checks `impersonate` on every item, the first denial a 403 with the real text", async () => {
    const s = await setup(true);
    const { admin, ns } = s;
    const verb = ["impersonate"];
    const alice = await impersonator(s, [
      { apiGroups: [""], resources: ["users"], resourceNames: ["bob"], verbs: verb },
      { apiGroups: [""], resources: ["groups"], resourceNames: ["dev"], verbs: verb },
      { apiGroups: ["authentication.k8s.io"], resources: ["uids"], resourceNames: ["u-1"], verbs: verb },
      { apiGroups: ["authentication.k8s.io"], resources: ["userextras/scopes"], resourceNames: ["a"], verbs: verb },
    ]);
    const u = alice.username;
    const as = (headers: Headers) => admin("POST", SSR, {}, { ...headers, ...alice.auth });
    const ok = await as({ "impersonate-user": "bob", "impersonate-group": "dev", "impersonate-uid": "u-1", "impersonate-extra-scopes": "a" });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.status.userInfo).toEqual({ username: "bob", uid: "u-1", groups: ["dev", "system:authenticated"], extra: { scopes: ["a"] } });
    const denied: Array<[Headers, string]> = [
      [{ "impersonate-user": "eve" }, `users "eve" is forbidden: User "${u}" cannot impersonate resource "users" in API group "" at the cluster scope`],
      [
        { "impersonate-user": `system:serviceaccount:${ns}:sa` },
        `serviceaccounts "sa" is forbidden: User "${u}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "${ns}"`,
      ],
      [
        { "impersonate-user": "bob", "impersonate-group": ["dev", "system:masters"] },
        `groups "system:masters" is forbidden: User "${u}" cannot impersonate resource "groups" in API group "" at the cluster scope`,
      ],
      [
        { "impersonate-user": "bob", "impersonate-uid": "u-2" },
        `uids.authentication.k8s.io "u-2" is forbidden: User "${u}" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`,
      ],
      [
        { "impersonate-user": "bob", "impersonate-extra-scopes": "b" },
        `userextras.authentication.k8s.io "b" is forbidden: User "${u}" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`,
      ],
    ];
    for (const [headers, message] of denied) {
      const r = await as(headers);
      expect(r.status, message).toBe(403);
      expect(r.json.reason).toBe("Forbidden");
      expect(r.json.message).toBe(message);
    }
  });
});

describe("impersonation without auth (AlwaysAllow)", () => {
  it("lets anyone impersonate anyone; SelfSubjectReview shows the impersonated user, else the administrator", async () => {
    const { admin, ns } = await setup(false);
    const me = await admin("POST", SSR, {});
    expect(me.status, me.text).toBe(201);
    expect(me.json.status.userInfo).toEqual({ username: "system:admin", groups: ["system:masters", "system:authenticated"] });
    const who = await admin("POST", SSR, {}, { "impersonate-user": `system:serviceaccount:${ns}:sa`, "impersonate-extra-k": "v" });
    expect(who.json.status.userInfo).toEqual({
      username: `system:serviceaccount:${ns}:sa`,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
      extra: { k: ["v"] },
    });
    // AlwaysAllow: the impersonated user may do anything too.
    const cm = await admin("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "cm" } }, { "impersonate-user": "nobody" });
    expect(cm.status).toBe(201);
    const bad = await admin("GET", "/api/v1/namespaces", undefined, { "impersonate-group": "dev" });
    expect(bad.status).toBe(500);
    expect(bad.json.message).toBe("Internal error occurred: requested [{Group  dev    }] without impersonating a user");
  });
});

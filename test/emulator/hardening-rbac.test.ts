/**
 * RBAC escalation prevention on role and binding writes (issue #15, wire-facts §16): a binding
 * is allowed for system:masters, with `bind` on the referenced role, or when the author holds
 * every rule of the role; a missing role is then 404, so a binding to a role an admin creates
 * later cannot grant what its author never held (the old bypass). Updates that change only
 * ownerReferences or finalizers are not checked; role writes need `escalate` (name from the
 * URL) or every rule held. Refusals carry the real texts, the missing rules sorted one per line.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, uniq } from "./support.js";

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

const RBAC_GROUP = "rbac.authorization.k8s.io";
const RBAC = `/apis/${RBAC_GROUP}/v1`;

type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[]; verbs: string[] };

async function setup() {
  const emu = await startEmulator({ port: 0, auth: true });
  started.push(emu);
  const raw = client(emu.url);
  const as =
    (token: string) =>
    (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      raw(method, path, body, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const admin = as(emu.adminToken ?? "");
  const ns = uniq("hrbac");
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  /** A ServiceAccount holding exactly these rules in the namespace (and `cluster` cluster-wide), and a client acting as it. */
  const account = async (name: string, rules: Rule[], cluster: Rule[] = []) => {
    expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } })).status).toBe(201);
    expect((await admin("POST", `${RBAC}/namespaces/${ns}/roles`, { metadata: { name: `${name}-own` }, rules })).status).toBe(201);
    const rb = await admin("POST", `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: `${name}-own` },
      subjects: [{ kind: "ServiceAccount", name }],
      roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: `${name}-own` },
    });
    expect(rb.status, rb.text).toBe(201);
    if (cluster.length) {
      expect((await admin("POST", `${RBAC}/clusterroles`, { metadata: { name: `${ns}-${name}` }, rules: cluster })).status).toBe(201);
      const crb = await admin("POST", `${RBAC}/clusterrolebindings`, {
        metadata: { name: `${ns}-${name}` },
        subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
        roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: `${ns}-${name}` },
      });
      expect(crb.status, crb.text).toBe(201);
    }
    const tr = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { spec: {} });
    expect(tr.status, tr.text).toBe(201);
    return as(tr.json.status.token as string);
  };
  const userText = (name: string) =>
    `user "system:serviceaccount:${ns}:${name}" (groups=["system:serviceaccounts" "system:serviceaccounts:${ns}" "system:authenticated"])`;
  return { emu, raw, admin, as, ns, account, userText };
}

const WRITE_BINDINGS: Rule = { apiGroups: [RBAC_GROUP], resources: ["rolebindings"], verbs: ["create", "update", "patch", "get"] };
const binding = (name: string, kind: "Role" | "ClusterRole", role: string, subject = "someone") => ({
  metadata: { name },
  subjects: [{ kind: "User", name: subject }],
  roleRef: { apiGroup: RBAC_GROUP, kind, name: role },
});

describe("a binding to a role that does not exist", () => {
  it("is 404 for a user without bind, so a role created later grants nothing through it (the old bypass)", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [WRITE_BINDINGS]);
    const early = await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("early", "Role", "future", `system:serviceaccount:${s.ns}:mgr`));
    expect(early.status, early.text).toBe(404);
    expect(early.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `roles.${RBAC_GROUP} "future" not found`,
      reason: "NotFound",
      details: { name: "future", group: RBAC_GROUP, kind: "roles" },
      code: 404,
    });
    // An admin creates the role later: the refused binding does not exist, so it grants nothing.
    const role = { metadata: { name: "future" }, rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }] };
    expect((await s.admin("POST", `${RBAC}/namespaces/${s.ns}/roles`, role)).status).toBe(201);
    expect((await s.admin("GET", `${RBAC}/namespaces/${s.ns}/rolebindings/early`)).status).toBe(404);
    expect((await mgr("GET", `/api/v1/namespaces/${s.ns}/secrets`)).status).toBe(403);
    // And now that the role exists, the binding is refused for what it would grant.
    const late = await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("late", "Role", "future"));
    expect(late.status).toBe(403);
    expect(late.json.message).toBe(
      `rolebindings.${RBAC_GROUP} "late" is forbidden: ${s.userText("mgr")} is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}`,
    );
  });

  it("is 404 clusterroles for a ClusterRoleBinding or a RoleBinding to a missing ClusterRole", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [WRITE_BINDINGS], [{ apiGroups: [RBAC_GROUP], resources: ["clusterrolebindings"], verbs: ["create"] }]);
    const crb = await mgr("POST", `${RBAC}/clusterrolebindings`, binding(`${s.ns}-x`, "ClusterRole", `${s.ns}-nothing`));
    expect(crb.status, crb.text).toBe(404);
    expect(crb.json.message).toBe(`clusterroles.${RBAC_GROUP} "${s.ns}-nothing" not found`);
    expect(crb.json.details).toEqual({ name: `${s.ns}-nothing`, group: RBAC_GROUP, kind: "clusterroles" });
    const rb = await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("x", "ClusterRole", `${s.ns}-nothing`));
    expect(rb.status).toBe(404);
    expect(rb.json.message).toBe(`clusterroles.${RBAC_GROUP} "${s.ns}-nothing" not found`);
  });

  it("is accepted for system:masters and for a user allowed to bind it", async () => {
    const s = await setup();
    expect((await s.admin("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("by-admin", "Role", "future"))).status).toBe(201);
    const binder = await s.account("binder", [WRITE_BINDINGS, { apiGroups: [RBAC_GROUP], resources: ["roles"], resourceNames: ["future"], verbs: ["bind"] }]);
    expect((await binder("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("by-binder", "Role", "future"))).status).toBe(201);
    // bind is for the named role only.
    expect((await binder("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("other", "Role", "other"))).status).toBe(404);
  });
});

describe("binding an existing role", () => {
  it("is allowed when the user holds every rule, and refused with every missing rule sorted one per line", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [WRITE_BINDINGS, { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }]);
    await s.admin("POST", `${RBAC}/namespaces/${s.ns}/roles`, {
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    });
    expect((await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("held", "Role", "reader"))).status).toBe(201);
    await s.admin("POST", `${RBAC}/namespaces/${s.ns}/roles`, {
      metadata: { name: "wide" },
      rules: [
        { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
        { apiGroups: ["apps"], resources: ["deployments"], verbs: ["delete"] },
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "update"] },
      ],
    });
    const r = await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("wide", "Role", "wide"));
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `rolebindings.${RBAC_GROUP} "wide" is forbidden: ${s.userText("mgr")} is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["update"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}\n{APIGroups:["apps"], Resources:["deployments"], Verbs:["delete"]}`,
      reason: "Forbidden",
      details: { name: "wide", group: RBAC_GROUP, kind: "rolebindings" },
      code: 403,
    });
  });

  it("adds the resolution errors of the author's own bindings to the refusal", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [WRITE_BINDINGS]);
    // An admin binds mgr to a role that does not exist (yet).
    expect(
      (await s.admin("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("dangling", "Role", "gone", `system:serviceaccount:${s.ns}:mgr`))).status,
    ).toBe(201);
    await s.admin("POST", `${RBAC}/namespaces/${s.ns}/roles`, {
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    });
    const r = await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("r", "Role", "reader"));
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      `rolebindings.${RBAC_GROUP} "r" is forbidden: ${s.userText("mgr")} is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [roles.${RBAC_GROUP} "gone" not found]`,
    );
  });

  it("answers an unsupported roleRef kind as the real resolver does: 500 without a reason", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [WRITE_BINDINGS]);
    const r = await mgr("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, {
      ...binding("odd", "Role", "x"),
      roleRef: { apiGroup: RBAC_GROUP, kind: "Foo", name: "x" },
    });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: 'unsupported role reference kind: "Foo"', code: 500 });
    // system:masters skips the check and meets validation instead.
    const admin = await s.admin("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, {
      ...binding("odd", "Role", "x"),
      roleRef: { apiGroup: RBAC_GROUP, kind: "Foo", name: "x" },
    });
    expect(admin.status).toBe(422);
  });
});

describe("updates of bindings and roles", () => {
  it("skip the check when only finalizers or ownerReferences change, and check anything else", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [WRITE_BINDINGS, { apiGroups: [RBAC_GROUP], resources: ["roles"], verbs: ["get", "update", "patch"] }]);
    await s.admin("POST", `${RBAC}/namespaces/${s.ns}/roles`, {
      metadata: { name: "power" },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["*"] }],
    });
    expect((await s.admin("POST", `${RBAC}/namespaces/${s.ns}/rolebindings`, binding("b", "Role", "power"))).status).toBe(201);
    const current = (await mgr("GET", `${RBAC}/namespaces/${s.ns}/rolebindings/b`)).json;
    const withFinalizer = { ...current, metadata: { ...current.metadata, finalizers: ["example.com/keep"] } };
    const gc = await mgr("PUT", `${RBAC}/namespaces/${s.ns}/rolebindings/b`, withFinalizer);
    expect(gc.status, gc.text).toBe(200);
    const owned = {
      ...gc.json,
      metadata: { ...gc.json.metadata, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "8f1d0c1e-0000-4000-8000-000000000001" }] },
    };
    expect((await mgr("PUT", `${RBAC}/namespaces/${s.ns}/rolebindings/b`, owned)).status).toBe(200);
    const labelled = await mgr("PUT", `${RBAC}/namespaces/${s.ns}/rolebindings/b`, { ...owned, metadata: { ...owned.metadata, labels: { a: "b" } } });
    expect(labelled.status).toBe(403);
    expect(labelled.json.message).toContain(`rolebindings.${RBAC_GROUP} "b" is forbidden: ${s.userText("mgr")} is attempting to grant`);
    // The same for the role itself.
    const role = (await mgr("GET", `${RBAC}/namespaces/${s.ns}/roles/power`)).json;
    const roleGc = await mgr("PUT", `${RBAC}/namespaces/${s.ns}/roles/power`, { ...role, metadata: { ...role.metadata, finalizers: ["example.com/keep"] } });
    expect(roleGc.status, roleGc.text).toBe(200);
    const dropFinalizers = await mgr(
      "PATCH",
      `${RBAC}/namespaces/${s.ns}/roles/power`,
      { metadata: { finalizers: null } },
      { "content-type": "application/merge-patch+json" },
    );
    expect(dropFinalizers.status, dropFinalizers.text).toBe(200);
    const patched = await mgr(
      "PATCH",
      `${RBAC}/namespaces/${s.ns}/roles/power`,
      { metadata: { labels: { a: "b" } } },
      { "content-type": "application/merge-patch+json" },
    );
    expect(patched.status).toBe(403);
    expect(patched.json.message).toBe(
      `roles.${RBAC_GROUP} "power" is forbidden: ${s.userText("mgr")} is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`,
    );
  });
});

describe("role writes", () => {
  it("need escalate on the request's own name: a create has none, an update has the URL's", async () => {
    const s = await setup();
    const rules = [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }];
    const mgr = await s.account("mgr", [
      { apiGroups: [RBAC_GROUP], resources: ["roles"], verbs: ["create", "update", "get"] },
      { apiGroups: [RBAC_GROUP], resources: ["roles"], resourceNames: ["named"], verbs: ["escalate"] },
    ]);
    const create = await mgr("POST", `${RBAC}/namespaces/${s.ns}/roles`, { metadata: { name: "named" }, rules });
    expect(create.status).toBe(403);
    expect(create.json.message).toBe(
      `roles.${RBAC_GROUP} "named" is forbidden: ${s.userText("mgr")} is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
    );
    expect((await s.admin("POST", `${RBAC}/namespaces/${s.ns}/roles`, { metadata: { name: "named" }, rules: [] })).status).toBe(201);
    const update = await mgr("PUT", `${RBAC}/namespaces/${s.ns}/roles/named`, { metadata: { name: "named" }, rules });
    expect(update.status, update.text).toBe(200);
    // escalate without a name covers creates too.
    const wide = await s.account("wide", [{ apiGroups: [RBAC_GROUP], resources: ["roles"], verbs: ["create", "escalate"] }]);
    expect((await wide("POST", `${RBAC}/namespaces/${s.ns}/roles`, { metadata: { name: "any" }, rules })).status).toBe(201);
  });

  it("are allowed when every rule is held, and for system:masters", async () => {
    const s = await setup();
    const mgr = await s.account("mgr", [
      { apiGroups: [RBAC_GROUP], resources: ["roles"], verbs: ["create"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
    ]);
    expect(
      (await mgr("POST", `${RBAC}/namespaces/${s.ns}/roles`, { metadata: { name: "sub" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }] }))
        .status,
    ).toBe(201);
    expect(
      (await s.admin("POST", `${RBAC}/clusterroles`, { metadata: { name: `${s.ns}-all` }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] }))
        .status,
    ).toBe(201);
  });

  it("need full authority for a ClusterRole's aggregationRule", async () => {
    const s = await setup();
    const reads = { apiGroups: [""], resources: ["configmaps"], verbs: ["get"] };
    const mgr = await s.account("mgr", [], [{ apiGroups: [RBAC_GROUP], resources: ["clusterroles"], verbs: ["create", "update", "get"] }, reads]);
    const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { "example.com/aggregate": "true" } }] };
    expect((await mgr("POST", `${RBAC}/clusterroles`, { metadata: { name: `${s.ns}-plain` }, rules: [reads] })).status).toBe(201);
    const agg = await mgr("POST", `${RBAC}/clusterroles`, { metadata: { name: `${s.ns}-agg` }, rules: [reads], aggregationRule });
    expect(agg.status).toBe(403);
    expect(agg.json.message).toBe(`clusterroles.${RBAC_GROUP} "${s.ns}-agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`);
    // Dropping one an admin set is refused too.
    expect((await s.admin("POST", `${RBAC}/clusterroles`, { metadata: { name: `${s.ns}-set` }, rules: [reads], aggregationRule })).status).toBe(201);
    const set = (await mgr("GET", `${RBAC}/clusterroles/${s.ns}-set`)).json;
    const drop = await mgr("PUT", `${RBAC}/clusterroles/${s.ns}-set`, {
      ...set,
      aggregationRule: undefined,
      metadata: { ...set.metadata, labels: { a: "b" } },
    });
    expect(drop.status).toBe(403);
    // A user bound to cluster-admin (outside system:masters) holds every permission and may.
    const root = await s.account(
      "root",
      [],
      [
        { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
        { nonResourceURLs: ["*"], verbs: ["*"] },
      ],
    );
    expect((await root("POST", `${RBAC}/clusterroles`, { metadata: { name: `${s.ns}-agg` }, rules: [reads], aggregationRule })).status).toBe(201);
  });
});

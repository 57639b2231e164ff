/**
 * The test-only admin endpoint under --auth (issue #15): it can compact history, move the clock
 * (expiring every token) and mark objects corrupt, so only system:masters may call it. Anonymous
 * or unknown credentials are 401, any other user 403, whatever RBAC grants; without --auth it
 * stays open. The harness's admin calls (detection, compaction, clock) carry the target's
 * credentials and so still work against the embedded emulator.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { advanceClock, compactHistory, detectAdmin } from "../../lib/harness/admin.js";
import { ApiClient } from "../../lib/harness/client.js";
import { client, uniq } from "./support.js";

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const ADMIN = "/tollgate/admin";

const UNAUTHORIZED = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 };

async function setup(options: EmulatorOptions = {}) {
  const emu = await startEmulator({ port: 0, auth: true, admin: true, ...options });
  started.push(emu);
  const raw = client(emu.url);
  const as = (token: string) => (method: string, path: string, body?: unknown) => raw(method, path, body, { headers: { authorization: `Bearer ${token}` } });
  const admin = as(emu.adminToken ?? "");
  const ns = uniq("hadm");
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  return { emu, raw, admin, as, ns };
}

/** A ServiceAccount bound to the cluster-admin ClusterRole (every RBAC permission, but not system:masters), and its token. */
async function clusterAdminAccount(s: Awaited<ReturnType<typeof setup>>): Promise<string> {
  const { admin, ns } = s;
  expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" } })).status).toBe(201);
  const crb = await admin("POST", `${RBAC}/clusterrolebindings`, {
    metadata: { name: `${ns}-robot` },
    subjects: [{ kind: "ServiceAccount", name: "robot", namespace: ns }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
  });
  expect(crb.status, crb.text).toBe(201);
  const tr = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: {} });
  expect(tr.status, tr.text).toBe(201);
  return tr.json.status.token as string;
}

describe("the admin endpoint under --auth", () => {
  it("refuses anonymous requests and unknown tokens with 401, and changes nothing", async () => {
    const { raw, as } = await setup();
    const before = await raw("GET", "/api/v1/namespaces/default/configmaps");
    expect(before.status).toBe(403);
    for (const call of [raw, as("not-a-token")]) {
      for (const [method, path, body] of [
        ["GET", ADMIN, undefined],
        ["POST", `${ADMIN}/compact`, {}],
        ["POST", `${ADMIN}/clock`, { advanceSeconds: 3600 }],
        ["POST", `${ADMIN}/corrupt`, { path: "/api/v1/namespaces/default/configmaps/x" }],
      ] as const) {
        const r = await call(method, path, body);
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.json).toEqual(UNAUTHORIZED);
      }
    }
  });

  it("refuses an authenticated user outside system:masters with 403, even one bound to cluster-admin", async () => {
    const s = await setup();
    const token = await clusterAdminAccount(s);
    const robot = s.as(token);
    // cluster-admin lets it read anything through RBAC ...
    expect((await robot("GET", `/api/v1/namespaces/${s.ns}/configmaps`)).status).toBe(200);
    // ... but not rewrite the server's time or history.
    const clock = await robot("POST", `${ADMIN}/clock`, { advanceSeconds: 7200 });
    expect(clock.status).toBe(403);
    expect(clock.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `forbidden: User "system:serviceaccount:${s.ns}:robot" cannot post path "/tollgate/admin/clock": the admin endpoint is only for group system:masters`,
      reason: "Forbidden",
      details: {},
      code: 403,
    });
    const get = await robot("GET", ADMIN);
    expect(get.status).toBe(403);
    expect(get.json.message).toBe(
      `forbidden: User "system:serviceaccount:${s.ns}:robot" cannot get path "/tollgate/admin": the admin endpoint is only for group system:masters`,
    );
    // The refused jump did not happen: the one-hour token still works.
    expect((await robot("GET", `/api/v1/namespaces/${s.ns}/configmaps`)).status).toBe(200);
  });

  it("serves system:masters (the admin token)", async () => {
    const { admin } = await setup();
    expect((await admin("GET", ADMIN)).json).toEqual({ compact: true, clock: true, corrupt: true });
    const compact = await admin("POST", `${ADMIN}/compact`, {});
    expect(compact.status, compact.text).toBe(200);
    expect(compact.json.compactedRevision).toMatch(/^[0-9]+$/);
  });

  it("compares the admin token exactly: a longer or shorter token sharing its start is 401", async () => {
    const { emu, as } = await setup({ adminToken: "the-admin-token" });
    expect((await as("the-admin-token")("GET", ADMIN)).status).toBe(200);
    for (const t of ["the-admin-token2", "the-admin-toke", "THE-ADMIN-TOKEN"]) {
      expect((await as(t)("GET", ADMIN)).status, t).toBe(401);
    }
    expect(emu.adminToken).toBe("the-admin-token");
  });

  it("lets the harness detect and use it with the target's credentials, and not without", async () => {
    const { emu, admin, ns } = await setup();
    const withToken = new ApiClient({ url: emu.url, credentials: { token: emu.adminToken ?? "" }, source: "test" });
    expect(await detectAdmin(withToken)).toEqual({ kind: "offered", compact: true, clock: true, corrupt: true });
    expect(await compactHistory(withToken)).toMatch(/^[0-9]+$/);
    await advanceClock(withToken, 1);
    const anonymous = new ApiClient({ url: emu.url, credentials: {}, source: "test" });
    expect((await detectAdmin(anonymous)).kind).toBe("absent");
    expect((await admin("GET", `/api/v1/namespaces/${ns}`)).status).toBe(200);
  });
});

describe("non-resource requests under --auth", () => {
  it("are authorized with the lower-cased method as the verb, as the real RequestInfo has it", async () => {
    const { raw } = await setup();
    const post = await raw("POST", "/version", {});
    expect(post.status).toBe(403);
    expect(post.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'forbidden: User "system:anonymous" cannot post path "/version"',
      reason: "Forbidden",
      details: {},
      code: 403,
    });
    // system:public-info-viewer grants get on /healthz, which a HEAD (verb head) is not.
    expect((await raw("GET", "/healthz")).status).toBe(200);
    expect((await raw("HEAD", "/healthz")).status).toBe(403);
  });
});

describe("the admin endpoint without --auth", () => {
  it("stays open: without authentication every caller is already allowed everything", async () => {
    const emu = await startEmulator({ port: 0, admin: true });
    started.push(emu);
    const call = client(emu.url);
    expect((await call("GET", ADMIN)).json).toEqual({ compact: true, clock: true, corrupt: true });
    expect((await call("POST", `${ADMIN}/clock`, { advanceSeconds: 1 })).status).toBe(200);
  });
});

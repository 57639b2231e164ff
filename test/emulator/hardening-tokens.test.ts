/**
 * Issued ServiceAccount tokens are forgotten once they expire (issue #15): they were kept for
 * ever (100,000 TokenRequests held 131 MB after all had expired). Expiry is on the emulator
 * clock, so the admin clock jump expires them too; the sweep runs at most every 10 s of that
 * clock, on the next issue or authentication. Unexpired tokens keep working.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Authenticator } from "../../lib/emulator/auth/authenticator.js";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, uniq } from "./support.js";

const servers: EmulatorServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function setup() {
  const server = createEmulatorServer(resolveSettings({ auth: true, admin: true }));
  servers.push(server);
  const url = await server.listen("127.0.0.1", 0);
  const raw = client(url);
  const as = (token: string) => (method: string, path: string, body?: unknown) => raw(method, path, body, { headers: { authorization: `Bearer ${token}` } });
  const admin = as(server.parts.settings.adminToken);
  const authenticator = server.parts.auth?.authenticator as Authenticator;
  const ns = uniq("htok");
  expect((await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  expect((await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "robot" } })).status).toBe(201);
  const token = async (expirationSeconds: number): Promise<string> => {
    const r = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: { expirationSeconds } });
    expect(r.status, r.text).toBe(201);
    return r.json.status.token as string;
  };
  const whoami = async (t: string) =>
    as(t)("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" });
  return { server, admin, authenticator, ns, token, whoami };
}

describe("issued tokens", () => {
  it("are purged once expired, after an admin clock jump, while unexpired ones keep working", async () => {
    const { admin, authenticator, ns, token, whoami } = await setup();
    const short: string[] = [];
    for (let i = 0; i < 200; i++) short.push(await token(600));
    const long = await token(7200);
    expect(authenticator.issuedCount).toBe(201);
    expect((await whoami(short[0] ?? "")).status).toBe(201);
    // 20 minutes later every 10-minute token has expired; the next request sweeps them away.
    expect((await admin("POST", "/tollgate/admin/clock", { advanceSeconds: 1200 })).status).toBe(200);
    const r = await whoami(long);
    expect(r.status, r.text).toBe(201);
    expect(r.json.status.userInfo.username).toBe(`system:serviceaccount:${ns}:robot`);
    expect(authenticator.issuedCount).toBe(1);
    const expired = await whoami(short[199] ?? "");
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
    // Past the long one's expiry too, nothing is left.
    expect((await admin("POST", "/tollgate/admin/clock", { advanceSeconds: 7200 })).status).toBe(200);
    expect((await whoami(long)).status).toBe(401);
    expect(authenticator.issuedCount).toBe(0);
  });

  it("refuse an expired token at once and forget it, sweep or not", async () => {
    const { admin, authenticator, token, whoami } = await setup();
    const t = await token(600);
    // Another request sweeps nothing while nothing has expired.
    expect((await whoami(t)).status).toBe(201);
    expect(authenticator.issuedCount).toBe(1);
    // Just past expiry the token is refused at once (and dropped on use), with or without a sweep.
    expect((await admin("POST", "/tollgate/admin/clock", { advanceSeconds: 601 })).status).toBe(200);
    expect((await whoami(t)).status).toBe(401);
    expect(authenticator.issuedCount).toBe(0);
  });

  it("are accepted only for the audiences they were requested for", async () => {
    const { server, admin, ns, whoami } = await setup();
    const API = "https://kubernetes.default.svc.cluster.local";
    const issue = async (audiences: string[]) => {
      const r = await admin("POST", `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { spec: { audiences } });
      expect(r.status, r.text).toBe(201);
      expect(r.json.spec.audiences).toEqual(audiences);
      return r.json.status.token as string;
    };
    const vault = await issue(["vault"]);
    // A token meant for another service is not a credential for this one.
    expect((await whoami(vault)).status).toBe(401);
    expect((await whoami(await issue(["vault", API]))).status).toBe(201);
    const review = (token: string, audiences?: string[]) =>
      admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token, audiences } });
    expect((await review(vault)).json.status).toEqual({ user: {} });
    const forVault = await review(vault, ["vault", "other"]);
    expect(forVault.json.status.authenticated).toBe(true);
    expect(forVault.json.status.audiences).toEqual(["vault"]);
    // The admin token, like a static token, is for the API server's audience only.
    expect((await review(server.parts.settings.adminToken, ["vault"])).json.status).toEqual({ user: {} });
    expect((await review(server.parts.settings.adminToken, ["vault", API])).json.status.audiences).toEqual([API]);
  });
});

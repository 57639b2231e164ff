/** The emulated daemons take client certificates, identity headers and SNI names as a real 1.35 daemon does. */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect } from "node:tls";
import { afterAll, describe, expect, it } from "vitest";
import { PKI, PROXY_ALLOWED_NAME, readPair } from "../../../fixtures/daemons/pki.js";
import { type DaemonAccess, DaemonFileError, type RunningEmulatedDaemons, startEmulatedDaemons } from "../../../lib/emulator/daemons/index.js";
import { ALLOWED_TOKEN, bearer, get, TLS } from "./support.js";

const CLIENT = readPair(PKI.client);
const PROXY = readPair(PKI.proxy);
const UNLISTED = readPair(PKI.proxyUnlisted);
const STRANGER = readPair(PKI.stranger);
const FILES = ["--authentication-kubeconfig=/x", "--authorization-kubeconfig=/x"];

const running: RunningEmulatedDaemons[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.close()));
});

const ACCESS: DaemonAccess = { tokens: { [ALLOWED_TOKEN]: "alice" }, allowedUsers: ["alice", "header-alice"], allowedGroups: ["header-admins"] };

async function cm(args: readonly string[], access: DaemonAccess = ACCESS): Promise<string> {
  const d = await startEmulatedDaemons({ tls: TLS, access, controllerManager: { args: [...FILES, ...args], port: 0 } });
  running.push(d);
  return d.controllerManager?.url as string;
}

async function agent(args: readonly string[]): Promise<string> {
  const d = await startEmulatedDaemons({ tls: TLS, access: ACCESS, nodeAgent: { args, port: 0, readOnlyPort: 0, healthzPort: 0 } });
  running.push(d);
  return d.nodeAgent?.url as string;
}

const message = (body: string): string => (JSON.parse(body) as { message: string }).message;

describe("emulated controller manager: client certificates", () => {
  it("--client-ca-file: a certificate it issued is its common name, 403 until allowed; its organizations are groups", async () => {
    const url = await cm([`--client-ca-file=${PKI.clientCa}`]);
    const r = await get(`${url}/metrics`, {}, CLIENT);
    expect(r.status).toBe(403);
    expect(message(r.body)).toBe('forbidden: User "tollgate-cert-user" cannot get path "/metrics"');
    const allowed = await cm([`--client-ca-file=${PKI.clientCa}`], { ...ACCESS, allowedUsers: ["tollgate-cert-user"] });
    expect((await get(`${allowed}/metrics`, {}, CLIENT)).status).toBe(200);
    const byGroup = await cm([`--client-ca-file=${PKI.clientCa}`], { ...ACCESS, allowedGroups: ["tollgate-cert-group"] });
    expect((await get(`${byGroup}/metrics`, {}, CLIENT)).status).toBe(200);
  });

  it("a certificate from another CA is 401 everywhere, also on the always-allow paths, unless a token is recognized", async () => {
    const url = await cm([`--client-ca-file=${PKI.clientCa}`]);
    for (const path of ["/metrics", "/healthz"]) {
      const r = await get(`${url}${path}`, {}, STRANGER);
      expect(r.status, path).toBe(401);
      expect(JSON.parse(r.body)).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    }
    // The token authenticator still recognizes the request: the certificate's error then does not count.
    expect((await get(`${url}/metrics`, bearer(ALLOWED_TOKEN), STRANGER)).status).toBe(200);
  });

  it("without --client-ca-file no certificate is asked for: a client certificate is anonymous", async () => {
    const url = await cm([]);
    const r = await get(`${url}/metrics`, {}, CLIENT);
    expect(message(r.body)).toContain('User "system:anonymous"');
    expect((await get(`${url}/healthz`, {}, STRANGER)).status).toBe(200);
  });

  it("a file that cannot be read stops the daemon before it listens", async () => {
    await expect(startEmulatedDaemons({ tls: TLS, controllerManager: { args: ["--client-ca-file=/nonexistent/ca.pem"], port: 0 } })).rejects.toThrow(
      DaemonFileError,
    );
    await expect(
      startEmulatedDaemons({ tls: TLS, nodeAgent: { args: [`--client-ca-file=${PKI.client.key}`], port: 0, readOnlyPort: 0, healthzPort: 0 } }),
    ).rejects.toThrow(/no PEM certificate/);
  });
});

describe("emulated controller manager: identity headers", () => {
  const RH = [`--client-ca-file=${PKI.clientCa}`, `--requestheader-client-ca-file=${PKI.proxyCa}`, `--requestheader-allowed-names=${PROXY_ALLOWED_NAME}`];

  it("from the front proxy's certificate: the user header names the user, group headers add groups (case-insensitive names)", async () => {
    const url = await cm(RH);
    const r = await get(`${url}/metrics`, { "X-Remote-User": "carol" }, PROXY);
    expect(message(r.body)).toBe('forbidden: User "carol" cannot get path "/metrics"');
    expect((await get(`${url}/metrics`, { "x-remote-user": "header-alice" }, PROXY)).status).toBe(200);
    expect((await get(`${url}/metrics`, { "x-remote-user": "carol", "x-remote-group": "header-admins" }, PROXY)).status).toBe(200);
    // Without a user header the proxy's certificate names nobody, and no other authenticator knows it.
    expect((await get(`${url}/metrics`, {}, PROXY)).status).toBe(401);
  });

  it("configured header names are the ones read", async () => {
    const url = await cm([...RH, "--requestheader-username-headers=X-Who", "--requestheader-group-headers=X-Teams"]);
    expect(message((await get(`${url}/metrics`, { "x-who": "carol", "x-remote-user": "header-alice" }, PROXY)).body)).toContain('User "carol"');
    expect((await get(`${url}/metrics`, { "x-who": "carol", "x-teams": "header-admins" }, PROXY)).status).toBe(200);
    // A malformed percent-escape in an extra key is no reason to fail the request.
    expect((await get(`${url}/metrics`, { "x-who": "carol", "x-remote-extra-bad%zz": "v" }, PROXY)).status).toBe(403);
  });

  it("from anyone else they change nothing: no certificate, a client certificate, a name not allowed, an unknown CA", async () => {
    const url = await cm(RH);
    const headers = { "x-remote-user": "header-alice", "x-remote-group": "header-admins" };
    expect(message((await get(`${url}/metrics`, headers)).body)).toContain('User "system:anonymous"');
    expect(message((await get(`${url}/metrics`, headers, CLIENT)).body)).toContain('User "tollgate-cert-user"');
    expect((await get(`${url}/metrics`, headers, UNLISTED)).status).toBe(401);
    expect((await get(`${url}/metrics`, headers, STRANGER)).status).toBe(401);
  });

  it("an empty allowed-names list trusts every certificate the request-header CA issued", async () => {
    const url = await cm([`--requestheader-client-ca-file=${PKI.proxyCa}`]);
    expect(message((await get(`${url}/metrics`, { "x-remote-user": "carol" }, UNLISTED)).body)).toContain('User "carol"');
  });
});

function served(url: string, servername: string | undefined): Promise<X509Certificate> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, ...(servername ? { servername } : {}) }, () => {
      const c = s.getPeerX509Certificate();
      s.end();
      if (c) resolve(c);
      else reject(new Error("no certificate"));
    });
    s.on("error", reject);
  });
}

describe("emulated controller manager: --tls-sni-cert-key", () => {
  it("exact names beat wildcards, explicit patterns beat names from certificates, no match is the default certificate", async () => {
    const url = await cm([
      `--tls-sni-cert-key=${PKI.sniWildcard.cert},${PKI.sniWildcard.key}`,
      `--tls-sni-cert-key=${PKI.sniExact.cert},${PKI.sniExact.key}`,
      `--tls-sni-cert-key=${PKI.sniExplicit.cert},${PKI.sniExplicit.key}:extracted.sni.tollgate.test`,
    ]);
    const subject = async (name: string | undefined): Promise<string> => (await served(url, name)).subject;
    expect(await subject("exact.sni.tollgate.test")).toBe("CN=exact.sni.tollgate.test");
    expect(await subject("EXACT.sni.tollgate.test")).toBe("CN=exact.sni.tollgate.test");
    expect(await subject("other.sni.tollgate.test")).toBe("CN=*.sni.tollgate.test");
    expect(await subject("extracted.sni.tollgate.test")).toBe("CN=explicit.sni.tollgate.test");
    // An entry with explicit patterns is not chosen by its own names.
    expect(await subject("explicit.sni.tollgate.test")).toBe("CN=*.sni.tollgate.test");
    expect(await subject("a.b.sni.tollgate.test")).toBe(new X509Certificate(TLS.cert).subject);
    expect(await subject(undefined)).toBe(new X509Certificate(TLS.cert).subject);
    // The certificate served is the file's.
    expect((await served(url, "exact.sni.tollgate.test")).fingerprint256).toBe(new X509Certificate(readFileSync(PKI.sniExact.cert)).fingerprint256);
  });

  it("a missing certificate file stops the daemon", async () => {
    await expect(
      startEmulatedDaemons({ tls: TLS, controllerManager: { args: ["--tls-sni-cert-key=/nonexistent.pem,/nonexistent.key"], port: 0 } }),
    ).rejects.toThrow(DaemonFileError);
  });
});

describe("emulated node agent: client certificates", () => {
  it("--client-ca-file: a certificate it issued is its common name; one from another CA is 401 even with anonymous requests on", async () => {
    const url = await agent(["--authorization-mode=Webhook", `--client-ca-file=${PKI.clientCa}`]);
    const r = await get(`${url}/pods`, {}, CLIENT);
    expect(r).toMatchObject({ status: 403, body: "Forbidden (user=tollgate-cert-user, verb=get, resource=nodes, subresource=proxy)" });
    expect((await get(`${url}/pods`, {}, STRANGER)).status).toBe(401);
    expect((await get(`${url}/pods`)).body).toContain("user=system:anonymous");
  });

  it("with anonymous requests off, a trusted certificate is served and no certificate is 401", async () => {
    const url = await agent(["--anonymous-auth=false", `--client-ca-file=${PKI.clientCa}`]);
    expect((await get(`${url}/pods`, {}, CLIENT)).status).toBe(200);
    expect((await get(`${url}/pods`)).status).toBe(401);
  });

  it("without --client-ca-file a certificate is ignored", async () => {
    const url = await agent(["--authorization-mode=Webhook"]);
    expect((await get(`${url}/pods`, {}, STRANGER)).body).toContain("user=system:anonymous");
  });
});

/**
 * The emulator over HTTPS (issue #16): the CA and serving certificate it makes at start, a
 * given pair, and the HTTP front's behaviour (raw 431/400, CONNECT, timeouts) kept over TLS.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { type ConnectionOptions, connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { generateServingTls, servingHosts, servingTlsFromPem, TlsFileError } from "../../lib/emulator/tls.js";

const FIXTURE_CERT = fileURLToPath(new URL("../../fixtures/daemons/tls/cert.pem", import.meta.url));
const FIXTURE_KEY = fileURLToPath(new URL("../../fixtures/daemons/tls/key.pem", import.meta.url));

let emu: RunningEmulator;
let agent: Agent;
let port: number;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, auth: true, adminToken: "tls-admin", tls: "generate" });
  agent = new Agent({ connect: { ca: emu.ca } });
  port = Number(new URL(emu.url).port);
});
afterAll(async () => {
  await agent.close();
  await emu.close();
});

/** The certificate the server presents, and whether it verified against `ca`. */
function handshake(options: ConnectionOptions): Promise<{ authorized: boolean; error?: string; cert: X509Certificate | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false, ...options }, () => {
      const cert = socket.getPeerX509Certificate();
      resolve({ authorized: socket.authorized, error: socket.authorizationError?.toString(), cert });
      socket.end();
    });
    socket.on("error", reject);
  });
}

describe("the certificate made at start", () => {
  it("is issued by the CA the emulator hands out, for localhost, 127.0.0.1 and ::1", async () => {
    expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const h = await handshake({ ca: emu.ca, servername: "localhost" });
    expect(h.authorized).toBe(true);
    expect(h.cert?.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
    const ca = new X509Certificate(emu.ca as string);
    expect(ca.ca).toBe(true);
    expect(h.cert?.ca).toBe(false);
    expect(h.cert?.checkIssued(ca)).toBe(true);
    expect(h.cert?.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
  });

  it("is not trusted without that CA", async () => {
    const h = await handshake({});
    expect(h.authorized).toBe(false);
    expect(h.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|unable to (get|verify)/i);
  });

  it("is ECDSA P-256, valid a year from an hour ago, with the host given as a further name", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const t = await generateServingTls(servingHosts("10.1.2.3"), now);
    const leaf = new X509Certificate(t.cert);
    expect(leaf.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.1.2.3");
    expect(leaf.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: "prime256v1" });
    expect(new Date(leaf.validFrom).toISOString()).toBe("2029-12-31T23:00:00.000Z");
    expect(new Date(leaf.validTo).toISOString()).toBe("2031-01-01T00:00:00.000Z");
    expect(leaf.verify(new X509Certificate(t.ca).publicKey)).toBe(true);
    expect(leaf.issuer).toBe(`CN=tollgate-ca@${now.getTime() / 1000}`);
    // The key goes with the certificate (checked as a given pair would be).
    expect(servingTlsFromPem(t.cert, t.key, "c", "k").cert).toBe(t.cert);
  });

  it("always has serials OpenSSL parses: positive, minimal DER, 16 bytes", async () => {
    // A random serial once began with a zero byte about once in 256 certificates, and OpenSSL
    // then refused the whole certificate; 200 pairs (400 serials) would almost surely meet one.
    for (let i = 0; i < 200; i++) {
      const pair = await generateServingTls(["localhost"]);
      for (const pem of [pair.ca, pair.cert]) {
        const serial = new X509Certificate(pem).serialNumber;
        expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
      }
    }
  });

  it("names the host it listens on, but no unspecified address", () => {
    expect(servingHosts("example.test")).toEqual(["localhost", "127.0.0.1", "::1", "example.test"]);
    expect(servingHosts("[fd00::1]")).toEqual(["localhost", "127.0.0.1", "::1", "fd00::1"]);
    expect(servingHosts("0.0.0.0")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(servingHosts("::")).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(servingHosts("127.0.0.1")).toEqual(["localhost", "127.0.0.1", "::1"]);
  });
});

describe("requests over HTTPS", () => {
  it("are authenticated by the admin token and served as over HTTP", async () => {
    const r = await request(`${emu.url}/api/v1/namespaces`, { dispatcher: agent, headers: { authorization: "Bearer tls-admin" } });
    expect(r.statusCode).toBe(200);
    const body = (await r.body.json()) as { kind: string; items: { metadata: { name: string } }[] };
    expect(body.kind).toBe("NamespaceList");
    expect(body.items.map((n) => n.metadata.name)).toContain("default");
  });

  it("find the serving CA in every namespace's kube-root-ca.crt, as pods of a real cluster do", async () => {
    let data: Record<string, string> | undefined;
    for (let i = 0; i < 100 && data === undefined; i++) {
      const r = await request(`${emu.url}/api/v1/namespaces/default/configmaps/kube-root-ca.crt`, {
        dispatcher: agent,
        headers: { authorization: "Bearer tls-admin" },
      });
      const body = (await r.body.json()) as { data?: Record<string, string> };
      if (r.statusCode === 200) data = body.data;
      else await new Promise((done) => setTimeout(done, 20));
    }
    expect(data?.["ca.crt"]).toBe(emu.ca);
  });

  it("without a token are system:anonymous's, forbidden the namespaces", async () => {
    const r = await request(`${emu.url}/api/v1/namespaces`, { dispatcher: agent });
    expect(r.statusCode).toBe(403);
    const body = (await r.body.json()) as { message: string };
    expect(body.message).toContain('User "system:anonymous" cannot list resource "namespaces"');
  });
});

/** Sends `head` over a TLS connection; resolves with what came back once the server closes (or after waitMs). */
function rawTls(head: string, waitMs = 5000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, ca: emu.ca, servername: "localhost" });
    const got: Buffer[] = [];
    let closed = false;
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(got).toString("latin1"), closed });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (d: Buffer) => got.push(d));
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      finish();
    });
    socket.on("secureConnect", () => socket.write(head));
  });
}

describe("the HTTP front over TLS", () => {
  it("answers a head over 1 MiB + 4096 bytes with Go's raw 431 and closes", async () => {
    const r = await rawTls(`GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat((1 << 20) + 8192)}\r\n\r\n`);
    expect(r.text).toBe(
      "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large",
    );
    expect(r.closed).toBe(true);
  });

  it("answers a malformed request line with Go's raw 400 and closes", async () => {
    const r = await rawTls("THIS IS NOT HTTP\r\n\r\n");
    expect(r.text).toBe("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request");
    expect(r.closed).toBe(true);
  });

  it("answers CONNECT through the handlers (authentication first) and closes", async () => {
    const r = await rawTls("CONNECT /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tls-admin\r\n\r\n");
    expect(r.text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(r.text).toContain('"reason":"MethodNotAllowed"');
    expect(r.closed).toBe(true);
  });

  it("keeps kube-apiserver's timeouts", async () => {
    const tls = await generateServingTls(servingHosts(undefined));
    const emulator = createEmulatorServer(resolveSettings({}), tls);
    const { server } = emulator;
    expect({ headers: server.headersTimeout, request: server.requestTimeout, keepAlive: server.keepAliveTimeout }).toEqual({
      headers: 32_000,
      request: 60_000,
      keepAlive: 90_000,
    });
    expect(await emulator.listen("127.0.0.1", 0)).toMatch(/^https:\/\//);
    await emulator.close();
  });
});

describe("a given certificate and key", () => {
  it("is served as given, its last certificate the CA to trust", async () => {
    const cert = readFileSync(FIXTURE_CERT, "utf8");
    const given = servingTlsFromPem(cert, readFileSync(FIXTURE_KEY, "utf8"), FIXTURE_CERT, FIXTURE_KEY);
    const other = await startEmulator({ port: 0, tls: given });
    try {
      const socket = connect({ host: "127.0.0.1", port: Number(new URL(other.url).port), ca: other.ca, servername: "localhost" });
      const peer = await new Promise<X509Certificate | undefined>((resolve, reject) => {
        socket.on("secureConnect", () => resolve(socket.getPeerX509Certificate()));
        socket.on("error", reject);
      });
      socket.end();
      expect(peer?.fingerprint256).toBe(new X509Certificate(cert).fingerprint256);
      expect(other.ca?.trim()).toBe(cert.trim());
    } finally {
      await other.close();
    }
  });

  it("is refused with one line when the key is not the certificate's, or either does not parse", async () => {
    const made = await generateServingTls(servingHosts(undefined));
    const cert = readFileSync(FIXTURE_CERT, "utf8");
    expect(() => servingTlsFromPem(cert, made.key, "c.pem", "k.pem")).toThrow(
      new TlsFileError("--tls-private-key-file k.pem does not match the certificate of c.pem"),
    );
    expect(() => servingTlsFromPem("nothing", made.key, "c.pem", "k.pem")).toThrow(new TlsFileError("--tls-cert-file c.pem: no PEM certificate in it"));
    expect(() => servingTlsFromPem(cert, "nothing", "c.pem", "k.pem")).toThrow(new TlsFileError("--tls-private-key-file k.pem: no private key that parses"));
  });
});

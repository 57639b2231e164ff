/**
 * Where and how ApiClient's requests go, seen from local servers on 127.0.0.1: the exec
 * plugin's token and client certificate (and their renewal), the kubeconfig's impersonation
 * headers, proxies (http, https through CONNECT, socks5), tls-server-name,
 * disable-compression, token files re-read, and identities that must not inherit any of it.
 */
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PKI, readPair } from "../../fixtures/daemons/pki.js";
import { daemonTls } from "../../fixtures/daemons/tls.js";
import { ApiClient } from "../../lib/harness/client.js";
import { type ExecConfig, execAuthenticator } from "../../lib/harness/credentials/exec.js";
import { asIdentity } from "../../lib/harness/credentials/identity.js";
import { FileTokenSource, TOKEN_FILE_REREAD_MS } from "../../lib/harness/credentials/token-file.js";
import type { Target, TargetCredentials } from "../../lib/harness/target.js";
import { openWatch } from "../../lib/harness/watch.js";
import { execCredential, type FakePlugin, fakePlugin } from "../support/fake-exec-plugin.js";

const V1 = "client.authentication.k8s.io/v1";
const tls = daemonTls();

interface Seen {
  headers: IncomingMessage["headers"];
  rawHeaders: string[];
  url: string;
  servername?: string | false | null;
  peerCN?: string | string[];
}

/** A server that records each request and answers 200 (or 401 to any token but `onlyToken`, when given). */
function recorder(kind: "http" | "https"): { server: Server; seen: Seen[]; url: () => string; onlyToken?: string; body?: string } {
  const state: { server: Server; seen: Seen[]; url: () => string; onlyToken?: string; body?: string } = {
    seen: [],
    server: undefined as unknown as Server,
    url: () => `${kind}://127.0.0.1:${(state.server.address() as AddressInfo).port}`,
  };
  const handler = (req: IncomingMessage, res: import("node:http").ServerResponse): void => {
    const sock = req.socket as TLSSocket;
    const cert = kind === "https" ? sock.getPeerCertificate() : undefined;
    state.seen.push({
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      url: req.url ?? "",
      ...(kind === "https" ? { servername: sock.servername, peerCN: cert?.subject?.CN } : {}),
    });
    req.resume();
    const ok = state.onlyToken === undefined || req.headers.authorization === `Bearer ${state.onlyToken}`;
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(state.body ?? (ok ? "{}" : JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Unauthorized", code: 401 })));
  };
  state.server =
    kind === "https" ? createHttpsServer({ cert: tls.cert, key: tls.key, requestCert: true, rejectUnauthorized: false }, handler) : createHttpServer(handler);
  return state;
}

const servers: Server[] = [];
async function listen<T extends Server>(s: T): Promise<T> {
  servers.push(s);
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  return s;
}
afterAll(() => {
  for (const s of servers) {
    (s as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    s.close();
  }
});

const target = (url: string, credentials: TargetCredentials): Target => ({ url, credentials, source: "test" });
const execConfig = (p: FakePlugin, over: Partial<ExecConfig> = {}): ExecConfig => ({
  command: p.command,
  args: [],
  env: [],
  apiVersion: V1,
  interactiveMode: "Never",
  provideClusterInfo: false,
  cluster: { server: "" },
  ...over,
});

async function waitFor(cond: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("exec plugin credentials on the wire", () => {
  const http = recorder("http");
  const https = recorder("https");
  beforeAll(async () => {
    await listen(http.server);
    await listen(https.server);
  });

  it("sends the plugin's token, runs the plugin once for many requests, and on a 401 runs it again at once without retrying", async () => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1, { token: "stale" }) });
    http.onlyToken = "fresh";
    http.seen.length = 0;
    const c = new ApiClient(target(http.url(), { exec: execConfig(p) }));
    try {
      // The first run through the authenticator the client shares, before the request: the 401
      // reruns the plugin at once, and a plugin may read its answer within a millisecond, so
      // "fresh" must be its answer before the 401 comes (it was set after, and the slow Node
      // plugin used to read it late enough).
      expect((await execAuthenticator(execConfig(p)).credentials()).token).toBe("stale");
      p.respond({ stdout: execCredential(V1, { token: "fresh" }) });
      const first = await c.raw("GET", "/api");
      expect(first.code).toBe(401);
      expect(http.seen.map((s) => s.headers.authorization)).toEqual(["Bearer stale"]);
      await waitFor(() => p.runs().length === 2);
      expect(http.seen).toHaveLength(1); // the 401 is the answer: no retry
      const [a, b] = await Promise.all([c.raw("GET", "/api"), c.raw("GET", "/apis")]);
      expect([a.code, b.code]).toEqual([200, 200]);
      expect(http.seen.slice(1).map((s) => s.headers.authorization)).toEqual(["Bearer fresh", "Bearer fresh"]);
      expect(p.runs()).toHaveLength(2);
      // A request with its own Authorization keeps it, and its 401 does not run the plugin.
      const own = await c.raw("GET", "/api", { headers: { authorization: "Bearer someone-else" } });
      expect(own.code).toBe(401);
      await new Promise((r) => setTimeout(r, 300));
      expect(p.runs()).toHaveLength(2);
    } finally {
      http.onlyToken = undefined;
      await c.close();
    }
  });

  it("watches carry the plugin's token too", async () => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1, { token: "watch-token" }) });
    http.seen.length = 0;
    http.body = `{"type":"ADDED","object":{"metadata":{"name":"x"}}}\n`;
    const c = new ApiClient(target(http.url(), { exec: execConfig(p) }));
    try {
      const w = await openWatch(c, "/api/v1/configmaps", { watch: "true" });
      expect((await w.next())?.type).toBe("ADDED");
      w.close();
      expect(http.seen[0]?.headers.authorization).toBe("Bearer watch-token");
    } finally {
      http.body = undefined;
      await c.close();
    }
  });

  it("presents the plugin's client certificate, and a new one once the first expired, on new connections", async () => {
    const p = fakePlugin();
    const client = readPair(PKI.client);
    const proxyPair = readPair(PKI.proxy);
    // Long enough that the first two requests come before it even on a loaded machine (1 s was not).
    const expiresAt = Date.now() + 3_000;
    p.respond({
      stdout: execCredential(V1, {
        clientCertificateData: client.cert,
        clientKeyData: client.key,
        expirationTimestamp: new Date(expiresAt).toISOString(),
      }),
    });
    https.seen.length = 0;
    const c = new ApiClient(target(https.url(), { exec: execConfig(p), ca: tls.cert }));
    try {
      expect((await c.raw("GET", "/api")).code).toBe(200);
      expect(https.seen[0]?.peerCN).toBe("tollgate-cert-user");
      expect(https.seen[0]?.headers.authorization).toBeUndefined();
      p.respond({ stdout: execCredential(V1, { clientCertificateData: proxyPair.cert, clientKeyData: proxyPair.key }) });
      expect((await c.raw("GET", "/api")).code).toBe(200);
      expect(https.seen[1]?.peerCN).toBe("tollgate-cert-user");
      expect(Date.now(), "the second request came before the first certificate expired").toBeLessThan(expiresAt);
      await new Promise((r) => setTimeout(r, expiresAt - Date.now() + 100));
      expect((await c.raw("GET", "/api")).code).toBe(200);
      expect(https.seen[2]?.peerCN).toBe("tollgate-front-proxy");
      expect(p.runs()).toHaveLength(2);
    } finally {
      await c.close();
    }
  });

  it("a static token, basic auth or client certificate leaves the plugin unused, and asIdentity drops it", async () => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1, { token: "from-plugin" }) });
    http.seen.length = 0;
    const run = target(http.url(), { token: "static", exec: execConfig(p), impersonate: { user: "alice" } });
    for (const t of [run, asIdentity(run, "other"), asIdentity(run, undefined)]) {
      const c = new ApiClient(t);
      await c.raw("GET", "/api");
      await c.close();
    }
    expect(http.seen.map((s) => [s.headers.authorization, s.headers["impersonate-user"]])).toEqual([
      ["Bearer static", "alice"],
      ["Bearer other", undefined],
      [undefined, undefined],
    ]);
    expect(p.runs()).toHaveLength(0);
  });
});

describe("impersonation, tls-server-name, disable-compression", () => {
  const http = recorder("http");
  const https = recorder("https");
  beforeAll(async () => {
    await listen(http.server);
    await listen(https.server);
  });

  it("sends the kubeconfig's impersonation as client-go does: one header line per group and extra value, extra keys escaped", async () => {
    http.seen.length = 0;
    const c = new ApiClient(
      target(http.url(), {
        token: "t",
        impersonate: { user: "system:serviceaccount:ns:sa", uid: "u-1", groups: ["g1", "g2"], extra: { scopes: ["a", "b"], "dotted.key/x%y": ["v"] } },
      }),
    );
    try {
      await c.raw("GET", "/api");
      await c.raw("GET", "/api", { headers: { "impersonate-user": "bob" } });
    } finally {
      await c.close();
    }
    const pairs = (raw: string[]): [string, string][] =>
      raw.flatMap((v, i) => (i % 2 === 0 ? [[v, raw[i + 1] as string] as [string, string]] : [])).filter(([k]) => k.toLowerCase().startsWith("impersonate-"));
    expect(pairs(http.seen[0]?.rawHeaders ?? [])).toEqual([
      ["impersonate-user", "system:serviceaccount:ns:sa"],
      ["impersonate-uid", "u-1"],
      ["impersonate-group", "g1"],
      ["impersonate-group", "g2"],
      ["impersonate-extra-scopes", "a"],
      ["impersonate-extra-scopes", "b"],
      ["impersonate-extra-dotted.key%2Fx%25y", "v"],
    ]);
    // A request naming its own Impersonate-User is left alone.
    expect(pairs(http.seen[1]?.rawHeaders ?? [])).toEqual([["impersonate-user", "bob"]]);
  });

  it("uses tls-server-name for SNI and verification", async () => {
    https.seen.length = 0;
    const c = new ApiClient(target(https.url(), { ca: tls.cert, tlsServerName: "localhost" }));
    try {
      expect((await c.raw("GET", "/version")).code).toBe(200);
    } finally {
      await c.close();
    }
    expect(https.seen[0]?.servername).toBe("localhost");
    const wrong = new ApiClient(target(https.url(), { ca: tls.cert, tlsServerName: "not-the-server.example" }));
    try {
      await expect(wrong.raw("GET", "/version")).rejects.toThrow(/cannot reach .*ERR_TLS_CERT_ALTNAME_INVALID/);
    } finally {
      await wrong.close();
    }
  });

  it("asks for no compression on its own, with or without disable-compression", async () => {
    http.seen.length = 0;
    for (const credentials of [{ disableCompression: true }, {}]) {
      const c = new ApiClient(target(http.url(), credentials));
      await c.raw("GET", "/api/v1/configmaps");
      await c.close();
    }
    expect(http.seen.map((s) => s.headers["accept-encoding"])).toEqual([undefined, undefined]);
  });
});

describe("proxy-url", () => {
  const http = recorder("http");
  const https = recorder("https");
  const proxied: { method: string; url: string; auth?: string }[] = [];
  const socksSeen: string[] = [];
  let proxyPort = 0;
  let socksPort = 0;

  beforeAll(async () => {
    await listen(http.server);
    await listen(https.server);
    // An HTTP proxy: absolute-form requests forwarded, CONNECT tunnels opened; loopback only.
    const proxy = createHttpServer((req, res) => {
      proxied.push({
        method: req.method ?? "",
        url: req.url ?? "",
        ...(req.headers["proxy-authorization"] ? { auth: req.headers["proxy-authorization"] } : {}),
      });
      const u = new URL(req.url ?? "");
      const up = httpRequest({ host: "127.0.0.1", port: u.port, path: `${u.pathname}${u.search}`, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      req.pipe(up);
    });
    proxy.on("connect", (req: IncomingMessage, sock: Socket, head: Buffer) => {
      proxied.push({ method: "CONNECT", url: req.url ?? "", ...(req.headers["proxy-authorization"] ? { auth: req.headers["proxy-authorization"] } : {}) });
      const port = Number((req.url ?? "").split(":")[1]);
      const up = connect(port, "127.0.0.1", () => {
        sock.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        up.write(head);
        up.pipe(sock);
        sock.pipe(up);
      });
      up.on("error", () => sock.destroy());
      sock.on("error", () => up.destroy());
    });
    proxyPort = (await listen(proxy)).address() ? (proxy.address() as AddressInfo).port : 0;
    // A SOCKS5 proxy without authentication: greeting, CONNECT by IPv4 or name, then bytes both ways.
    const socks = createNetServer((sock) => {
      sock.once("data", () => {
        sock.write(Buffer.from([5, 0]));
        sock.once("data", (req: Buffer) => {
          let host = "";
          let off = 0;
          if (req[3] === 1) {
            host = [...req.subarray(4, 8)].join(".");
            off = 8;
          } else {
            const len = req[4] ?? 0;
            host = req.subarray(5, 5 + len).toString();
            off = 5 + len;
          }
          const port = req.readUInt16BE(off);
          socksSeen.push(`${host}:${port}`);
          const up = connect(port, "127.0.0.1", () => {
            sock.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
            up.pipe(sock);
            sock.pipe(up);
          });
          up.on("error", () => sock.destroy());
        });
      });
      sock.on("error", () => undefined);
    });
    socks.listen(0, "127.0.0.1");
    await once(socks, "listening");
    servers.push(socks as unknown as Server);
    socksPort = (socks.address() as AddressInfo).port;
  });

  it("an http target through an http proxy: absolute-form requests, with the proxy's credentials from its URL", async () => {
    proxied.length = 0;
    http.seen.length = 0;
    const c = new ApiClient(target(http.url(), { token: "t", proxyUrl: `http://user:pass@127.0.0.1:${proxyPort}` }));
    try {
      expect((await c.raw("GET", "/api?x=1")).code).toBe(200);
    } finally {
      await c.close();
    }
    expect(proxied).toEqual([{ method: "GET", url: `${http.url()}/api?x=1`, auth: `Basic ${Buffer.from("user:pass").toString("base64")}` }]);
    expect(http.seen[0]?.headers.authorization).toBe("Bearer t");
  });

  it("an https target through an http proxy: a CONNECT tunnel, TLS with the cluster's CA and server name inside it", async () => {
    proxied.length = 0;
    https.seen.length = 0;
    const c = new ApiClient(target(https.url(), { token: "t", ca: tls.cert, tlsServerName: "localhost", proxyUrl: `http://127.0.0.1:${proxyPort}` }));
    try {
      expect((await c.raw("GET", "/api")).code).toBe(200);
    } finally {
      await c.close();
    }
    expect(proxied).toEqual([{ method: "CONNECT", url: `127.0.0.1:${new URL(https.url()).port}` }]);
    expect(https.seen[0]?.servername).toBe("localhost");
  });

  it("a socks5 proxy", async () => {
    socksSeen.length = 0;
    http.seen.length = 0;
    const c = new ApiClient(target(http.url(), { token: "t", proxyUrl: `socks5://127.0.0.1:${socksPort}` }));
    try {
      expect((await c.raw("GET", "/api")).code).toBe(200);
    } finally {
      await c.close();
    }
    expect(socksSeen).toEqual([`127.0.0.1:${new URL(http.url()).port}`]);
    expect(http.seen[0]?.headers.authorization).toBe("Bearer t");
  });
});

describe("token files", () => {
  it("re-reads the file when the token read is over 50 s old; a failed read or an empty file keeps the last token", () => {
    let now = 0;
    let content: string | Error = "first\n";
    const src = new FileTokenSource(
      { path: "/token", fallback: "loaded" },
      () => now,
      () => {
        if (content instanceof Error) throw content;
        return content;
      },
    );
    expect(src.token()).toBe("first");
    content = "second";
    now = TOKEN_FILE_REREAD_MS - 1;
    expect(src.token()).toBe("first");
    now = TOKEN_FILE_REREAD_MS;
    expect(src.token()).toBe("second");
    content = "  ";
    now += TOKEN_FILE_REREAD_MS;
    expect(src.token()).toBe("second");
    content = Object.assign(new Error("gone"), { code: "ENOENT" });
    expect(src.token()).toBe("second");
    content = "third";
    expect(src.token()).toBe("third"); // a failed read is tried again on the next request
    const never = new FileTokenSource(
      { path: "/token", fallback: "loaded" },
      () => 0,
      () => {
        throw new Error("unreadable");
      },
    );
    expect(never.token()).toBe("loaded");
  });

  it("sends the file's token on the wire", async () => {
    const http = recorder("http");
    await listen(http.server);
    const p = fakePlugin(); // only for a temp dir
    const path = `${p.dir}/token`;
    writeFileSync(path, "from-file\n");
    const c = new ApiClient(target(http.url(), { tokenFile: { path, fallback: "loaded" } }));
    try {
      await c.raw("GET", "/api");
    } finally {
      await c.close();
    }
    expect(http.seen[0]?.headers.authorization).toBe("Bearer from-file");
  });
});

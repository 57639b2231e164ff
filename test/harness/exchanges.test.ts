/**
 * The exchange log a failed test carries: ApiClient.raw and openWatch record each exchange,
 * the log keeps the last few, and no credential leaves in it (headers are never kept; tokens,
 * passwords and keys in a body or a query are masked).
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../lib/harness/client.js";
import { clearExchanges, EXCERPT_CHARS, EXCHANGES_KEPT, type Exchange, formatExchange, maskSecrets, snapshotExchanges } from "../../lib/harness/exchanges.js";
import { resourceTypes } from "../../lib/harness/resources.js";
import { defaultSpecSettings } from "../../lib/harness/target.js";
import { openWatch } from "../../lib/harness/watch.js";

const TOKEN = "s3cr3t-admin-token";
let server: Server;
let client: ApiClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    req.resume();
    if (url.startsWith("/token")) {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "TokenRequest",
          status: { token: "eyJhbGciOi.issued.token", expirationTimestamp: "x" },
          spec: { password: "pw", "client-key-data": "LS0t" },
        }),
      );
    } else if (url.startsWith("/long")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ name: `item-${i}` })) }));
    } else if (url.startsWith("/proto")) {
      res.writeHead(200, { "content-type": "application/vnd.kubernetes.protobuf" });
      res.end(Buffer.from([0x6b, 0x38, 0x73, 0x00, 1, 2, 3]));
    } else if (url.startsWith("/gz")) {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync('{"a":1}'));
    } else if (url.includes("watch=true") && url.startsWith("/refused")) {
      res.writeHead(410, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", code: 410, reason: "Expired", message: "too old resource version" }));
    } else if (url.includes("watch=true")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
      setTimeout(() => res.end(), 20);
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: `${url} not found; Authorization: Bearer ${TOKEN}` }));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  client = new ApiClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: { token: TOKEN }, source: "test" });
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  server.close();
});

beforeEach(() => clearExchanges());

describe("the exchange log", () => {
  it("records method, path with query, status and a body excerpt of every request, the last few only", async () => {
    for (let i = 0; i < EXCHANGES_KEPT + 3; i += 1) await client.raw("GET", `/missing/${i}`, { query: { limit: 1, labelSelector: "a=b" } });
    const log = snapshotExchanges();
    expect(log).toHaveLength(EXCHANGES_KEPT);
    expect(log[0]).toMatchObject({ method: "GET", path: "/missing/3?limit=1&labelSelector=a%3Db", status: 404 });
    expect(log.at(-1)?.path).toBe(`/missing/${EXCHANGES_KEPT + 2}?limit=1&labelSelector=a%3Db`);
    expect(log[0]?.excerpt).toMatch(/^\{"kind":"Status","code":404,"reason":"NotFound"/);
    clearExchanges();
    expect(snapshotExchanges()).toEqual([]);
  });

  it("carries no credential: headers are not kept, tokens, passwords and keys in bodies and queries are masked", async () => {
    await client.raw("GET", "/missing");
    await client.raw("POST", "/token", { body: { spec: {} }, query: { access_token: "q-secret" } });
    const text = JSON.stringify(snapshotExchanges());
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("eyJhbGciOi");
    expect(text).not.toContain('"pw"');
    expect(text).not.toContain("LS0t");
    expect(text).not.toContain("q-secret");
    expect(text).toContain("Bearer <masked>");
    expect(maskSecrets('{"spec":{"token":"abc\\"def"},"status":{"authenticated":true}}')).toBe('{"spec":{"token":"<masked>"},"status":{"authenticated":true}}');
    expect(maskSecrets("x -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- y")).toBe("x <masked private key> y");
    // A token cut off at the end of what was kept is still masked.
    expect(maskSecrets('{"token":"abcdef')).toBe('{"token":"<masked>"');
  });

  it("cuts long bodies, and names binary and compressed ones by size and type", async () => {
    await client.raw("GET", "/long");
    await client.raw("GET", "/proto", { accept: "application/vnd.kubernetes.protobuf" });
    await client.raw("GET", "/gz", { headers: { "accept-encoding": "gzip" } });
    const [long, proto, gz] = snapshotExchanges();
    expect(long?.excerpt?.length).toBe(EXCERPT_CHARS + 1);
    expect(long?.excerpt).toMatch(/…$/);
    expect(proto?.excerpt).toBe("<7 bytes, application/vnd.kubernetes.protobuf>");
    expect(gz?.excerpt).toMatch(/^<\d+ bytes, gzip>$/);
  });

  it("records a watch's opening, and the Status of a refused one", async () => {
    const w = await client.watch(resourceTypes(defaultSpecSettings).configmaps, "n", { resourceVersion: "5" });
    await w.next();
    w.close();
    await client.raw("GET", "/refused");
    await expect(openWatch(client, "/refused", { watch: "true" })).rejects.toBeInstanceOf(ApiError);
    const log = snapshotExchanges();
    expect(log[0]).toMatchObject({ method: "GET", status: 200, watch: true });
    expect(log[0]?.path).toMatch(/\/configmaps\?resourceVersion=5&watch=true$/);
    expect(log[0]?.excerpt).toBeUndefined();
    expect(log[1]).toMatchObject({ path: "/refused", status: 404 });
    expect(log[1]?.watch).toBeUndefined();
    const refused = log[2] as Exchange;
    expect(refused).toMatchObject({ path: "/refused?watch=true", status: 410, watch: true });
    expect(refused.excerpt).toMatch(/"reason":"Expired"/);
    expect(formatExchange(refused)).toMatch(/^GET \/refused\?watch=true → 410 \(watch\): \{"kind":"Status"/);
  });
});

/**
 * The fault proxy (lib/faults/wire-proxy.ts) with no rewrite changes nothing a suite
 * can see: status, body bytes (JSON, protobuf, gzip), the headers a client reads, and watch
 * streams in JSON and protobuf. So a suite that fails through a fault fails for the fault;
 * and what a rewrite touches (binary bodies, only its suites) it touches alone.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type RunningProxy, startWireProxy } from "../../lib/faults/wire-proxy.js";
import { ApiClient } from "../../lib/harness/client.js";
import { frameDecoderFor } from "../../lib/harness/encodings.js";
import { resourcePath, resourceTypes } from "../../lib/harness/resources.js";

const types = resourceTypes({ groupDomain: "k8s.io", vendor: "kubernetes" });
const PB = "application/vnd.kubernetes.protobuf";
let emulator: RunningEmulator;
let proxy: RunningProxy;
let direct: ApiClient;
let through: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  proxy = await startWireProxy(emulator.url, []);
  direct = new ApiClient({ url: emulator.url, credentials: {}, source: "direct" });
  through = new ApiClient({ url: proxy.url, credentials: {}, source: "proxy" });
  await direct.create(types.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: "p" } });
  // The emulator publishes kube-root-ca.crt into a new namespace a moment later: the lists compared
  // below must not straddle it.
  for (let tries = 0; (await direct.raw("GET", resourcePath(types.configmaps, "p", "kube-root-ca.crt"), {})).code !== 200; tries++) {
    if (tries > 200) throw new Error("kube-root-ca.crt never appeared in namespace p");
    await new Promise((r) => setTimeout(r, 25));
  }
  for (let i = 0; i < 4; i++)
    await direct.create(types.configmaps, "p", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}` }, data: { blob: "x".repeat(40 * 1024) } });
});
afterAll(async () => {
  await Promise.all([direct.close(), through.close()]);
  await proxy.close();
  await emulator.close();
});

const SEEN_HEADERS = ["content-type", "content-encoding", "warning", "vary", "retry-after"];
const seen = (h: Record<string, string>): Record<string, string> =>
  Object.fromEntries(SEEN_HEADERS.filter((k) => h[k] !== undefined).map((k) => [k, h[k] as string]));

describe("the wire proxy without a rewrite", () => {
  it("passes statuses, bodies and the headers a suite reads unchanged: JSON, protobuf, gzip, a Warning, an error Status", async () => {
    const cases: [string, string, Parameters<ApiClient["raw"]>[2]][] = [
      ["GET", resourcePath(types.configmaps, "p", "c1"), {}],
      ["GET", resourcePath(types.configmaps, "p"), { accept: PB }],
      ["GET", resourcePath(types.configmaps, "p"), { headers: { "accept-encoding": "gzip" } }],
      ["GET", resourcePath(types.configmaps, "p", "missing"), {}],
      [
        "POST",
        resourcePath(types.configmaps, "p"),
        { rawBody: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w"},"bogus":1}', contentType: "application/json", query: { dryRun: "All" } },
      ],
    ];
    for (const [method, path, opts] of cases) {
      const [a, b] = [await direct.raw(method, path, opts), await through.raw(method, path, opts)];
      const what = `${method} ${path} ${JSON.stringify(opts)}`;
      expect(b.code, what).toBe(a.code);
      expect(seen(b.headers), what).toEqual(seen(a.headers));
      // A gzip body is compared decompressed: the same list, compressed alike.
      if (a.headers["content-encoding"] === "gzip") expect(gunzipSync(b.bytes).toString("utf8"), what).toBe(gunzipSync(a.bytes).toString("utf8"));
      else if (method === "POST") expect(b.json, what).toMatchObject({ kind: "ConfigMap", metadata: { name: "w" } });
      else expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes)), what).toBe(true);
    }
  });

  it("passes JSON and protobuf watch streams event by event", async () => {
    const rv = (await direct.list(types.configmaps, "p")).metadata.resourceVersion;
    for (const accept of ["application/json", PB]) {
      const opts = { accept, decoderFor: (ct: string) => frameDecoderFor(ct, "kubernetes") };
      const [a, b] = await Promise.all([
        direct.watch(types.configmaps, "p", { resourceVersion: rv }, opts),
        through.watch(types.configmaps, "p", { resourceVersion: rv }, opts),
      ]);
      try {
        await direct.create(types.configmaps, "p", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `w-${accept.length}` } });
        expect(b.contentType).toBe(a.contentType);
        expect(await b.take(1)).toEqual(await a.take(1));
      } finally {
        a.close();
        b.close();
      }
    }
  });
});

describe("the proxy with rewrites", () => {
  it("rewrites binary bodies byte for byte (responseBytes) and leaves the other requests alone", async () => {
    const wrong = await startWireProxy(emulator.url, {
      name: "wrong envelope",
      responseBytes: (r) => (r.contentType.startsWith(PB) ? { ...r, bytes: Buffer.concat([Buffer.from("k9s"), r.bytes.subarray(3)]) } : r),
    });
    const client = new ApiClient({ url: wrong.url, credentials: {}, source: "proxy" });
    try {
      const path = resourcePath(types.configmaps, "p", "c1");
      const [a, b] = [await direct.raw("GET", path, { accept: PB }), await client.raw("GET", path, { accept: PB })];
      expect(Buffer.from(b.bytes).subarray(0, 3).toString()).toBe("k9s");
      expect(Buffer.from(b.bytes).subarray(3).equals(Buffer.from(a.bytes).subarray(3))).toBe(true);
      const [ja, jb] = [await direct.raw("GET", path, {}), await client.raw("GET", path, {})];
      expect(Buffer.from(jb.bytes).equals(Buffer.from(ja.bytes))).toBe(true);
    } finally {
      await client.close();
      await wrong.close();
    }
  });

  it("limits a rewrite to the suites it names, by the suite in the User-Agent", async () => {
    const scoped = await startWireProxy(emulator.url, { name: "scoped", suites: ["crud"], response: (r) => ({ ...r, code: 418, body: "{}" }) });
    try {
      const ua = (suite: string) => ({ headers: { "user-agent": `tollgate/0 (suite ${suite})` } });
      expect((await fetch(`${scoped.url}/version`, ua("crud"))).status).toBe(418);
      expect((await fetch(`${scoped.url}/version`, ua("patch"))).status).toBe(200);
      expect((await fetch(`${scoped.url}/version`)).status).toBe(200);
    } finally {
      await scoped.close();
    }
  });
});

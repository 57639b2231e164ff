/**
 * gzip (gate APIResponseCompression, on by default): only above 128 KiB, only when asked,
 * never for watches, streamed through the gzip stream for large lists.
 */
import { gunzipSync } from "node:zlib";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, uniq } from "./support.js";

const THRESHOLD = 128 * 1024;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const res = await request(base + path, { headers });
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

describe("response compression", () => {
  let emu: RunningEmulator;
  let off: RunningEmulator;
  let call: ReturnType<typeof client>;
  let ns: string;
  const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;
  beforeAll(async () => {
    // Exact lists and streams of this file's own writes: without the namespace controllers' content.
    emu = await startEmulator({ port: 0, namespaceContent: false });
    off = await startEmulator({ port: 0, namespaceContent: false, featureGates: { APIResponseCompression: false } });
    call = client(emu.url);
    ns = uniq("gzip");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
  });
  afterAll(async () => {
    await emu.close();
    await off.close();
  });

  it("compresses a body of more than 128 KiB, and not one of exactly 128 KiB", async () => {
    // Two objects whose JSON differs only in the filler: sized to THRESHOLD and THRESHOLD + 1 bytes.
    // Their three resourceVersions must have as many digits: pad the history until they do.
    let rv = Number((await call("GET", cms())).json.metadata.resourceVersion);
    while (String(rv + 1).length !== String(rv + 3).length) rv = Number((await call("POST", cms(), configMapBody(uniq("pad")))).json.metadata.resourceVersion);
    await call("POST", cms(), configMapBody("size-a", { f: "x".repeat(100_000) }));
    const probe = (await get(emu.url, `${cms()}/size-a`)).bytes.length;
    const fill = 100_000 + (THRESHOLD - probe);
    await call("POST", cms(), configMapBody("size-b", { f: "x".repeat(fill) }));
    await call("POST", cms(), configMapBody("size-c", { f: "x".repeat(fill + 1) }));
    const b = await get(emu.url, `${cms()}/size-b`);
    const c = await get(emu.url, `${cms()}/size-c`);
    // Same number of digits in the resourceVersions, so the sizes are what was aimed at.
    expect([b.bytes.length, c.bytes.length]).toEqual([THRESHOLD, THRESHOLD + 1]);

    const bz = await get(emu.url, `${cms()}/size-b`, { "accept-encoding": "gzip" });
    expect(bz.headers["content-encoding"]).toBeUndefined();
    expect(bz.headers["content-length"]).toBe(String(THRESHOLD));
    const cz = await get(emu.url, `${cms()}/size-c`, { "accept-encoding": "gzip, deflate" });
    expect(cz.headers["content-encoding"]).toBe("gzip");
    expect(cz.headers["vary"]).toBe("Accept-Encoding");
    expect(cz.headers["content-length"]).toBeUndefined();
    expect(gunzipSync(cz.bytes).equals(c.bytes)).toBe(true);
    expect(cz.bytes.length).toBeLessThan(2048);
  });

  it("streams a large list through gzip, to exactly the plain bytes", async () => {
    for (let i = 0; i < 40; i++) await call("POST", cms(), configMapBody(`bulk-${i}`, { f: `${i}`.repeat(20_000) }));
    const plain = await get(emu.url, cms());
    expect(plain.headers["transfer-encoding"]).toBe("chunked");
    const zipped = await get(emu.url, cms(), { "accept-encoding": "gzip" });
    expect([zipped.headers["content-encoding"], zipped.headers["content-type"]]).toEqual(["gzip", "application/json"]);
    expect(gunzipSync(zipped.bytes).equals(plain.bytes)).toBe(true);
    // Protobuf lists too.
    const pb = await get(emu.url, cms(), { accept: "application/vnd.kubernetes.protobuf" });
    const pbz = await get(emu.url, cms(), { accept: "application/vnd.kubernetes.protobuf", "accept-encoding": "gzip" });
    expect(gunzipSync(pbz.bytes).equals(pb.bytes)).toBe(true);
  });

  it("never compresses unasked, with the gate off, a token with parameters, or a watch", async () => {
    expect((await get(emu.url, cms())).headers["content-encoding"]).toBeUndefined();
    expect((await get(emu.url, cms(), { "accept-encoding": "br" })).headers["content-encoding"]).toBeUndefined();
    expect((await get(emu.url, cms(), { "accept-encoding": "gzip;q=1" })).headers["content-encoding"]).toBeUndefined();
    const offCall = client(off.url);
    await offCall("POST", "/api/v1/namespaces/default/configmaps", configMapBody("big", { f: "y".repeat(200_000) }));
    expect((await get(off.url, "/api/v1/namespaces/default/configmaps/big", { "accept-encoding": "gzip" })).headers["content-encoding"]).toBeUndefined();

    const abort = new AbortController();
    const res = await request(`${emu.url}${cms()}?watch=true`, { headers: { "accept-encoding": "gzip" }, signal: abort.signal });
    expect(res.headers["content-encoding"]).toBeUndefined();
    res.body.on("error", () => {});
    abort.abort();
  });

  it("survives clients that leave in the middle of a gzipped list", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await request(`${emu.url}${cms()}`, { headers: { "accept-encoding": "gzip" } });
      const reader = res.body[Symbol.asyncIterator]();
      await reader.next();
      res.body.destroy();
    }
    const after = await get(emu.url, cms(), { "accept-encoding": "gzip" });
    expect(JSON.parse(gunzipSync(after.bytes).toString("utf8")).items.length).toBeGreaterThan(40);
  });
});

/**
 * Issue #15 (watch): a watcher that does not read is ended once its backlog, initial events
 * included, stays past a bound, and costs at most a chunk meanwhile; readers, slow ones too,
 * get everything. timeoutSeconds of any size, negative, zero or unparsable, and `?timeout=`,
 * as the real server treats them (wire-facts §11, §12).
 */
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchTimeoutMs } from "../../lib/emulator/endpoints/handlers/watch.js";
import { DEFAULT_WATCH_BACKLOG_BYTES, watchOutboxStats } from "../../lib/emulator/endpoints/handlers/watch-outbox.js";
import { goDurationError } from "../../lib/emulator/endpoints/request-timeout.js";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, configMapBody, openWatch, sleep, uniq } from "./support.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const cms = (n: string): string => `/api/v1/namespaces/${n}/configmaps`;

async function start(settings: Parameters<typeof resolveSettings>[0] = {}): Promise<{ emu: EmulatorServer; url: string; port: number }> {
  // Exact lists and streams of this file's own writes: without the namespace controllers' content.
  const emu = createEmulatorServer(resolveSettings({ namespaceContent: false, ...settings }));
  const url = await emu.listen("127.0.0.1", 0);
  return { emu, url, port: Number(new URL(url).port) };
}

/** `count` ConfigMaps of about `size` bytes each in a new namespace, created over HTTP. */
async function fill(call: ReturnType<typeof client>, count: number, size: number): Promise<string> {
  const ns = uniq("big");
  await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
  const payload = "x".repeat(size);
  for (let i = 0; i < count; i += 50) {
    const batch = Array.from({ length: Math.min(50, count - i) }, (_, k) =>
      call("POST", cms(ns), configMapBody(`cm-${String(i + k).padStart(5, "0")}`, { payload })),
    );
    for (const r of await Promise.all(batch)) expect(r.status).toBe(201);
  }
  return ns;
}

/** A raw HTTP/1.1 watch whose socket is paused at once: the client takes nothing. */
async function stalledWatch(port: number, path: string): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  return socket;
}

/** The body of a chunked response read to its last chunk; the connection stays open (keep-alive). */
async function readToEnd(socket: Socket, pauseMs = 0, timeoutMs = 20_000): Promise<{ head: string; body: string }> {
  const parts: Buffer[] = [];
  let size = 0;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no end of stream after ${size} bytes`)), timeoutMs);
    socket.on("data", (d: Buffer) => {
      parts.push(d);
      size += d.length;
      if (d.length >= 5 && d.subarray(-5).toString("latin1") === "0\r\n\r\n") {
        clearTimeout(timer);
        resolve();
      } else if (pauseMs > 0) {
        socket.pause();
        setTimeout(() => socket.resume(), pauseMs);
      }
    });
    socket.on("error", reject);
  });
  socket.resume();
  await done;
  const raw = Buffer.concat(parts);
  const headEnd = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, headEnd).toString("latin1");
  // Chunked decoding.
  const out: Buffer[] = [];
  let at = headEnd + 4;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at);
    const n = Number.parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
    if (n === 0) break;
    out.push(raw.subarray(lineEnd + 2, lineEnd + 2 + n));
    at = lineEnd + 2 + n + 2;
  }
  return { head, body: Buffer.concat(out).toString("utf8") };
}

/** Heap and Buffer memory after a full collection. */
function retained(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

describe("watchers that do not read", () => {
  const COUNT = 2000;
  const SIZE = 10 * 1024;
  let big: { emu: EmulatorServer; url: string; port: number };
  let call: ReturnType<typeof client>;
  let ns: string;

  beforeAll(async () => {
    big = await start();
    call = client(big.url);
    ns = await fill(call, COUNT, SIZE);
  }, 120_000);
  afterAll(async () => {
    await big.emu.close();
  });

  it("are ended, hold about a chunk each meanwhile, and a reader beside them gets every event", async () => {
    const collectionBytes = COUNT * SIZE;
    const before = retained();
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const baseWatches = big.emu.parts.watches.size;
    const cutBefore = watchOutboxStats.unresponsive;

    const reader = await openWatch(big.url, `${cms(ns)}?watch=true`);
    const stalled: Socket[] = [];
    const N = 16;
    for (let i = 0; i < N; i++) {
      stalled.push(
        await stalledWatch(
          big.port,
          `${cms(ns)}?watch=true${i % 2 ? "&resourceVersion=0" : "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"}`,
        ),
      );
    }
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 10);
    try {
      // Only the names are kept: the events themselves are the collection again.
      const names = new Set<string>();
      for (let i = 0; i < COUNT; i++) {
        const e = await reader.next(20_000);
        expect(e?.type).toBe("ADDED");
        names.add(e?.object.metadata.name);
      }
      expect(names.size).toBe(COUNT);

      // The server ends every stalled stream; the reader's stays.
      expect(await until(() => watchOutboxStats.unresponsive - cutBefore >= N, 20_000)).toBe(true);
      expect(await until(() => big.emu.parts.watches.size === baseWatches + 1, 5_000)).toBe(true);
      const grown = retained() - before;
      // Before: each stalled stream kept the whole collection (and more) buffered, N times it.
      expect(grown).toBeLessThan(2 * collectionBytes);
      expect(peakRss - rssBefore).toBeLessThan((N * collectionBytes) / 4);

      await call("POST", cms(ns), configMapBody("after", {}));
      const live = await reader.next(5_000);
      expect([live?.type, live?.object.metadata.name]).toEqual(["ADDED", "after"]);
    } finally {
      clearInterval(sampler);
      reader.close();
    }

    // The client view: the stream just ends, complete events and no ERROR or bookmark after a cut.
    const { head, body } = await readToEnd(stalled[0] as Socket);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    const events = body
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(COUNT);
    expect(events.every((e) => e.type === "ADDED")).toBe(true);
    for (const s of stalled) s.destroy();
  }, 90_000);

  it("keeps a reader that reads slowly, past the bound but always taking something", async () => {
    const small = await start({ watchBacklogBytes: 256 * 1024 });
    try {
      const c = client(small.url);
      const target = await fill(c, 300, SIZE);
      const cutBefore = watchOutboxStats.unresponsive;
      const socket = await stalledWatch(small.port, `${cms(target)}?watch=true&timeoutSeconds=3`);
      // About 64 KiB a read, a pause under the grace between reads: 3 MiB in about 2 s.
      const { body } = await readToEnd(socket, 40);
      socket.destroy();
      const events = body.split("\n").filter((l) => l !== "");
      expect(events).toHaveLength(300);
      expect(watchOutboxStats.unresponsive).toBe(cutBefore);
    } finally {
      await small.emu.close();
    }
  }, 60_000);

  it("ends a stream whose live events pile up past the bound, and only that one", async () => {
    const small = await start({ watchBacklogBytes: 64 * 1024 });
    try {
      const c = client(small.url);
      const target = uniq("live");
      await c("POST", "/api/v1/namespaces", { metadata: { name: target } });
      const rv = (await c("GET", cms(target))).json.metadata.resourceVersion as string;
      const cutBefore = watchOutboxStats.unresponsive;
      const stalled = await stalledWatch(small.port, `${cms(target)}?watch=true&resourceVersion=${rv}`);
      const reader = await openWatch(small.url, `${cms(target)}?watch=true&resourceVersion=${rv}`);
      const payload = "y".repeat(64 * 1024);
      // Past what the kernel's socket buffers take, then past the bound.
      let written = 0;
      for (let i = 0; written < 64 * 1024 * 1024 && watchOutboxStats.unresponsive === cutBefore; i++) {
        await Promise.all(Array.from({ length: 16 }, (_, k) => c("POST", cms(target), configMapBody(`l-${i}-${k}`, { payload }))));
        written += 16 * payload.length;
      }
      expect(watchOutboxStats.unresponsive - cutBefore).toBe(1);
      const got = await reader.take(written / payload.length, 10_000);
      expect(got).toHaveLength(written / payload.length);
      reader.close();
      stalled.destroy();
    } finally {
      await small.emu.close();
    }
  }, 60_000);

  it("sends initial events made on demand in order: Table headers on the first only, selectors applied", async () => {
    const small = await start();
    try {
      const c = client(small.url);
      const target = uniq("lazy");
      await c("POST", "/api/v1/namespaces", { metadata: { name: target } });
      for (const [n, parity] of [
        ["a", "even"],
        ["b", "odd"],
        ["c", "even"],
      ] as const)
        await c("POST", cms(target), configMapBody(n, {}, { parity }));
      const table = await openWatch(small.url, `${cms(target)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, {
        accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
      });
      const even = await openWatch(small.url, `${cms(target)}?watch=true&labelSelector=parity%3Deven`);
      await c("POST", cms(target), configMapBody("d", {}, { parity: "even" }));
      const rows = await table.take(5, 5_000);
      expect(rows.map((e) => e.type)).toEqual(["ADDED", "ADDED", "ADDED", "BOOKMARK", "ADDED"]);
      expect(rows.map((e) => Array.isArray(e.object["columnDefinitions"]) && e.object["columnDefinitions"].length > 0)).toEqual([
        true,
        false,
        false,
        false,
        false,
      ]);
      expect((await even.take(3, 5_000)).map((e) => e.object.metadata.name)).toEqual(["a", "c", "d"]);
      table.close();
      even.close();
    } finally {
      await small.emu.close();
    }
  });

  it("has a default bound of 8 MiB", () => {
    expect(DEFAULT_WATCH_BACKLOG_BYTES).toBe(8 * 1024 * 1024);
    expect(resolveSettings({}).watchBacklogBytes).toBe(8 * 1024 * 1024);
    expect(resolveSettings({ watchBacklogBytes: 1024 }).watchBacklogBytes).toBe(1024);
    expect(resolveSettings({ watchBacklogBytes: 0 }).watchBacklogBytes).toBe(8 * 1024 * 1024);
  });
});

describe("watch timeoutSeconds", () => {
  let emu: EmulatorServer;
  let url: string;
  let call: ReturnType<typeof client>;
  let ns: string;
  beforeAll(async () => {
    ({ emu, url } = await start());
    call = client(url);
    ns = uniq("timeout");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
  });
  afterAll(async () => {
    await emu.close();
  });

  const endsWithin = async (query: string, ms: number): Promise<boolean> => {
    const w = await openWatch(url, `${cms(ns)}?watch=true&${query}`);
    expect(w.status).toBe(200);
    const ended = await Promise.race([w.ended.then(() => true), sleep(ms).then(() => false)]);
    w.close();
    return ended;
  };

  it("keeps a watch open for any large value (2147484 s used to end it after 1 ms)", async () => {
    for (const t of ["2147484", "4294968", "9223372036", "0"]) expect(await endsWithin(`timeoutSeconds=${t}`, 300), t).toBe(false);
  });

  it("ends at once for a negative value, and where Go's nanosecond product wraps negative", async () => {
    for (const t of ["-1", "9223372037"]) expect(await endsWithin(`timeoutSeconds=${t}`, 1_000), t).toBe(true);
  });

  it("computes the deadline as the real server does", () => {
    expect(watchTimeoutMs(undefined, () => 0)).toBe(1_800_000);
    expect(watchTimeoutMs(0n, () => 0.5)).toBe(2_700_000);
    expect(watchTimeoutMs(2_147_484n)).toBe(2_147_484_000);
    expect(watchTimeoutMs(9_223_372_036n)).toBe(9_223_372_036_000);
    expect(watchTimeoutMs(-5n)).toBe(0);
    expect(watchTimeoutMs(9_223_372_037n)).toBe(0);
    // 18446744074 × 10^9 ns wraps to 290448384 ns.
    expect(watchTimeoutMs(18_446_744_074n)).toBe(290);
  });

  it("refuses an unparsable value with the conversion's 400, on watch and list alike", async () => {
    const cases: Array<[string, string]> = [
      ["", 'strconv.ParseInt: parsing "": invalid syntax'],
      ["abc", 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ["1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'],
      ["9223372036854775808", 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
      ["-9223372036854775809", 'strconv.ParseInt: parsing "-9223372036854775809": value out of range'],
    ];
    for (const [value, message] of cases) {
      for (const watch of ["watch=true&", ""]) {
        const r = await call("GET", `${cms(ns)}?${watch}timeoutSeconds=${value}`);
        expect(r.status, `${watch}${value}`).toBe(400);
        expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "BadRequest", code: 400 });
      }
    }
    expect((await call("GET", `${cms(ns)}?timeoutSeconds=-9223372036854775808`)).status).toBe(200);
  });
});

describe("?timeout= on requests that are not watches", () => {
  let emu: EmulatorServer;
  let url: string;
  beforeAll(async () => {
    ({ emu, url } = await start({ auth: true }));
  });
  afterAll(async () => {
    await emu.close();
  });

  it("is 400 when Go cannot parse it, before authentication; a watch ignores it", async () => {
    const call = client(url);
    const token = { headers: { authorization: `Bearer ${emu.parts.settings.adminToken}` } };
    const cases: Array<[string, string]> = [
      ["abc", 'time: invalid duration "abc"'],
      ["5", 'time: missing unit in duration "5"'],
      ["5x", 'time: unknown unit "x" in duration "5x"'],
      ["1..5s", 'time: missing unit in duration "1..5s"'],
    ];
    for (const [value, error] of cases) {
      for (const path of ["/api/v1/namespaces", "/version", "/api/v1/namespaces/default"]) {
        // No token: the deadline filter answers before authentication would (401).
        const r = await call("GET", `${path}?timeout=${encodeURIComponent(value)}`);
        expect(r.status, `${path} ${value}`).toBe(400);
        expect(r.json).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `invalid timeout specified in the request URL - ${error}`,
          reason: "BadRequest",
          code: 400,
        });
      }
    }
    for (const value of ["30s", "-1s", "0", "1h", "1.5m", ""]) {
      expect((await call("GET", `/api/v1/namespaces?timeout=${value}`, undefined, token)).status, value).toBe(200);
    }
    const w = await openWatch(url, "/api/v1/namespaces?watch=true&timeout=abc", token.headers);
    expect(w.status).toBe(200);
    w.close();
  });

  it("reads durations as time.ParseDuration does", () => {
    for (const ok of ["0", "+0", "-0", "1ns", "1us", "1µs", "1μs", ".5s", "5.s", "1h2m3.5s", "2562047h47m16.854775807s", "-2562047h47m16.854775808s"]) {
      expect(goDurationError(ok), ok).toBeUndefined();
    }
    expect(goDurationError("")).toBe('time: invalid duration ""');
    expect(goDurationError(".s")).toBe('time: invalid duration ".s"');
    expect(goDurationError("2562047h47m16.854775808s")).toBe('time: invalid duration "2562047h47m16.854775808s"');
    expect(goDurationError("9223372036854775808ns")).toBe('time: invalid duration "9223372036854775808ns"');
    expect(goDurationError("٣s")).toBe('time: invalid duration "\\xd9\\xa3s"');
    expect(goDurationError("5µx")).toBe('time: unknown unit "\\xc2\\xb5x" in duration "5\\xc2\\xb5x"');
    expect(goDurationError("1 s")).toBe('time: unknown unit " s" in duration "1 s"');
  });
});

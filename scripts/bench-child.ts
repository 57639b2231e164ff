/**
 * The server side of the benchmarks, run in its own process by bench-support's startChild:
 *
 *   list-emulator COUNT NAMESPACES  the emulator, filled with COUNT events.k8s.io Events written
 *                                   through its generic registry (validation, canonical form,
 *                                   store), the same path a POST takes after HTTP decoding and
 *                                   namespace admission; HTTP would only add the client's time.
 *   list-plain URL                  a plain server that fetches the list at URL once, keeps the
 *                                   items as objects, and streams JSON.stringify of each
 *                                   (the baseline for list throughput).
 *   list-plain-protobuf URL         the same for protobuf: fetches the list at URL once (JSON),
 *                                   keeps the items as objects, and per request encodes each
 *                                   with lib/wire's encoder (as list-plain stringifies each),
 *                                   then streams the list (the baseline for protobuf lists).
 *   list-ready-protobuf URL         a server that encodes the whole list before timing and
 *                                   streams those ready bytes (a second, harder baseline: only
 *                                   copying, no encoding at all).
 *   watch-emulator                  the emulator, empty, with its default settings.
 *   watch-bare                      a bare node:http fan-out server (the baseline for watches):
 *                                   it numbers each created object, frames the ADDED line once
 *                                   and writes the lines gathered since its last flush to every
 *                                   watch response with res.write, at once when idle and at
 *                                   most every 10 ms when busy (the emulator's cadence); no
 *                                   validation, storage, history, selectors or bookmarks.
 *
 * The child reports "ready" with its URL and its memory after setup (after a full GC), and on
 * request samples its own memory every 2 ms.
 */
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { request } from "undici";
import { formatMicroTime } from "../lib/emulator/apimachinery/api-time.js";
import type { KubeObject } from "../lib/emulator/apimachinery/json.js";
import { watchOutboxStats } from "../lib/emulator/endpoints/handlers/watch-outbox.js";
import { createEmulatorServer } from "../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../lib/emulator/options.js";
import { eventStrategy, namespaceStrategy } from "../lib/emulator/registry/index.js";
import { encodeMessageField, entryFor } from "../lib/wire/protobuf/codec.js";
import { decodeEnvelope, encodeObject, PROTOBUF_CONTENT_TYPE } from "../lib/wire/protobuf/index.js";
import { type ChildMessage, loopDelay, type MemorySample, maxSample, memorySample, type ParentMessage } from "./bench-support.js";

const send = (m: ChildMessage): void => {
  process.send?.(m);
};

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  gc();
  gc();
}

let sampler: NodeJS.Timeout | undefined;
let peak: MemorySample = memorySample();
let samples = 0;
let delay = monitorEventLoopDelay({ resolution: 1 });
/** The fan-out counters (flushes, writes, lines) of the server this child runs. */
let counterSource: Record<string, number> = watchOutboxStats;
let countersAtStart: Record<string, number> = { ...counterSource };
let cpuAtStart = process.cpuUsage();

process.on("message", (m: ParentMessage) => {
  if (m.type === "sample-start") {
    peak = memorySample();
    samples = 1;
    delay.disable();
    delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    countersAtStart = { ...counterSource };
    cpuAtStart = process.cpuUsage();
    clearInterval(sampler);
    sampler = setInterval(() => {
      peak = maxSample(peak, memorySample());
      samples++;
    }, 2);
    send({ type: "sampling" });
  } else if (m.type === "sample-stop") {
    clearInterval(sampler);
    peak = maxSample(peak, memorySample());
    delay.disable();
    const counters = Object.fromEntries(Object.entries(counterSource).map(([k, v]) => [k, v - (countersAtStart[k] ?? 0)]));
    // The server's own CPU while sampling: steadier than throughput on a shared machine.
    const cpu = process.cpuUsage(cpuAtStart);
    counters["cpuMs"] = Math.round((cpu.user + cpu.system) / 1000);
    send({ type: "sampled", peak, samples: samples + 1, loopDelayMs: loopDelay(delay), counters });
  } else if (m.type === "gc") {
    fullGc();
    send({ type: "gced", memory: memorySample() });
  }
});

/** A note that brings the stored Event to about 1 KB. */
const NOTE = "Benchmark event: the quick brown fox jumps over the lazy dog. ".repeat(9).slice(0, 540);

function benchEvent(i: number, namespace: string, eventTime: string): KubeObject {
  const id = String(i).padStart(6, "0");
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `bench-${id}`, namespace, labels: { app: "tollgate-bench", shard: String(i % 16) } },
    eventTime,
    reportingController: "tollgate.dev/bench",
    reportingInstance: "bench-instance-1",
    action: "Measure",
    reason: "Benchmark",
    regarding: { kind: "ConfigMap", namespace, name: `subject-${id}`, apiVersion: "v1" },
    note: `${NOTE} #${id}`,
    type: "Normal",
  };
}

async function listEmulator(count: number, namespaces: number): Promise<void> {
  const started = performance.now();
  // Retention longer than the run: the history log holds every write, as it would on a fresh server.
  const emu = createEmulatorServer(resolveSettings({ retentionMs: 3_600_000 }));
  const { generic } = emu.parts;
  const eventTime = formatMicroTime(new Date());
  for (let n = 0; n < namespaces; n++) {
    generic.create(namespaceStrategy, { apiVersion: "v1", kind: "Namespace", metadata: { name: `bench-${n}` } });
  }
  let storedBytes = 0;
  for (let i = 0; i < count; i++) {
    const created = generic.create(eventStrategy, benchEvent(i, `bench-${i % namespaces}`, eventTime));
    if (i === 0) storedBytes = JSON.stringify(created).length;
  }
  const setupMs = performance.now() - started;
  fullGc();
  const baseline = memorySample();
  const url = await emu.listen("127.0.0.1", 0);
  process.once("SIGTERM", () => void emu.close().then(() => process.exit(0)));
  send({ type: "ready", url, baseline, setupMs, detail: { events: count, namespaces, firstEventJsonBytes: storedBytes } });
}

const CHUNK = 64 * 1024;

function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const ok = (): void => finish(true);
    const gone = (): void => finish(false);
    function finish(v: boolean): void {
      res.off("drain", ok);
      res.off("close", gone);
      resolve(v);
    }
    res.on("drain", ok);
    res.on("close", gone);
  });
}

/** The baseline: JSON.stringify per object, batched into 64 KB writes, with backpressure. */
async function streamPlain(res: ServerResponse, head: string, items: unknown[]): Promise<void> {
  res.writeHead(200, { "Content-Type": "application/json" });
  let pending = head;
  for (let i = 0; i < items.length; i++) {
    pending += (i === 0 ? "" : ",") + JSON.stringify(items[i]);
    if (pending.length < CHUNK) continue;
    const more = res.write(pending);
    pending = "";
    if (!more && !(await drained(res))) return;
    if (more) await new Promise((r) => setImmediate(r));
  }
  res.end(`${pending}]}\n`);
}

async function listPlain(sourceUrl: string): Promise<void> {
  const started = performance.now();
  const res = await request(sourceUrl);
  const list = JSON.parse(await res.body.text()) as { kind: string; apiVersion: string; metadata: unknown; items: unknown[] };
  const head = `${JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata }).slice(0, -1)},"items":[`;
  const items = list.items;
  const setupMs = performance.now() - started;
  fullGc();
  const baseline = memorySample();
  const server = createServer((_req, out) => {
    out.on("error", () => {});
    void streamPlain(out, head, items);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  send({ type: "ready", url: `http://127.0.0.1:${port}`, baseline, setupMs, detail: { items: items.length } });
}

/** The protobuf baseline: precomputed bytes, in 64 KB writes with backpressure, as streamPlain writes its text. */
async function streamBytes(res: ServerResponse, body: Uint8Array): Promise<void> {
  res.writeHead(200, { "Content-Type": PROTOBUF_CONTENT_TYPE });
  for (let at = 0; at < body.length; at += CHUNK) {
    const more = res.write(body.subarray(at, Math.min(at + CHUNK, body.length)));
    if (!more && !(await drained(res))) return;
    if (more) await new Promise((r) => setImmediate(r));
  }
  res.end();
}

/**
 * Per request, each item's list field (tag, length, message) by lib/wire's encoder: a protobuf
 * list needs the items' lengths before their bytes, so a plain server encodes each item once
 * and keeps the pieces until written (Go's encoder asks each item its size first instead).
 */
async function streamEncoded(res: ServerResponse, prefixOf: (rawLength: number) => Uint8Array[], items: Record<string, unknown>[]): Promise<void> {
  const fields = items.map((item) => {
    const { entry, kind } = entryFor(item);
    return encodeMessageField(2, entry.message, item, kind);
  });
  let rawLength = 0;
  for (const f of fields) rawLength += f.length;
  res.writeHead(200, { "Content-Type": PROTOBUF_CONTENT_TYPE });
  let pending: Uint8Array[] = prefixOf(rawLength);
  let size = 0;
  for (const f of fields) {
    pending.push(f);
    size += f.length;
    if (size < CHUNK) continue;
    const more = res.write(Buffer.concat(pending));
    pending = [];
    size = 0;
    if (!more && !(await drained(res))) return;
    if (more) await new Promise((r) => setImmediate(r));
  }
  pending.push(ENVELOPE_TAIL);
  res.end(Buffer.concat(pending));
}

/** Unknown fields 3 and 4 (contentEncoding, contentType) of the envelope, both empty. */
const ENVELOPE_TAIL = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

/** The list's items with the kind and apiVersion the codec picks their message by (list items leave them out). */
async function fetchListObjects(sourceUrl: string): Promise<{ list: Record<string, unknown>; items: Record<string, unknown>[] }> {
  const res = await request(sourceUrl);
  const list = JSON.parse(await res.body.text()) as { items: Record<string, unknown>[] };
  const kind = String((list as { kind?: string }).kind ?? "").replace(/List$/, "");
  const apiVersion = String((list as { apiVersion?: string }).apiVersion ?? "");
  return { list, items: list.items.map((item) => ({ kind, apiVersion, ...item })) };
}

async function serveList(handler: (out: ServerResponse) => Promise<void>, started: number, detail: Record<string, number>): Promise<void> {
  const setupMs = performance.now() - started;
  fullGc();
  const baseline = memorySample();
  const server = createServer((_req, out) => {
    out.on("error", () => {});
    void handler(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  send({ type: "ready", url: `http://127.0.0.1:${port}`, baseline, setupMs, detail });
}

async function listPlainProtobuf(sourceUrl: string): Promise<void> {
  const started = performance.now();
  const { list, items } = await fetchListObjects(sourceUrl);
  // The envelope and list head as the codec writes them for no items; the items' field follows.
  const empty = encodeObject({ ...list, items: [] });
  const typeMetaEnd = 6 + (empty[5] as number);
  const prefix = empty.subarray(0, typeMetaEnd);
  const listHead = decodeEnvelope(empty).raw;
  const varint = (n: number): Uint8Array => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
    out.push(n);
    return Uint8Array.from(out);
  };
  const prefixOf = (itemsLength: number): Uint8Array[] => [prefix, Uint8Array.of(0x12), varint(listHead.length + itemsLength), listHead];
  await serveList((out) => streamEncoded(out, prefixOf, items), started, { items: items.length });
}

async function listReadyProtobuf(sourceUrl: string): Promise<void> {
  const started = performance.now();
  const { list, items } = await fetchListObjects(sourceUrl);
  const body = encodeObject({ ...list, items });
  await serveList((out) => streamBytes(out, body), started, { items: items.length, bytes: body.length });
}

async function watchEmulator(): Promise<void> {
  const started = performance.now();
  const emu = createEmulatorServer(resolveSettings({}));
  const url = await emu.listen("127.0.0.1", 0);
  process.once("SIGTERM", () => void emu.close().then(() => process.exit(0)));
  fullGc();
  send({ type: "ready", url, baseline: memorySample(), setupMs: performance.now() - started, detail: {} });
}

/**
 * The watch baseline, written by hand because it is the point: the least a server must do to
 * give every watcher every created object (numbered, framed once, written to each response).
 */
async function watchBare(): Promise<void> {
  const started = performance.now();
  const stats = { flushes: 0, writes: 0, lines: 0 };
  counterSource = stats;
  const watchers = new Set<ServerResponse>();
  let revision = 1;
  let pending: Buffer[] = [];
  let lastFlush = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    lastFlush = performance.now();
    const batch = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
    stats.flushes++;
    stats.lines += pending.length * watchers.size;
    stats.writes += watchers.size;
    pending = [];
    for (const w of watchers) w.write(batch);
  };
  const queue = (line: Buffer): void => {
    pending.push(line);
    if (scheduled) return;
    scheduled = true;
    const wait = lastFlush + 10 - performance.now();
    if (wait <= 0) setImmediate(flush);
    else setTimeout(flush, wait);
  };
  const server = createServer((req, res) => {
    res.on("error", () => {});
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.searchParams.get("watch") === "true") {
      res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
      res.flushHeaders();
      watchers.add(res);
      res.on("close", () => watchers.delete(res));
      return;
    }
    if (req.method === "GET") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: String(revision) }, items: [] }));
      return;
    }
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown>;
      } catch {
        res.writeHead(400).end();
        return;
      }
      revision++;
      const meta = (body["metadata"] ?? {}) as Record<string, unknown>;
      // The fields a created object carries, so lines are about as long as the emulator's.
      const object = {
        ...body,
        metadata: {
          ...meta,
          namespace: "bench-watch",
          uid: randomUUID(),
          resourceVersion: String(revision),
          creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
        },
      };
      const json = JSON.stringify(object);
      queue(Buffer.from(`{"type":"ADDED","object":${json}}\n`));
      res.writeHead(201, { "Content-Type": "application/json" });
      res.end(json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  fullGc();
  send({ type: "ready", url: `http://127.0.0.1:${port}`, baseline: memorySample(), setupMs: performance.now() - started, detail: {} });
}

const [role, ...args] = process.argv.slice(2);
const main =
  role === "list-emulator"
    ? listEmulator(Number(args[0] ?? 100_000), Number(args[1] ?? 10))
    : role === "list-plain"
      ? listPlain(args[0] ?? "")
      : role === "list-plain-protobuf"
        ? listPlainProtobuf(args[0] ?? "")
        : role === "list-ready-protobuf"
          ? listReadyProtobuf(args[0] ?? "")
          : role === "watch-emulator"
            ? watchEmulator()
            : role === "watch-bare"
              ? watchBare()
              : Promise.reject(new Error(`unknown role ${role}`));
main.catch((e: unknown) => {
  send({ type: "error", message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  // Leave the IPC message time to go out.
  setTimeout(() => process.exit(1), 200);
});

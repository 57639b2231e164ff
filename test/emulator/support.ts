/** Helpers for the emulator tests: plain HTTP calls and a line-by-line watch reader. */
import { createInterface } from "node:readline";
import { request } from "undici";

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed body; `any` so tests can read fields directly (test-only helper). */
  json: any;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** A raw body (sent as is) instead of a JSON-encoded object. */
  raw?: string | Buffer;
}

export function client(base: string) {
  return async function call(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Reply> {
    const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const headers: Record<string, string> = { ...options.headers };
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json";
    }
    const res = await request(base + path, { method: method as "GET", body: payload, headers });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  };
}

export interface WatchEventLine {
  type: string;
  object: any;
}

export interface WatchReader {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The next event, or undefined after timeoutMs (or when the stream ended). */
  next(timeoutMs?: number): Promise<WatchEventLine | undefined>;
  take(count: number, timeoutMs?: number): Promise<WatchEventLine[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** A decoder of a binary watch stream (protobuf frames, a CBOR sequence): events completed by each chunk. */
export interface ChunkDecoder {
  push(chunk: Uint8Array): unknown[];
}

/**
 * A watch read with an Accept header, decoded by `decoder` (JSON lines when none is given).
 * The events come out as the decoder gives them.
 */
export async function openDecodedWatch(base: string, path: string, headers: Record<string, string>, decoder?: ChunkDecoder): Promise<WatchReader> {
  if (!decoder) return openWatch(base, path, headers);
  const abort = new AbortController();
  const res = await request(base + path, { method: "GET", signal: abort.signal, headers });
  const queue: WatchEventLine[] = [];
  const waiters: Array<() => void> = [];
  let done = false;
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const ended = new Promise<void>((resolve) => {
    res.body.on("data", (chunk: Buffer) => {
      for (const e of decoder.push(new Uint8Array(chunk))) queue.push(e as WatchEventLine);
      wake();
    });
    res.body.on("end", () => {
      done = true;
      wake();
      resolve();
    });
    res.body.on("error", () => {
      done = true;
      wake();
      resolve();
    });
  });
  return readerOf(
    res.statusCode,
    res.headers,
    queue,
    waiters,
    () => done,
    ended,
    () => abort.abort(),
  );
}

function readerOf(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  queue: WatchEventLine[],
  waiters: Array<() => void>,
  isDone: () => boolean,
  ended: Promise<void>,
  close: () => void,
): WatchReader {
  const next = async (timeoutMs = 2_000): Promise<WatchEventLine | undefined> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !isDone()) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return queue.shift();
  };
  return {
    status,
    headers,
    next,
    take: async (count, timeoutMs = 2_000) => {
      const out: WatchEventLine[] = [];
      for (let i = 0; i < count; i++) {
        const ev = await next(timeoutMs);
        if (!ev) break;
        out.push(ev);
      }
      return out;
    },
    ended,
    close,
  };
}

export async function openWatch(base: string, path: string, headers: Record<string, string> = {}): Promise<WatchReader> {
  const abort = new AbortController();
  const res = await request(base + path, { method: "GET", signal: abort.signal, headers });
  const queue: WatchEventLine[] = [];
  const waiters: Array<() => void> = [];
  let done = false;
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const lines = createInterface({ input: res.body });
  const ended = new Promise<void>((resolve) => {
    lines.on("line", (line) => {
      if (line.trim() === "") return;
      queue.push(JSON.parse(line) as WatchEventLine);
      wake();
    });
    lines.on("close", () => {
      done = true;
      wake();
      resolve();
    });
  });
  // Closing aborts the body; readline re-emits that as an error on the interface.
  res.body.on("error", () => {});
  lines.on("error", () => {});
  return readerOf(
    res.statusCode,
    res.headers,
    queue,
    waiters,
    () => done,
    ended,
    () => abort.abort(),
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls until `check` gives a truthy value and returns it; throws naming `what` after the bound.
 * For the emulator's controllers, which act after the write: a fixed sleep depends on the load.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await sleep(20);
  }
}

let counter = 0;
/** A name unique within the test run. */
export function uniq(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export function microTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** A valid events.k8s.io/v1 Event body for namespace ns. */
export function eventBody(ns: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, namespace: ns },
    eventTime: microTime(),
    reportingController: "tollgate.dev/test",
    reportingInstance: "test-1",
    action: "Check",
    reason: "Testing",
    type: "Normal",
    regarding: { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "subject" },
    note: "hello",
    ...extra,
  };
}

export function configMapBody(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: labels ? { name, labels } : { name }, data };
}

/**
 * The watcher side of bench-watch.ts, made cheap so the benchmark measures the server and not
 * its own client: plain `net` sockets with a hand-written HTTP/1.1 GET, read through `onread`
 * into one shared 1 MiB buffer (no Readable stream, no Buffer per read), de-chunked by a small
 * state machine, and scanned per line only for the event markers the benchmark checks. The
 * arrival time is taken once per read, for every event in it.
 *
 * Runs either in the calling thread (openWatchers) or, started as a worker_thread, on its own
 * event loop (the default), so reading 1,000 sockets does not delay the write loop's timing.
 * Arrival times go into a SharedArrayBuffer on the process-wide monotonic clock (clockMs).
 */
import { connect, type Socket } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { type LoopDelay, loopDelay } from "./bench-support.js";

// performance.now() has a per-thread origin; hrtime is the same clock in every thread.
const clockOffset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
/** Milliseconds on a clock shared by all threads of this process. */
export const clockMs = (): number => performance.now() + clockOffset;

export interface WatchSetup {
  host: string;
  port: number;
  /** Request target of the watch, e.g. /api/v1/namespaces/x/configmaps?watch=true&resourceVersion=1 */
  path: string;
  watchers: number;
  writes: number;
  /** Float64Array(watchers * writes) over a SharedArrayBuffer: arrival time per (watcher, write). */
  arrivedAt: SharedArrayBuffer;
  /** Int32Array(1): events delivered so far, for the drain loop. */
  delivered: SharedArrayBuffer;
}

export interface WatchStats {
  duplicates: number;
  outOfOrder: number;
  unparsedLines: number;
  errors: number;
  watchersWithAllEvents: number;
  loopDelayMs?: LoopDelay;
}

const NAME_MARK = Buffer.from('"metadata":{"name":"w-');
const RV_MARK = Buffer.from('"resourceVersion":"');
const HEAD_END = Buffer.from("\r\n\r\n");

/** The decimal number of up to max digits at offset (stopping at the first non-digit), or NaN. */
function digits(data: Buffer, offset: number, end: number, max: number): number {
  let n = 0;
  let i = offset;
  const stop = Math.min(offset + max, end);
  for (; i < stop; i++) {
    const c = data[i] ?? 0;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  return i === offset ? NaN : n;
}

/** Whether mark is at buf[at] and ends before to. */
function matchAt(buf: Buffer, mark: Buffer, at: number, to: number): boolean {
  if (at < 0 || at + mark.length > to) return false;
  for (let k = 0; k < mark.length; k++) if (buf[at + k] !== mark[k]) return false;
  return true;
}

enum Phase {
  Head,
  Size,
  SizeExt,
  Data,
  DataCr,
  DataLf,
  Done,
}

/** One watch connection: HTTP head, chunked de-framing, line scan. */
class Watcher {
  phase = Phase.Head;
  head: Buffer | undefined;
  size = 0;
  sizeDigits = 0;
  carry: Buffer | undefined;
  received = 0;
  duplicates = 0;
  outOfOrder = 0;
  unparsed = 0;
  errors = 0;
  last = -1;
  // Where the marks were in the previous line: events of one collection have the same layout,
  // so a check there usually replaces a Buffer.indexOf (a call into C++; ~0.5 µs a line saved).
  nameOffset = 0;
  rvOffset = 0;
  constructor(
    readonly index: number,
    private readonly ctx: Context,
    private readonly onHead: (error?: Error) => void,
  ) {}

  /** Consumes buf[0, end) read at time now. */
  read(buf: Buffer, end: number, now: number): void {
    let i = 0;
    if (this.phase === Phase.Head) {
      const spanned = this.head !== undefined;
      const head = this.head ? Buffer.concat([this.head, buf.subarray(0, end)]) : buf.subarray(0, end);
      const at = head.indexOf(HEAD_END);
      if (at < 0) {
        this.head = Buffer.from(head);
        return;
      }
      const text = head.toString("latin1", 0, at);
      this.head = undefined;
      if (!text.startsWith("HTTP/1.1 200 ")) return this.fail(new Error(`watch ${this.index}: ${text.split("\r\n")[0]}`));
      if (!/\r\ntransfer-encoding:\s*chunked\r\n/i.test(`${text}\r\n`)) return this.fail(new Error(`watch ${this.index}: response is not chunked`));
      this.phase = Phase.Size;
      this.onHead();
      // Whatever followed the head is body; it is in head (a copy) when the head spanned reads.
      if (spanned) return this.body(head, at + 4, head.length, now);
      i = at + 4;
    }
    this.body(buf, i, end, now);
  }

  private body(buf: Buffer, start: number, end: number, now: number): void {
    let i = start;
    while (i < end) {
      switch (this.phase) {
        case Phase.Size: {
          const c = buf[i++] ?? 0;
          const hex = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
          if (hex >= 0) {
            this.size = this.size * 16 + hex;
            this.sizeDigits++;
          } else if (c === 10) {
            if (this.sizeDigits === 0) return this.fail(new Error(`watch ${this.index}: bad chunk size line`));
            this.phase = this.size === 0 ? Phase.Done : Phase.Data;
          } else if (c === 59 || c === 13 || c === 32 || c === 9) {
            this.phase = Phase.SizeExt;
          } else return this.fail(new Error(`watch ${this.index}: bad chunk size byte ${c}`));
          break;
        }
        case Phase.SizeExt:
          if (buf[i++] === 10) {
            if (this.sizeDigits === 0) return this.fail(new Error(`watch ${this.index}: bad chunk size line`));
            this.phase = this.size === 0 ? Phase.Done : Phase.Data;
          }
          break;
        case Phase.Data: {
          const take = Math.min(this.size, end - i);
          this.lines(buf, i, i + take, now);
          i += take;
          this.size -= take;
          if (this.size === 0) this.phase = Phase.DataCr;
          break;
        }
        case Phase.DataCr:
          if (buf[i++] !== 13) return this.fail(new Error(`watch ${this.index}: chunk not followed by CRLF`));
          this.phase = Phase.DataLf;
          break;
        case Phase.DataLf:
          if (buf[i++] !== 10) return this.fail(new Error(`watch ${this.index}: chunk not followed by CRLF`));
          this.phase = Phase.Size;
          this.sizeDigits = 0;
          break;
        case Phase.Done:
        case Phase.Head:
          // After the last chunk (only trailers follow) or a failure: nothing more to count.
          return;
      }
    }
  }

  /** Scans the chunk data buf[start, end) for complete lines; a partial line is carried. */
  private lines(buf: Buffer, start: number, end: number, now: number): void {
    let s = start;
    if (this.carry) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= end) {
        this.carry = Buffer.concat([this.carry, buf.subarray(s, end)]);
        return;
      }
      const line = Buffer.concat([this.carry, buf.subarray(s, nl + 1)]);
      this.carry = undefined;
      this.line(line, 0, line.length - 1, now);
      s = nl + 1;
    }
    while (s < end) {
      const nl = buf.indexOf(10, s);
      if (nl < 0 || nl >= end) {
        // Copied: the read buffer is shared and overwritten by the next read.
        this.carry = Buffer.from(buf.subarray(s, end));
        return;
      }
      this.line(buf, s, nl, now);
      s = nl + 1;
    }
  }

  /** One event line buf[start, nl): the write's index from its name, and its resourceVersion. */
  private line(buf: Buffer, start: number, nl: number, now: number): void {
    const at = matchAt(buf, NAME_MARK, start + this.nameOffset, nl) ? start + this.nameOffset : buf.indexOf(NAME_MARK, start);
    const index = at >= 0 && at < nl ? digits(buf, at + NAME_MARK.length, nl, 6) : NaN;
    const { writes, arrivedAt } = this.ctx;
    if (!Number.isInteger(index) || index < 0 || index >= writes) {
      this.unparsed++;
      return;
    }
    this.nameOffset = at - start;
    const slot = this.index * writes + index;
    if (!Number.isNaN(arrivedAt[slot] ?? NaN)) {
      this.duplicates++;
      return;
    }
    arrivedAt[slot] = now;
    this.received++;
    this.ctx.delivered[0] = (this.ctx.delivered[0] ?? 0) + 1;
    const rvAt = matchAt(buf, RV_MARK, at + this.rvOffset, nl) ? at + this.rvOffset : buf.indexOf(RV_MARK, at);
    const rv = rvAt >= 0 && rvAt < nl ? digits(buf, rvAt + RV_MARK.length, nl, 20) : NaN;
    if (rvAt >= 0) this.rvOffset = rvAt - at;
    // Concurrent writes may commit in any order; events must follow resourceVersion order.
    if (!(rv > this.last)) this.outOfOrder++;
    this.last = rv;
  }

  fail(error: Error): void {
    this.errors++;
    this.phase = Phase.Done;
    this.onHead(error);
  }
}

interface Context {
  writes: number;
  arrivedAt: Float64Array;
  delivered: Int32Array;
}

export interface OpenWatchers {
  openMs: number;
  stats(): WatchStats;
  close(): void;
}

/** Opens all watches (100 connections at a time) in this thread; resolves once every head is in. */
export async function openWatchers(setup: WatchSetup): Promise<OpenWatchers> {
  const ctx: Context = { writes: setup.writes, arrivedAt: new Float64Array(setup.arrivedAt), delivered: new Int32Array(setup.delivered) };
  // One read buffer for all sockets: each read is scanned before the next one is made.
  const shared = Buffer.allocUnsafe(1 << 20);
  const sockets: Socket[] = [];
  const all: Watcher[] = [];
  const request = Buffer.from(`GET ${setup.path} HTTP/1.1\r\nHost: ${setup.host}:${setup.port}\r\nAccept: application/json\r\n\r\n`);
  const open = (w: number): Promise<void> =>
    new Promise((resolve, reject) => {
      let settled = false;
      const watcher = new Watcher(w, ctx, (error) => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve();
      });
      all[w] = watcher;
      const socket = connect({
        host: setup.host,
        port: setup.port,
        onread: {
          buffer: shared,
          // The read landed in shared (the buf argument is the same memory, typed Uint8Array).
          callback: (n) => {
            watcher.read(shared, n, clockMs());
            return true;
          },
        },
      });
      sockets.push(socket);
      socket.setNoDelay(true);
      socket.on("connect", () => socket.write(request));
      socket.on("error", (e) => watcher.fail(e));
      socket.on("end", () => {
        if (watcher.phase !== Phase.Done) watcher.fail(new Error(`watch ${w}: connection closed by the server`));
      });
    });
  const started = performance.now();
  for (let batch = 0; batch < setup.watchers; batch += 100) {
    await Promise.all(Array.from({ length: Math.min(100, setup.watchers - batch) }, (_, k) => open(batch + k)));
  }
  const openMs = performance.now() - started;
  return {
    openMs,
    stats: () => ({
      duplicates: all.reduce((n, s) => n + s.duplicates, 0),
      outOfOrder: all.reduce((n, s) => n + s.outOfOrder, 0),
      unparsedLines: all.reduce((n, s) => n + s.unparsed, 0),
      errors: all.reduce((n, s) => n + s.errors, 0),
      watchersWithAllEvents: all.filter((s) => s.received === setup.writes).length,
    }),
    close: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/** Messages between bench-watch.ts and this module run as a worker. */
export type ToWorker = { type: "stats" } | { type: "close" };
export type FromWorker = { type: "open"; openMs: number } | { type: "stats"; stats: WatchStats } | { type: "error"; message: string };

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === "bench-watchers") {
  const port = parentPort;
  const setup = (workerData as { setup: WatchSetup }).setup;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  openWatchers(setup).then(
    (opened) => {
      delay.enable();
      port?.postMessage({ type: "open", openMs: opened.openMs } satisfies FromWorker);
      port?.on("message", (m: ToWorker) => {
        if (m.type === "stats") {
          delay.disable();
          port.postMessage({ type: "stats", stats: { ...opened.stats(), loopDelayMs: loopDelay(delay) } } satisfies FromWorker);
        } else {
          opened.close();
          port.close();
        }
      });
    },
    (e: unknown) => port?.postMessage({ type: "error", message: e instanceof Error ? e.message : String(e) } satisfies FromWorker),
  );
}

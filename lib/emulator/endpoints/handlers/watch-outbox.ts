/**
 * The outgoing side of watch streams. Lines are not written when an event happens but queued;
 * all streams with something queued are then written together, one socket write each.
 *
 * Why: a write to a socket is a system call, and on loopback most of its cost is the kernel's
 * TCP path, not the bytes (about 10 µs a write on a 2-vCPU VM). One write per event per
 * watcher capped the fan-out to 1,000 watchers at a few dozen events/s. The flush runs at once
 * (setImmediate) when the previous one ended at least MIN_FLUSH_INTERVAL_MS ago, so an idle
 * server adds no delay; a busy one gathers what arrives meanwhile into one write per watcher,
 * so the number of writes adapts to the load instead of growing with it.
 *
 * Backpressure (wire-facts §12): nothing more is written to a socket that has not drained; the
 * stream's lines wait as references (the fan-out's lines are shared Buffers), and its initial
 * events are produced only as the socket drains (setLazy), so a client that does not read a
 * huge collection costs one chunk, not the collection. A stream whose backlog (bytes queued,
 * initial events still to produce, bytes in the socket's buffer) stays over its bound with no
 * byte taken by the client for GRACE_MS (200 ms) is ended, as the real cacher terminates a
 * watcher still full after its wait budget (100 ms at most); one whose produced backlog passes FAR_FACTOR
 * times the bound is ended at once. The client sees the response just end (no ERROR event, no
 * bookmark, like the real server) and watches again; lines still queued are dropped.
 */
import type { ServerResponse } from "node:http";

/** Default bound of a stream's backlog (EmulatorSettings.watchBacklogBytes). */
export const DEFAULT_WATCH_BACKLOG_BYTES = 8 * 1024 * 1024;

/**
 * How long a stream may stay over its bound without the client taking a byte. The cacher's
 * budget is 100 ms at most; this server sees its clients' progress only through TCP, so it
 * waits twice that, and for STALL_CHECKS checks CHECK_MS apart.
 */
const GRACE_MS = 200;
const CHECK_MS = 50;
const STALL_CHECKS = 4;

/** Produced bytes (queued plus socket-buffered) past this many times the bound end the stream at once. */
const FAR_FACTOR = 4;

/** Initial events are framed in chunks of about this size, one at a time while the socket drains. */
const LAZY_CHUNK_BYTES = 256 * 1024;

/** At most this much of one stream's initial events per flush, so a fast reader does not hold the event loop. */
const LAZY_TURN_BYTES = 4 * 1024 * 1024;

/** At most this much initial events made per flush over all streams; the others wait for the next flush. */
const LAZY_FLUSH_BYTES = 8 * 1024 * 1024;

/** What is left of LAZY_FLUSH_BYTES in the current flush. */
let lazyBudget = LAZY_FLUSH_BYTES;

/** Streams the current flush's budget left without initial events: the next flush starts with them. */
let starved: Pending[] = [];

/** Lines made on demand, in order (a stream's initial events). */
export interface LazyLines {
  /** The next line, or undefined when there are no more. */
  next(): Buffer | string | undefined;
  /** An estimate of the bytes still to come. */
  readonly remainingBytes: number;
}

export interface WatchOutbox {
  /** Queues a line (a shared Buffer is not copied until the flush). */
  send(line: Buffer | string): void;
  /** Puts lines made on demand before everything else (called once, before any send). */
  setLazy(lines: LazyLines): void;
  /**
   * Writes what is queued now, outside the turn's flush (before the stream ends), if the socket
   * takes it; lines made on demand and lines behind a full socket are dropped.
   */
  flush(): void;
}

interface Pending {
  readonly res: ServerResponse;
  readonly onUnresponsive: () => void;
  readonly maxBacklogBytes: number;
  lazy?: LazyLines;
  lines: Array<Buffer | string>;
  /** Bytes (about: string lengths) of `lines`. */
  lineBytes: number;
  /** In the flush queue. */
  queued: boolean;
  /** Waiting for the socket's 'drain' (a listener is registered). */
  draining?: { readonly emitter: NodeJS.EventEmitter; readonly listener: () => void };
  /** Bytes handed to the socket so far. */
  written: number;
  /** Since when the backlog is over the bound, and how many bytes the client had taken then. */
  over?: { readonly at?: number; readonly taken: number; checks: number; timer: NodeJS.Timeout };
  /** Ended (unresponsive or closed): nothing more is written. */
  done: boolean;
}

/**
 * The least time between the end of one flush and the start of the next. An idle server
 * flushes at once (the previous flush is long past); a busy one gathers what arrives in this
 * window into one write per watcher.
 */
const MIN_FLUSH_INTERVAL_MS = 10;

/** Process-wide counters, read by scripts/bench-watch.ts to show how much batching happened. */
export const watchOutboxStats = { flushes: 0, writes: 0, lines: 0, bytes: 0, unresponsive: 0 };

/** Streams with queued lines, in the order they first queued one since the last flush. */
let queue: Pending[] = [];
let lastFlushEnd = 0;

/**
 * A flush writes to streams for a slice of CPU time, then lets the event loop take I/O
 * (setImmediate) before the next slice: a flush over a thousand sockets takes 20–100 ms, and a
 * write request arriving meanwhile would wait for all of it. A slice is at least this many µs,
 * and at least what the rest of the loop used since the previous slice, so neither side takes
 * more than about half of the CPU while the other has work: with a fixed 5 ms slice, requests
 * won every turn on a loaded machine and one flush stretched over seconds. CPU time, not wall
 * time: on a busy machine the wall clock runs on while the process waits for a core.
 */
const FLUSH_SLICE_CPU_US = 5_000;

/** CPU time when the previous slice yielded. */
let sliceYieldCpu = 0;

/** CPU time of this process, user and system, in µs. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** A flush is under way (in slices): streams queued now wait for its end. */
let flushing = false;
/** The streams of the flush under way and the next to write. */
let batch: Pending[] = [];
let batchNext = 0;
/** The previous stream's lines and their framing (see flushAll). */
let lastLines: ReadonlyArray<Buffer | string> = [];
let lastBytes: Buffer | undefined;

function scheduleFlush(): void {
  if (flushing) return;
  const wait = lastFlushEnd + MIN_FLUSH_INTERVAL_MS - performance.now();
  if (wait <= 0) setImmediate(flushAll);
  else setTimeout(flushAll, wait);
}

function enqueue(p: Pending): void {
  if (p.queued || p.done) return;
  p.queued = true;
  if (queue.length === 0) scheduleFlush();
  queue.push(p);
}

/** The bytes of one flush, framed as one HTTP/1.1 chunk (hex size, CRLF, data, CRLF). */
function framed(lines: ReadonlyArray<Buffer | string>): Buffer {
  const parts = lines.map((l) => (typeof l === "string" ? Buffer.from(l, "utf8") : l));
  let size = 0;
  for (const b of parts) size += b.length;
  return Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`, "latin1"), ...parts, CRLF]);
}

const CRLF = Buffer.from("\r\n", "latin1");

function sameLines(a: ReadonlyArray<Buffer | string>, b: ReadonlyArray<Buffer | string>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The socket (or, before the response owns one, the response) has not taken the last write yet. */
function backedUp(p: Pending): boolean {
  const socket = p.res.socket;
  return socket && p.res.headersSent ? socket.writableNeedDrain : p.res.writableNeedDrain;
}

/** Bytes the client has taken (handed to the kernel): written minus what still sits in Node's buffers. */
function taken(p: Pending): number {
  return p.written - p.res.writableLength;
}

/** Resumes the stream's flushing at the next 'drain'. */
function awaitDrain(p: Pending): void {
  if (p.draining) return;
  const emitter: NodeJS.EventEmitter = p.res.socket && p.res.headersSent ? p.res.socket : p.res;
  const listener = (): void => {
    p.draining = undefined;
    enqueue(p);
    checkBacklog(p);
  };
  p.draining = { emitter, listener };
  emitter.once("drain", listener);
}

function stop(p: Pending): void {
  p.done = true;
  p.lazy = undefined;
  p.lines = [];
  p.lineBytes = 0;
  if (p.draining) p.draining.emitter.off("drain", p.draining.listener);
  p.draining = undefined;
  if (p.over) clearTimeout(p.over.timer);
  p.over = undefined;
}

/**
 * Ends a stream that fell behind: too far past its bound, or over it with nothing taken by the
 * client for GRACE_MS. A stream under its bound is never ended, however long it sits.
 */
function checkBacklog(p: Pending, fromTimer = false): void {
  if (p.done) return;
  const inBuffers = p.res.writableLength;
  const produced = p.lineBytes + inBuffers;
  const backlog = produced + (p.lazy?.remainingBytes ?? 0);
  if (produced > FAR_FACTOR * p.maxBacklogBytes) return unresponsive(p);
  if (backlog <= p.maxBacklogBytes) {
    if (p.over) clearTimeout(p.over.timer);
    p.over = undefined;
    return;
  }
  // Stalled means: no byte taken, bytes waiting in the socket, over GRACE_MS and at least
  // STALL_CHECKS checks CHECK_MS apart. Each check is a timer callback with I/O polled between
  // two of them, so a client in this process (or one starved of CPU) that could not read
  // because the machine was busy is not taken for one that stopped reading.
  if (!p.over) p.over = { taken: 0, checks: 0, timer: rearm(p, CHECK_MS) };
  if (!fromTimer) return;
  const now = performance.now();
  const takenNow = taken(p);
  if (p.over.at === undefined || takenNow !== p.over.taken || !backedUp(p)) {
    // Newly over, the client took something since, or its socket is empty (the wait is this
    // server's, whose flushes have not come to it): the grace starts again.
    p.over = { at: now, taken: takenNow, checks: 0, timer: rearm(p, CHECK_MS) };
    return;
  }
  p.over.checks++;
  if (now - p.over.at >= GRACE_MS && p.over.checks >= STALL_CHECKS) return unresponsive(p);
  p.over.timer = rearm(p, CHECK_MS);
}

function rearm(p: Pending, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => checkBacklog(p, true), ms);
  timer.unref();
  return timer;
}

function unresponsive(p: Pending, fellBehind = true): void {
  stop(p);
  if (fellBehind) watchOutboxStats.unresponsive++;
  p.onUnresponsive();
}

/**
 * Writes one chunk. It goes to the socket directly: it is what ServerResponse.write would send
 * for a chunked response (size line, data, CRLF), as one socket write instead of a cork, three
 * buffered writes and a writev on the next tick. The response owns its socket whenever
 * `res.socket` is set (a pipelined response gets it only when its turn comes, with what it
 * buffered written first), so order is kept; before that the ordinary path buffers as usual.
 */
function writeChunk(p: Pending, bytes: Buffer, lines: number): void {
  const { res } = p;
  const socket = res.socket;
  if (socket && res.headersSent) socket.write(bytes);
  else res.write(bytes.subarray(bytes.indexOf(CRLF) + 2, bytes.length - 2));
  p.written += bytes.length;
  watchOutboxStats.writes++;
  watchOutboxStats.lines += lines;
  watchOutboxStats.bytes += bytes.length;
}

/** Up to LAZY_CHUNK_BYTES of lines made on demand; the source is dropped once it has no more. */
function produce(p: Pending, lazy: LazyLines): Array<Buffer | string> {
  const out: Array<Buffer | string> = [];
  let size = 0;
  while (size < LAZY_CHUNK_BYTES) {
    let line: Buffer | string | undefined;
    try {
      line = lazy.next();
    } catch {
      // An event the stream cannot encode ends it (the client watches again); this runs in a
      // flush, where a throw would reach no handler.
      unresponsive(p, false);
      return [];
    }
    if (line === undefined) {
      p.lazy = undefined;
      break;
    }
    out.push(line);
    size += line.length;
  }
  return out;
}

/** Writes the stream's queued lines while its socket takes them; `chunk` is their framing when already made. */
function flushOne(p: Pending, chunk?: Buffer): void {
  p.queued = false;
  if (p.done) return;
  const { res } = p;
  if (res.writableEnded || res.destroyed) {
    stop(p);
    return;
  }
  let lazyBytes = 0;
  while (!backedUp(p)) {
    let lines: Array<Buffer | string>;
    let shared: Buffer | undefined;
    if (p.lazy) {
      if (lazyBudget <= 0) break;
      lines = produce(p, p.lazy);
      // The source ran out: what was queued behind it goes in the same chunk.
      if (!p.lazy) {
        lines = lines.concat(p.lines);
        p.lines = [];
        p.lineBytes = 0;
      }
    } else {
      lines = p.lines;
      p.lines = [];
      p.lineBytes = 0;
      shared = chunk;
    }
    chunk = undefined;
    if (lines.length === 0) break;
    const bytes = shared ?? framed(lines);
    writeChunk(p, bytes, lines.length);
    lazyBytes += bytes.length;
    lazyBudget -= bytes.length;
    if (!p.lazy || lazyBytes >= LAZY_TURN_BYTES) break;
  }
  if (p.lazy || p.lines.length > 0) {
    if (backedUp(p)) awaitDrain(p);
    else if (p.lazy && lazyBytes === 0 && lazyBudget <= 0) {
      // Nothing made for it in this flush: first in the next one, so no stream waits for ever.
      p.queued = true;
      starved.push(p);
    } else enqueue(p);
  }
  checkBacklog(p);
}

function flushAll(): void {
  watchOutboxStats.flushes++;
  flushing = true;
  batch = queue;
  batchNext = 0;
  queue = [];
  lazyBudget = LAZY_FLUSH_BYTES;
  lastLines = [];
  lastBytes = undefined;
  flushSlice();
}

function flushSlice(): void {
  const start = cpuMicros();
  const until = start + Math.max(FLUSH_SLICE_CPU_US, batchNext === 0 ? 0 : start - sliceYieldCpu);
  while (batchNext < batch.length) {
    const p = batch[batchNext++] as Pending;
    // A stream sent more lines since the flush began: they go in this same write.
    if (!p.queued) continue;
    if (p.lazy || p.done || backedUp(p) || p.lines.length === 0) flushOne(p);
    else {
      // Watchers of one collection mostly queued the very same line Buffers (see watch-groups.ts);
      // the previous stream's framed bytes are reused when its lines were the same.
      if (lastBytes === undefined || !sameLines(p.lines, lastLines)) {
        lastLines = p.lines;
        lastBytes = framed(p.lines);
      }
      flushOne(p, lastBytes);
    }
    if ((batchNext & 15) === 0 && batchNext < batch.length && cpuMicros() >= until) {
      sliceYieldCpu = cpuMicros();
      setImmediate(flushSlice);
      return;
    }
  }
  batch = [];
  lastLines = [];
  lastBytes = undefined;
  queue = starved.concat(queue);
  starved = [];
  flushing = false;
  lastFlushEnd = performance.now();
  if (queue.length > 0) scheduleFlush();
}

/**
 * The outbox of one stream. `onUnresponsive` is called once if the stream is dropped for
 * falling behind (its lines are discarded first); it should end the response.
 */
export function watchOutbox(res: ServerResponse, maxBacklogBytes: number, onUnresponsive: () => void): WatchOutbox {
  const p: Pending = { res, onUnresponsive, maxBacklogBytes, lines: [], lineBytes: 0, queued: false, written: 0, done: false };
  return {
    send(line) {
      if (p.done) return;
      p.lines.push(line);
      p.lineBytes += line.length;
      enqueue(p);
      // Only a stream that is not draining can fall behind before its flush.
      if (p.draining) checkBacklog(p);
    },
    setLazy(lines) {
      if (p.done) return;
      p.lazy = lines;
      enqueue(p);
      checkBacklog(p);
    },
    flush() {
      if (p.done) return;
      p.lazy = undefined;
      if (p.lines.length > 0 && !backedUp(p) && !res.writableEnded && !res.destroyed) {
        const lines = p.lines;
        p.lines = [];
        p.lineBytes = 0;
        writeChunk(p, framed(lines), lines.length);
      }
      stop(p);
    },
  };
}

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
 * Every line of a stream goes through its outbox, so order is kept. A stream whose client
 * stops reading is ended once its unsent backlog passes a limit, as the real server drops an
 * unresponsive watcher rather than buffer for it without bound; the client sees the stream end
 * and watches again.
 */
import type { ServerResponse } from "node:http";

/** Above this much unsent data the watcher counts as unresponsive. */
const MAX_WATCH_BACKLOG_BYTES = 32 * 1024 * 1024;

export interface WatchOutbox {
  /** Queues a line (a shared Buffer is not copied until the flush). */
  send(line: Buffer | string): void;
  /** Writes what is queued now, outside the turn's flush (before the stream ends). */
  flush(): void;
}

interface Pending {
  readonly res: ServerResponse;
  readonly onUnresponsive: () => void;
  lines: Array<Buffer | string>;
  queued: boolean;
}

/**
 * The least time between the end of one flush and the start of the next. An idle server
 * flushes at once (the previous flush is long past); a busy one gathers what arrives in this
 * window into one write per watcher.
 */
const MIN_FLUSH_INTERVAL_MS = 10;

/** Process-wide counters, read by scripts/bench-watch.ts to show how much batching happened. */
export const watchOutboxStats = { flushes: 0, writes: 0, lines: 0, bytes: 0 };

/** Streams with queued lines, in the order they first queued one since the last flush. */
let queue: Pending[] = [];
let lastFlushEnd = 0;

function scheduleFlush(): void {
  const wait = lastFlushEnd + MIN_FLUSH_INTERVAL_MS - performance.now();
  if (wait <= 0) setImmediate(flushAll);
  else setTimeout(flushAll, wait);
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

/**
 * Writes the stream's queued lines. The chunk goes to the socket directly: it is what
 * ServerResponse.write would send for a chunked response (size line, data, CRLF), as one socket
 * write instead of a cork, three buffered writes and a writev on the next tick. The response
 * owns its socket whenever `res.socket` is set (a pipelined response gets it only when its
 * turn comes, with what it buffered written first), so order is kept; before that the
 * ordinary path buffers as usual.
 */
function flushOne(p: Pending, chunk?: Buffer): void {
  const { res, lines } = p;
  p.lines = [];
  p.queued = false;
  if (lines.length === 0 || res.writableEnded || res.destroyed) return;
  const bytes = chunk ?? framed(lines);
  const socket = res.socket;
  if (socket && res.headersSent) socket.write(bytes);
  else res.write(bytes.subarray(bytes.indexOf(CRLF) + 2, bytes.length - 2));
  watchOutboxStats.writes++;
  watchOutboxStats.lines += lines.length;
  watchOutboxStats.bytes += bytes.length;
  if (res.writableLength > MAX_WATCH_BACKLOG_BYTES) p.onUnresponsive();
}

function flushAll(): void {
  watchOutboxStats.flushes++;
  const batch = queue;
  queue = [];
  // Watchers of one collection mostly queued the very same line Buffers (see ChangeView in
  // watch-groups.ts); the previous stream's framed bytes are reused when its lines were the same.
  let lastLines: ReadonlyArray<Buffer | string> = [];
  let lastBytes: Buffer | undefined;
  for (const p of batch) {
    if (!p.queued) continue;
    if (lastBytes === undefined || !sameLines(p.lines, lastLines)) {
      lastLines = p.lines;
      lastBytes = framed(p.lines);
    }
    flushOne(p, lastBytes);
  }
  lastFlushEnd = performance.now();
}

export function watchOutbox(res: ServerResponse, onUnresponsive: () => void): WatchOutbox {
  const pending: Pending = { res, onUnresponsive, lines: [], queued: false };
  return {
    send(line) {
      pending.lines.push(line);
      if (pending.queued) return;
      pending.queued = true;
      if (queue.length === 0) scheduleFlush();
      queue.push(pending);
    },
    flush() {
      flushOne(pending);
    },
  };
}

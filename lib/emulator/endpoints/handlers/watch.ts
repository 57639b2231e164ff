/**
 * Watch (wire-facts §2): a 200 chunked response flushed at once, then one framed event after
 * another (compact JSON lines by default). Where it starts is storage's rule (storage/reads.ts):
 * resourceVersion unset or "0" starts with synthetic ADDED events for the current state; a
 * specific version replays the store history after it (storage's ResourceVersionTooOld when the
 * history no longer reaches it, sent as a 410 ERROR event worded in storage-errors.ts).
 * Selectors turn an object leaving the selection into DELETED and one entering it into ADDED.
 * BOOKMARKs only with allowWatchBookmarks: the initial-events-end one, and for types with a watch
 * cache one every bookmark interval and one 2 s before the watch's deadline (wire-facts §12).
 *
 * Encodings and representations (JSON lines, protobuf frames, CBOR sequences; Tables,
 * PartialObjectMetadata) are watch-format.ts's; a YAML watch is 406.
 *
 * Fan-out: each stream lists or replays what came before its start on its own, then joins the
 * live fan-out of its collection (watch-groups.ts): streams without selectors and of the same
 * format share one store listener, and each change is decoded once and encoded once per format
 * (ChangeView, watch-change.ts). Lines reach the socket through watch-outbox.ts, which writes
 * each stream's pending lines in one socket write per flush. A Table stream's first event (with
 * column definitions) is its own variant.
 */
import { type JsonObject, watchEventLine } from "../../apimachinery/json.js";
import { zeroValue } from "../../apimachinery/typed-json.js";
import { groupVersionOf, type ResourceStrategy } from "../../registry/generic/strategy.js";
import { ResourceVersionTooOld } from "../../storage/read-errors.js";
import { replayChanges, startWatch } from "../../storage/reads.js";
import type { KeyValue } from "../../storage/store.js";
import { type ListOptions, objectFilter, parseResourceVersionParam } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { readError } from "./storage-errors.js";
import { viewOf, type WatchEvent } from "./watch-change.js";
import { encodeWatchEvent, watchFormatOf, watchObject } from "./watch-format.js";
import { drainWatchGroups, joinWatchGroup } from "./watch-groups.js";
import { type LazyLines, watchOutbox } from "./watch-outbox.js";

/** About the bytes an event adds to its object's JSON (`{"type":"ADDED","object":…}` and a newline). */
const EVENT_ENVELOPE_BYTES = 30;

/** Annotation of the BOOKMARK that ends the initial events (wire-facts §2). */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** A BOOKMARK object: the zero object of the watched kind with only the resourceVersion set. */
function bookmarkObject(strategy: ResourceStrategy, revision: number): JsonObject {
  const zero = zeroValue(strategy.shape);
  const base: JsonObject = typeof zero === "object" && zero !== null && !Array.isArray(zero) ? zero : {};
  return { kind: strategy.kind, apiVersion: groupVersionOf(strategy), ...base, metadata: { resourceVersion: String(revision) } };
}

export async function handleWatch(ctx: RequestContext, options: ListOptions): Promise<void> {
  const { strategy, namespace, allNamespaces } = ctx.route;
  const { storage, settings, watches, clock } = ctx.parts;
  const collection = allNamespaces ? undefined : namespace;
  const filter = objectFilter(options, strategy);
  // Validated before the 200 goes out: a bad version is a normal 400, a YAML watch 406, a bad includeObject 400.
  const requested = parseResourceVersionParam(options.resourceVersion, strategy, "watch");
  // Beyond 2^53 no store gets there: the stream just waits, whatever the rounding.
  let startRv = requested === undefined ? undefined : Number(requested);
  const format = watchFormatOf(strategy, ctx.negotiated, settings.featureGates, ctx.url);
  const fp = settings.failpoints;
  // A server that takes a version it has not reached for "now" instead of waiting (failpoints.ts).
  if (fp.has("watch-future-rv-starts-now") && startRv !== undefined && startRv > storage.store.revision) startRv = storage.store.revision;

  const { res } = ctx;
  if (fp.has("watch-not-chunked")) {
    // A close-delimited stream (failpoints.ts): Node then writes no Transfer-Encoding and closes the connection at the end.
    res.useChunkedEncodingByDefault = false;
    res.writeHead(200, { "Cache-Control": "no-cache, private", "Content-Type": format.contentType });
  } else res.writeHead(200, { "Cache-Control": "no-cache, private", "Content-Type": format.contentType, "Transfer-Encoding": "chunked" });
  res.flushHeaders();
  // A Table stream sends column definitions with its first event only, whatever that event is.
  let headersPending = format.tableHeaders;
  const takeHeaders = (): boolean => {
    const h = headersPending;
    headersPending = false;
    return h;
  };

  let closed = false;
  const cleanups: Array<() => void> = [];
  const close = (): void => {
    if (closed) return;
    closed = true;
    watches.delete(close);
    for (const c of cleanups.splice(0)) c();
    if (!res.writableEnded) {
      // Queued lines (an ERROR event, the last changes) go out before the end of the stream.
      outbox.flush();
      res.end();
    }
  };
  const outbox = watchOutbox(res, settings.watchBacklogBytes, close);
  // A cleanup registered after the stream closed runs at once, so nothing outlives it.
  const addCleanup = (cleanup: () => void): void => {
    if (closed) cleanup();
    else cleanups.push(cleanup);
  };
  watches.add(close);
  res.on("close", close);
  res.on("error", close);
  // Protobuf frames without their length prefix (failpoints.ts): every frame passes here, the shared fan-out's too.
  const unframed = fp.has("protobuf-watch-unframed") && format.encoding === "protobuf";
  const frame = (line: Buffer | string): Buffer | string => (unframed && typeof line !== "string" ? line.subarray(4) : line);
  const sendLine = (line: Buffer | string): void => {
    if (!closed) outbox.send(frame(line));
  };
  const send = (event: WatchEvent): void => {
    if (!closed) sendLine(encodeWatchEvent(format, event.type, watchObject(format, event.object, takeHeaders(), clock.now())));
  };
  /** ADDED events of the entries, in order; only the first may carry Table column definitions. */
  const initialEvents = (kvs: readonly KeyValue[], headers: boolean): LazyLines => {
    let next = 0;
    let remaining = 0;
    for (const kv of kvs) remaining += kv.value.length + EVENT_ENVELOPE_BYTES;
    let first = headers;
    return {
      get remainingBytes() {
        return remaining;
      },
      next() {
        const kv = kvs[next++];
        if (kv === undefined) return undefined;
        remaining -= kv.value.length + EVENT_ENVELOPE_BYTES;
        if (format.plainJson) return watchEventLine("ADDED", storage.objectJson(kv));
        const withHeaders = first;
        first = false;
        return frame(encodeWatchEvent(format, "ADDED", watchObject(format, storage.decode(kv), withHeaders, clock.now())));
      },
    };
  };

  const started = await startWatch(storage, {
    type: strategy,
    namespace: collection,
    resourceVersion: startRv,
    sendInitialEvents: options.sendInitialEvents,
  });
  // The client may have gone while the start was read.
  if (closed) return;
  // A server that starts an unversioned (or "0") watch at "now" without the current state, as client-go's fake watch does (failpoints.ts).
  const noInitial =
    options.sendInitialEvents === undefined &&
    ((fp.has("watch-unset-rv-no-initial-events") && !options.resourceVersion) || (fp.has("watch-rv-0-no-initial-events") && options.resourceVersion === "0"));
  const { initial, from } = noInitial ? { initial: undefined, from: started.from } : started;
  if (initial) {
    // Made on demand as the socket drains (watch-outbox.ts): a client that does not read costs a
    // chunk, not the collection. Selectors are applied now, so a Table stream knows whether its
    // first event is an initial one (which then carries the column definitions).
    const kvs = filter.empty ? initial : initial.filter((kv) => filter.matches(storage.decode(kv)));
    if (kvs.length > 0) outbox.setLazy(initialEvents(kvs, takeHeaders()));
    if (options.sendInitialEvents && options.allowWatchBookmarks) {
      const end = bookmarkObject(strategy, from);
      end["metadata"] = { resourceVersion: String(from), annotations: { [INITIAL_EVENTS_END]: "true" } };
      send({ type: "BOOKMARK", object: end });
    }
  }

  // The changes made while the start was awaited are after `from`, so the replay sends them; from
  // the replay to joining the live fan-out it is synchronous, so no change can fall between.
  try {
    // A store that counts the compaction revision itself as gone, not only the older ones (failpoints.ts).
    if (settings.failpoints.has("watch-at-compact-revision-expired") && startRv !== undefined && from === storage.store.compactRevision) {
      throw new ResourceVersionTooOld(from, from + 1);
    }
    // The history after `from` (none when `from` is the current revision), for this stream alone.
    replayChanges(storage, strategy, collection, from, (change) => {
      if (closed) return;
      try {
        const line = viewOf(storage, change).line(filter, format, takeHeaders, clock.now());
        if (line !== undefined) sendLine(line);
      } catch {
        // An event this stream cannot encode ends the stream (the client watches again).
        close();
      }
    });
  } catch (e) {
    const failure = readError(e, strategy, "watch");
    if (!failure) throw e;
    send({ type: "ERROR", object: failure.status });
    close();
    return;
  }
  if (closed) return;
  addCleanup(
    joinWatchGroup(storage, strategy, collection, filter, format, clock, {
      after: from,
      takeHeaders: format.tableHeaders ? takeHeaders : undefined,
      send: sendLine,
      fail: close,
    }),
  );
  const timeoutMs = watchTimeoutMs(options.timeoutSeconds);
  // Periodic bookmarks are the watch cache's; a type watched straight from etcd (Events) gets none.
  if (options.allowWatchBookmarks && strategy.watchCache && settings.bookmarkIntervalMs > 0) {
    const bookmark = (): void => {
      // Changes up to the bookmark's revision may still wait in the groups: they go first.
      drainWatchGroups();
      send({ type: "BOOKMARK", object: bookmarkObject(strategy, Math.max(storage.store.revision, from)) });
    };
    addCleanup(scheduleBookmarks(performance.now() + timeoutMs, settings.bookmarkIntervalMs, bookmark));
  }
  addCleanup(endAfter(timeoutMs, close));
}

/** How long before its deadline a watcher gets its last bookmark (cache_watcher.go nextBookmarkTime). */
const PRE_DEADLINE_BOOKMARK_MS = 2_000;

/**
 * When the next bookmark is due, or undefined for none (wire-facts §12; cache_watcher.go
 * nextBookmarkTime): an interval after now, or PRE_DEADLINE_BOOKMARK_MS before the deadline if
 * that is sooner, and none once that moment has passed. So `timeoutSeconds=T` gets one about
 * T−2 s in and one every interval before, and none after; T ≤ 2 s gets none.
 */
export function nextBookmarkAt(now: number, deadline: number, intervalMs: number): number | undefined {
  const due = Math.min(now + intervalMs, deadline - PRE_DEADLINE_BOOKMARK_MS);
  return due <= now ? undefined : due;
}

/** Sends bookmarks at the times nextBookmarkAt gives, from now until there is none; returns the cancel. */
function scheduleBookmarks(deadline: number, intervalMs: number, bookmark: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  // `at`: now, or the due time just reached (a timer may fire a little early by performance.now()).
  const arm = (at: number): void => {
    const now = Math.max(performance.now(), at);
    const due = nextBookmarkAt(now, deadline, intervalMs);
    if (due === undefined) return;
    timer = setTimeout(
      () => {
        bookmark();
        arm(due);
      },
      Math.min(due - performance.now(), MAX_TIMER_MS),
    );
  };
  arm(0);
  return () => clearTimeout(timer);
}

/** kube-apiserver --min-request-timeout: 1800 s. */
const MIN_REQUEST_TIMEOUT_MS = 1_800_000;

/** The longest setTimeout delay; a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When a watch ends, in ms (wire-facts §11; apiserver handlers/get.go ListResource):
 * timeoutSeconds × 1 s as a Go time.Duration, int64 nanoseconds that wrap past about 292 years
 * as Go's multiplication does; 0 or absent is --min-request-timeout × (1 + rand[0,1)); a
 * negative duration ends the stream at once. No maximum, no validation.
 */
export function watchTimeoutMs(timeoutSeconds: bigint | undefined, random: () => number = Math.random): number {
  const ns = timeoutSeconds === undefined ? 0n : BigInt.asIntN(64, timeoutSeconds * 1_000_000_000n);
  if (ns === 0n) return MIN_REQUEST_TIMEOUT_MS * (1 + random());
  return ns < 0n ? 0 : Number(ns / 1_000_000n);
}

/** Calls done after ms, however long (timers chained past setTimeout's limit); returns the cancel. */
function endAfter(ms: number, done: () => void): () => void {
  const deadline = performance.now() + ms;
  let timer: NodeJS.Timeout;
  const arm = (left: number): void => {
    timer = setTimeout(
      () => {
        const rest = deadline - performance.now();
        if (rest > 1) arm(rest);
        else done();
      },
      Math.min(Math.max(left, 0), MAX_TIMER_MS),
    );
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/**
 * Watch (wire-facts §2): a 200 chunked response flushed at once, then one framed event after
 * another (compact JSON lines by default). resourceVersion unset or "0" starts with synthetic ADDED events for the current
 * state; a specific version replays the store history after it (410 as an ERROR event when
 * the history no longer reaches it). Selectors turn an object leaving the selection into
 * DELETED and one entering it into ADDED. BOOKMARKs only with allowWatchBookmarks.
 *
 * Encodings and representations (JSON lines, protobuf frames, CBOR sequences; Tables,
 * PartialObjectMetadata) are watch-format.ts's; a YAML watch is 406.
 *
 * Fan-out: each store change is decoded once, and encoded once per stream format (encoding,
 * representation, Table options) for all its watchers (ChangeView), and lines reach the
 * socket through watch-outbox.ts, which writes each stream's pending lines in one socket
 * write per flush. A Table stream's first event (with column definitions) is its own variant.
 */
import type { Status } from "../../wire/status.js";
import { expired } from "../api-errors.js";
import { watchEventLine, type JsonObject, type KubeObject } from "../json.js";
import { objectFilter, parseResourceVersionParam, type ListOptions, type ObjectFilter } from "../list-options.js";
import type { ObjectStorage } from "../object-storage.js";
import { groupVersionOf, type ResourceStrategy } from "../resources.js";
import { StoreError, type ChangeEvent } from "../store.js";
import { zeroValue } from "../typed-json.js";
import type { RequestContext } from "./context.js";
import { encodeWatchEvent, watchFormatOf, watchObject, type WatchFormat } from "./watch-format.js";
import { watchOutbox } from "./watch-outbox.js";

/** Annotation of the BOOKMARK that ends the initial events (wire-facts §2). */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject | Status | JsonObject;
}

/**
 * One store change as every watcher of it sees it. The store hands the same ChangeEvent to all
 * its listeners, so the decoding and the encoded line of each event type are done once per
 * change, not once per watcher: with a thousand watchers the fan-out is then one filter check
 * and one socket write each. The decoded objects are shared and must not be changed.
 */
class ChangeView {
  private beforeObject?: KubeObject | null;
  private afterObject?: KubeObject | null;
  /** Encoded once per format, event type and header variant: the same bytes go to every watcher that sees them. */
  private readonly lines = new Map<string, Buffer>();

  constructor(
    private readonly storage: ObjectStorage,
    readonly change: ChangeEvent,
  ) {}

  /** The previous content with the revision of the change (etcd and watch-cache behaviour for DELETED). */
  before(): KubeObject | undefined {
    if (this.beforeObject === undefined) {
      const prev = this.change.prevKv;
      this.beforeObject = prev ? this.storage.decode(prev, this.change.revision) : null;
    }
    return this.beforeObject ?? undefined;
  }

  after(): KubeObject | undefined {
    if (this.afterObject === undefined) {
      const kv = this.change.type === "put" ? this.change.kv : undefined;
      this.afterObject = kv ? this.storage.decode(kv) : null;
    }
    return this.afterObject ?? undefined;
  }

  /** The type of event a watcher with this filter sees, or nothing. */
  type(filter: ObjectFilter): "ADDED" | "MODIFIED" | "DELETED" | undefined {
    const { change } = this;
    // Without selectors the entries alone decide; nothing needs decoding.
    const wasIn = filter.empty ? change.prevKv !== undefined : this.matches(filter, this.before());
    const isIn = filter.empty ? change.type === "put" && change.kv !== undefined : this.matches(filter, this.after());
    if (isIn) return wasIn ? "MODIFIED" : "ADDED";
    return wasIn ? "DELETED" : undefined;
  }

  event(filter: ObjectFilter): WatchEvent | undefined {
    const type = this.type(filter);
    const object = type === undefined ? undefined : type === "DELETED" ? this.before() : this.after();
    return type && object ? { type, object } : undefined;
  }

  /**
   * The event's bytes on the wire for a stream of this format; the same type always carries the
   * same object, so format, type and the Table-headers variant key the cache. `headers` is
   * asked for only when the event is really sent (it is the stream's first-event state).
   */
  line(filter: ObjectFilter, format: WatchFormat, headers: () => boolean, nowMs: number): Buffer | undefined {
    const type = this.type(filter);
    if (type === undefined) return undefined;
    const withHeaders = headers();
    const key = `${format.key}|${type}|${withHeaders ? "h" : ""}`;
    let bytes = this.lines.get(key);
    if (bytes === undefined) {
      const { change, storage } = this;
      if (format.plainJson) {
        // The stored text, spliced: no decode and re-encode for the common case.
        const kv = type === "DELETED" ? change.prevKv : change.kv;
        if (!kv) return undefined;
        bytes = Buffer.from(watchEventLine(type, type === "DELETED" ? storage.objectJson(kv, change.revision) : storage.objectJson(kv)), "utf8");
      } else {
        const o = type === "DELETED" ? this.before() : this.after();
        if (!o) return undefined;
        bytes = encodeWatchEvent(format, type, watchObject(format, o, withHeaders, nowMs));
      }
      this.lines.set(key, bytes);
    }
    return bytes;
  }

  private matches(filter: ObjectFilter, o: KubeObject | undefined): boolean {
    return o !== undefined && filter.matches(o);
  }
}

/**
 * The store notifies all watchers of a change in one synchronous loop, so remembering only the
 * latest change's view catches the whole fan-out. Keeping views for longer (say, per entry of
 * the history log) would hold decoded copies of every change for the retention window.
 */
let latest: ChangeView | undefined;

function viewOf(storage: ObjectStorage, change: ChangeEvent): ChangeView {
  if (latest?.change !== change) latest = new ChangeView(storage, change);
  return latest;
}

/**
 * What a watcher with this filter sees for one store change, or nothing. DELETED carries the
 * previous content with the revision of the change (etcd and watch-cache behaviour).
 */
export function toWatchEvent(storage: ObjectStorage, filter: ObjectFilter, change: ChangeEvent): WatchEvent | undefined {
  return viewOf(storage, change).event(filter);
}

/** A BOOKMARK object: the zero object of the watched kind with only the resourceVersion set. */
export function bookmarkObject(strategy: ResourceStrategy, revision: number): JsonObject {
  const zero = zeroValue(strategy.shape);
  const base: JsonObject = typeof zero === "object" && zero !== null && !Array.isArray(zero) ? zero : {};
  return { kind: strategy.kind, apiVersion: groupVersionOf(strategy), ...base, metadata: { resourceVersion: String(revision) } };
}

function tooOldStatus(strategy: ResourceStrategy, rv: number, oldest: number): Status {
  const message = strategy.watchCache ? `too old resource version: ${rv} (${oldest})` : "The resourceVersion for the provided watch is too old.";
  return expired(message).status;
}

export function handleWatch(ctx: RequestContext, options: ListOptions): void {
  const { strategy, namespace, allNamespaces } = ctx.route;
  const { storage, settings, watches, clock } = ctx.parts;
  const store = storage.store;
  const collection = allNamespaces ? undefined : namespace;
  const filter = objectFilter(options, strategy);
  // Validated before the 200 goes out: a bad version is a normal 400, a YAML watch 406, a bad includeObject 400.
  const startRv = parseResourceVersionParam(options.resourceVersion);
  const format = watchFormatOf(strategy, ctx.negotiated, settings.featureGates, ctx.url);

  const { res } = ctx;
  res.writeHead(200, { "Cache-Control": "no-cache, private", "Content-Type": format.contentType, "Transfer-Encoding": "chunked" });
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
  const outbox = watchOutbox(res, close);
  // A cleanup registered after the stream closed runs at once, so nothing outlives it.
  const addCleanup = (cleanup: () => void): void => {
    if (closed) cleanup();
    else cleanups.push(cleanup);
  };
  watches.add(close);
  res.on("close", close);
  res.on("error", close);
  const sendLine = (line: Buffer | string): void => {
    if (!closed) outbox.send(line);
  };
  const send = (event: WatchEvent): void => {
    if (!closed) sendLine(encodeWatchEvent(format, event.type, watchObject(format, event.object, takeHeaders(), clock.now())));
  };

  let from: number;
  // Initial state: asked for with sendInitialEvents, or implied by an unset/"0" version.
  const initialEvents = options.sendInitialEvents ?? startRv === undefined;
  if (initialEvents) {
    // The current state is at least as new as any version given (NotOlderThan).
    const snapshot = storage.range(strategy, collection);
    for (const kv of snapshot.kvs) {
      if (filter.empty && format.plainJson) sendLine(watchEventLine("ADDED", storage.objectJson(kv)));
      else {
        const o = storage.decode(kv);
        if (filter.matches(o)) send({ type: "ADDED", object: o });
      }
    }
    from = snapshot.revision;
    if (options.sendInitialEvents && options.allowWatchBookmarks) {
      const end = bookmarkObject(strategy, from);
      end["metadata"] = { resourceVersion: String(from), annotations: { [INITIAL_EVENTS_END]: "true" } };
      send({ type: "BOOKMARK", object: end });
    }
  } else if (startRv === undefined) {
    from = store.revision;
  } else {
    from = startRv;
  }

  // Synchronous from range to registration: no change can fall between the two.
  let cancel: () => void;
  try {
    cancel = storage.watch(strategy, collection, from, (change) => {
      if (closed) return;
      try {
        const line = viewOf(storage, change).line(filter, format, takeHeaders, clock.now());
        if (line !== undefined) sendLine(line);
      } catch {
        // An event this stream cannot encode ends the stream (the client watches again), and
        // must not reach the store, which is notifying every other watcher in this same loop.
        close();
      }
    });
  } catch (e) {
    if (!(e instanceof StoreError && e.code === "Compacted")) throw e;
    send({ type: "ERROR", object: tooOldStatus(strategy, from, store.compactRevision) });
    close();
    return;
  }
  addCleanup(cancel);
  if (options.allowWatchBookmarks && settings.bookmarkIntervalMs > 0) {
    const timer = setInterval(() => send({ type: "BOOKMARK", object: bookmarkObject(strategy, Math.max(store.revision, from)) }), settings.bookmarkIntervalMs);
    addCleanup(() => clearInterval(timer));
  }
  if (options.timeoutSeconds !== undefined) {
    const timer = setTimeout(close, options.timeoutSeconds * 1000);
    addCleanup(() => clearTimeout(timer));
  }
}

/**
 * Watch (wire-facts §2): a 200 chunked response flushed at once, then one compact JSON line
 * per event. resourceVersion unset or "0" starts with synthetic ADDED events for the current
 * state; a specific version replays the store history after it (410 as an ERROR event when
 * the history no longer reaches it). Selectors turn an object leaving the selection into
 * DELETED and one entering it into ADDED. BOOKMARKs only with allowWatchBookmarks.
 */
import type { Status } from "../../wire/status.js";
import { expired } from "../api-errors.js";
import { compactJson, type JsonObject, type KubeObject } from "../json.js";
import { objectFilter, parseResourceVersionParam, type ListOptions, type ObjectFilter } from "../list-options.js";
import type { ObjectStorage } from "../object-storage.js";
import { groupVersionOf, type ResourceStrategy } from "../resources.js";
import { StoreError, type ChangeEvent } from "../store.js";
import { zeroValue } from "../typed-json.js";
import type { RequestContext } from "./context.js";

/** Annotation of the BOOKMARK that ends the initial events (wire-facts §2). */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject | Status | JsonObject;
}

/**
 * What a watcher with this filter sees for one store change, or nothing. DELETED carries the
 * previous content with the revision of the change (etcd and watch-cache behaviour).
 */
export function toWatchEvent(storage: ObjectStorage, filter: ObjectFilter, change: ChangeEvent): WatchEvent | undefined {
  const before = change.prevKv ? storage.decode(change.prevKv, change.revision) : undefined;
  const after = change.type === "put" && change.kv ? storage.decode(change.kv) : undefined;
  const wasIn = before !== undefined && filter.matches(before);
  const isIn = after !== undefined && filter.matches(after);
  if (isIn && after) return { type: wasIn ? "MODIFIED" : "ADDED", object: after };
  if (wasIn && before) return { type: "DELETED", object: before };
  return undefined;
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
  const { storage, settings, watches } = ctx.parts;
  const store = storage.store;
  const prefix = storage.prefix(strategy, allNamespaces ? undefined : namespace);
  const filter = objectFilter(options, strategy);
  // Validated before the 200 goes out: a bad version is a normal 400.
  const startRv = parseResourceVersionParam(options.resourceVersion);

  const { res } = ctx;
  res.writeHead(200, { "Cache-Control": "no-cache, private", "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
  res.flushHeaders();

  let closed = false;
  const cleanups: Array<() => void> = [];
  const close = (): void => {
    if (closed) return;
    closed = true;
    watches.delete(close);
    for (const c of cleanups.splice(0)) c();
    if (!res.writableEnded) res.end();
  };
  // A cleanup registered after the stream closed runs at once, so nothing outlives it.
  const addCleanup = (cleanup: () => void): void => {
    if (closed) cleanup();
    else cleanups.push(cleanup);
  };
  watches.add(close);
  res.on("close", close);
  res.on("error", close);
  const send = (event: WatchEvent): void => {
    if (!closed) res.write(compactJson(event));
  };

  let from: number;
  // Initial state: asked for with sendInitialEvents, or implied by an unset/"0" version.
  const initialEvents = options.sendInitialEvents ?? startRv === undefined;
  if (initialEvents) {
    // The current state is at least as new as any version given (NotOlderThan).
    const snapshot = store.range(prefix);
    for (const kv of snapshot.kvs) {
      const o = storage.decode(kv);
      if (filter.matches(o)) send({ type: "ADDED", object: o });
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
    cancel = store.watch(prefix, from, (change) => {
      const event = toWatchEvent(storage, filter, change);
      if (event) send(event);
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

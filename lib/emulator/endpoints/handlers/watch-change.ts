/**
 * One store change as the watch streams see it (ChangeView): decoded once and encoded once per
 * stream format, whatever the number of streams that receive it. Used by watch.ts for each
 * stream's own events (history replay) and by watch-groups.ts for the live fan-out.
 */
import type { Status } from "../../../wire/status.js";
import { type JsonObject, type KubeObject, watchEventLine } from "../../apimachinery/json.js";
import type { ObjectStorage } from "../../storage/object-storage.js";
import type { ChangeEvent } from "../../storage/store.js";
import type { ObjectFilter } from "../list-options.js";
import { encodeWatchEvent, type WatchFormat, watchObject } from "./watch-format.js";

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

export function viewOf(storage: ObjectStorage, change: ChangeEvent): ChangeView {
  if (latest?.change !== change) latest = new ChangeView(storage, change);
  return latest;
}

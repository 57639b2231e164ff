/**
 * One set of stored objects served as two types: core v1 Events and events.k8s.io/v1 Events are
 * the same objects in the real server (one storage under /registry/events, same names, same
 * resourceVersions; wire-facts §7), each group converting to and from the stored form.
 *
 * A type that is such a second view declares a StorageView in its StoredType (object-storage.ts;
 * the registry's strategies carry it): its storagePrefix is then the prefix of the other type's
 * stored entries, and the view says how a stored value reads in the view's form and back. The
 * object layer (object-storage.ts) applies it, like the apiserver's storage codec: every read, list, watch and write it makes for the
 * view type acts on the stored entries — one revision per write, the same modRevision seen from
 * both types, a write through one type seen by the other's watchers — and converts values on the
 * way in and out, so the handlers and the namespace controller work with the view's own form.
 *
 * Converted entries are cached per stored entry (entries are immutable), and a change is
 * converted once for all the view's watchers, which keeps the watch fan-out's per-change caching
 * working for the view.
 */
import type { ChangeEvent, KeyValue } from "./store.js";

export interface StorageView {
  /** A stored value (JSON text) in the view's form. */
  toView(stored: string): string;
  /** A value of the view's form (JSON text) in the stored form. */
  toStored(view: string): string;
}

/** A view's conversions of store entries and changes, cached per stored entry and change. */
export class ViewedEntries {
  private readonly kvCache = new WeakMap<KeyValue, KeyValue>();
  private readonly changeCache = new WeakMap<ChangeEvent, ChangeEvent>();

  constructor(readonly view: StorageView) {}

  kv(stored: KeyValue): KeyValue {
    let mapped = this.kvCache.get(stored);
    if (!mapped) {
      mapped = { ...stored, value: this.view.toView(stored.value) };
      this.kvCache.set(stored, mapped);
    }
    return mapped;
  }

  change(stored: ChangeEvent): ChangeEvent {
    let mapped = this.changeCache.get(stored);
    if (!mapped) {
      mapped = { ...stored, kv: stored.kv && this.kv(stored.kv), prevKv: stored.prevKv && this.kv(stored.prevKv) };
      this.changeCache.set(stored, mapped);
    }
    return mapped;
  }
}

/**
 * One set of stored objects served as two types: core v1 Events and events.k8s.io/v1 Events are
 * the same objects in the real server (one storage under /registry/events, same names, same
 * resourceVersions; wire-facts §7), each group converting to and from the stored form.
 *
 * Here the conversion sits at the store, like the apiserver's storage codec: a view type
 * addresses its objects under its own key prefix (its strategy's storagePrefix), and the store
 * maps those keys onto the stored entries, converting values on the way in and out. Reads,
 * lists, watches and writes of the view therefore act on the stored entries — one revision per
 * write, the same modRevision seen from both types, a write through one type seen by the
 * other's watchers — while everything above the store (object storage, handlers, the namespace
 * controller) works unchanged with the view's own type.
 *
 * The store is shared by every part of an emulator, so the mapping is installed on the store
 * instance itself (its public methods get, range, put, delete and watch are wrapped), once per
 * store; keys outside the view prefixes pass through untouched. Converted entries are cached per
 * stored entry (entries are immutable), and a change is converted once for all its view
 * watchers, which keeps the watch fan-out's per-change caching working for the view.
 */
import type { ChangeEvent, DeleteResult, KeyValue, MemoryStore, PutResult, RangeOptions, RangeResult, WatchListener, WriteOptions } from "./store.js";

export interface StorageView {
  /** Key prefix the view type uses, without a trailing slash; must not share a path segment with storedPrefix. */
  readonly viewPrefix: string;
  /** Key prefix of the stored entries, without a trailing slash. */
  readonly storedPrefix: string;
  /** A stored value (JSON text) in the view's form. */
  toView(stored: string): string;
  /** A value of the view's form (JSON text) in the stored form. */
  toStored(view: string): string;
}

const installed = new WeakSet<MemoryStore>();

/** The part of `key` after `prefix` when the key lies at or under the prefix as a path. */
function under(key: string, prefix: string): string | undefined {
  if (key === prefix) return "";
  return key.startsWith(`${prefix}/`) ? key.slice(prefix.length) : undefined;
}

class ViewMapping {
  private readonly kvCache = new WeakMap<KeyValue, KeyValue>();
  private readonly changeCache = new WeakMap<ChangeEvent, ChangeEvent>();

  constructor(readonly view: StorageView) {}

  /** The stored key for a view key (or view prefix), or undefined when the key is not the view's. */
  storedKey(key: string): string | undefined {
    const rest = under(key, this.view.viewPrefix);
    return rest === undefined ? undefined : this.view.storedPrefix + rest;
  }

  viewKey(storedKey: string): string {
    return this.view.viewPrefix + storedKey.slice(this.view.storedPrefix.length);
  }

  kv(stored: KeyValue): KeyValue {
    let mapped = this.kvCache.get(stored);
    if (!mapped) {
      mapped = { ...stored, key: this.viewKey(stored.key), value: this.view.toView(stored.value) };
      this.kvCache.set(stored, mapped);
    }
    return mapped;
  }

  change(stored: ChangeEvent): ChangeEvent {
    let mapped = this.changeCache.get(stored);
    if (!mapped) {
      mapped = {
        ...stored,
        key: this.viewKey(stored.key),
        kv: stored.kv && this.kv(stored.kv),
        prevKv: stored.prevKv && this.kv(stored.prevKv),
      };
      this.changeCache.set(stored, mapped);
    }
    return mapped;
  }
}

/** Installs the views on the store (once per store; later calls with the same store do nothing). */
export function installStorageViews(store: MemoryStore, views: readonly StorageView[]): void {
  if (installed.has(store) || views.length === 0) return;
  installed.add(store);
  const mappings = views.map((v) => new ViewMapping(v));
  const mappingOf = (key: string): { mapping: ViewMapping; stored: string } | undefined => {
    for (const mapping of mappings) {
      const stored = mapping.storedKey(key);
      if (stored !== undefined) return { mapping, stored };
    }
    return undefined;
  };

  const get = store.get.bind(store);
  const range = store.range.bind(store);
  const put = store.put.bind(store);
  const del = store.delete.bind(store);
  const watch = store.watch.bind(store);

  store.get = (key: string): KeyValue | undefined => {
    const m = mappingOf(key);
    if (!m) return get(key);
    const kv = get(m.stored);
    return kv && m.mapping.kv(kv);
  };
  store.range = (prefix: string, options: RangeOptions = {}): RangeResult => {
    const m = mappingOf(prefix);
    if (!m) return range(prefix, options);
    const startKey = options.startKey === undefined ? undefined : (m.mapping.storedKey(options.startKey) ?? options.startKey);
    const result = range(m.stored, { ...options, startKey });
    return { ...result, kvs: result.kvs.map((kv) => m.mapping.kv(kv)) };
  };
  store.put = (key: string, value: string, options: WriteOptions = {}): PutResult => {
    const m = mappingOf(key);
    if (!m) return put(key, value, options);
    const result = put(m.stored, m.mapping.view.toStored(value), options);
    return { revision: result.revision, kv: m.mapping.kv(result.kv), prevKv: result.prevKv && m.mapping.kv(result.prevKv) };
  };
  store.delete = (key: string, options: WriteOptions = {}): DeleteResult => {
    const m = mappingOf(key);
    if (!m) return del(key, options);
    const result = del(m.stored, options);
    return { revision: result.revision, prevKv: m.mapping.kv(result.prevKv) };
  };
  store.watch = (prefix: string, afterRevision: number, listener: WatchListener): (() => void) => {
    const m = mappingOf(prefix);
    if (!m) return watch(prefix, afterRevision, listener);
    return watch(m.stored, afterRevision, (change) => listener(m.mapping.change(change)));
  };
}

/**
 * The key-value seam the object layer (object-storage.ts) and the event TTL stand on: etcd's
 * calls, asynchronous, so a store across the network (etcd) can be slotted in where the
 * in-memory one (store.ts) is. Reads and writes return Promises; their errors are store.ts's
 * StoreErrors (same codes and texts whichever store answers).
 *
 * Watch registration stays synchronous: it returns its cancel function at once, and the events
 * after afterRevision arrive through the listener in revision order, which a remote store honours
 * with an etcd watch started at afterRevision + 1 (history first, then live changes); a
 * compacted afterRevision throws Compacted at once when the store knows it (a remote store
 * learns it from etcd's answer, which the interface has no channel for yet). The in-memory store
 * delivers the history it holds during the call itself: the watch handler's replay
 * (reads.ts replayChanges) relies on that to join the shared fan-out with no gap, and is the
 * one place a remote store needs a per-stream watch instead.
 *
 * The revision getters are synchronous too: the in-memory store knows them; a remote store
 * answers the latest revision it has seen (response headers, its watch's progress), which is
 * what a watch's bookmark and "from now" need. What must be current asks currentRevision(): a
 * version written through another server is then never taken for one not reached yet.
 *
 * With the in-memory store every call settles at once, so a request that calls no webhook still
 * runs from its read to its write with no other request in between; the comments at the awaits
 * above (registry, controllers, reads) say what a remote store lets interleave there.
 */
import {
  type DeleteResult,
  type KeyValue,
  MemoryStore,
  type PutResult,
  type RangeOptions,
  type RangeResult,
  type StoreOptions,
  type WatchListener,
  type WriteOptions,
} from "./store.js";

export interface KeyValueStore {
  /** The revision of the last write seen. */
  readonly revision: number;
  /** Revisions at or after this one can still be read and watched from (retention applied first). */
  readonly compactRevision: number;
  /**
   * Revisions at or after this one can still be read at (a list at a revision, a continue
   * token): compactRevision in memory; on etcd, older than the mirror's history when etcd still
   * holds them, as kube-apiserver reads etcd for what its watch cache cannot serve.
   */
  readonly readableRevision: number;
  /** Watches currently registered (for tests and health). */
  readonly watcherCount: number;
  /** Compacts away what the retention window no longer covers now; returns the compaction revision. */
  applyRetention(): number;
  /** The store's revision now (etcd: a read's header revision), at least the one `revision` last saw. */
  currentRevision(): Promise<number>;
  get(key: string): Promise<KeyValue | undefined>;
  range(prefix: string, options?: RangeOptions): Promise<RangeResult>;
  put(key: string, value: string, options?: WriteOptions): Promise<PutResult>;
  delete(key: string, options?: WriteOptions): Promise<DeleteResult>;
  /** Follows changes under prefix after afterRevision; throws Compacted at once when the history is gone. Returns the cancel function. */
  watch(prefix: string, afterRevision: number, listener: WatchListener): () => void;
  /** Drops history up to rev. */
  compact(rev: number): Promise<void>;
}

/**
 * The in-memory store behind the async seam: each call is the synchronous store's, its result
 * (or StoreError) delivered as a settled Promise, so a write and its watch notifications still
 * happen in one tick; only the caller's continuation comes later.
 */
export class MemoryKeyValueStore implements KeyValueStore {
  readonly memory: MemoryStore;

  constructor(store: MemoryStore | StoreOptions = {}) {
    this.memory = store instanceof MemoryStore ? store : new MemoryStore(store);
  }

  get revision(): number {
    return this.memory.revision;
  }

  get compactRevision(): number {
    return this.memory.compactRevision;
  }

  get readableRevision(): number {
    return this.memory.compactRevision;
  }

  get watcherCount(): number {
    return this.memory.watcherCount;
  }

  get usedBytes(): number {
    return this.memory.usedBytes;
  }

  applyRetention(): number {
    return this.memory.applyRetention();
  }

  async currentRevision(): Promise<number> {
    return this.memory.revision;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    return this.memory.get(key);
  }

  async range(prefix: string, options?: RangeOptions): Promise<RangeResult> {
    return this.memory.range(prefix, options);
  }

  async put(key: string, value: string, options?: WriteOptions): Promise<PutResult> {
    return this.memory.put(key, value, options);
  }

  async delete(key: string, options?: WriteOptions): Promise<DeleteResult> {
    return this.memory.delete(key, options);
  }

  watch(prefix: string, afterRevision: number, listener: WatchListener): () => void {
    return this.memory.watch(prefix, afterRevision, listener);
  }

  async compact(rev: number): Promise<void> {
    this.memory.compact(rev);
  }
}

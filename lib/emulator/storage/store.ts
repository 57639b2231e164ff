/**
 * In-memory key-value store with etcd's MVCC model, so an etcd backend can replace it later:
 * one cluster-wide revision counter bumped by every write, keys kept in byte order, each entry
 * carrying createRevision/modRevision, and a change log (etcd's watch history) kept for a
 * retention window and cut by compact(). Everything is synchronous: a write, its log entry and
 * the notification of every watcher happen in the same tick. The layers above see it through
 * the asynchronous seam of kv.ts (MemoryKeyValueStore), where a store on etcd can stand instead;
 * list-then-watch stays consistent there by revision (a watch replays from the list's revision).
 */

export interface KeyValue {
  readonly key: string;
  /** The stored object as JSON text (without metadata.resourceVersion, like etcd's value). */
  readonly value: string;
  readonly createRevision: number;
  readonly modRevision: number;
}

/** One change, shaped like an etcd watch event: the new kv for a put, the previous kv always when there was one. */
export interface ChangeEvent {
  readonly type: "put" | "delete";
  readonly key: string;
  readonly revision: number;
  readonly kv?: KeyValue;
  readonly prevKv?: KeyValue;
  /** Time of the write (the store's clock, ms), for the retention window. */
  readonly at: number;
}

export type StoreErrorCode = "KeyExists" | "KeyNotFound" | "Conflict" | "Compacted" | "FutureRevision" | "RequestTooLarge" | "NoSpace";

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly key?: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

export interface StoreOptions {
  /** How long the change log keeps entries (the watch history window). Default 5 minutes. */
  retentionMs?: number;
  /** The clock the retention window is measured on (the emulator's clock, so it can be advanced). */
  now?: () => number;
  /** etcd --max-request-bytes: a put of key and value larger than this fails RequestTooLarge. Default 1.5 MiB. */
  maxRequestBytes?: number;
  /** etcd --quota-backend-bytes: a put that would take the kept revisions past this fails NoSpace. Default 2 GiB. */
  quotaBytes?: number;
}

/** etcd's default --max-request-bytes (server/embed/config.go DefaultMaxRequestBytes). */
export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;
/** etcd's default --quota-backend-bytes (DefaultQuotaBytes). */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

/** What etcd answers for a request over --max-request-bytes (rpctypes ErrGRPCRequestTooLarge). */
export const REQUEST_TOO_LARGE = "etcdserver: request is too large";
/** What etcd answers for a write past its quota (rpctypes ErrGRPCNoSpace). */
export const NO_SPACE = "etcdserver: mvcc: database space exceeded";

/**
 * The size a write of key and value counts: the bytes of both, what etcd's raft request
 * carries besides a few dozen bytes of framing (the value here is the object's JSON, which is
 * what a real server stores for custom resources; built-in types it stores as protobuf, usually smaller).
 */
export function entrySize(key: string, value: string): number {
  return Buffer.byteLength(key) + Buffer.byteLength(value);
}

export interface RangeOptions {
  /** Read the state as of this revision (must not be compacted). Default: current. */
  revision?: number;
  /** First key to return (inclusive); must lie under the prefix to have an effect. */
  startKey?: string;
  /** Maximum number of entries; 0 or absent means all. */
  limit?: number;
}

export interface RangeResult {
  readonly kvs: KeyValue[];
  /** The revision the range was read at. */
  readonly revision: number;
  /** True when entries remain after the returned ones. */
  readonly more: boolean;
  /** Number of entries from startKey to the end of the prefix (like etcd's count). */
  readonly count: number;
}

export interface WriteOptions {
  /** 0: the key must not exist. n > 0: the key's modRevision must equal n. */
  expectModRevision?: number;
}

export interface PutResult {
  readonly revision: number;
  readonly kv: KeyValue;
  readonly prevKv?: KeyValue;
}

export interface DeleteResult {
  readonly revision: number;
  readonly prevKv: KeyValue;
}

export type WatchListener = (event: ChangeEvent) => void;

interface Watcher {
  readonly prefix: string;
  readonly afterRevision: number;
  readonly listener: WatchListener;
}

export const DEFAULT_RETENTION_MS = 5 * 60 * 1000;

export class MemoryStore {
  private rev = 1;
  private compacted = 0;
  private readonly entries = new Map<string, KeyValue>();
  /** Sorted keys; binary search keeps writes O(log n) for the lookup. */
  private readonly keys: string[] = [];
  private readonly log: ChangeEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly retentionMs: number;
  private readonly now: () => number;
  private readonly maxRequestBytes: number;
  private readonly quotaBytes: number;
  /** Bytes of every revision kept: the current entries and the earlier values the change log holds. */
  private used = 0;

  constructor(options: StoreOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.now = options.now ?? Date.now;
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA_BYTES;
  }

  /** Bytes kept (current values and the history watches can still replay), which the quota bounds. */
  get usedBytes(): number {
    return this.used;
  }

  /** The revision of the last write (the store's current revision). */
  get revision(): number {
    return this.rev;
  }

  /**
   * Revisions at or after this one can still be read and watched from. Retention is applied
   * first: the answer depends on the time of asking, and a caller deciding between 410 texts
   * must see the same compaction the read itself would hit.
   */
  get compactRevision(): number {
    return this.applyRetention();
  }

  /** Compacts away what the retention window no longer covers now; returns the compaction revision. */
  applyRetention(): number {
    this.expire();
    return this.compacted;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  get(key: string): KeyValue | undefined {
    return this.entries.get(key);
  }

  range(prefix: string, options: RangeOptions = {}): RangeResult {
    this.expire();
    const revision = options.revision ?? this.rev;
    const all = revision === this.rev ? this.currentUnder(prefix) : this.snapshotUnder(prefix, revision);
    const start = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const from = lowerBound(all, start, (kv) => kv.key);
    const count = all.length - from;
    const limit = options.limit && options.limit > 0 ? options.limit : count;
    const kvs = all.slice(from, from + limit);
    return { kvs, revision, more: count > kvs.length, count };
  }

  put(key: string, value: string, options: WriteOptions = {}): PutResult {
    const size = entrySize(key, value);
    // etcd refuses the raft request before anything else is looked at.
    if (size > this.maxRequestBytes) throw new StoreError("RequestTooLarge", REQUEST_TOO_LARGE, key);
    const prevKv = this.entries.get(key);
    this.checkExpectation(key, prevKv, options.expectModRevision);
    if (this.used + size > this.quotaBytes) {
      // Compacting what retention no longer covers may make room; etcd's own compaction does it in the background.
      this.expire();
      if (this.used + size > this.quotaBytes) throw new StoreError("NoSpace", NO_SPACE, key);
    }
    const revision = ++this.rev;
    const kv: KeyValue = { key, value, createRevision: prevKv?.createRevision ?? revision, modRevision: revision };
    if (!prevKv)
      this.keys.splice(
        lowerBound(this.keys, key, (k) => k),
        0,
        key,
      );
    this.entries.set(key, kv);
    // The new value is kept; the one it replaces stays, as history, until compaction.
    this.used += size;
    this.record({ type: "put", key, revision, kv, prevKv, at: this.now() });
    return { revision, kv, prevKv };
  }

  delete(key: string, options: WriteOptions = {}): DeleteResult {
    const prevKv = this.entries.get(key);
    if (!prevKv) throw new StoreError("KeyNotFound", `key not found: ${key}`, key);
    this.checkExpectation(key, prevKv, options.expectModRevision);
    const revision = ++this.rev;
    this.entries.delete(key);
    this.keys.splice(
      lowerBound(this.keys, key, (k) => k),
      1,
    );
    this.record({ type: "delete", key, revision, prevKv, at: this.now() });
    return { revision, prevKv };
  }

  /**
   * Calls listener for every change under prefix with revision > afterRevision: first the ones
   * still in the log, then live ones. Throws Compacted when the log no longer reaches back that
   * far. Returns the cancel function.
   */
  watch(prefix: string, afterRevision: number, listener: WatchListener): () => void {
    this.expire();
    if (afterRevision < this.compacted) {
      throw new StoreError("Compacted", `required revision ${afterRevision} has been compacted (${this.compacted})`);
    }
    for (const event of this.log) {
      if (event.revision > afterRevision && event.key.startsWith(prefix)) listener(event);
    }
    const watcher: Watcher = { prefix, afterRevision, listener };
    this.watchers.add(watcher);
    return () => {
      this.watchers.delete(watcher);
    };
  }

  /**
   * A mirror's load (etcd-kv.ts): the state read at revision, with no history before it (a
   * watch or read from an older revision is Compacted).
   */
  load(kvs: readonly KeyValue[], revision: number): void {
    for (const kv of kvs) {
      if (!this.entries.has(kv.key))
        this.keys.splice(
          lowerBound(this.keys, kv.key, (k) => k),
          0,
          kv.key,
        );
      this.entries.set(kv.key, kv);
      this.used += entrySize(kv.key, kv.value);
    }
    this.rev = Math.max(this.rev, revision);
    this.compacted = Math.max(this.compacted, revision);
  }

  /**
   * A mirror's apply: a change another store made (etcd's watch), at its own revision, recorded and
   * delivered like a local write. The previous value is the mirror's own entry, as kube-apiserver's
   * watch cache takes it from its store: etcd leaves an event's prev_kv out when a compaction passed
   * it before the event was sent (a watch catching up on history), and a MODIFIED would then read as
   * an ADDED and a DELETED would carry no object.
   */
  applyChange(event: ChangeEvent): void {
    this.rev = Math.max(this.rev, event.revision);
    const had = this.entries.has(event.key);
    const prevKv = this.entries.get(event.key);
    if (event.prevKv === undefined && prevKv !== undefined) event = { ...event, prevKv };
    if (event.type === "put" && event.kv) {
      if (!had)
        this.keys.splice(
          lowerBound(this.keys, event.key, (k) => k),
          0,
          event.key,
        );
      this.entries.set(event.key, event.kv);
      this.used += entrySize(event.key, event.kv.value);
    } else if (event.type === "delete") {
      if (!had) return;
      this.entries.delete(event.key);
      this.keys.splice(
        lowerBound(this.keys, event.key, (k) => k),
        1,
      );
    }
    this.record(event);
  }

  /** A mirror's progress: revisions that changed nothing it holds (writes to other keys). */
  advanceTo(revision: number): void {
    this.rev = Math.max(this.rev, revision);
  }

  /** Drops history up to and including rev: later reads and watches need revision >= rev. */
  compact(rev: number): void {
    if (rev <= this.compacted) return;
    const target = Math.min(rev, this.rev);
    // The log is in revision order, so the dropped entries are a prefix; retention trims one or
    // two entries per write at steady state, where a full filter of the log would be quadratic.
    let drop = 0;
    let hi = this.log.length;
    while (drop < hi) {
      const mid = (drop + hi) >>> 1;
      if ((this.log[mid]?.revision ?? Infinity) <= target) drop = mid + 1;
      else hi = mid;
    }
    if (drop > 0) {
      // The values these changes replaced or deleted are no longer kept.
      for (let i = 0; i < drop; i++) {
        const prev = this.log[i]?.prevKv;
        if (prev) this.used -= entrySize(prev.key, prev.value);
      }
      this.log.splice(0, drop);
    }
    this.compacted = target;
  }

  private checkExpectation(key: string, current: KeyValue | undefined, expect: number | undefined): void {
    if (expect === undefined) return;
    if (expect === 0 && current) throw new StoreError("KeyExists", `key exists: ${key}`, key);
    if (expect > 0 && current?.modRevision !== expect) {
      throw new StoreError("Conflict", `modRevision of ${key} is ${current?.modRevision ?? "none"}, expected ${expect}`, key);
    }
  }

  private record(event: ChangeEvent): void {
    this.log.push(event);
    for (const w of [...this.watchers]) {
      if (event.revision <= w.afterRevision || !event.key.startsWith(w.prefix) || !this.watchers.has(w)) continue;
      try {
        w.listener(event);
      } catch {
        // A failing watcher must not break the write or the other watchers; its owner cleans up.
      }
    }
    this.expire();
  }

  /** Compacts away log entries older than the retention window (lazily, on use). */
  private expire(): void {
    const cutoff = this.now() - this.retentionMs;
    let last = -1;
    for (let i = 0; i < this.log.length && (this.log[i]?.at ?? Infinity) < cutoff; i++) last = i;
    const entry = this.log[last];
    if (entry) this.compact(entry.revision);
  }

  private currentUnder(prefix: string): KeyValue[] {
    const out: KeyValue[] = [];
    for (let i = lowerBound(this.keys, prefix, (k) => k); i < this.keys.length; i++) {
      const key = this.keys[i];
      if (key === undefined || !key.startsWith(prefix)) break;
      const kv = this.entries.get(key);
      if (kv) out.push(kv);
    }
    return out;
  }

  /** The entries under prefix as of revision, rebuilt by undoing later log entries. */
  private snapshotUnder(prefix: string, revision: number): KeyValue[] {
    if (revision > this.rev) throw new StoreError("FutureRevision", `revision ${revision} is in the future (current ${this.rev})`);
    if (revision < this.compacted) {
      throw new StoreError("Compacted", `required revision ${revision} has been compacted (${this.compacted})`);
    }
    const state = new Map<string, KeyValue>();
    for (const kv of this.currentUnder(prefix)) state.set(kv.key, kv);
    for (let i = this.log.length - 1; i >= 0; i--) {
      const e = this.log[i];
      if (!e || e.revision <= revision) break;
      if (!e.key.startsWith(prefix)) continue;
      if (e.prevKv) state.set(e.key, e.prevKv);
      else state.delete(e.key);
    }
    return [...state.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

/** Index of the first element whose key is >= target. */
function lowerBound<T>(items: readonly T[], target: string, keyOf: (item: T) => string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const item = items[mid];
    if (item !== undefined && keyOf(item) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The emulator's key-value seam (kv.ts) on etcd, built as kube-apiserver's watch cache is: a
 * local mirror (a MemoryStore holding the state and a change history) fed by ONE etcd watch over
 * the whole keyspace, started at the revision of an initial list. Watch registration and history
 * replay stay synchronous, served from the mirror. Writes go to etcd (EtcdStore, CAS by
 * modRevision) and resolve once the mirror has applied their revision, so a write is read back
 * at once and watchers get etcd's order. Reads without a revision first ask etcd for its current
 * revision and wait until the mirror reaches it: a write through another emulator on the same
 * etcd is then seen, with the same resourceVersions.
 *
 * The watch covers every key, not just the prefix, so the mirror's revision follows every etcd
 * revision (a write to another key would otherwise leave it short of the one etcd reports) and
 * the compactions of other servers are seen in order: kube-apiserver's compactor records each
 * one in the key `compact_rev_key` (value: the revision, in decimal) before compacting
 * (k8s.io/apiserver pkg/storage/etcd3/compact.go); this store does the same, and every mirror
 * compacts its history when it sees that key change — no polling, and in order with the writes.
 *
 * Values are the emulator's JSON text here and in the mirror; in etcd, built-in types are stored as
 * a real server stores them, in protobuf (etcd-values.ts), given storageVersions.
 */

import type { KeyValueStore } from "../kv.js";
import {
  type ChangeEvent,
  type DeleteResult,
  type KeyValue,
  MemoryStore,
  type PutResult,
  type RangeOptions,
  type RangeResult,
  StoreError,
  type StoreOptions,
  type WatchListener,
  type WriteOptions,
} from "../store.js";
import { DEFAULT_ETCD_CHECK_TIMEOUT_MS, etcdHealthProbe, type HealthProbe } from "./etcd-health.js";
import { EtcdStore, EtcdUnavailable } from "./etcd-store.js";
import { JSON_VALUES, protobufValues, type StorageVersionForms } from "./etcd-values.js";
import { EventLeases } from "./event-leases.js";

/** kube-apiserver's compaction record (pkg/storage/etcd3/compact.go compactRevKey), outside --etcd-prefix. */
export const COMPACT_REV_KEY = "compact_rev_key";
/** The emulator's own key prefix; --etcd-prefix replaces it in etcd. */
const EMULATOR_PREFIX = "/registry";

export interface EtcdKeyValueStoreOptions extends StoreOptions {
  /** --etcd-servers: client URLs, comma-separated or a list. */
  endpoints: string | string[];
  /** --etcd-prefix (default /registry): where the emulator's /registry/... keys live in etcd. */
  prefix?: string;
  /** Bound of each etcd call, and of waiting for the mirror to catch up. Default 10 s. */
  requestTimeoutMs?: number;
  /** --etcd-compaction-interval: a run per interval on every replica, one of them compacting to the revision seen an interval earlier (0 = off). Default 5 min. */
  compactionIntervalMs?: number;
  /** --etcd-healthcheck-timeout: the `etcd` check's bound (default 2 s). */
  healthcheckTimeoutMs?: number;
  /** --etcd-readycheck-timeout: the `etcd-readiness` check's bound (default 2 s). */
  readycheckTimeoutMs?: number;
  /** Which emulator keys hold built-in types, stored as protobuf in their storage version (absent: all JSON). */
  storageVersions?: StorageVersionForms;
  /** --event-ttl in whole seconds: events (under <prefix>/events/) are written with shared etcd leases of it (event-leases.ts); 0 = none. */
  eventTtlSeconds?: number;
}

interface Waiter {
  readonly revision: number;
  resolve(): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class EtcdKeyValueStore implements KeyValueStore {
  readonly etcd: EtcdStore;
  /** kube-apiserver's health checks on etcd, by check name (each its own probe and rate limit). */
  readonly healthProbes: Readonly<Record<"etcd" | "etcd-readiness", HealthProbe>>;
  private readonly mirror: MemoryStore;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly compactionIntervalMs: number;
  private readonly now: () => number;
  private waiters: Waiter[] = [];
  private cancelWatch: (() => void) | undefined;
  private closed = false;
  private compactor: NodeJS.Timeout | undefined;
  private resumeTimer: NodeJS.Timeout | undefined;
  /** The last compaction compact_rev_key recorded: etcd reads at revisions from it on. */
  private etcdCompacted = 0;
  /** Called when the mirror is re-listed (etcd compacted past it while its watch was cut): the server ends its open watches. */
  onRelist: (() => void) | undefined;

  /** Which puts carry an event lease: the events of both event APIs, stored under one prefix (wire-facts §21). */
  private eventLeases(ttlSeconds: number): (key: string) => Promise<string> | undefined {
    const leases = new EventLeases(ttlSeconds, (ttl) => this.etcd.grantLease(ttl));
    const events = `${this.prefix}/events/`;
    return (key) => (key.startsWith(events) ? leases.forWrite() : undefined);
  }

  constructor(options: EtcdKeyValueStoreOptions) {
    this.prefix = (options.prefix ?? EMULATOR_PREFIX).replace(/\/+$/, "");
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.compactionIntervalMs = options.compactionIntervalMs ?? 5 * 60 * 1000;
    this.now = options.now ?? Date.now;
    const forms = options.storageVersions;
    this.etcd = new EtcdStore({
      endpoints: options.endpoints,
      requestTimeoutMs: this.timeoutMs,
      maxRequestBytes: options.maxRequestBytes,
      now: options.now,
      values: forms ? protobufValues((key) => forms(this.toEmulator(key))) : JSON_VALUES,
      ...(options.eventTtlSeconds ? { leaseFor: this.eventLeases(options.eventTtlSeconds) } : {}),
    });
    const healthKey = `${this.prefix}/health`;
    this.healthProbes = {
      etcd: etcdHealthProbe(this.etcd, healthKey, options.healthcheckTimeoutMs ?? DEFAULT_ETCD_CHECK_TIMEOUT_MS),
      "etcd-readiness": etcdHealthProbe(this.etcd, healthKey, options.readycheckTimeoutMs ?? DEFAULT_ETCD_CHECK_TIMEOUT_MS),
    };
    // The mirror never refuses what etcd accepted: etcd enforces its own quota.
    this.mirror = new MemoryStore({ ...options, maxRequestBytes: Number.MAX_SAFE_INTEGER, quotaBytes: Number.MAX_SAFE_INTEGER });
  }

  /** Lists the prefix, loads the mirror at that revision and watches from it; then the compactor. */
  async start(): Promise<void> {
    this.noteCompaction((await this.etcd.get(COMPACT_REV_KEY))?.value);
    const listed = await this.etcd.range(`${this.prefix}/`);
    this.mirror.load(
      listed.kvs.map((kv) => this.fromEtcd(kv)),
      listed.revision,
    );
    await this.follow();
    if (this.compactionIntervalMs > 0) this.scheduleCompaction(0, 0);
  }

  /**
   * kube-apiserver's compactor (pkg/storage/etcd3/compact.go): every replica runs it, but one
   * compacts per interval. Each run puts the revision it saw one interval earlier into
   * compact_rev_key if the key's version is still the one it last saw; the winner then compacts
   * etcd to it (every mirror follows on seeing the key), a loser only learns the new version.
   * The next run starts an interval after this one ended (a slow etcd never stacks runs).
   */
  private scheduleCompaction(version: number, seen: number): void {
    this.compactor = setTimeout(() => {
      this.etcd
        .casVersion(COMPACT_REV_KEY, version, String(seen))
        .then(async (round) => {
          // The first win records 0 and compacts nothing (compact.go: no compaction on bootstrap).
          if (round.succeeded && seen > 0) await this.etcd.compact(seen).catch(() => {});
          return round;
        })
        .then(
          (round) => !this.closed && this.scheduleCompaction(round.version, round.revision),
          () => !this.closed && this.scheduleCompaction(version, seen),
        );
    }, this.compactionIntervalMs);
    this.compactor.unref();
  }

  close(): void {
    this.closed = true;
    if (this.compactor) clearTimeout(this.compactor);
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.cancelWatch?.();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new EtcdUnavailable("the emulator's etcd store is closed", false));
    }
    this.etcd.close();
  }

  get revision(): number {
    return this.mirror.revision;
  }

  get compactRevision(): number {
    return this.mirror.compactRevision;
  }

  /** etcd's compact revision as far as known (compact_rev_key); a compaction made otherwise is found by the read etcd refuses. */
  get readableRevision(): number {
    return Math.min(this.etcdCompacted, this.mirror.compactRevision);
  }

  get watcherCount(): number {
    return this.mirror.watcherCount;
  }

  applyRetention(): number {
    return this.mirror.applyRetention();
  }

  /** etcd's revision now, once the mirror has reached it (so a read after it sees every write before it). */
  async currentRevision(): Promise<number> {
    const rev = await this.etcd.revision();
    await this.waitFor(rev);
    return this.mirror.revision;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    await this.currentRevision();
    return this.mirror.get(key);
  }

  /**
   * From the mirror; a revision older than its history (a replica started or re-listed since) is
   * read from etcd, as kube-apiserver's cacher delegates exact and continued lists to etcd
   * (cacher/delegator.go shouldDelegateList).
   */
  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const revision = options.revision;
    if (revision !== undefined && revision > 0 && revision < this.mirror.compactRevision) {
      const startKey = options.startKey === undefined ? undefined : this.toEtcd(options.startKey);
      const res = await this.etcd.range(this.toEtcd(prefix), { ...options, startKey });
      return { ...res, kvs: res.kvs.map((kv) => this.fromEtcd(kv)) };
    }
    if (revision === undefined || revision > this.mirror.revision) await this.currentRevision();
    return this.mirror.range(prefix, options);
  }

  async put(key: string, value: string, options?: WriteOptions): Promise<PutResult> {
    const res = await this.etcd.put(this.toEtcd(key), value, options);
    await this.waitFor(res.revision);
    return { revision: res.revision, kv: this.fromEtcd(res.kv), prevKv: res.prevKv && this.fromEtcd(res.prevKv) };
  }

  async delete(key: string, options?: WriteOptions): Promise<DeleteResult> {
    const res = await this.etcd.delete(this.toEtcd(key), options);
    await this.waitFor(res.revision);
    return { revision: res.revision, prevKv: this.fromEtcd(res.prevKv) };
  }

  watch(prefix: string, afterRevision: number, listener: WatchListener): () => void {
    return this.mirror.watch(prefix, afterRevision, listener);
  }

  /** Records the compaction in compact_rev_key (so other servers' mirrors follow), then compacts etcd and the mirror. */
  async compact(rev: number): Promise<void> {
    if (rev <= this.mirror.compactRevision) return;
    await this.etcd.put(COMPACT_REV_KEY, String(rev));
    this.noteCompaction(String(rev));
    await this.etcd.compact(rev);
    this.mirror.compact(rev);
  }

  /** The one watch, from the mirror's revision; when it ends (etcd lost), resumed from where the mirror is. */
  private async follow(): Promise<void> {
    this.cancelWatch = await this.etcd.watch(
      "",
      this.mirror.revision,
      (change) => this.apply(change),
      (error) => this.resume(error),
      // etcd's progress notifications (--experimental-watch-progress-notify-interval) tell an idle mirror etcd's revision.
      (revision) => {
        this.mirror.advanceTo(revision);
        this.release();
      },
    );
  }

  /** Watches again after a pause; when etcd compacted past the mirror meanwhile, re-lists instead. */
  private resume(error?: unknown): void {
    this.cancelWatch = undefined;
    if (this.closed) return;
    this.resumeTimer = setTimeout(() => {
      const compacted = error instanceof StoreError && error.code === "Compacted";
      (compacted ? this.relist() : this.follow()).catch((e: unknown) => this.resume(e));
    }, 200);
    this.resumeTimer.unref();
  }

  /**
   * What kube-apiserver's cacher does when its reflector's watch expired (cacher.go startCaching:
   * terminateAllWatchers, then ListAndWatch): every client watch on this replica ends (the stream
   * closes, no ERROR event: cache_watcher.go stopLocked closes the result channel), the state is
   * read again at etcd's current revision with no history before it (a watch from an older
   * resourceVersion is then 410), and the watch on etcd starts from there. The replica's own
   * watchers (controllers, the event TTL) stay and get the difference as changes, as an
   * informer's relist hands its handlers.
   */
  private async relist(): Promise<void> {
    const listed = await this.etcd.range(`${this.prefix}/`);
    if (this.closed) return;
    this.onRelist?.();
    const old = new Map(this.mirror.range("").kvs.map((kv) => [kv.key, kv]));
    const changes: ChangeEvent[] = [];
    const at = this.now();
    for (const etcdKv of listed.kvs) {
      const kv = this.fromEtcd(etcdKv);
      const prevKv = old.get(kv.key);
      old.delete(kv.key);
      if (prevKv?.modRevision !== kv.modRevision) changes.push({ type: "put", key: kv.key, revision: kv.modRevision, kv, prevKv, at });
    }
    // When a key went is not known: after every change kept, at the list's revision.
    for (const prevKv of old.values()) changes.push({ type: "delete", key: prevKv.key, revision: listed.revision, prevKv, at });
    changes.sort((a, b) => a.revision - b.revision);
    for (const change of changes) this.mirror.applyChange(change);
    this.mirror.advanceTo(listed.revision);
    this.mirror.compact(listed.revision);
    this.release();
    await this.follow();
  }

  private apply(change: ChangeEvent): void {
    if (change.key.startsWith(`${this.prefix}/`)) {
      this.mirror.applyChange({
        ...change,
        key: this.toEmulator(change.key),
        kv: change.kv && this.fromEtcd(change.kv),
        prevKv: change.prevKv && this.fromEtcd(change.prevKv),
      });
    } else {
      this.mirror.advanceTo(change.revision);
      if (change.key === COMPACT_REV_KEY && change.kv) {
        const rev = this.noteCompaction(change.kv.value);
        if (rev > 0) this.mirror.compact(rev);
      }
    }
    this.release();
  }

  /** A compact_rev_key value: the revision etcd is compacted to (0 when it is none). */
  private noteCompaction(value: string | undefined): number {
    const rev = Number(value);
    if (!Number.isSafeInteger(rev) || rev <= 0) return 0;
    this.etcdCompacted = Math.max(this.etcdCompacted, rev);
    return rev;
  }

  private waitFor(revision: number): Promise<void> {
    if (this.mirror.revision >= revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        revision,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new EtcdUnavailable(`the watch on etcd did not reach revision ${revision} within ${this.timeoutMs} ms`, true));
        }, this.timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const rev = this.mirror.revision;
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.revision <= rev) {
        clearTimeout(w.timer);
        w.resolve();
      } else keep.push(w);
    }
    this.waiters = keep;
  }

  private toEtcd(key: string): string {
    return key.startsWith(EMULATOR_PREFIX) ? this.prefix + key.slice(EMULATOR_PREFIX.length) : key;
  }

  private toEmulator(key: string): string {
    return key.startsWith(this.prefix) ? EMULATOR_PREFIX + key.slice(this.prefix.length) : key;
  }

  private fromEtcd(kv: KeyValue): KeyValue {
    return this.prefix === EMULATOR_PREFIX ? kv : { ...kv, key: this.toEmulator(kv.key) };
  }
}

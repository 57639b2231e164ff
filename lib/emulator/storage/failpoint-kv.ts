/**
 * Failpoints of the storage seam (kv.ts), for the self-test of the multi-replica suites
 * (suites/replicas.test.ts): wrappers around whichever store the emulator has, in memory or on
 * etcd. Each models a server of a cluster that is wrong in a way one server alone may hide.
 */
import type { Failpoints } from "../failpoints.js";
import type { KeyValueStore } from "./kv.js";
import type { ChangeEvent, DeleteResult, KeyValue, PutResult, RangeOptions, RangeResult, WatchListener, WriteOptions } from "./store.js";

/** How far behind storage the lagging reads are: far longer than a check takes between a write and its read. */
export const READ_LAG_MS = 5_000;
/** How far the own numbering is from storage's revisions. */
export const REVISION_OFFSET = 1_000_000;

/** The store with the storage failpoints that are on; the store itself when none is. */
export function withStoreFailpoints(store: KeyValueStore, failpoints: Failpoints, now: () => number = Date.now): KeyValueStore {
  let s = store;
  if (failpoints.has("consistent-reads-lag")) s = new LaggingReads(s, READ_LAG_MS, now);
  if (failpoints.has("resource-versions-offset")) s = new OffsetRevisions(s, REVISION_OFFSET);
  return s;
}

/** Passes every call through; the failpoints below override what they change. */
class Passthrough implements KeyValueStore {
  constructor(protected readonly inner: KeyValueStore) {}
  get revision(): number {
    return this.inner.revision;
  }
  get compactRevision(): number {
    return this.inner.compactRevision;
  }
  get readableRevision(): number {
    return this.inner.readableRevision;
  }
  get watcherCount(): number {
    return this.inner.watcherCount;
  }
  applyRetention(): number {
    return this.inner.applyRetention();
  }
  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  get(key: string): Promise<KeyValue | undefined> {
    return this.inner.get(key);
  }
  range(prefix: string, options?: RangeOptions): Promise<RangeResult> {
    return this.inner.range(prefix, options);
  }
  put(key: string, value: string, options?: WriteOptions): Promise<PutResult> {
    return this.inner.put(key, value, options);
  }
  delete(key: string, options?: WriteOptions): Promise<DeleteResult> {
    return this.inner.delete(key, options);
  }
  watch(prefix: string, afterRevision: number, listener: WatchListener): () => void {
    return this.inner.watch(prefix, afterRevision, listener);
  }
  compact(rev: number): Promise<void> {
    return this.inner.compact(rev);
  }
}

/**
 * consistent-reads-lag: ranges without a revision (a consistent list: a quorum read on a real
 * server, or its watch cache once caught up with storage's current revision) answered at the
 * revision the store had READ_LAG_MS earlier, as a cache that serves them without waiting to
 * catch up. Gets stay current, as a real server reads a single object from storage.
 */
class LaggingReads extends Passthrough {
  /** (time, revision) samples, oldest first; the first is the newest one at least `lagMs` old. */
  private samples: { at: number; revision: number }[];

  constructor(
    inner: KeyValueStore,
    private readonly lagMs: number,
    private readonly now: () => number,
  ) {
    super(inner);
    this.samples = [{ at: now(), revision: inner.revision }];
  }

  /** The revision of READ_LAG_MS ago (while the store is younger, the one it started with). */

  private lagged(): number {
    const t = this.now();
    const last = this.samples[this.samples.length - 1];
    if (last && last.revision !== this.inner.revision) this.samples.push({ at: t, revision: this.inner.revision });
    while (this.samples.length > 1 && (this.samples[1] as { at: number }).at <= t - this.lagMs) this.samples.shift();
    // Never below what is still readable.
    return Math.max((this.samples[0] as { revision: number }).revision, this.inner.compactRevision);
  }

  override range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    return this.inner.range(prefix, options.revision === undefined ? { ...options, revision: this.lagged() } : options);
  }
}

/**
 * resource-versions-offset: revisions numbered `offset` above storage's, as a server that keeps
 * a counter of its own. Consistent on that server alone; another server of the cluster gives the
 * same write another version.
 */
class OffsetRevisions extends Passthrough {
  constructor(
    inner: KeyValueStore,
    private readonly offset: number,
  ) {
    super(inner);
  }
  private up = (r: number): number => r + this.offset;
  private down = (r: number): number => Math.max(0, r - this.offset);
  private kv = (kv: KeyValue): KeyValue => ({ ...kv, createRevision: this.up(kv.createRevision), modRevision: this.up(kv.modRevision) });
  private write = (o?: WriteOptions): WriteOptions | undefined => (o?.expectModRevision ? { ...o, expectModRevision: this.down(o.expectModRevision) } : o);

  override get revision(): number {
    return this.up(this.inner.revision);
  }
  override get compactRevision(): number {
    return this.up(this.inner.compactRevision);
  }
  override get readableRevision(): number {
    return this.up(this.inner.readableRevision);
  }
  override applyRetention(): number {
    return this.up(this.inner.applyRetention());
  }
  override async currentRevision(): Promise<number> {
    return this.up(await this.inner.currentRevision());
  }
  override async get(key: string): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key);
    return kv && this.kv(kv);
  }
  override async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const res = await this.inner.range(prefix, options.revision === undefined ? options : { ...options, revision: this.down(options.revision) });
    return { ...res, revision: this.up(res.revision), kvs: res.kvs.map(this.kv) };
  }
  override async put(key: string, value: string, options?: WriteOptions): Promise<PutResult> {
    const res = await this.inner.put(key, value, this.write(options));
    return { revision: this.up(res.revision), kv: this.kv(res.kv), ...(res.prevKv ? { prevKv: this.kv(res.prevKv) } : {}) };
  }
  override async delete(key: string, options?: WriteOptions): Promise<DeleteResult> {
    const res = await this.inner.delete(key, this.write(options));
    return { revision: this.up(res.revision), prevKv: this.kv(res.prevKv) };
  }
  override watch(prefix: string, afterRevision: number, listener: WatchListener): () => void {
    return this.inner.watch(prefix, this.down(afterRevision), (e: ChangeEvent) =>
      listener({ ...e, revision: this.up(e.revision), ...(e.kv ? { kv: this.kv(e.kv) } : {}), ...(e.prevKv ? { prevKv: this.kv(e.prevKv) } : {}) }),
    );
  }
  override compact(rev: number): Promise<void> {
    return this.inner.compact(this.down(rev));
  }
}

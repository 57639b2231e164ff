/**
 * The key-value store of store.ts on etcd 3.x (through the etcd3 client), asynchronous, with the
 * same semantics, error codes and messages as MemoryStore: numeric revisions (etcd's are strings),
 * ranges under a prefix from a start key at a revision with limit/more/count, puts and deletes
 * guarded by an expected modRevision (a Txn comparing mod_revision; 0 = must not exist), watches
 * from a revision, compaction. Keys are the caller's; values are its text, written to etcd and read
 * back through a codec (etcd-values.ts: the protobuf form of built-in types; JSON text by default).
 * Failures to reach etcd are EtcdUnavailable, bounded by requestTimeoutMs: never a hang.
 */
import { createRequire } from "node:module";
import type * as Etcd3Module from "etcd3";
import type { Etcd3, IKeyValue, IOptions, IResponseHeader, IWatchResponse } from "etcd3";
import {
  type ChangeEvent,
  DEFAULT_MAX_REQUEST_BYTES,
  type DeleteResult,
  type KeyValue,
  NO_SPACE,
  type PutResult,
  type RangeOptions,
  type RangeResult,
  REQUEST_TOO_LARGE,
  StoreError,
  type WatchListener,
  type WriteOptions,
} from "../store.js";
import { type EtcdValueCodec, JSON_VALUES } from "./etcd-values.js";

export interface EtcdStoreOptions {
  /** Client URLs, as --etcd-servers takes them (http://127.0.0.1:2379). */
  endpoints: string | string[];
  /** Bound of every unary call and of a watch's creation. Default 10 s. */
  requestTimeoutMs?: number;
  /** Checked before sending, as MemoryStore does (etcd's own limit counts a few bytes of framing more). Default 1.5 MiB. */
  maxRequestBytes?: number;
  /** The clock of the ChangeEvents' `at` (the emulator's clock). */
  now?: () => number;
  /** How values are written to etcd and read back (default: as their text). */
  values?: EtcdValueCodec;
  /** The lease a put of this etcd key carries (event-leases.ts), or undefined for none. */
  leaseFor?: (key: string) => Promise<string> | undefined;
}

/** etcd could not be reached or did not answer in time (kube-apiserver answers 504 or 500 then). */
export class EtcdUnavailable extends Error {
  readonly code = "Unavailable";
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
    this.name = "EtcdUnavailable";
  }
}

/** Called once when a live watch ends on its own: Compacted (with the compact revision) or EtcdUnavailable. */
export type WatchErrorListener = (error: StoreError | EtcdUnavailable) => void;

const COMPACTED = "required revision has been compacted";
const FUTURE = "required revision is a future revision";
/** A key no one writes, read to learn revisions without reading data. */
const PROBE_KEY = Buffer.from([0]);

/** etcd3 (grpc and its protocol files) takes about 0.3 s to load: loaded by the first EtcdStore, not by every emulator start. */
let etcd3: typeof Etcd3Module | undefined;
const loadEtcd3 = (): typeof Etcd3Module => (etcd3 ??= createRequire(import.meta.url)("etcd3") as typeof Etcd3Module);

type FaultPolicy = NonNullable<NonNullable<IOptions["faultHandling"]>["global"]>;
/**
 * No retries and no circuit breaker: a retried write whose first attempt was applied would answer
 * Conflict, and an open breaker delays recovery after etcd is back. The caller decides.
 */
const passThrough = {
  // Async: the client reports a failed stream through execute(() => { throw }).catch(...), which a synchronous throw would escape.
  execute: async (fn: (context: { signal: AbortSignal }) => unknown) => fn({ signal: new AbortController().signal }),
} as unknown as FaultPolicy;

export class EtcdStore {
  private readonly client: Etcd3;
  private readonly endpoints: string;
  private readonly timeoutMs: number;
  private readonly maxRequestBytes: number;
  private readonly now: () => number;
  private readonly values: EtcdValueCodec;
  private readonly leaseFor: ((key: string) => Promise<string> | undefined) | undefined;
  /** The highest compact revision seen; compaction only moves forward. */
  private knownCompact = 0;
  private readonly streams = new Set<{ cancel(): void }>();

  constructor(options: EtcdStoreOptions) {
    const hosts = Array.isArray(options.endpoints) ? options.endpoints : options.endpoints.split(",");
    this.endpoints = hosts.join(",");
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.now = options.now ?? Date.now;
    this.values = options.values ?? JSON_VALUES;
    this.leaseFor = options.leaseFor;
    const { Etcd3 } = loadEtcd3();
    this.client = new Etcd3({
      hosts,
      // Lists can be larger than grpc's 4 MiB receive default (kube-apiserver lifts it too).
      grpcOptions: { "grpc.max_receive_message_length": -1 },
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + this.timeoutMs }),
      faultHandling: { host: () => passThrough, global: passThrough },
    });
  }

  close(): void {
    for (const stream of this.streams) stream.cancel();
    this.streams.clear();
    this.client.close();
  }

  /** The current revision (a linearizable read). */
  async revision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: PROBE_KEY, count_only: true }));
    return revisionOf(res.header);
  }

  /**
   * Revisions at or after this one can still be read. etcd does not tell it for a range, so it is
   * found by reading the probe key: at the last known one, else a binary search up to the current.
   */
  async compactRevision(): Promise<number> {
    let lo = Math.max(this.knownCompact, 1);
    // Readable at the last known one (or at 1): nothing newer was compacted.
    if (await this.readableAt(lo)) return this.knownCompact;
    let hi = await this.revision();
    // Invariant: not readable at lo, readable at hi.
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await this.readableAt(mid)) hi = mid;
      else lo = mid;
    }
    this.knownCompact = Math.max(this.knownCompact, hi);
    return hi;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(key) }));
    const kv = res.kvs[0];
    return kv ? this.toKeyValue(kv) : undefined;
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const start = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const revision = options.revision;
    if (revision !== undefined && revision <= 0) {
      // etcd reads the newest state at revision <= 0; MemoryStore reads the empty state before revision 1.
      const compacted = await this.compactRevision();
      if (revision < compacted) throw compactedError(revision, compacted);
      return { kvs: [], revision, more: false, count: 0 };
    }
    try {
      const res = await this.call(() =>
        this.client.kv.range({ key: Buffer.from(start || "\0"), range_end: prefixEnd(prefix), revision: revision ?? 0, limit }),
      );
      return { kvs: res.kvs.map((kv) => this.toKeyValue(kv)), revision: revision ?? revisionOf(res.header), more: Boolean(res.more), count: Number(res.count) };
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      if (e.message.includes(FUTURE)) {
        const current = await this.revision();
        throw new StoreError("FutureRevision", `revision ${revision} is in the future (current ${current})`);
      }
      if (e.message.includes(COMPACTED)) throw compactedError(revision ?? 0, await this.compactRevision());
      throw e;
    }
  }

  async put(key: string, value: string, options: WriteOptions = {}): Promise<PutResult> {
    // The size etcd measures: of the bytes sent (the protobuf form when the codec makes one).
    const bytes = this.values.encode(key, value);
    if (Buffer.byteLength(key) + bytes.length > this.maxRequestBytes) throw new StoreError("RequestTooLarge", REQUEST_TOO_LARGE, key);
    const k = Buffer.from(key);
    const lease = await this.leaseFor?.(key);
    const put = { key: k, value: bytes, prev_kv: true, ...(lease ? { lease } : {}) };
    const expect = options.expectModRevision;
    if (expect === undefined) {
      const res = await this.write(key, () => this.client.kv.put(put));
      return this.putResult(key, value, revisionOf(res.header), res.prev_kv);
    }
    const res = await this.write(key, () =>
      this.client.kv.txn({
        compare: [{ key: k, target: loadEtcd3().CompareTarget.Mod, result: loadEtcd3().CompareResult.Equal, mod_revision: expect }],
        success: [{ request_put: put }],
        // On a failed compare, read the key for the error (its modRevision) in the same transaction.
        failure: [{ request_range: { key: k } }],
      }),
    ).catch(async (e: unknown) => {
      // Past its quota etcd refuses any Txn holding a put before comparing; MemoryStore checks the
      // expectation first, so a stale one is still Conflict (or KeyExists) then.
      if (e instanceof StoreError && e.code === "NoSpace") {
        const current = await this.get(key);
        if (expect === 0 ? current !== undefined : current?.modRevision !== expect) throw expectationError(key, expect, current);
      }
      throw e;
    });
    if (!res.succeeded) throw expectationError(key, expect, res.responses[0]?.response_range?.kvs[0]);
    return this.putResult(key, value, revisionOf(res.header), res.responses[0]?.response_put?.prev_kv);
  }

  async delete(key: string, options: WriteOptions = {}): Promise<DeleteResult> {
    const k = Buffer.from(key);
    const expect = options.expectModRevision;
    if (expect === 0) {
      // A delete of a key that must not exist can never apply: KeyNotFound or KeyExists, as MemoryStore.
      const current = await this.get(key);
      throw current ? new StoreError("KeyExists", `key exists: ${key}`, key) : notFound(key);
    }
    const del = { key: k, prev_kv: true };
    if (expect === undefined) {
      const res = await this.write(key, () => this.client.kv.deleteRange(del));
      const prev = res.prev_kvs[0];
      if (!prev) throw notFound(key);
      return { revision: revisionOf(res.header), prevKv: this.toKeyValue(prev) };
    }
    const res = await this.write(key, () =>
      this.client.kv.txn({
        compare: [{ key: k, target: loadEtcd3().CompareTarget.Mod, result: loadEtcd3().CompareResult.Equal, mod_revision: expect }],
        success: [{ request_delete_range: del }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) {
      const current = res.responses[0]?.response_range?.kvs[0];
      throw current ? expectationError(key, expect, current) : notFound(key);
    }
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!prev) throw notFound(key);
    return { revision: revisionOf(res.header), prevKv: this.toKeyValue(prev) };
  }

  /**
   * Calls listener for every change under prefix with revision > afterRevision, in order, then
   * live ones. Rejects with Compacted when history no longer reaches back that far (MemoryStore's
   * rule, afterRevision >= the compact revision, checked by a read; etcd itself would also serve
   * afterRevision + 1 = the compact revision). Resolves, once etcd has created the watch, to the
   * cancel function. Afterwards the watch may still end through onError (once): etcd replays
   * history asynchronously and cancels a watch that a compaction overtook before it caught up
   * (Compacted, with the compact revision), or the stream is lost (EtcdUnavailable).
   */
  async watch(
    prefix: string,
    afterRevision: number,
    listener: WatchListener,
    onError: WatchErrorListener = () => {},
    /** Asks etcd for progress notifications (progress_notify): each tells the revision every change up to which was sent. */
    onProgress?: (revision: number) => void,
  ): Promise<() => void> {
    // etcd answers a watch from a compacted revision only after creating it (up to 100 ms later,
    // when it syncs the watcher): a read at that revision tells at once, and the compact revision.
    if (afterRevision <= 0 || !(await this.readableAt(afterRevision))) {
      const compacted = await this.compactRevision();
      if (afterRevision < compacted) throw compactedError(afterRevision, compacted);
    }
    const stream = await this.call(() => this.client.watchClient.watch());
    this.streams.add(stream);
    let state: "creating" | "live" | "done" = "creating";
    const finish = (): void => {
      state = "done";
      this.streams.delete(stream);
      stream.cancel();
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new EtcdUnavailable(`etcd at ${this.endpoints} did not create the watch within ${this.timeoutMs} ms`, true)),
        this.timeoutMs,
      );
      const fail = (error: StoreError | EtcdUnavailable): void => {
        if (state === "done") return;
        clearTimeout(timer);
        const wasLive = state === "live";
        finish();
        if (error instanceof StoreError && error.code === "Compacted") this.knownCompact = Math.max(this.knownCompact, compactOf(error));
        if (wasLive) onError(error);
        else reject(error);
      };
      stream.on("data", (res: IWatchResponse) => {
        if (state === "done") return;
        if (res.canceled) {
          const compact = Number(res.compact_revision);
          fail(
            compact > 0
              ? compactedError(afterRevision, compact)
              : new EtcdUnavailable(`etcd at ${this.endpoints} canceled the watch: ${res.cancel_reason}`, false),
          );
          return;
        }
        if (res.created && state === "creating") {
          state = "live";
          clearTimeout(timer);
          resolve(finish);
        }
        // No events and no creation: a progress notification (etcd sends them to a caught-up watch only).
        if (onProgress && state === "live" && !res.created && (res.events ?? []).length === 0) onProgress(revisionOf(res.header));
        for (const event of res.events ?? []) {
          const change = this.toChange(event.type, event.kv, event.prev_kv);
          try {
            listener(change);
          } catch {
            // A failing watcher must not break the others; its owner cleans up (as MemoryStore).
          }
        }
      });
      stream.on("error", (e: Error) => fail(unavailable(this.endpoints, e)));
      stream.on("end", () => fail(new EtcdUnavailable(`etcd at ${this.endpoints} ended the watch stream`, false)));
      stream.write({
        create_request: {
          key: Buffer.from(prefix || "\0"),
          range_end: prefixEnd(prefix),
          start_revision: afterRevision + 1,
          prev_kv: true,
          progress_notify: onProgress !== undefined,
        },
      });
    });
  }

  /** A new lease of ttlSeconds (its id as etcd gives it, a decimal string). */
  async grantLease(ttlSeconds: number): Promise<string> {
    const res = await this.call(() => this.client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }));
    return String(res.ID);
  }

  /**
   * One round of kube-apiserver's compactor protocol (pkg/storage/etcd3/compact.go): if `key`'s
   * version is still `expectVersion`, put `value` (its version goes up by one); else read it. The
   * answer carries etcd's revision after the Txn and, when another server won, the version it left.
   */
  async casVersion(key: string, expectVersion: number, value: string): Promise<{ succeeded: boolean; version: number; revision: number }> {
    const k = Buffer.from(key);
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [{ key: k, target: loadEtcd3().CompareTarget.Version, result: loadEtcd3().CompareResult.Equal, version: expectVersion }],
        success: [{ request_put: { key: k, value: Buffer.from(value) } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    const current = res.responses[0]?.response_range?.kvs[0];
    return { succeeded: res.succeeded, version: res.succeeded ? expectVersion + 1 : Number(current?.version ?? 0), revision: revisionOf(res.header) };
  }

  /** Drops history before rev (reads at rev still work), as MemoryStore.compact: never past the current revision, never backwards. */
  async compact(rev: number): Promise<void> {
    if (rev <= this.knownCompact) return;
    const target = Math.min(rev, await this.revision());
    if (target <= 0) return;
    try {
      await this.call(() => this.client.kv.compact({ revision: target }));
    } catch (e) {
      // Already compacted as far or further (by another client): MemoryStore's compact does nothing then.
      if (!(e instanceof Error && e.message.includes(COMPACTED))) throw e;
      return;
    }
    this.knownCompact = Math.max(this.knownCompact, target);
  }

  private toChange(type: string, kv: IKeyValue, prevKv: IKeyValue | null | undefined): ChangeEvent {
    const revision = Number(kv.mod_revision);
    const prev = prevKv ? this.toKeyValue(prevKv) : undefined;
    const at = this.now();
    const key = kv.key.toString("utf8");
    // etcd sends DELETE with a kv holding only the key and the delete's revision.
    if (String(type).toUpperCase() === "DELETE") return { type: "delete", key, revision, prevKv: prev, at };
    return { type: "put", key, revision, kv: this.toKeyValue(kv), prevKv: prev, at };
  }

  private putResult(key: string, value: string, revision: number, prev: IKeyValue | null | undefined): PutResult {
    const prevKv = prev ? this.toKeyValue(prev) : undefined;
    return { revision, kv: { key, value, createRevision: prevKv?.createRevision ?? revision, modRevision: revision }, prevKv };
  }

  private toKeyValue(kv: IKeyValue): KeyValue {
    const key = kv.key.toString("utf8");
    return { key, value: this.values.decode(key, kv.value), createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) };
  }

  private async readableAt(revision: number): Promise<boolean> {
    try {
      await this.call(() => this.client.kv.range({ key: PROBE_KEY, count_only: true, revision }));
      return true;
    } catch (e) {
      if (e instanceof Error && e.message.includes(COMPACTED)) return false;
      // Not compacted either (a watch may start from a revision still to come).
      if (e instanceof Error && e.message.includes(FUTURE)) return true;
      throw e;
    }
  }

  /** A write: etcd's size and quota refusals become MemoryStore's codes. */
  private async write<T>(key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.call(fn);
    } catch (e) {
      if (e instanceof Error && e.message.includes("request is too large")) throw new StoreError("RequestTooLarge", REQUEST_TOO_LARGE, key);
      if (e instanceof Error && e.message.includes("database space exceeded")) throw new StoreError("NoSpace", NO_SPACE, key);
      throw e;
    }
  }

  /** A call to etcd; transport failures and deadlines become EtcdUnavailable. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof Error) || e.message.includes("etcdserver:")) throw e;
      throw unavailable(this.endpoints, e);
    }
  }
}

function unavailable(endpoints: string, e: Error): EtcdUnavailable {
  const timedOut = /DEADLINE_EXCEEDED|Deadline exceeded/i.test(e.message);
  return new EtcdUnavailable(`etcd at ${endpoints} is unavailable: ${e.message}`, timedOut);
}

function compactedError(revision: number, compacted: number): StoreError {
  return new StoreError("Compacted", `required revision ${revision} has been compacted (${compacted})`);
}

/** The compact revision a Compacted error names (its message ends with it in parentheses). */
export function compactOf(error: StoreError): number {
  return Number(/\((\d+)\)$/.exec(error.message)?.[1] ?? 0);
}

function notFound(key: string): StoreError {
  return new StoreError("KeyNotFound", `key not found: ${key}`, key);
}

function expectationError(key: string, expect: number, current: IKeyValue | KeyValue | undefined): StoreError {
  if (expect === 0) return new StoreError("KeyExists", `key exists: ${key}`, key);
  const mod = current === undefined ? "none" : "modRevision" in current ? current.modRevision : Number(current.mod_revision);
  return new StoreError("Conflict", `modRevision of ${key} is ${mod}, expected ${expect}`, key);
}

function revisionOf(header: IResponseHeader): number {
  return Number(header.revision);
}

/** etcd's range end for "every key with this prefix": the prefix with its last byte below 0xff incremented. */
export function prefixEnd(prefix: string): Buffer {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    const b = bytes[i];
    if (b !== undefined && b < 0xff) {
      const end = Buffer.from(bytes.subarray(0, i + 1));
      end[i] = b + 1;
      return end;
    }
  }
  // Empty prefix, or all 0xff: every key from the start key on.
  return Buffer.from([0]);
}

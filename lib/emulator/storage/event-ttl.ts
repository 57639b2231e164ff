/**
 * Event time-to-live (wire-facts §7 "TTL"): the real server writes every event with an etcd lease
 * of `--event-ttl` (default one hour), attached anew at each write; when the lease runs out etcd
 * deletes the key, and watchers of either event group see DELETED with a new resourceVersion.
 *
 * Here the age runs on the emulator's clock (clock.ts) from the last write of the event, so the
 * admin clock advance can expire events at once. Writes are followed with a store watch on the
 * stored events prefix (core v1 writes land there too, through their storage view,
 * storage-views.ts), which gives each write's time on that same clock. server.ts creates and
 * starts it after the registry and stops it in close(). The check (sweep) runs:
 *  - when the clock is advanced: the admin endpoint calls it right after moving the clock;
 *  - on a real-time interval of at most a second, for TTLs that pass by themselves. The timer
 *    is unref'd (it never keeps the process alive), stop() ends it, and it holds the tracker
 *    only weakly, so an emulator dropped without stop() still lets it end.
 * An expiry is a delete conditional on the revision seen: a write that races it wins and starts
 * a new lifetime. A TTL of 0 means no expiry, as the storage attaches no lease for a zero TTL.
 * With several replicas on one etcd and leader election on, only the leader sweeps on its timer
 * (`active`); every replica keeps following the writes, so a new leader knows each event's age.
 * A clock advance sweeps on the replica whose clock moved, leader or not: the admin asked that
 * replica for the jump's effects (a suite that moves its target's clock must see them whichever
 * replica leads), and the deletes are conditional, so a second sweeper is harmless.
 */
import type { KeyValueStore } from "./kv.js";
import { type ChangeEvent, StoreError } from "./store.js";

/** kube-apiserver --event-ttl default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

/** The real-time check interval: a second, or less for TTLs shorter than a few seconds. */
const MAX_CHECK_INTERVAL_MS = 1000;
const MIN_CHECK_INTERVAL_MS = 50;

interface Written {
  /** Time of the last write, emulator clock (ms). */
  readonly at: number;
  readonly modRevision: number;
}

export class EventTtl {
  private readonly written = new Map<string, Written>();
  /** Earliest expiry among the tracked events (a lower bound after deletes): skips needless scans. */
  private nextExpiry = Infinity;
  private timer: NodeJS.Timeout | undefined;
  private cancelWatch: (() => void) | undefined;
  /** The sweep under way: sweeps run one after another, so one asked for after a clock advance sees that advance. */
  private sweeps: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly store: KeyValueStore,
    /** Stored events prefix, with its trailing slash. */
    private readonly prefix: string,
    private readonly now: () => number,
    private ttlMs: number = DEFAULT_EVENT_TTL_MS,
    /** Whether this replica sweeps now (the leader, with leader election; else always). */
    private readonly active: () => boolean = () => true,
  ) {}

  get ttl(): number {
    return this.ttlMs;
  }

  /** Starts following writes and real time. */
  async start(): Promise<void> {
    if (this.cancelWatch || this.stopped) return;
    // Entries already there (none on a fresh store) count from now.
    const startedAt = this.now();
    const listed = await this.store.range(this.prefix);
    if (this.cancelWatch || this.stopped) return;
    for (const kv of listed.kvs) this.track(kv.key, { at: startedAt, modRevision: kv.modRevision });
    // From the listed revision: the writes made while the list was awaited come through the watch.
    this.cancelWatch = this.store.watch(this.prefix, listed.revision, (change) => this.observe(change));
    this.schedule();
  }

  /** Changes the TTL; events already written get the new one, counted from their last write. */
  setTtl(ms: number): void {
    this.ttlMs = ms;
    this.nextExpiry = this.earliestExpiry();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.cancelWatch?.();
  }

  /**
   * Deletes every event whose TTL has run out; returns how many were deleted. The deletes await
   * the store one after another; each is conditional on the revision seen, so a write that lands
   * meanwhile keeps its event.
   */
  sweep(options: { evenIfNotLeader?: boolean } = {}): Promise<number> {
    const run = this.sweeps.then(() => this.sweepOnce(options.evenIfNotLeader === true));
    this.sweeps = run.catch(() => 0);
    return run;
  }

  private async sweepOnce(evenIfNotLeader: boolean): Promise<number> {
    if (this.stopped || this.ttlMs <= 0 || !(evenIfNotLeader || this.active())) return 0;
    const now = this.now();
    if (now < this.nextExpiry) return 0;
    let deleted = 0;
    const expired = [...this.written].filter(([, w]) => w.at + this.ttlMs <= now);
    for (const [key, w] of expired) {
      try {
        await this.store.delete(key, { expectModRevision: w.modRevision });
        deleted++;
      } catch (e) {
        // Rewritten or deleted meanwhile: the watch has the newer state.
        if (!(e instanceof StoreError)) throw e;
      }
    }
    this.nextExpiry = this.earliestExpiry();
    return deleted;
  }

  private earliestExpiry(): number {
    let earliest = Infinity;
    for (const w of this.written.values()) earliest = Math.min(earliest, w.at + this.ttlMs);
    return earliest;
  }

  private observe(change: ChangeEvent): void {
    if (change.type === "put" && change.kv) this.track(change.key, { at: change.at, modRevision: change.kv.modRevision });
    else this.written.delete(change.key);
  }

  private track(key: string, w: Written): void {
    this.written.set(key, w);
    this.nextExpiry = Math.min(this.nextExpiry, w.at + this.ttlMs);
  }

  private schedule(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.stopped || this.ttlMs <= 0) return;
    const interval = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(this.ttlMs / 4)));
    const ref = new WeakRef(this);
    const timer = setInterval(() => {
      const ttl = ref.deref();
      // A failed sweep is tried again at the next tick.
      if (ttl) ttl.sweep().catch(() => {});
      else clearInterval(timer);
    }, interval);
    timer.unref();
    this.timer = timer;
  }
}

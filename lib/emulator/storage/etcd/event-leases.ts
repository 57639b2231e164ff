/**
 * Event leases (wire-facts §21 "event TTL"): a real server writes every event with an etcd lease
 * of `--event-ttl`, so etcd deletes it when the lease runs out, whichever server wrote it and
 * even while no server runs. Leases are shared: one is granted with a little extra time
 * (5 % of the TTL, at most 60 s) and reused by later writes while it still outlives their TTL
 * by no more than that extra, for up to 1,000 objects; then a new one is granted. So an event
 * lives between the TTL and the TTL plus the extra after its last write.
 *
 * Written here rather than taken from a library: this reuse rule is the API server's own, and
 * the etcd client only grants leases. The emulator's own sweep (storage/event-ttl.ts) stays:
 * it expires events when the emulator's clock is moved, which etcd's leases cannot see.
 */

/** Reuse at most this share of the TTL as extra time… */
const REUSE_PERCENT = 0.05;
/** …and never more than this. */
const MAX_REUSE_SECONDS = 60;
/** Objects attached to one lease before a new one is granted. */
const MAX_ATTACHED = 1000;

export type GrantLease = (ttlSeconds: number) => Promise<string>;

export class EventLeases {
  private lease: { id: string; expiresAt: number; attached: number } | undefined;
  private granting: Promise<string> | undefined;

  constructor(
    private readonly ttlSeconds: number,
    private readonly grant: GrantLease,
    private readonly now: () => number = Date.now,
  ) {}

  /** The lease the next event write carries (its id, as etcd gave it). */
  async forWrite(): Promise<string> {
    // One grant at a time: writes that arrive meanwhile share the new lease.
    while (this.granting) await this.granting.catch(() => undefined);
    const now = this.now();
    const extra = Math.min(Math.floor(REUSE_PERCENT * this.ttlSeconds), MAX_REUSE_SECONDS);
    const l = this.lease;
    // ">=" where the API server has ">": its clock has nanoseconds, this one milliseconds, so a
    // write in the same millisecond as the grant must still count as "the lease is enough".
    if (l && l.attached < MAX_ATTACHED && now + this.ttlSeconds * 1000 < l.expiresAt && now + (this.ttlSeconds + extra) * 1000 >= l.expiresAt) {
      l.attached++;
      return l.id;
    }
    const ttl = this.ttlSeconds + extra;
    this.granting = this.grant(ttl);
    try {
      const id = await this.granting;
      this.lease = { id, expiresAt: now + ttl * 1000, attached: 1 };
      return id;
    } finally {
      this.granting = undefined;
    }
  }
}

/**
 * Live watch fan-out by group. Streams of the same type, collection, format and no selectors
 * see exactly the same bytes for every change, so they share one store listener: each change
 * is matched and framed once for the group, and each member only queues the shared Buffer.
 * With a thousand watchers the store then calls one listener per change instead of a thousand,
 * each building a cache key and looking the line up (a quarter of the server's CPU at 200
 * writes/s before grouping).
 *
 * A stream with selectors gets a group of its own (selectors are not compared for equality).
 * Table streams share a group but frame their first event (which carries the column
 * definitions) themselves.
 *
 * A group only delivers changes made after it registered; a stream joins after it has replayed
 * or listed what came before, in the same synchronous step, so nothing falls between the two.
 *
 * Off the write's path: the store calls a group inside the write that made the change, so the
 * group only notes the change there and hands it to its members on the next check phase
 * (setImmediate), all changes noted meanwhile in one pass. With a thousand members that loop
 * cost about as much CPU as the write itself, and the write's response waited for it. A stream
 * joining meanwhile has replayed those changes already: it skips what is at or before the
 * store's revision when it joins. Who sends a stream something of its own that claims a
 * revision (a BOOKMARK) drains the groups first (drainWatchGroups), so order holds.
 */
import type { EmulatorClock } from "../../apimachinery/clock.js";
import type { ResourceStrategy } from "../../registry/generic/strategy.js";
import type { ObjectStorage } from "../../storage/object-storage.js";
import type { ChangeEvent } from "../../storage/store.js";
import type { ObjectFilter } from "../list-options.js";
import { viewOf } from "./watch-change.js";
import type { WatchFormat } from "./watch-format.js";

export interface WatchMember {
  /** Changes at or before this revision are not the stream's (a watch from a future version). */
  readonly after: number;
  /** For Table streams: whether the next event carries column definitions (and clears it). */
  readonly takeHeaders?: () => boolean;
  send(line: Buffer): void;
  /** The stream cannot encode a change: it ends (the client watches again). */
  fail(): void;
}

const noHeaders = (): boolean => false;

/** A member and the revision it has seen everything up to when it joined. */
interface Joined {
  readonly member: WatchMember;
  readonly after: number;
}

/** Groups with changes not handed to their members yet. */
let pendingGroups: WatchGroup[] = [];
let drainScheduled = false;

/** Hands every group's noted changes to its members now (also run on the check phase after a change). */
export function drainWatchGroups(): void {
  drainScheduled = false;
  const groups = pendingGroups;
  pendingGroups = [];
  for (const g of groups) g.drain();
}

class WatchGroup {
  readonly members = new Set<Joined>();
  private readonly cancel: () => void;
  /** Changes noted since the last drain, in store order. */
  private pending: Array<ReturnType<typeof viewOf>> = [];

  constructor(
    private readonly storage: ObjectStorage,
    strategy: ResourceStrategy,
    collection: string | undefined,
    private readonly filter: ObjectFilter,
    private readonly format: WatchFormat,
    private readonly clock: EmulatorClock,
  ) {
    this.cancel = storage.watch(strategy, collection, storage.store.revision, (change) => this.deliver(change));
  }

  private deliver(change: ChangeEvent): void {
    const view = viewOf(this.storage, change);
    if (view.type(this.filter) === undefined) return;
    if (this.pending.length === 0) {
      pendingGroups.push(this);
      if (!drainScheduled) {
        drainScheduled = true;
        setImmediate(drainWatchGroups);
      }
    }
    this.pending.push(view);
  }

  drain(): void {
    const views = this.pending;
    if (views.length === 0) return;
    this.pending = [];
    const now = this.clock.now();
    // The line each change has for streams without Table headers: the same Buffer for all.
    const shared: Array<Buffer | undefined> = [];
    for (const { member: m, after } of this.members) {
      try {
        for (let i = 0; i < views.length; i++) {
          const view = views[i] as (typeof views)[number];
          if (view.change.revision <= after) continue;
          const line = m.takeHeaders
            ? view.line(this.filter, this.format, m.takeHeaders, now)
            : (shared[i] ??= view.line(this.filter, this.format, noHeaders, now));
          if (line !== undefined) m.send(line);
        }
      } catch {
        // A change this stream cannot encode ends it; the other members go on.
        m.fail();
      }
    }
  }

  stop(): void {
    this.cancel();
    this.pending = [];
  }
}

/** Groups by storage and strategy (object identity), then by collection and format. */
const registry = new WeakMap<ObjectStorage, WeakMap<ResourceStrategy, Map<string, WatchGroup>>>();

/** Process-wide count of live groups, for tests and the benchmark. */
export const watchGroupStats = { groups: 0 };

/**
 * Adds a stream to the live fan-out of its collection; returns the function that removes it
 * (the last member leaving unregisters the group from the store).
 */
export function joinWatchGroup(
  storage: ObjectStorage,
  strategy: ResourceStrategy,
  collection: string | undefined,
  filter: ObjectFilter,
  format: WatchFormat,
  clock: EmulatorClock,
  member: WatchMember,
): () => void {
  let byStrategy = registry.get(storage);
  if (!byStrategy) registry.set(storage, (byStrategy = new WeakMap()));
  let groups = byStrategy.get(strategy);
  if (!groups) byStrategy.set(strategy, (groups = new Map()));
  // A namespace name cannot contain "\n"; all-namespaces watches have no collection.
  const key = filter.empty ? `${collection ?? ""}\n${format.key}` : undefined;
  let group = key === undefined ? undefined : groups.get(key);
  if (!group) {
    group = new WatchGroup(storage, strategy, collection, filter, format, clock);
    if (key !== undefined) groups.set(key, group);
    watchGroupStats.groups++;
  }
  const joined = group;
  // Changes still pending in the group up to the store's revision were in the stream's replay.
  const entry: Joined = { member, after: Math.max(member.after, storage.store.revision) };
  joined.members.add(entry);
  return () => {
    if (!joined.members.delete(entry) || joined.members.size > 0) return;
    joined.stop();
    watchGroupStats.groups--;
    if (key !== undefined && groups.get(key) === joined) groups.delete(key);
  };
}

/**
 * A record of what a suite did and what its watchers saw, for offline checking in the
 * style of etcd's robustness tests. Writes are recorded in the order the suite issued them
 * (one at a time); each watcher remembers how many writes had been made when its start
 * version was taken, so the writes it must report are known exactly, even for deletes,
 * whose responses carry no version.
 */
import type { WatchEventType } from "./objects.js";

export type WriteOp = "create" | "update" | "delete";

export interface WriteRecord {
  seq: number;
  op: WriteOp;
  /** namespace/name */
  key: string;
  /** The version the response carried; undefined for deletes that answer with a Status. */
  rv?: string;
  /** An update that changed nothing (same version as before): no watch event is due. */
  noop?: boolean;
}

export interface SeenEvent {
  type: WatchEventType;
  key: string;
  rv: string;
}

export interface WatcherRecord {
  id: number;
  /** The resourceVersion the watch was started from. */
  startRv: string;
  /** Number of writes made before startRv was taken: writes[startSeq..] are due. */
  startSeq: number;
  events: SeenEvent[];
}

export class History {
  readonly writes: WriteRecord[] = [];
  readonly watchers: WatcherRecord[] = [];
  private readonly lastRv = new Map<string, string>();

  recordWrite(op: WriteOp, key: string, rv?: string): WriteRecord {
    const noop = op === "update" && rv !== undefined && this.lastRv.get(key) === rv;
    const w: WriteRecord = { seq: this.writes.length, op, key, ...(rv !== undefined ? { rv } : {}), ...(noop ? { noop } : {}) };
    if (rv !== undefined) this.lastRv.set(key, rv);
    if (op === "delete") this.lastRv.delete(key);
    this.writes.push(w);
    return w;
  }

  /** Call right after taking startRv (from a list or a write response), before any further write. */
  startWatcher(startRv: string): WatcherRecord {
    const w: WatcherRecord = { id: this.watchers.length, startRv, startSeq: this.writes.length, events: [] };
    this.watchers.push(w);
    return w;
  }

  /** How many watch events each watcher is still owed, to know when to stop reading. */
  due(w: WatcherRecord): number {
    return this.writes.slice(w.startSeq).filter((x) => !x.noop).length;
  }
}

export function keyOf(o: { metadata: { namespace?: string; name?: string } }): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`;
}

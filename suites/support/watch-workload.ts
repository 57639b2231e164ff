/**
 * The steps the history properties share (watch-history, replicas): applying one generated write
 * to a key whatever its state, recording it for the history checker, and reading from each open
 * watch the events it owes.
 */
import type { ApiClient } from "../../lib/harness/client.js";
import { type History, keyOf, type SeenEvent, type WatcherRecord, type WriteOp } from "../../lib/harness/history.js";
import type { KubeObject, WatchEvent } from "../../lib/harness/objects.js";
import type { ResourceType } from "../../lib/harness/resources.js";
import type { WatchStream } from "../../lib/harness/watch.js";

/** Every write changes something: create where the key is free, update or delete where it is taken. */
export function effectiveOp(wished: WriteOp, exists: boolean): WriteOp {
  if (!exists) return "create";
  return wished === "create" ? "update" : wished;
}

/** Objects written so far, by name (one namespace), and the history the writes go into when watched. */
export interface Written {
  readonly live: Map<string, KubeObject>;
  readonly history?: History;
}

/**
 * The wished write made effective and sent through `client`: a create of `fresh()`, an update of
 * the current object with `data`, or a delete. Returns the operation and, but for a delete, the
 * server's answer.
 */
export async function applyWrite(
  client: ApiClient,
  t: ResourceType,
  ns: string,
  name: string,
  wished: WriteOp,
  body: { fresh: () => KubeObject; data: Record<string, string> },
  written: Written,
): Promise<{ op: WriteOp; object?: KubeObject }> {
  const cur = written.live.get(name);
  const op = effectiveOp(wished, cur !== undefined);
  if (op === "delete") {
    await client.delete(t, ns, name);
    written.history?.recordWrite("delete", `${ns}/${name}`);
    written.live.delete(name);
    return { op };
  }
  const o = op === "create" || !cur ? await client.create(t, ns, body.fresh()) : await client.update(t, ns, { ...cur, data: body.data });
  written.history?.recordWrite(op, keyOf(o), o.metadata.resourceVersion);
  written.live.set(name, o);
  return { op, object: o };
}

/**
 * Reads from every open watch, at once, the events the history says it owes; a watch quiet for
 * `idleMs` is done (the checker reports what is missing), a broken stream fails. Anything already
 * queued beyond what is owed is kept too: it is a spurious event the checker reports.
 */
export async function readOwedEvents(history: History, open: readonly { rec: WatcherRecord; stream: WatchStream }[], idleMs: number): Promise<void> {
  await Promise.all(
    open.map(async ({ rec, stream }) => {
      const owed = history.due(rec);
      const seen = (ev: WatchEvent<KubeObject>): SeenEvent => ({ type: ev.type, key: keyOf(ev.object), rv: ev.object.metadata.resourceVersion ?? "" });
      while (rec.events.filter((e) => e.type !== "BOOKMARK").length < owed) {
        const ev = await stream.nextOrIdle(idleMs);
        if (!ev) break;
        rec.events.push(seen(ev));
      }
      for (const ev of stream.drain()) rec.events.push(seen(ev));
    }),
  );
}

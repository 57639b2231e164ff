/**
 * The offline oracle for recorded histories (lib/harness/history.ts). For each watcher:
 * every write after its start is reported exactly once, in write order, with the write's
 * version (a delete: a version newer than the key's previous write and older than the
 * next write's); versions strictly increase; nothing else is reported. Across watchers:
 * one version means one change everywhere, so watchers started at different points agree
 * on order. Returns the problems found, empty when the history is sound.
 */
import type { History, SeenEvent, WriteRecord } from "../../lib/harness/history.js";
import { compareResourceVersions, isDecimalResourceVersion } from "../../lib/wire/resource-version.js";

const EXPECTED_TYPE = { create: "ADDED", update: "MODIFIED", delete: "DELETED" } as const;

const fmt = (e: SeenEvent): string => `${e.type} ${e.key}@${e.rv}`;
const fmtW = (w: WriteRecord): string => `${w.op} ${w.key}${w.rv ? `@${w.rv}` : ""} (write ${w.seq})`;

function newer(a: string, b: string): boolean {
  return isDecimalResourceVersion(a) && isDecimalResourceVersion(b) && compareResourceVersions(a, b) > 0;
}

export function checkHistory(h: History): string[] {
  const problems: string[] = [];
  for (const w of h.watchers) {
    const label = `watcher ${w.id} (from ${w.startRv}, after write ${w.startSeq})`;
    const due = h.writes.slice(w.startSeq).filter((x) => !x.noop);
    const seen = w.events.filter((e) => e.type !== "BOOKMARK");
    for (const e of seen) if (e.type === "ERROR") problems.push(`${label}: ERROR event at ${e.rv}`);
    for (let i = 1; i < seen.length; i++) {
      const prev = seen[i - 1] as SeenEvent;
      const cur = seen[i] as SeenEvent;
      if (!newer(cur.rv, prev.rv)) problems.push(`${label}: event ${i} ${fmt(cur)} is not newer than event ${i - 1} ${fmt(prev)}`);
    }
    for (const e of seen) if (!newer(e.rv, w.startRv)) problems.push(`${label}: ${fmt(e)} is not newer than the start version`);

    const n = Math.min(due.length, seen.length);
    for (let i = 0; i < n; i++) {
      const write = due[i] as WriteRecord;
      const ev = seen[i] as SeenEvent;
      if (ev.key !== write.key || ev.type !== EXPECTED_TYPE[write.op]) {
        problems.push(`${label}: event ${i} is ${fmt(ev)}, expected ${EXPECTED_TYPE[write.op]} for ${fmtW(write)}`);
        break; // after a mismatch every later pairing is noise
      }
      if (write.rv !== undefined && ev.rv !== write.rv) {
        problems.push(`${label}: event ${i} ${fmt(ev)} carries another version than ${fmtW(write)}`);
      }
      if (write.rv === undefined) {
        const before = h.writes
          .slice(0, write.seq)
          .reverse()
          .find((x) => x.rv !== undefined && x.key === write.key);
        if (before?.rv && !newer(ev.rv, before.rv)) problems.push(`${label}: ${fmt(ev)} does not carry a version newer than ${fmtW(before)}`);
        const after = h.writes.slice(write.seq + 1).find((x) => x.rv !== undefined);
        if (after?.rv && !newer(after.rv, ev.rv)) problems.push(`${label}: ${fmt(ev)} is not older than the next write ${fmtW(after)}`);
      }
    }
    if (seen.length < due.length) {
      const missing = due.slice(seen.length).map(fmtW);
      problems.push(`${label}: ${missing.length} write(s) never reported: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}`);
    } else if (seen.length > due.length) {
      problems.push(`${label}: ${seen.length - due.length} event(s) beyond the recorded writes: ${seen.slice(due.length).slice(0, 5).map(fmt).join(", ")}`);
    }
  }

  const byRv = new Map<string, { watcher: number; ev: SeenEvent }>();
  for (const w of h.watchers) {
    for (const ev of w.events) {
      if (ev.type === "BOOKMARK" || ev.type === "ERROR") continue;
      const other = byRv.get(ev.rv);
      if (!other) byRv.set(ev.rv, { watcher: w.id, ev });
      else if (other.ev.key !== ev.key || other.ev.type !== ev.type) {
        problems.push(`watchers ${other.watcher} and ${w.id} disagree on version ${ev.rv}: ${fmt(other.ev)} vs ${fmt(ev)}`);
      }
    }
  }
  return problems;
}

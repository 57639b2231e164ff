/**
 * Order checks for resourceVersions seen across several resource types. doc1 orders versions
 * only within one type (group and resource, any namespace); versions of different types cannot
 * be compared, so a server may keep a counter per type. Problems are reported per type only.
 */
import { compareResourceVersions, isDecimalResourceVersion } from "../../lib/wire/resource-version.js";

export interface VersionedWrite {
  /** The resource type, e.g. `configmaps` or `events.events.k8s.io`. */
  type: string;
  rv: string;
  /** What the write was, for the message. */
  what: string;
}

/** Writes in the order they were made; returns each write whose version is not newer than the previous write of its type. */
export function versionOrderProblems(writes: readonly VersionedWrite[]): string[] {
  const last = new Map<string, VersionedWrite>();
  const problems: string[] = [];
  for (const w of writes) {
    if (!isDecimalResourceVersion(w.rv)) {
      problems.push(`${w.what}: resourceVersion ${JSON.stringify(w.rv)} is not a decimal, so it has no order`);
      continue;
    }
    const prev = last.get(w.type);
    if (prev && compareResourceVersions(w.rv, prev.rv) <= 0) problems.push(`${w.what} (${w.type}) got ${w.rv}, not newer than ${prev.what} (${prev.rv})`);
    last.set(w.type, w);
  }
  return problems;
}

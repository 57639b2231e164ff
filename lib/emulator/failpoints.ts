/**
 * The emulator's failpoints (as etcd's gofail): named ways to make the emulator wrong on
 * purpose, off unless a start names them (`tollgate emulator --fault`, `tollgate run --fault`,
 * both through the fault catalog of lib/faults/). They exist so that tollgate's self-test can
 * show each suite failing against a server with a real server's bugs. Each entry says what
 * the emulator does while it is on; the code that checks it says why there.
 */
export const FAILPOINTS = {
  "compacted-list-served":
    "answers a list at a compacted revision (Exact, a paged first page, or a continue token) from the latest state instead of 410 Expired",
  "conflict-as-500": "answers a write that loses an optimistic-concurrency race (409 Conflict) with 500 InternalError instead",
  "continue-reads-latest": "reads each page after the first at the latest revision instead of the first page's",
  "continue-skips-item": "leaves out, on each page after the first, the first item after the previous page",
  "dry-run-persists": "ignores dryRun on writes: the object is stored (or deleted) as if no dry run was asked",
  "future-rv-served": "serves a get or list at a resourceVersion the store has not reached from the current state instead of 504",
  "get-serves-previous-version": "answers a get without resourceVersion with the object's previous version, when it has one",
  "list-echoes-requested-rv": "answers a list at a given resourceVersion (no continue) from the latest state, labelled with the requested version",
  "list-ignores-resource-version": "lists ignore resourceVersion and resourceVersionMatch (once validated): every list is the latest state",
  "remaining-count-with-selectors": "sets remainingItemCount on pages of a selector list, counting every object left, matching or not",
  "update-keeps-resource-version": "answers an update with the resourceVersion the client sent instead of the new one (what is stored is right)",
  "watch-at-compact-revision-expired": "refuses a watch from exactly the compaction revision with 410, though only older ones are gone",
} as const satisfies Record<string, string>;

export type FailpointName = keyof typeof FAILPOINTS;

export const FAILPOINT_NAMES = Object.keys(FAILPOINTS) as FailpointName[];

export function isFailpointName(name: string): name is FailpointName {
  return Object.hasOwn(FAILPOINTS, name);
}

/** The failpoints of one emulator; none by default. */
export type Failpoints = ReadonlySet<FailpointName>;
export const NO_FAILPOINTS: Failpoints = new Set();

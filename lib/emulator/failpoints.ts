/**
 * The emulator's failpoints (as etcd's gofail): named ways to make the emulator wrong on
 * purpose, off unless a start names them (`tollgate emulator --fault`, `tollgate run --fault`,
 * both through the fault catalog of lib/faults/). They exist so that tollgate's self-test can
 * show each suite failing against a server with a real server's bugs. Each entry says what
 * the emulator does while it is on; the code that checks it says why there.
 */
export const FAILPOINTS = {
  "conflict-as-500": "answers a write that loses an optimistic-concurrency race (409 Conflict) with 500 InternalError instead",
  "delete-returns-object": "answers a DELETE that removes the object with the deleted object instead of a Success Status, for every type",
  "dry-run-persists": "ignores dryRun on writes: the object is stored (or deleted) as if no dry run was asked",
  "event-ttl-ignored": "keeps Events forever: the event TTL never deletes one, however far the clock moves",
  "generation-on-create": "gives every created object metadata.generation 1, whatever its type's strategy says",
  "update-never-creates": "answers a PUT to a missing name with 404 NotFound, even for types that create on update (Events)",
  "update-requires-resource-version": "refuses a PUT without metadata.resourceVersion with 422, even for types that allow unconditional updates (Events)",
  "update-returns-old-object": "answers a successful PUT with the object as it was before the update",
} as const satisfies Record<string, string>;

export type FailpointName = keyof typeof FAILPOINTS;

export const FAILPOINT_NAMES = Object.keys(FAILPOINTS) as FailpointName[];

export function isFailpointName(name: string): name is FailpointName {
  return Object.hasOwn(FAILPOINTS, name);
}

/** The failpoints of one emulator; none by default. */
export type Failpoints = ReadonlySet<FailpointName>;
export const NO_FAILPOINTS: Failpoints = new Set();

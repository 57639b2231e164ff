/**
 * The emulator's failpoints (as etcd's gofail): named ways to make the emulator wrong on
 * purpose, off unless a start names them (`tollgate emulator --fault`, `tollgate run --fault`,
 * both through the fault catalog of lib/faults/). They exist so that tollgate's self-test can
 * show each suite failing against a server with a real server's bugs. Each entry says what
 * the emulator does while it is on; the code that checks it says why there.
 */
export const FAILPOINTS = {
  "conflict-as-500": "answers a write that loses an optimistic-concurrency race (409 Conflict) with 500 InternalError instead",
  "dry-run-persists": "ignores dryRun on writes: the object is stored (or deleted) as if no dry run was asked",
  "protobuf-watch-unframed": "writes protobuf watch events without their 4-byte length prefix, bare WatchEvent messages one after another",
  "table-content-type-with-params": "labels a Table answer with the Accept's parameters (application/json;as=Table;g=…;v=…) instead of plain application/json",
  "watch-future-rv-starts-now": "starts a watch from a resourceVersion the store has not reached yet at the current revision, instead of waiting for it",
  "watch-not-chunked": "writes watch streams without Transfer-Encoding: chunked, close-delimited as HTTP/1.0 would",
  "watch-rv-0-no-initial-events": "starts a watch with resourceVersion=0 at the current revision, without the synthetic ADDED events of the current state",
  "watch-unset-rv-no-initial-events": "starts a watch without resourceVersion at the current revision, without the synthetic ADDED events of the current state",
  "yaml-labelled-json": "labels YAML answers Content-Type application/json",
} as const satisfies Record<string, string>;

export type FailpointName = keyof typeof FAILPOINTS;

export const FAILPOINT_NAMES = Object.keys(FAILPOINTS) as FailpointName[];

export function isFailpointName(name: string): name is FailpointName {
  return Object.hasOwn(FAILPOINTS, name);
}

/** The failpoints of one emulator; none by default. */
export type Failpoints = ReadonlySet<FailpointName>;
export const NO_FAILPOINTS: Failpoints = new Set();

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
  "event-deprecated-fields-allowed": "accepts the deprecated Event fields (count, firstTimestamp, lastTimestamp, source) on an events.k8s.io create",
  "event-eventtime-optional": "accepts an events.k8s.io Event without eventTime (the strict create rule C4 is not run)",
  "event-immutable-skips-deprecated": "lets an events.k8s.io update change the deprecated fields (source, firstTimestamp, lastTimestamp, count)",
  "event-immutable-skips-references": "lets an events.k8s.io update change regarding and related (object references not compared)",
  "event-immutable-skips-reporter": "lets an events.k8s.io update change eventTime, reportingController and reportingInstance",
  "event-immutable-skips-texts": "lets an events.k8s.io update change reason, note, action and type",
  "event-length-errors-show-value": 'prints the real bad value in Event length and type errors instead of ""',
  "event-length-limit-exclusive": "refuses Event strings of exactly their limit (action, reason, reportingInstance 128 bytes; note 1024)",
  "event-limits-count-characters": "counts the Event length limits in characters (UTF-16 units), not bytes",
  "event-microtime-any-precision":
    "takes an Event eventTime with any RFC 3339 precision (none, milliseconds, nanoseconds) where a MicroTime needs exactly six fractional digits",
  "event-name-path-segment": "checks an events.k8s.io Event name only as a path segment (core v1's rule), not as a DNS subdomain",
  "event-regarding-namespace-unchecked": "never compares regarding.namespace with the Event's namespace (rules L1-L3 not run)",
  "event-reporting-controller-any-form": "accepts any non-empty reportingController, not only a qualified name",
  "event-series-count-min-1": "accepts a series with count 1 (the lower bound checked as 1, not 2)",
  "event-series-immutable": "refuses an update that changes series, as if series were immutable like the other Event fields",
  "event-series-last-observed-optional": "accepts a series without lastObservedTime",
  "event-series-step-by-one": "refuses an Event update whose series.count is not the stored count plus one (a cadence the server imposes)",
  "event-strings-optional": "accepts empty action, reason, reportingController and reportingInstance on an Event with eventTime",
  "event-type-any": "accepts any non-empty Event type, not only Normal and Warning",
  "event-type-empty-allowed": "accepts an Event with an empty type (checks the type only when set)",
  "event-update-skips-legacy-rules": "runs no legacy rules (L1-L10) on Event updates, only the immutable-field and ObjectMeta checks",
  "event-write-drops-deprecated": "drops the deprecated fields (source, firstTimestamp, lastTimestamp, count) of an Event written through events.k8s.io",
} as const satisfies Record<string, string>;

export type FailpointName = keyof typeof FAILPOINTS;

export const FAILPOINT_NAMES = Object.keys(FAILPOINTS) as FailpointName[];

export function isFailpointName(name: string): name is FailpointName {
  return Object.hasOwn(FAILPOINTS, name);
}

/** The failpoints of one emulator; none by default. */
export type Failpoints = ReadonlySet<FailpointName>;
export const NO_FAILPOINTS: Failpoints = new Set();

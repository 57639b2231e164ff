/**
 * The emulator's failpoints (as etcd's gofail): named ways to make the emulator wrong on
 * purpose, off unless a start names them (`tollgate emulator --fault`, `tollgate run --fault`,
 * both through the fault catalog of lib/faults/). They exist so that tollgate's self-test can
 * show each suite failing against a server with a real server's bugs. Each entry says what
 * the emulator does while it is on; the code that checks it says why there.
 */
export const FAILPOINTS = {
  "apply-as-merge-patch": "takes a server-side apply as a JSON merge patch: no field ownership recorded, no conflicts, fields left out are kept",
  "apply-cannot-create": "answers an apply to a missing object with 404, as the other patch types, instead of creating it",
  "apply-json-body-refused": "refuses an apply body written as JSON (400), reading only YAML block documents",
  "apply-noop-writes": "writes an apply that changes nothing (a new resourceVersion) instead of leaving the object as it is",
  "apply-yaml-body-refused": "reads an apply body as JSON only: a YAML document is 400",
  "compacted-list-served":
    "answers a list at a compacted revision (Exact, a paged first page, or a continue token) from the latest state instead of 410 Expired",
  "consistent-reads-lag":
    "answers lists without a resourceVersion at the revision its store had 5 s earlier, as a cache that does not wait to catch up with storage",
  "conflict-as-500": "answers a write that loses an optimistic-concurrency race (409 Conflict) with 500 InternalError instead",
  "continue-reads-latest": "reads each page after the first at the latest revision instead of the first page's",
  "continue-skips-item": "leaves out, on each page after the first, the first item after the previous page",
  "crd-no-pruning": "keeps the fields a custom resource's schema does not declare (no pruning), and reports none of them",
  "crd-types-unchecked": "stores custom resources whose fields have the wrong type for the schema (no type validation)",
  "create-keeps-client-uid": "keeps a uid the create body carries instead of generating one, so two objects can share a uid",
  "create-namespace-from-url": "stores a created object in the URL's namespace whatever namespace its body names, instead of refusing the mismatch",
  "creation-timestamp-from-body": "keeps a creationTimestamp the create body carries instead of the server's time",
  "delete-ignores-finalizers": "removes an object on delete at once, whatever finalizers it has",
  "delete-ignores-preconditions": "ignores the preconditions (uid, resourceVersion) of a DELETE of one object and deletes it anyway",
  "delete-returns-object": "answers a DELETE that removes the object with the deleted object instead of a Success Status, for every type",
  "deletecollection-deletes-one": "a collection delete removes only the first matching object (and still answers with all of them)",
  "deleted-name-stays-taken": "remembers deleted names: creating an object with the name of a deleted one is refused with 409 AlreadyExists",
  "dry-run-persists": "ignores dryRun on writes: the object is stored (or deleted) as if no dry run was asked",
  "dry-run-skips-admission": "skips built-in admission (namespace lifecycle) on a dry-run create",
  "dry-run-skips-validation": "skips validation on dry-run creates and updates",
  "duplicate-create-overwrites": "a create with a taken name replaces the stored object instead of answering 409 AlreadyExists",
  "duplicate-fields-unflagged": "decodes request bodies last-key-wins without reporting duplicate fields (no Warning, no Strict 400)",
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
  "event-ttl-ignored": "keeps Events forever: the event TTL never deletes one, however far the clock moves",
  "event-type-any": "accepts any non-empty Event type, not only Normal and Warning",
  "event-type-empty-allowed": "accepts an Event with an empty type (checks the type only when set)",
  "event-update-skips-legacy-rules": "runs no legacy rules (L1-L10) on Event updates, only the immutable-field and ObjectMeta checks",
  "event-write-drops-deprecated": "drops the deprecated fields (source, firstTimestamp, lastTimestamp, count) of an Event written through events.k8s.io",
  "field-warnings-joined": "writes the field validation warnings of a request as one Warning item instead of one per field",
  "finalizers-removed-last-first": "refuses an update that removes a finalizer other than the last-listed ones, as if finalizers were a stack",
  "force-option-presence-counts": "reads ignoreStoreReadErrorWithClusterBreakingPotential: false as true (the option's presence counts, not its value)",
  "future-rv-served": "serves a get or list at a resourceVersion the store has not reached from the current state instead of 504",
  "generate-name-fixed-suffix": "builds generateName names with one fixed suffix, so a second object from the same prefix collides",
  "generation-on-create": "gives every created object metadata.generation 1, whatever its type's strategy says",
  "get-serves-previous-version": "answers a get without resourceVersion with the object's previous version, when it has one",
  "json-patch-ignores-test": "skips the test operations of a json-patch, so a failing test changes nothing about the outcome",
  "json-patch-move-keeps-source": "applies a json-patch move as a copy: the source member stays",
  "last-finalizer-keeps-object": "keeps a terminating object stored after its last finalizer is removed",
  "list-echoes-requested-rv": "answers a list at a given resourceVersion (no continue) from the latest state, labelled with the requested version",
  "list-ignores-resource-version": "lists ignore resourceVersion and resourceVersionMatch (once validated): every list is the latest state",
  "merge-patch-cbor-served": "serves application/merge-patch+cbor, taking it as a merge patch, instead of 415",
  "merge-patch-ignores-null": "skips the null members of a merge patch instead of deleting those keys",
  "namespace-controller-stopped": "the namespace controller never runs: a Terminating namespace keeps its content and is never removed",
  "namespace-delete-orphans-content": "the namespace controller removes a Terminating namespace without deleting the objects inside it",
  "protobuf-watch-unframed": "writes protobuf watch events without their 4-byte length prefix, bare WatchEvent messages one after another",
  "rbac-ignores-verbs": "RBAC: a rule grants every verb on its groups and resources, whatever verbs it lists",
  "remaining-count-with-selectors": "sets remainingItemCount on pages of a selector list, counting every object left, matching or not",
  "resource-versions-offset":
    "numbers resourceVersions 1,000,000 above the storage revision, as a server with a counter of its own: consistent alone, unlike every other server of its cluster",
  "rolebinding-grants-cluster-wide": "RBAC: a RoleBinding's rules apply in every namespace and at the cluster scope, not only in its own namespace",
  "strategic-merge-as-merge-patch": "applies a strategic merge patch as a JSON merge patch: lists replaced whole, directives stored as keys",
  "strict-validation-as-warn": "takes fieldValidation=Strict as Warn: unknown and duplicate fields are warned about and the write succeeds",
  "table-content-type-with-params": "labels a Table answer with the Accept's parameters (application/json;as=Table;g=…;v=…) instead of plain application/json",
  "update-ignores-resource-version": "an update with a stale resourceVersion overwrites the object instead of answering 409 Conflict (last write wins)",
  "update-keeps-resource-version": "answers an update with the resourceVersion the client sent instead of the new one (what is stored is right)",
  "update-never-creates": "answers a PUT to a missing name with 404 NotFound, even for types that create on update (Events)",
  "update-requires-resource-version": "refuses a PUT without metadata.resourceVersion with 422, even for types that allow unconditional updates (Events)",
  "update-returns-old-object": "answers a successful PUT with the object as it was before the update",
  "watch-at-compact-revision-expired": "refuses a watch from exactly the compaction revision with 410, though only older ones are gone",
  "watch-future-rv-starts-now": "starts a watch from a resourceVersion the store has not reached yet at the current revision, instead of waiting for it",
  "watch-not-chunked": "writes watch streams without Transfer-Encoding: chunked, close-delimited as HTTP/1.0 would",
  "watch-rv-0-no-initial-events": "starts a watch with resourceVersion=0 at the current revision, without the synthetic ADDED events of the current state",
  "watch-unset-rv-no-initial-events": "starts a watch without resourceVersion at the current revision, without the synthetic ADDED events of the current state",
  "webhook-side-effects-unchecked": "validates webhook configurations without their sideEffects (any value, or none, is accepted)",
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

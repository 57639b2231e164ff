/**
 * The emulator's failpoints (as etcd's gofail): named ways to make the emulator wrong on
 * purpose, off unless a start names them (`tollgate emulator --fault`, `tollgate run --fault`,
 * both through the fault catalog of lib/faults/). They exist so that tollgate's self-test can
 * show each suite failing against a server with a real server's bugs. Each entry says what
 * the emulator does while it is on; the code that checks it says why there.
 */
export const FAILPOINTS = {
  "conflict-as-500": "answers a write that loses an optimistic-concurrency race (409 Conflict) with 500 InternalError instead",
  "create-keeps-client-uid": "keeps a uid the create body carries instead of generating one, so two objects can share a uid",
  "create-namespace-from-url": "stores a created object in the URL's namespace whatever namespace its body names, instead of refusing the mismatch",
  "creation-timestamp-from-body": "keeps a creationTimestamp the create body carries instead of the server's time",
  "delete-ignores-finalizers": "removes an object on delete at once, whatever finalizers it has",
  "delete-ignores-preconditions": "ignores the preconditions (uid, resourceVersion) of a DELETE of one object and deletes it anyway",
  "deletecollection-deletes-one": "a collection delete removes only the first matching object (and still answers with all of them)",
  "deleted-name-stays-taken": "remembers deleted names: creating an object with the name of a deleted one is refused with 409 AlreadyExists",
  "dry-run-persists": "ignores dryRun on writes: the object is stored (or deleted) as if no dry run was asked",
  "dry-run-skips-admission": "skips built-in admission (namespace lifecycle) on a dry-run create",
  "dry-run-skips-validation": "skips validation on dry-run creates and updates",
  "duplicate-create-overwrites": "a create with a taken name replaces the stored object instead of answering 409 AlreadyExists",
  "finalizers-removed-last-first": "refuses an update that removes a finalizer other than the last-listed ones, as if finalizers were a stack",
  "force-option-presence-counts": "reads ignoreStoreReadErrorWithClusterBreakingPotential: false as true (the option's presence counts, not its value)",
  "generate-name-fixed-suffix": "builds generateName names with one fixed suffix, so a second object from the same prefix collides",
  "last-finalizer-keeps-object": "keeps a terminating object stored after its last finalizer is removed",
  "namespace-controller-stopped": "the namespace controller never runs: a Terminating namespace keeps its content and is never removed",
  "namespace-delete-orphans-content": "the namespace controller removes a Terminating namespace without deleting the objects inside it",
  "rbac-ignores-verbs": "RBAC: a rule grants every verb on its groups and resources, whatever verbs it lists",
  "rolebinding-grants-cluster-wide": "RBAC: a RoleBinding's rules apply in every namespace and at the cluster scope, not only in its own namespace",
  "update-ignores-resource-version": "an update with a stale resourceVersion overwrites the object instead of answering 409 Conflict (last write wins)",
  "webhook-side-effects-unchecked": "validates webhook configurations without their sideEffects (any value, or none, is accepted)",
} as const satisfies Record<string, string>;

export type FailpointName = keyof typeof FAILPOINTS;

export const FAILPOINT_NAMES = Object.keys(FAILPOINTS) as FailpointName[];

export function isFailpointName(name: string): name is FailpointName {
  return Object.hasOwn(FAILPOINTS, name);
}

/** The failpoints of one emulator; none by default. */
export type Failpoints = ReadonlySet<FailpointName>;
export const NO_FAILPOINTS: Failpoints = new Set();

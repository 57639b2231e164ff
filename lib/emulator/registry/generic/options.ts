/**
 * The options of the generic writes and what a delete comes to, as plain data: what the
 * endpoints parse from a request (DeleteOptions, dryRun), what the generic registry
 * (registry.ts) and a type's delete override (strategy.ts RestDelete) take and return. A leaf
 * module, so the strategy type can name them without importing the registry.
 */
import type { KubeObject } from "../../apimachinery/json.js";

export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface DeleteOptions {
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
  readonly orphanDependents?: boolean;
  /** dryRun=All: run every step except the write. */
  readonly dryRun?: boolean;
  /** The unsafe force delete of a corrupt object (gate AllowUnsafeMalformedObjectDeletion; validated by the handler). */
  readonly ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export interface WriteOptions {
  /** dryRun=All: run every step except the write. */
  readonly dryRun?: boolean;
  /** Test-only (failpoint apply-noop-writes): write an update that changes nothing. */
  readonly writeUnchanged?: boolean;
  /** A server-side apply: a write too large for etcd is not retried without managedFields (ObjectStorage.put). */
  readonly apply?: boolean;
}

export type DeleteOutcome =
  /** Removed from storage; object is its last state. */
  | { readonly deleted: true; readonly object: KubeObject }
  /** Finalizers hold it: it is (now) terminating. */
  | { readonly deleted: false; readonly object: KubeObject };

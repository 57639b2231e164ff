/**
 * coordination.k8s.io/v1 Lease, as a 1.35 server serves it (k/k pkg/registry/coordination/lease):
 * namespaced, a spec of pointer fields and no status or generation, watched from the cache,
 * created by PUT, but never updated without a resourceVersion (the real strategy's
 * AllowUnconditionalUpdate is false: a PUT on an existing lease without one is 422).
 *
 * spec.strategy and spec.preferredHolder belong to the CoordinatedLeaderElection gate, beta and
 * off by default in 1.35; the emulator keeps that default (its gates do not reach strategies),
 * so, as on a default real server, a create drops both and an update drops each one the stored
 * lease does not already have.
 */
import { type JsonObject, type KubeObject, obj } from "../../apimachinery/json.js";
import { nameOf, namespaceOf, objectHead } from "../../apimachinery/object-meta.js";
import { field, INT32, MICRO_TIME, STRING, struct } from "../../apimachinery/typed-json.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { LEASE_PRINTER } from "./printer.js";
import { validateLease, validateLeaseUpdate } from "./validation.js";

/** Every LeaseSpec field is a pointer with omitempty: written when set, even to "" or 0. */
const LEASE_SPEC = struct("v1", "LeaseSpec", [
  field("holderIdentity", STRING, "pointer"),
  field("leaseDurationSeconds", INT32, "pointer"),
  field("acquireTime", MICRO_TIME, "pointer"),
  field("renewTime", MICRO_TIME, "pointer"),
  field("leaseTransitions", INT32, "pointer"),
  field("strategy", STRING, "pointer"),
  field("preferredHolder", STRING, "pointer"),
]);

/** `spec` is a struct with omitempty, which Go never omits: an empty one is `"spec":{}`. */
const LEASE_SHAPE = struct("v1", "Lease", [...objectHead(), field("spec", LEASE_SPEC)]);

/** The fields only CoordinatedLeaderElection lets a client set. */
const GATED_FIELDS = ["strategy", "preferredHolder"] as const;

function dropGatedFields(spec: JsonObject | undefined, kept: JsonObject | undefined): void {
  if (!spec) return;
  for (const key of GATED_FIELDS) if (kept?.[key] === undefined) delete spec[key];
}

export const leaseStrategy: ResourceStrategy = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  kind: "Lease",
  listKind: "LeaseList",
  singularName: "lease",
  shortNames: [],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "gqkMMb/YqFM=",
  storagePrefix: "/registry/leases",
  watchCache: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  internalKind: { group: "coordination.k8s.io", kind: "Lease" },
  shape: LEASE_SHAPE,
  // The scheme also registers Lease in coordination.k8s.io/v1beta1 (no longer served).
  sameTypeVersions: ["coordination.k8s.io/v1beta1"],
  fieldLabels: ["metadata.name", "metadata.namespace"],
  selectableFields: (o) => ({ "metadata.name": nameOf(o), "metadata.namespace": namespaceOf(o) }),
  prepareForCreate(o: KubeObject) {
    dropGatedFields(obj(o, "spec"), undefined);
  },
  prepareForUpdate(o: KubeObject, old: KubeObject) {
    dropGatedFields(obj(o, "spec"), obj(old, "spec"));
  },
  validateCreate: validateLease,
  validateUpdate: validateLeaseUpdate,
  canonicalize() {},
  pendingFinalizers: () => [],
  tablePrinter: LEASE_PRINTER,
};

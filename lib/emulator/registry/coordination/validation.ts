/**
 * Lease validation, the rules of ValidateLease and ValidateLeaseUpdate in 1.35 (k/k
 * pkg/apis/coordination/validation): ObjectMeta as for any namespaced type with DNS-1123
 * subdomain names (on update only its update rules), then the spec on both. Every spec field is
 * a pointer, so a rule applies only to a field that is set; a bad int32 is printed dereferenced
 * (`Invalid value: 0`), as Go's field errors print pointers.
 *
 * The strategy and preferredHolder rules are the real ones, but with CoordinatedLeaderElection
 * at its 1.35 default (off) the strategy drops both fields before validation (strategy.ts), so
 * over HTTP they never fire; they are kept whole so the type's validation is the real one.
 */
import { type FieldError, forbidden, invalid, notSupported } from "../../apimachinery/field-errors.js";
import { type Json, type KubeObject, obj } from "../../apimachinery/json.js";
import { dns1123Subdomain, qualifiedName } from "../../apimachinery/name-validation.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";

/** The strategies Kubernetes defines (coordination.CoordinatedLeaseStrategy); any other must be a qualified name with a prefix. */
export const LEASE_STRATEGIES: readonly string[] = ["OldestEmulationVersion"];

const isSet = (v: Json | undefined): v is Json => v !== undefined && v !== null;

/**
 * ValidateCoordinatedLeaseStrategy. It is given the path `spec.strategy` and appends `strategy`
 * again, so a real server names the field `spec.strategy.strategy`; kept, since clients see it.
 */
function validateStrategy(strategy: string): FieldError[] {
  const path = "spec.strategy.strategy";
  if (!strategy.includes("/")) return LEASE_STRATEGIES.includes(strategy) ? [] : [notSupported(path, strategy, LEASE_STRATEGIES)];
  return qualifiedName(strategy).map((msg) => invalid(path, strategy, msg));
}

/** ValidateLeaseSpec, in its order: duration, transitions, strategy, preferredHolder. */
export function validateLeaseSpec(lease: KubeObject): FieldError[] {
  const spec = obj(lease, "spec") ?? {};
  const errs: FieldError[] = [];
  const duration = spec["leaseDurationSeconds"];
  if (typeof duration === "number" && duration <= 0) errs.push(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  const transitions = spec["leaseTransitions"];
  if (typeof transitions === "number" && transitions < 0) {
    errs.push(invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
  }
  const strategy = spec["strategy"];
  if (typeof strategy === "string") errs.push(...validateStrategy(strategy));
  const preferred = spec["preferredHolder"];
  if (isSet(preferred) && preferred !== "" && (!isSet(strategy) || strategy === "")) {
    errs.push(forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
  return errs;
}

export function validateLease(lease: KubeObject): FieldError[] {
  return [...validateObjectMeta(lease, true, dns1123Subdomain), ...validateLeaseSpec(lease)];
}

export function validateLeaseUpdate(lease: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(lease, old), ...validateLeaseSpec(lease)];
}

/**
 * The generic subresource mechanism: a type's strategy lists its subresources
 * (`ResourceStrategy.subresources`), each with its verbs and its own update rules, and a write
 * through one runs the ordinary update and patch handlers with the strategy this module derives.
 *
 * As in the apiserver, where a subresource is a second REST storage over the same registry
 * Store with another UpdateStrategy (and ResetFieldsStrategy): the same keys, shape, storage
 * view and canonicalisation as the parent; the subresource's PrepareForUpdate and ValidateUpdate;
 * never a create on update (StatusREST and FinalizeREST pass forceAllowCreate=false).
 */
import type { ResourceStrategy, SubresourceSet, SubresourceStrategy, SubresourceVerb } from "./strategy.js";

export function findSubresource(strategy: SubresourceSet, name: string): SubresourceStrategy | undefined {
  return strategy.subresources?.find((s) => s.name === name);
}

/** The HTTP method each subresource verb is served on. */
const SUBRESOURCE_METHODS: Record<SubresourceVerb, string> = { create: "POST", get: "GET", update: "PUT", patch: "PATCH" };

export function subresourceServes(sub: SubresourceStrategy, method: string): boolean {
  return sub.verbs.some((v) => SUBRESOURCE_METHODS[v] === method);
}

/**
 * The strategy a request through `sub` uses: the parent's, with the subresource's update rules.
 * It inherits from the parent object (not a copy of its own properties) so strategies built
 * as class instances keep their methods.
 */
export function subresourceWriteStrategy(parent: ResourceStrategy, sub: SubresourceStrategy): ResourceStrategy {
  const overrides: Partial<ResourceStrategy> = {
    allowCreateOnUpdate: false,
    prepareForUpdate: (o, old) => sub.prepareForUpdate(o, old),
    validateUpdate: (o, old) => sub.validateUpdate(o, old),
  };
  return Object.assign(Object.create(parent) as ResourceStrategy, overrides);
}

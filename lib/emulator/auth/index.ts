/**
 * Turning authentication and authorization on: the types it brings (core v1 ServiceAccounts,
 * RBAC, the review types) are served, the default cluster roles and bindings seeded, the
 * access control every request passes is built, and the authorizer and the token issuer and
 * reviewer are provided to the REST overrides that need them (the reviews, TokenRequest). With
 * auth off none of this exists.
 */
import type { EmulatorClock } from "../apimachinery/clock.js";
import { AUTHORIZER } from "../registry/authorization/authorizer.js";
import { TOKEN_REVIEWER } from "../registry/authorization/reviews.js";
import { TOKEN_ISSUER } from "../registry/core/serviceaccount/token-request.js";
import type { Capabilities } from "../registry/generic/capabilities.js";
import type { GenericRegistry } from "../registry/generic/registry.js";
import type { ResourceRegistry } from "../registry/generic/strategy.js";
import { authStrategies } from "../registry/index.js";
import { clusterRoleBindingStrategy, clusterRoleStrategy } from "../registry/rbac/strategy.js";
import type { ObjectStorage } from "../storage/object-storage.js";
import { AccessControl } from "./access-control.js";
import { Authenticator } from "./authenticator.js";
import { defaultClusterRoleBindings, defaultClusterRoles } from "./default-policy.js";
import { RbacAuthorizer } from "./rbac-authorizer.js";

export function enableAuth(
  registry: ResourceRegistry,
  generic: GenericRegistry,
  storage: ObjectStorage,
  clock: EmulatorClock,
  adminToken: string,
  capabilities: Capabilities,
): AccessControl {
  registry.add(authStrategies());
  for (const role of defaultClusterRoles()) generic.create(clusterRoleStrategy, role);
  for (const binding of defaultClusterRoleBindings()) generic.create(clusterRoleBindingStrategy, binding);
  const authenticator = new Authenticator(adminToken, storage, clock);
  const authorizer = new RbacAuthorizer(storage, generic.failpoints);
  capabilities.provide(AUTHORIZER, authorizer);
  capabilities.provide(TOKEN_ISSUER, authenticator);
  capabilities.provide(TOKEN_REVIEWER, authenticator);
  return new AccessControl(authenticator, authorizer);
}

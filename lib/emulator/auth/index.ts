/**
 * Turning authentication and authorization on: the access control every request passes is
 * built, and the authorizer, its rules resolver and the token issuer and reviewer are provided
 * to the REST overrides that need them (the reviews, TokenRequest). The types it concerns (core
 * v1 ServiceAccounts, RBAC) are served either way, with the default cluster roles and bindings
 * seeded, as a real server serves and seeds them whatever its authorizer.
 *
 * With auth off the server is one whose authorizer is AlwaysAllow and that authenticates nobody:
 * every caller is the administrator, may impersonate anyone, and the review types are served
 * all the same (a real server registers them whenever it has an authorizer), answering from
 * AlwaysAllow. TokenRequest still issues tokens (a real server always has its service account
 * issuer) and a TokenReview recognises them, though no request is authenticated by them.
 */
import { createdOrExisting } from "../apimachinery/api-errors.js";
import type { EmulatorClock } from "../apimachinery/clock.js";
import type { User } from "../apimachinery/user.js";
import { AUTHORIZER } from "../registry/authorization/authorizer.js";
import { RULES_RESOLVER, TOKEN_REVIEWER } from "../registry/authorization/reviews.js";
import { TOKEN_ISSUER } from "../registry/core/serviceaccount/token-request.js";
import type { Capabilities } from "../registry/generic/capabilities.js";
import type { GenericRegistry } from "../registry/generic/registry.js";
import { clusterRoleBindingStrategy, clusterRoleStrategy } from "../registry/rbac/strategy.js";
import type { ObjectStorage } from "../storage/object-storage.js";
import { AccessControl } from "./access-control.js";
import { Authenticator } from "./authenticator.js";
import { defaultClusterRoleBindings, defaultClusterRoles } from "./default-policy.js";
import { ALWAYS_ALLOW, ALWAYS_ALLOW_RULES, type DistinctHeaders, impersonate } from "./impersonation.js";
import { RbacAuthorizer } from "./rbac-authorizer.js";

/**
 * The default cluster roles and bindings, as a real server's rbac/bootstrap-roles hook makes them
 * whatever its authorizer; the server runs it before it listens (server.ts), one write after another.
 */
export async function seedDefaultPolicy(generic: GenericRegistry): Promise<void> {
  // On etcd another emulator (or this one before a restart) may have made them already.
  for (const role of defaultClusterRoles()) await createdOrExisting(generic.create(clusterRoleStrategy, role));
  for (const binding of defaultClusterRoleBindings()) await createdOrExisting(generic.create(clusterRoleBindingStrategy, binding));
}

export function enableAuth(
  generic: GenericRegistry,
  storage: ObjectStorage,
  clock: EmulatorClock,
  adminToken: string,
  capabilities: Capabilities,
): AccessControl {
  const authenticator = new Authenticator(adminToken, storage, clock);
  const authorizer = new RbacAuthorizer(storage, generic.failpoints);
  capabilities.provide(AUTHORIZER, authorizer);
  capabilities.provide(TOKEN_ISSUER, authenticator);
  capabilities.provide(TOKEN_REVIEWER, authenticator);
  capabilities.provide(RULES_RESOLVER, authorizer);
  return new AccessControl(authenticator, authorizer);
}

/** Who every caller is without auth: the administrator admission webhooks are told about too. */
const NO_AUTH_USER: User = { username: "system:admin", groups: ["system:masters", "system:authenticated"] };

/** Auth off: the review types (always served) answer from AlwaysAllow; service account tokens are issued and reviewed. */
export function enableNoAuth(storage: ObjectStorage, clock: EmulatorClock, adminToken: string, capabilities: Capabilities): void {
  capabilities.provide(AUTHORIZER, ALWAYS_ALLOW);
  capabilities.provide(RULES_RESOLVER, ALWAYS_ALLOW_RULES);
  const authenticator = new Authenticator(adminToken, storage, clock);
  capabilities.provide(TOKEN_ISSUER, authenticator);
  capabilities.provide(TOKEN_REVIEWER, authenticator);
}

/**
 * The user of a request without auth, at once, when no header asks for impersonation (most
 * requests: no headersDistinct object built, no await); undefined otherwise (noAuthUser then).
 */
export function plainNoAuthUser(rawHeaders: readonly string[]): User | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? "";
    if (name.length > IMPERSONATE_PREFIX.length && name.slice(0, IMPERSONATE_PREFIX.length).toLowerCase() === IMPERSONATE_PREFIX) return undefined;
  }
  return NO_AUTH_USER;
}

const IMPERSONATE_PREFIX = "impersonate-";

/** The user of a request without auth: the administrator, or whom it impersonates (always allowed). */
export function noAuthUser(headers: DistinctHeaders): Promise<User> {
  return impersonate(NO_AUTH_USER, headers, ALWAYS_ALLOW, () => new Error("AlwaysAllow denied"));
}

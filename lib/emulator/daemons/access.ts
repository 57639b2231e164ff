/**
 * Who a request is, and whether it may have what it asks for. A real controller manager and a
 * real node agent ask the core API server: a TokenReview names the user behind a bearer
 * token, a SubjectAccessReview says whether that user may make the request. The emulated
 * daemons have no API server to ask, so the caller gives both answers up front as a table:
 * `tokens` is what the token reviews would say, `allowedUsers` what the subject access
 * reviews would say (one verdict per user, for every path; no roles, no caching). That is
 * all the emulation claims to be: a stand-in with the same outcomes (401, 403, served).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export interface DaemonAccess {
  /** Bearer token → user name: the answers token reviews would give. A token not here is refused. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Users the subject access reviews would allow. Everyone else is forbidden. */
  readonly allowedUsers: readonly string[];
  /** Groups the subject access reviews would allow: a member of one is allowed too. */
  readonly allowedGroups?: readonly string[];
}

/** doc3 "Authentication": the identity of a request that brings no credentials. */
export const ANONYMOUS_USER = "system:anonymous";
export const ANONYMOUS_GROUP = "system:unauthenticated";

/** No tokens, nobody allowed: what a daemon's reviews answer when the caller configures none. */
export const NO_ACCESS: DaemonAccess = { tokens: {}, allowedUsers: [] };

/** The bearer token of `Authorization: Bearer <token>` (scheme case-insensitive, as in the API machinery); undefined without one. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/** The token review stand-in: the user behind `token`, or undefined when it names nobody. */
export function reviewToken(access: DaemonAccess, token: string): string | undefined {
  // Compared as SHA-256 digests in constant time, every entry visited, as the API server's
  // authenticator does: how long the check takes says nothing of how much of a token matched.
  const wanted = createHash("sha256").update(token, "utf8").digest();
  let user: string | undefined;
  for (const [known, name] of Object.entries(access.tokens)) {
    if (timingSafeEqual(createHash("sha256").update(known, "utf8").digest(), wanted)) user = name;
  }
  return user;
}

/** The subject access review stand-in. */
export function reviewAccess(access: DaemonAccess, user: string, groups: readonly string[] = []): boolean {
  return access.allowedUsers.includes(user) || groups.some((g) => access.allowedGroups?.includes(g) === true);
}

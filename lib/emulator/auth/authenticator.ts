/**
 * Bearer tokens: the emulator's one admin token (a user in system:masters) and the service
 * account tokens the TokenRequest subresource issues. Tokens are opaque random strings the
 * emulator remembers; a service account token stops working when it expires (on the emulator
 * clock) or when its account is gone or replaced (another uid), as a real server's bound
 * tokens do. A request without a token is system:anonymous; an unknown token is refused (401).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { EmulatorClock } from "../apimachinery/clock.js";
import { uidOf } from "../apimachinery/object-meta.js";
import { ADMIN_USER, ANONYMOUS, serviceAccountUser, type User } from "../apimachinery/user.js";
import type { TokenReviewer } from "../registry/authorization/reviews.js";
import { serviceAccountStrategy } from "../registry/core/serviceaccount/strategy.js";
import type { TokenIssuer } from "../registry/core/serviceaccount/token-request.js";
import type { ObjectStorage } from "../storage/object-storage.js";

interface IssuedToken {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly expiresMs: number;
  readonly credentialId: string;
}

/** The outcome of reading a request's credentials. */
export type Authentication = { readonly ok: true; readonly user: User } | { readonly ok: false };

/** Also the token issuer of TokenRequest and the reviewer of TokenReview (their capabilities, registry/). */
export class Authenticator implements TokenIssuer, TokenReviewer {
  private readonly issued = new Map<string, IssuedToken>();

  constructor(
    private readonly adminToken: string,
    private readonly storage: ObjectStorage,
    private readonly clock: EmulatorClock,
  ) {}

  /** Issues a token for a service account (its uid binds the token to this account object). */
  issue(namespace: string, name: string, uid: string, expirationSeconds: number): { token: string; expires: Date } {
    const token = randomBytes(32).toString("hex");
    const expiresMs = this.clock.now() + expirationSeconds * 1000;
    this.issued.set(token, { namespace, name, uid, expiresMs, credentialId: randomUUID() });
    return { token, expires: new Date(expiresMs) };
  }

  /** Who a token belongs to, or undefined for an unknown, expired or invalidated token. */
  userOfToken(token: string): User | undefined {
    if (token === this.adminToken) return ADMIN_USER;
    const t = this.issued.get(token);
    if (!t) return undefined;
    const account = this.storage.get(serviceAccountStrategy, t.namespace, t.name);
    if (t.expiresMs <= this.clock.now() || !account || uidOf(account.object) !== t.uid) {
      this.issued.delete(token);
      return undefined;
    }
    return serviceAccountUser(t.namespace, t.name, t.uid, t.credentialId);
  }

  /**
   * The user of a request with this Authorization header value. As the real bearer token
   * authenticator: a header that is not `Bearer <token>` carries no token (the request is
   * anonymous); a token nobody knows is 401.
   */
  authenticate(authorization: string | undefined): Authentication {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!m?.[1]) return { ok: true, user: ANONYMOUS };
    const user = this.userOfToken(m[1]);
    return user ? { ok: true, user } : { ok: false };
  }
}

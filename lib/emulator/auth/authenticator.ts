/**
 * Bearer tokens: the emulator's one admin token (a user in system:masters) and the service
 * account tokens the TokenRequest subresource issues. Tokens are opaque random strings the
 * emulator remembers; a service account token stops working when it expires (on the emulator
 * clock) or when its account is gone or replaced (another uid), as a real server's bound
 * tokens do, and is accepted only for the audiences it was requested for (this server's by default). A request without a token is system:anonymous; an unknown token is refused (401).
 *
 * Tokens are kept and compared as SHA-256 digests (the admin token with timingSafeEqual), so
 * neither a comparison nor a map lookup takes longer the more of a secret a guess gets right.
 * Expired tokens are purged: at most once per SWEEP_INTERVAL_MS of the emulator clock, on the
 * next issue or authentication, so an admin clock jump expires them too.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { EmulatorClock } from "../apimachinery/clock.js";
import { uidOf } from "../apimachinery/object-meta.js";
import { ADMIN_USER, ANONYMOUS, serviceAccountUser, type User } from "../apimachinery/user.js";
import type { TokenReviewer } from "../registry/authorization/reviews.js";
import { serviceAccountStrategy } from "../registry/core/serviceaccount/strategy.js";
import { API_AUDIENCE, type TokenIssuer } from "../registry/core/serviceaccount/token-request.js";
import type { ObjectStorage } from "../storage/object-storage.js";

/** How often (emulator clock) the issued tokens are swept for expired ones. */
const SWEEP_INTERVAL_MS = 10_000;

const digest = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

interface IssuedToken {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly expiresMs: number;
  readonly credentialId: string;
  readonly audiences: readonly string[];
}

/** The outcome of reading a request's credentials. */
export type Authentication = { readonly ok: true; readonly user: User } | { readonly ok: false };

/** Also the token issuer of TokenRequest and the reviewer of TokenReview (their capabilities, registry/). */
export class Authenticator implements TokenIssuer, TokenReviewer {
  /** Issued tokens by the hex SHA-256 of the token. */
  private readonly issued = new Map<string, IssuedToken>();
  private readonly adminDigest: Buffer;
  private nextSweepMs: number;

  constructor(
    adminToken: string,
    private readonly storage: ObjectStorage,
    private readonly clock: EmulatorClock,
  ) {
    this.adminDigest = digest(adminToken);
    this.nextSweepMs = clock.now() + SWEEP_INTERVAL_MS;
  }

  /** How many issued tokens are remembered (expired ones until the next sweep); for tests. */
  get issuedCount(): number {
    return this.issued.size;
  }

  /** Issues a token for a service account (its uid binds the token to this account object). */
  issue(namespace: string, name: string, uid: string, expirationSeconds: number, audiences: readonly string[]): { token: string; expires: Date } {
    this.maybeSweep();
    const token = randomBytes(32).toString("hex");
    const expiresMs = this.clock.now() + expirationSeconds * 1000;
    this.issued.set(digest(token).toString("hex"), { namespace, name, uid, expiresMs, credentialId: randomUUID(), audiences: [...audiences] });
    return { token, expires: new Date(expiresMs) };
  }

  /**
   * Who a token belongs to and which of the audiences asked (the API server's by default) it is
   * valid for; undefined for an unknown, expired or invalidated token, or one valid for none of
   * them. The admin token, like a real static token, is valid for the API server's audience only.
   */
  async userOfToken(token: string, audiences: readonly string[] = [API_AUDIENCE]): Promise<{ user: User; audiences: readonly string[] } | undefined> {
    this.maybeSweep();
    const hash = digest(token);
    if (timingSafeEqual(hash, this.adminDigest)) {
      const matched = audiences.filter((a) => a === API_AUDIENCE);
      return matched.length ? { user: ADMIN_USER, audiences: matched } : undefined;
    }
    const key = hash.toString("hex");
    const t = this.issued.get(key);
    if (!t) return undefined;
    const account = await this.storage.get(serviceAccountStrategy, t.namespace, t.name);
    if (t.expiresMs <= this.clock.now() || !account || uidOf(account.object) !== t.uid) {
      this.issued.delete(key);
      return undefined;
    }
    const matched = audiences.filter((a) => t.audiences.includes(a));
    return matched.length ? { user: serviceAccountUser(t.namespace, t.name, t.uid, t.credentialId), audiences: matched } : undefined;
  }

  /** Drops every expired token, at most once per interval: amortised over the requests. */
  private maybeSweep(): void {
    const now = this.clock.now();
    if (now < this.nextSweepMs) return;
    this.nextSweepMs = now + SWEEP_INTERVAL_MS;
    for (const [key, t] of this.issued) if (t.expiresMs <= now) this.issued.delete(key);
  }

  /**
   * The user of a request with this Authorization header value. As the real bearer token
   * authenticator: a header that is not `Bearer <token>` carries no token (the request is
   * anonymous); a token nobody knows is 401.
   */
  async authenticate(authorization: string | undefined): Promise<Authentication> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!m?.[1]) return { ok: true, user: ANONYMOUS };
    const found = await this.userOfToken(m[1]);
    return found ? { ok: true, user: found.user } : { ok: false };
  }
}

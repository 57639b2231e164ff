/**
 * The legacy `oidc` auth-provider, which client-go 1.35 still ships
 * (plugin/pkg/client/auth/oidc/oidc.go): it sends the configured `id-token` as a bearer token
 * while the JWT's `exp` is more than 10 s away; after that it refreshes it with the
 * `refresh-token` at the issuer's token endpoint and writes the new tokens back into the
 * kubeconfig. tollgate does the first and not the second (a conformance run does not rewrite a
 * user's kubeconfig, nor talk to their identity provider): an id-token that has expired, at
 * load or during the run, is a clear error that says how to get a fresh one.
 */
import { CredentialError } from "./errors.js";

export interface OidcConfig {
  idToken?: string;
  /** Whether the kubeconfig has a refresh-token (its value is never kept). */
  canRefresh: boolean;
  issuer: string;
}

/** client-go's expiryDelta: a token is used only while it has more than this left. */
const OIDC_EXPIRY_DELTA_MS = 10_000;

/** The `exp` of a JWT, in ms; throws client-go's messages for a token that is no JWT. */
export function jwtExpiry(idToken: string): number {
  const parts = idToken.split(".");
  if (parts.length !== 3) throw new CredentialError("ID Token is not a valid JWT");
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1] as string, "base64url").toString("utf8"));
  } catch {
    throw new CredentialError("parsing claims: the ID Token's payload is not JSON");
  }
  const exp = (claims as { exp?: unknown } | null)?.exp;
  if (typeof exp !== "number") return 0;
  return Math.trunc(exp) * 1000;
}

/** The id-token to send now, or a CredentialError that says why there is none. */
export function oidcToken(cfg: OidcConfig, now: number = Date.now()): string {
  if (cfg.idToken) {
    if (now + OIDC_EXPIRY_DELTA_MS < jwtExpiry(cfg.idToken)) return cfg.idToken;
  }
  if (!cfg.canRefresh) throw new CredentialError("oidc auth-provider: No valid id-token, and cannot refresh without refresh-token");
  throw new CredentialError(
    `oidc auth-provider: the id-token has expired; tollgate does not refresh it (client-go would ask ${cfg.issuer} with the refresh-token and write the new tokens into the kubeconfig): run a kubectl command with this context to refresh it, or use an exec plugin such as kubelogin`,
  );
}

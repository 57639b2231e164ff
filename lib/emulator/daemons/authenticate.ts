/**
 * Who a request to an emulated daemon is, the way a real daemon's delegated authentication
 * decides it. The authenticators are tried in the real order: identity headers from a front
 * proxy (controller manager only), the client certificate, the bearer token. The first that
 * recognizes the request names the user, and then the errors of the others do not matter;
 * when none does, any error (a certificate from an unknown authority, a proxy certificate
 * with a name not allowed, a token naming nobody) is 401, also when anonymous requests are
 * allowed: an unrecognized credential is refused, never turned into an anonymous request.
 * Without any credential the request is system:anonymous when anonymous requests are allowed,
 * else 401.
 */
import type { X509Certificate } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { ANONYMOUS_GROUP, ANONYMOUS_USER, bearerToken, type DaemonAccess, reviewToken } from "./access.js";
import { commonName, issuedBy, subjectValues } from "./certificates.js";

/** doc3: --requestheader-*; the headers as configured, matched case-insensitively. */
export interface RequestHeaderAuthentication {
  readonly cas: readonly X509Certificate[];
  /** Empty: any certificate the CAs issued may assert identities. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

/** Test-only misbehaviours, so that the certificate checks can be shown to fail against a wrong daemon. */
export type AuthenticationFault =
  /** A client certificate is taken for its common name whoever issued it. */
  | "any-client-cert"
  /** Identity headers are taken from any client certificate, trusted or not, allowed name or not. */
  | "headers-from-any-cert"
  /** A trusted client certificate is taken for its first organization, not its common name. */
  | "cert-user-not-cn"
  /** A bearer token the review does not know is let through as anonymous instead of 401. */
  | "unknown-token-anonymous";

export interface Authentication {
  readonly faults?: ReadonlySet<AuthenticationFault>;
  readonly requestHeader?: RequestHeaderAuthentication;
  /** --client-ca-file's certificates; undefined: no client certificate authentication. */
  readonly clientCas?: readonly X509Certificate[];
  /** Bearer tokens go to the token review stand-in. */
  readonly tokens: boolean;
  readonly anonymous: boolean;
}

export interface User {
  readonly name: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** A user, or "unauthorized" (401). */
export type Authenticated = User | "unauthorized";

/** Whether the server asks clients for a certificate at all: only when some authenticator reads one. */
export const wantsClientCertificate = (a: Authentication): boolean => a.clientCas !== undefined || a.requestHeader !== undefined;

/** The CA certificates to name in the TLS certificate request. */
export const clientCaHints = (a: Authentication): string[] => [...(a.clientCas ?? []), ...(a.requestHeader?.cas ?? [])].map((c) => c.toString());

type Outcome = User | "none" | "error";

/** Extra keys travel percent-encoded; one that does not decode is kept as it came, not refused. */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

const valuesOf = (req: IncomingMessage, header: string): string[] => req.headersDistinct[header.toLowerCase()] ?? [];

function fromRequestHeaders(req: IncomingMessage, cert: X509Certificate | undefined, rh: RequestHeaderAuthentication, anyCert: boolean): Outcome {
  if (!cert) return "none";
  if (!anyCert && !issuedBy(cert, rh.cas)) return "error";
  if (!anyCert && rh.allowedNames.length > 0 && !rh.allowedNames.includes(commonName(cert))) return "error";
  // The first username header with a value names the user; without one, the headers assert nobody.
  const name = rh.usernameHeaders.map((h) => valuesOf(req, h).find((v) => v !== "")).find((v) => v !== undefined);
  if (name === undefined) return "none";
  const groups = rh.groupHeaders.flatMap((h) => valuesOf(req, h));
  const extra: Record<string, string[]> = {};
  for (const [header, values] of Object.entries(req.headersDistinct)) {
    const prefix = rh.extraHeaderPrefixes.find((p) => header.startsWith(p.toLowerCase()));
    if (!prefix || values === undefined) continue;
    const key = unescapeKey(header.slice(prefix.length));
    // The key is the client's (`__proto__`, `constructor`): own members only, as data.
    const earlier = Object.hasOwn(extra, key) ? (extra[key] ?? []) : [];
    Object.defineProperty(extra, key, { value: [...earlier, ...values], enumerable: true, writable: true, configurable: true });
  }
  return { name, groups, extra };
}

function fromClientCertificate(cert: X509Certificate | undefined, cas: readonly X509Certificate[], anyCert: boolean, notCn = false): Outcome {
  if (!cert) return "none";
  if (!anyCert && !issuedBy(cert, cas)) return "error";
  const name = notCn ? (subjectValues(cert, "O")[0] ?? "") : commonName(cert);
  // A certificate without a common name names nobody, which is not an error.
  return name === "" ? "none" : { name, groups: subjectValues(cert, "O"), extra: {} };
}

function fromToken(req: IncomingMessage, access: DaemonAccess): Outcome {
  const token = bearerToken(req);
  if (token === undefined) return "none";
  const name = reviewToken(access, token);
  return name === undefined ? "error" : { name, groups: [], extra: {} };
}

function peerCertificate(req: IncomingMessage): X509Certificate | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  return typeof socket.getPeerX509Certificate === "function" ? socket.getPeerX509Certificate() : undefined;
}

export function authenticate(req: IncomingMessage, a: Authentication, access: DaemonAccess): Authenticated {
  const cert = wantsClientCertificate(a) ? peerCertificate(req) : undefined;
  const attempts: (() => Outcome)[] = [];
  if (a.requestHeader) {
    const rh = a.requestHeader;
    attempts.push(() => fromRequestHeaders(req, cert, rh, a.faults?.has("headers-from-any-cert") === true));
  }
  if (a.clientCas) {
    const cas = a.clientCas;
    attempts.push(() => fromClientCertificate(cert, cas, a.faults?.has("any-client-cert") === true, a.faults?.has("cert-user-not-cn") === true));
  }
  if (a.tokens) {
    const lenient = a.faults?.has("unknown-token-anonymous") === true;
    attempts.push(() => {
      const outcome = fromToken(req, access);
      return lenient && outcome === "error" ? "none" : outcome;
    });
  }

  let failed = false;
  for (const attempt of attempts) {
    const outcome = attempt();
    if (outcome === "error") failed = true;
    else if (outcome !== "none") return { ...outcome, groups: [...outcome.groups, "system:authenticated"] };
  }
  if (failed || !a.anonymous) return "unauthorized";
  return { name: ANONYMOUS_USER, groups: [ANONYMOUS_GROUP], extra: {} };
}

/** A target as data: its URL, how requests reach it and who they act as. */
import type { ExecConfig } from "./credentials/exec.js";
import type { Impersonation } from "./credentials/impersonation.js";
import type { OidcConfig } from "./credentials/oidc.js";
import type { TokenFile } from "./credentials/token-file.js";

/**
 * How requests reach the target and who they act as. Plain data (it crosses to vitest's
 * workers); lib/harness/credentials turns it into headers and connections per request. A
 * static `token` (or basic auth, or a client certificate) wins over the dynamic sources
 * (`tokenFile`, `oidc`, `exec`), as in client-go; build a client for another identity with
 * `asIdentity` (lib/harness/credentials/identity.ts), which drops them all.
 */
export interface TargetCredentials {
  token?: string;
  basic?: { username: string; password: string };
  clientCert?: string;
  clientKey?: string;
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** A bearer token file, re-read as client-go does (kubeconfig `tokenFile`, the in-cluster service-account token). */
  tokenFile?: TokenFile;
  /** The legacy oidc auth-provider's id-token (used while valid, never refreshed). */
  oidc?: OidcConfig;
  /** An exec credential plugin (client.authentication.k8s.io/v1 or v1beta1). */
  exec?: ExecConfig;
  /** The kubeconfig user's `as`, `as-uid`, `as-groups`, `as-user-extra`. */
  impersonate?: Impersonation;
  /** The cluster's `proxy-url` (http, https or socks5). */
  proxyUrl?: string;
  /** The cluster's `disable-compression` (tollgate asks for compression only in the compression tests; told to exec plugins). */
  disableCompression?: boolean;
}

export interface Target {
  url: string;
  credentials: TargetCredentials;
  /** Where the target came from, for reports ("--target", "kubeconfig …", "embedded emulator"). */
  source: string;
}

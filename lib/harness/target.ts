/** What the suites run against: a base URL plus the credentials to reach it. */
import { kubeconfigFiles, KubeconfigError, loadKubeconfig } from "./kubeconfig.js";
import type { ExecConfig } from "./credentials/exec.js";
import type { Impersonation } from "./credentials/impersonation.js";
import type { OidcConfig } from "./credentials/oidc.js";
import type { TokenFile } from "./credentials/token-file.js";
import { InClusterError, loadInCluster } from "./credentials/in-cluster.js";

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

/** Placeholders of the spec documents (spec/README.md). */
export interface SpecSettings {
  groupDomain: string;
  vendor: string;
}

export const defaultSpecSettings: SpecSettings = { groupDomain: "k8s.io", vendor: "kubernetes" };

export interface TargetSelection {
  target?: string;
  kubeconfig?: string;
  context?: string;
  token?: string;
  /** The pod's service account (`tollgate run --in-cluster`), never chosen by accident. */
  inCluster?: boolean;
}

export class TargetError extends Error {}

function checkUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetError(`--target ${JSON.stringify(raw)} is not a URL (expected http://host:port or https://host:port)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new TargetError(`--target ${raw}: only http and https URLs are supported`);
  }
  return raw.replace(/\/+$/, "");
}

/**
 * Resolves an explicit selection: a URL wins; otherwise a kubeconfig, when --kubeconfig or
 * --context asks for one (--kubeconfig alone, else the files of KUBECONFIG merged as kubectl
 * merges them, else ~/.kube/config); otherwise the pod's service account when --in-cluster
 * asks for it. Returns undefined when nothing was asked for: the caller then starts the
 * embedded emulator. Neither a kubeconfig nor the in-cluster configuration is ever picked up
 * just because KUBECONFIG or KUBERNETES_SERVICE_HOST is set: a run that writes to a cluster
 * must be pointed there on purpose.
 */
export function resolveTarget(sel: TargetSelection, env: NodeJS.ProcessEnv = process.env): Target | undefined {
  if (sel.inCluster && (sel.target || sel.kubeconfig || sel.context)) {
    throw new TargetError("--in-cluster takes the server and credentials from the pod; it goes with neither --target, --kubeconfig nor --context");
  }
  try {
    if (sel.target) {
      const url = checkUrl(sel.target);
      const credentials: TargetCredentials = sel.token ? { token: sel.token } : {};
      if (sel.kubeconfig || sel.context) {
        const kc = loadKubeconfig(kubeconfigFiles(sel.kubeconfig, env), sel.context);
        // As `kubectl --server`: the URL replaces the cluster's server, also in what an exec plugin is told.
        const exec = kc.credentials.exec && { ...kc.credentials.exec, cluster: { ...kc.credentials.exec.cluster, server: sel.target } };
        return { url, credentials: { ...kc.credentials, ...(exec ? { exec } : {}), ...credentials }, source: `--target ${url} with ${kc.source}` };
      }
      return { url, credentials, source: `--target ${url}` };
    }
    if (sel.kubeconfig || sel.context) {
      const t = loadKubeconfig(kubeconfigFiles(sel.kubeconfig, env), sel.context);
      if (sel.token) t.credentials.token = sel.token;
      return t;
    }
    if (sel.inCluster) {
      const t = loadInCluster({ env });
      if (sel.token) t.credentials.token = sel.token;
      return t;
    }
    return undefined;
  } catch (e) {
    if (e instanceof KubeconfigError || e instanceof InClusterError) throw new TargetError(e.message);
    throw e;
  }
}

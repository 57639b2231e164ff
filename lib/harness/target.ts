/** What the suites run against: a base URL plus the credentials to reach it. */

import { InClusterError, loadInCluster } from "./credentials/in-cluster.js";
import { KubeconfigError, kubeconfigFiles, loadKubeconfig } from "./kubeconfig.js";
import type { Target, TargetCredentials } from "./target-model.js";

// The model lives in its own module, so the readers of kubeconfig and in-cluster files can build it without importing this one.
export type { Target, TargetCredentials } from "./target-model.js";

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

function checkUrl(raw: string, flag = "--target"): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetError(`${flag} ${JSON.stringify(raw)} is not a URL (expected http://host:port or https://host:port)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new TargetError(`${flag} ${raw}: only http and https URLs are supported`);
  }
  return raw.replace(/\/+$/, "");
}

/**
 * Another API server of the target's cluster (`tollgate run --replica URL`): the target's
 * credentials and TLS settings at another URL, as `kubectl --server` would use them (an exec
 * plugin is told that server too).
 */
export function replicaTarget(target: Target, raw: string): Target {
  const url = checkUrl(raw, "--replica");
  const exec = target.credentials.exec && { ...target.credentials.exec, cluster: { ...target.credentials.exec.cluster, server: url } };
  return { url, credentials: { ...target.credentials, ...(exec ? { exec } : {}) }, source: `--replica ${url}` };
}

/** `--replica` values: repeatable and comma-separated. */
export function replicaUrls(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
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

/** What the suites run against: a base URL plus the credentials to reach it. */
import { defaultKubeconfigPath, KubeconfigError, loadKubeconfig } from "./kubeconfig.js";
import { existsSync } from "node:fs";

export interface TargetCredentials {
  token?: string;
  basic?: { username: string; password: string };
  clientCert?: string;
  clientKey?: string;
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
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
 * --context asks for one (the file is --kubeconfig, else the first of KUBECONFIG, else
 * ~/.kube/config). Returns undefined when nothing was asked for: the caller then starts the
 * embedded emulator. A kubeconfig is never picked up just because KUBECONFIG is set: a run
 * that writes to a cluster must be pointed there on purpose.
 */
export function resolveTarget(sel: TargetSelection, env: NodeJS.ProcessEnv = process.env): Target | undefined {
  try {
    if (sel.target) {
      const url = checkUrl(sel.target);
      const credentials: TargetCredentials = sel.token ? { token: sel.token } : {};
      if (sel.kubeconfig || sel.context) {
        const kc = loadKubeconfig(sel.kubeconfig ?? defaultKubeconfigPath(env), sel.context);
        return { url, credentials: { ...kc.credentials, ...credentials }, source: `--target ${url} with ${kc.source}` };
      }
      return { url, credentials, source: `--target ${url}` };
    }
    if (sel.kubeconfig || sel.context) {
      const file = sel.kubeconfig ?? defaultKubeconfigPath(env);
      if (!existsSync(file)) throw new TargetError(`kubeconfig ${file} does not exist`);
      const t = loadKubeconfig(file, sel.context);
      if (sel.token) t.credentials.token = sel.token;
      return t;
    }
    return undefined;
  } catch (e) {
    if (e instanceof KubeconfigError) throw new TargetError(e.message);
    throw e;
  }
}

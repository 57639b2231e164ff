/**
 * The in-cluster configuration of a pod (wire-facts §14, client-go rest.InClusterConfig):
 * `https://` + KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, the service account's token
 * (read now, and re-read during the run as client-go does, see token-file.ts) and its CA
 * (when it does not load, client-go only logs it and uses no CA; so does tollgate, with a
 * warning). Only ever used when asked for (`tollgate run --in-cluster`).
 */

import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "../target-model.js";
import { goFileError } from "./errors.js";

export class InClusterError extends Error {}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface InClusterOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the service account's files are (default: TOLLGATE_SERVICE_ACCOUNT_DIR, for tests, else /var/run/secrets/kubernetes.io/serviceaccount). */
  root?: string;
  /** Where a warning goes (default: standard error, once per message and process). */
  warn?: (message: string) => void;
}

const WARNED = Symbol.for("tollgate.in-cluster-warnings");
const shared = globalThis as { [WARNED]?: Set<string> };

function warnOnce(message: string): void {
  const seen = (shared[WARNED] ??= new Set());
  if (seen.has(message)) return;
  seen.add(message);
  console.error(`tollgate: in-cluster: ${message}`);
}

/** net.JoinHostPort: an IPv6 literal is bracketed. */
function joinHostPort(host: string, port: string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** certutil.NewPool's checks: the file reads and holds at least one certificate. Returns the PEM text, or an error message. */
function loadCa(path: string): { pem: string } | { error: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { error: goFileError("open", path, e) };
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  try {
    for (const b of blocks) new X509Certificate(b);
  } catch {
    return { error: `error reading ${path}: data does not contain any valid RSA or ECDSA certificates` };
  }
  if (blocks.length === 0) return { error: `error reading ${path}: data does not contain any valid RSA or ECDSA certificates` };
  return { pem: text };
}

export function loadInCluster(opts: InClusterOptions = {}): Target {
  const env = opts.env ?? process.env;
  const root = opts.root ?? (env.TOLLGATE_SERVICE_ACCOUNT_DIR || SERVICE_ACCOUNT_DIR);
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const port = env.KUBERNETES_SERVICE_PORT ?? "";
  if (host === "" || port === "") {
    throw new InClusterError("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
  }
  const tokenPath = join(root, "token");
  let token: string;
  try {
    token = readFileSync(tokenPath, "utf8").trim();
  } catch (e) {
    throw new InClusterError(goFileError("open", tokenPath, e));
  }
  // client-go then reads it through its file token source, which refuses an empty one.
  if (token === "") throw new InClusterError(`read empty token from file ${JSON.stringify(tokenPath)}`);
  const caPath = join(root, "ca.crt");
  const ca = loadCa(caPath);
  if ("error" in ca) (opts.warn ?? warnOnce)(`Expected to load root CA config from ${caPath}, but got err: ${ca.error}`);
  const url = `https://${joinHostPort(host, port)}`;
  return {
    url,
    credentials: { tokenFile: { path: tokenPath, fallback: token }, ...("pem" in ca ? { ca: ca.pem } : {}) },
    source: `in-cluster configuration (service account token ${tokenPath})`,
  };
}

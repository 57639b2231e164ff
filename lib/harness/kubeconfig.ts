/**
 * Reads a kubeconfig file into a Target. Only the parts a conformance run needs: the
 * server, TLS trust, and static credentials. Exec and auth-provider plugins are refused
 * with a clear message rather than half-supported.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { load } from "js-yaml";
import type { Target, TargetCredentials } from "./target.js";

export class KubeconfigError extends Error {}

interface Named<T> {
  name?: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function pick<T>(list: unknown, key: "cluster" | "user" | "context", name: string, file: string): Record<string, unknown> {
  const entries = Array.isArray(list) ? (list as Named<T>[]) : [];
  const found = entries.find((e) => asRecord(e).name === name);
  if (!found) throw new KubeconfigError(`kubeconfig ${file}: no ${key} named "${name}"`);
  return asRecord(asRecord(found)[key]);
}

/** File contents from either the `<field>-data` (base64) or the `<field>` (path) entry. */
function pemFrom(entry: Record<string, unknown>, field: string, baseDir: string): string | undefined {
  const data = str(entry[`${field}-data`]);
  if (data) return Buffer.from(data, "base64").toString("utf8");
  const path = str(entry[field]);
  if (!path) return undefined;
  const full = isAbsolute(path) ? path : join(baseDir, path);
  try {
    return readFileSync(full, "utf8");
  } catch {
    throw new KubeconfigError(`kubeconfig: cannot read ${field} file ${full}`);
  }
}

export function defaultKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.KUBECONFIG?.split(":").find((p) => p !== "");
  return fromEnv ?? join(homedir(), ".kube", "config");
}

export function loadKubeconfig(file: string, contextName?: string): Target {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new KubeconfigError(`cannot read kubeconfig ${path}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = asRecord(load(text));
  } catch (e) {
    throw new KubeconfigError(`kubeconfig ${path} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  const ctxName = contextName ?? str(doc["current-context"]);
  if (!ctxName) throw new KubeconfigError(`kubeconfig ${path}: no current-context and no --context given`);
  const ctx = pick(doc.contexts, "context", ctxName, path);
  const clusterName = str(ctx.cluster);
  if (!clusterName) throw new KubeconfigError(`kubeconfig ${path}: context "${ctxName}" names no cluster`);
  const cluster = pick(doc.clusters, "cluster", clusterName, path);
  const server = str(cluster.server);
  if (!server) throw new KubeconfigError(`kubeconfig ${path}: cluster "${clusterName}" has no server`);
  const baseDir = dirname(path);

  const credentials: TargetCredentials = {};
  const userName = str(ctx.user);
  if (userName) {
    const user = pick(doc.users, "user", userName, path);
    if (user.exec !== undefined || user["auth-provider"] !== undefined) {
      throw new KubeconfigError(
        `kubeconfig ${path}: user "${userName}" uses an exec or auth-provider plugin, which tollgate does not run; use a token or client certificate`,
      );
    }
    const token = str(user.token);
    const tokenFile = str(user.tokenFile);
    if (token) credentials.token = token;
    else if (tokenFile) {
      try {
        credentials.token = readFileSync(isAbsolute(tokenFile) ? tokenFile : join(baseDir, tokenFile), "utf8").trim();
      } catch {
        throw new KubeconfigError(`kubeconfig: cannot read tokenFile ${tokenFile}`);
      }
    }
    const username = str(user.username);
    const password = str(user.password);
    if (username && password) credentials.basic = { username, password };
    credentials.clientCert = pemFrom(user, "client-certificate", baseDir);
    credentials.clientKey = pemFrom(user, "client-key", baseDir);
  }
  credentials.ca = pemFrom(cluster, "certificate-authority", baseDir);
  if (cluster["insecure-skip-tls-verify"] === true) credentials.insecureSkipTlsVerify = true;
  const tlsServerName = str(cluster["tls-server-name"]);
  if (tlsServerName) credentials.tlsServerName = tlsServerName;

  return { url: server.replace(/\/+$/, ""), credentials, source: `kubeconfig ${path}, context ${ctxName}` };
}

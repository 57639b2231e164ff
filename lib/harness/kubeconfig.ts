/**
 * Reads kubeconfig files into a Target, as kubectl reads them (client-go tools/clientcmd):
 * several files (KUBECONFIG) merged with the first file winning for each named cluster, user
 * and context and for current-context; missing files of the list skipped; relative paths
 * resolved against the file that names them (an exec command only when it holds a path
 * separator; otherwise it is looked up in PATH). Every field kubectl honours that changes where
 * a request goes or who it acts as is read: server, CA, insecure-skip-tls-verify,
 * tls-server-name, proxy-url, disable-compression; token, tokenFile, basic auth, client
 * certificate and key, exec plugins, the oidc auth-provider, impersonation. Invalid
 * configurations are refused with client-go's messages; no message carries a secret.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { load } from "js-yaml";
import { goFileError, redactUrl } from "./credentials/errors.js";
import { type ExecConfig, execApiVersionError, type InteractiveMode } from "./credentials/exec.js";
import type { Impersonation } from "./credentials/impersonation.js";
import { jwtExpiry, type OidcConfig, oidcToken } from "./credentials/oidc.js";
import type { Target, TargetCredentials } from "./target-model.js";

export class KubeconfigError extends Error {}

type Rec = Record<string, unknown>;

function asRecord(v: unknown): Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Rec) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** A named entry with the file it came from (its relative paths are resolved against that file's directory). */
interface Entry {
  body: Rec;
  file: string;
}

interface Merged {
  files: string[];
  currentContext?: string;
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
}

/** The files to read: --kubeconfig alone; else every file KUBECONFIG lists (deduplicated; missing ones skipped); else ~/.kube/config. */
export function kubeconfigFiles(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  if (explicit) {
    if (!existsSync(explicit)) throw new KubeconfigError(`kubeconfig ${explicit} does not exist`);
    return [explicit];
  }
  const listed = [...new Set((env.KUBECONFIG ?? "").split(delimiter).filter((p) => p !== ""))];
  if (listed.length > 0) {
    const present = listed.filter((p) => existsSync(p));
    if (present.length === 0) throw new KubeconfigError(`kubeconfig: none of the files KUBECONFIG lists exists (${listed.join(", ")})`);
    return present;
  }
  const home = join(homedir(), ".kube", "config");
  if (!existsSync(home)) throw new KubeconfigError(`kubeconfig ${home} does not exist`);
  return [home];
}

function readFile(path: string): Rec {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new KubeconfigError(`cannot read kubeconfig ${path}`);
  }
  try {
    return asRecord(load(text));
  } catch (e) {
    throw new KubeconfigError(`kubeconfig ${path} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
}

/** client-go's merge: for each map key and for current-context, the first file that sets it wins; a name twice in one file is an error. */
function merge(paths: string[]): Merged {
  const m: Merged = { files: paths, clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const path of paths) {
    const doc = readFile(path);
    m.currentContext ??= str(doc["current-context"]);
    for (const [list, key, map] of [
      ["clusters", "cluster", m.clusters],
      ["users", "user", m.users],
      ["contexts", "context", m.contexts],
    ] as const) {
      const seen = new Set<string>();
      for (const item of Array.isArray(doc[list]) ? (doc[list] as unknown[]) : []) {
        const name = asRecord(item).name;
        if (typeof name !== "string") continue;
        if (seen.has(name)) throw new KubeconfigError(`error loading config file ${JSON.stringify(path)}: duplicate name ${JSON.stringify(name)} in ${list}`);
        seen.add(name);
        if (!map.has(name)) map.set(name, { body: asRecord(asRecord(item)[key]), file: path });
      }
    }
  }
  return m;
}

/** A path named in a kubeconfig, made absolute against the directory of the file that names it. */
function resolvePath(path: string, file: string): string {
  return isAbsolute(path) ? path : join(dirname(file), path);
}

function readNamed(path: string): { text?: string; error?: unknown } {
  try {
    return { text: readFileSync(path, "utf8") };
  } catch (e) {
    return { error: e };
  }
}

const INTERACTIVE_MODES: readonly string[] = ["Never", "IfAvailable", "Always"];

/** The removed cloud auth-providers, with client-go 1.35's words (plugin/pkg/client/auth/{gcp,azure}). */
const REMOVED_PROVIDERS: Record<string, string> = {
  gcp: 'The gcp auth plugin has been removed. Please use the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin instead. See https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke for further details',
  azure:
    "The azure auth plugin has been removed. Please use the https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead. See https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins for further details",
};

export function loadKubeconfig(file: string | string[], contextName?: string): Target {
  const paths = (Array.isArray(file) ? file : [file]).map((f) => resolve(f));
  const where = `kubeconfig ${paths.join(delimiter)}`;
  const m = merge(paths);
  const ctxName = contextName ?? m.currentContext;
  if (!ctxName) throw new KubeconfigError(`${where}: no current-context and no --context given`);
  const ctx = m.contexts.get(ctxName)?.body;
  if (!ctx) throw new KubeconfigError(`${where}: no context named "${ctxName}"`);
  const clusterName = str(ctx.cluster);
  if (!clusterName) throw new KubeconfigError(`${where}: context "${ctxName}" names no cluster`);
  const clusterEntry = m.clusters.get(clusterName);
  if (!clusterEntry) throw new KubeconfigError(`${where}: no cluster named "${clusterName}"`);
  const userName = str(ctx.user);
  const userEntry = userName ? m.users.get(userName) : undefined;
  if (userName && !userEntry) throw new KubeconfigError(`${where}: no user named "${userName}"`);

  const problems: string[] = [];
  const credentials: TargetCredentials = {};
  const cluster = clusterEntry.body;

  // The cluster (validateClusterInfo, getServerIdentificationPartialConfig).
  const server = str(cluster.server);
  if (!server) problems.push(`no server found for cluster "${clusterName}"`);
  const proxyUrl = str(cluster["proxy-url"]);
  if (proxyUrl) {
    let scheme: string | undefined;
    try {
      scheme = new URL(proxyUrl).protocol.replace(/:$/, "");
    } catch {
      problems.push(`invalid 'proxy-url' "${redactUrl(proxyUrl)}" for cluster "${clusterName}": could not parse: ${redactUrl(proxyUrl)}`);
    }
    if (scheme !== undefined && !["http", "https", "socks5"].includes(scheme)) {
      problems.push(
        `invalid 'proxy-url' "${redactUrl(proxyUrl)}" for cluster "${clusterName}": unsupported scheme "${scheme}", must be http, https, or socks5`,
      );
    } else if (scheme !== undefined) credentials.proxyUrl = proxyUrl;
  }
  const caData = str(cluster["certificate-authority-data"]);
  const caFile = str(cluster["certificate-authority"]);
  if (caData && caFile)
    problems.push(`certificate-authority-data and certificate-authority are both specified for ${clusterName}. certificate-authority-data will override.`);
  if (caData) credentials.ca = Buffer.from(caData, "base64").toString("utf8");
  else if (caFile) {
    const full = resolvePath(caFile, clusterEntry.file);
    const r = readNamed(full);
    if (r.text === undefined) problems.push(`unable to read certificate-authority ${full} for ${clusterName} due to ${goFileError("open", full, r.error)}`);
    else credentials.ca = r.text;
  }
  if (cluster["insecure-skip-tls-verify"] === true) credentials.insecureSkipTlsVerify = true;
  const tlsServerName = str(cluster["tls-server-name"]);
  if (tlsServerName) credentials.tlsServerName = tlsServerName;
  if (cluster["disable-compression"] === true) credentials.disableCompression = true;

  // The user (validateAuthInfo, getUserIdentificationPartialConfig).
  if (userEntry) {
    const u = userEntry.body;
    const uName = userName as string;
    const methods: string[] = [];
    const token = str(u.token);
    const tokenFile = str(u.tokenFile);
    const username = str(u.username);
    const password = str(u.password);
    if (token) methods.push("token");
    if (username || password) methods.push("basicAuth");
    if (token) credentials.token = token;
    if (tokenFile) {
      const full = resolvePath(tokenFile, userEntry.file);
      if (token) credentials.tokenFile = { path: full, fallback: token };
      else {
        const r = readNamed(full);
        if (r.text === undefined) problems.push(goFileError("open", full, r.error));
        else credentials.tokenFile = { path: full, fallback: r.text.trim() };
      }
      // The file wins over the kubeconfig's token whenever it reads (client-go's bearer round tripper).
      delete credentials.token;
    }
    if (username || password) credentials.basic = { username: username ?? "", password: password ?? "" };

    const certData = str(u["client-certificate-data"]);
    const certFile = str(u["client-certificate"]);
    const keyData = str(u["client-key-data"]);
    const keyFile = str(u["client-key"]);
    if (certData || certFile) {
      if (certData && certFile) problems.push(`client-cert-data and client-cert are both specified for ${uName}. client-cert-data will override.`);
      if (keyData && keyFile) problems.push(`client-key-data and client-key are both specified for ${uName}; client-key-data will override`);
      if (!keyData && !keyFile) problems.push(`client-key-data or client-key must be specified for ${uName} to use the clientCert authentication method.`);
    }
    const pem = (data: string | undefined, path: string | undefined, what: string): string | undefined => {
      if (data) return Buffer.from(data, "base64").toString("utf8");
      if (!path) return undefined;
      const full = resolvePath(path, userEntry.file);
      const r = readNamed(full);
      if (r.text === undefined) problems.push(`unable to read ${what} ${full} for ${uName} due to ${goFileError("open", full, r.error)}`);
      return r.text;
    };
    // A key is used (and read) only with a certificate, as client-go does.
    if (certData || certFile) {
      const clientCert = pem(certData, certFile, "client-cert");
      const clientKey = pem(keyData, keyFile, "client-key");
      if (clientCert) credentials.clientCert = clientCert;
      if (clientKey) credentials.clientKey = clientKey;
    }

    const exec = u.exec === undefined || u.exec === null ? undefined : asRecord(u.exec);
    const provider = u["auth-provider"] === undefined || u["auth-provider"] === null ? undefined : asRecord(u["auth-provider"]);
    if (exec) {
      if (provider) problems.push(`authProvider cannot be provided in combination with an exec plugin for ${uName}`);
      const execCfg = readExec(exec, uName, userEntry.file, problems);
      if (execCfg) {
        const ext = (Array.isArray(cluster.extensions) ? (cluster.extensions as unknown[]) : [])
          .map(asRecord)
          .find((e) => e.name === "client.authentication.k8s.io/exec");
        credentials.exec = {
          ...execCfg,
          cluster: {
            server: server ?? "",
            ...(tlsServerName ? { tlsServerName } : {}),
            ...(credentials.insecureSkipTlsVerify ? { insecureSkipTlsVerify: true } : {}),
            ...(credentials.ca ? { ca: credentials.ca } : {}),
            ...(credentials.proxyUrl ? { proxyUrl: credentials.proxyUrl } : {}),
            ...(credentials.disableCompression ? { disableCompression: true } : {}),
            ...(ext && ext.extension !== undefined && ext.extension !== null ? { config: ext.extension } : {}),
          },
        };
      }
    } else if (provider) {
      const oidc = readAuthProvider(provider, where, uName);
      if (oidc) credentials.oidc = oidc;
    }

    const imp = readImpersonation(u);
    if (imp && !imp.user) problems.push(`requesting uid, groups or user-extra for ${uName} without impersonating a user`);
    else if (imp) credentials.impersonate = imp as Impersonation;
    if (methods.length > 1) problems.push(`more than one authentication method found for ${uName}; found [${methods.join(" ")}], only one is allowed`);
  }

  if (problems.length > 0) {
    throw new KubeconfigError(`${where}: invalid configuration: ${problems.length === 1 ? problems[0] : `[${problems.join(", ")}]`}`);
  }
  // transport.TLSConfigFor, when the client is made.
  if (credentials.ca && credentials.insecureSkipTlsVerify)
    throw new KubeconfigError(`${where}: specifying a root certificates file with the insecure flag is not allowed`);

  return { url: (server as string).replace(/\/+$/, ""), credentials, source: `${where}, context ${ctxName}` };
}

function readExec(exec: Rec, userName: string, file: string, problems: string[]): Omit<ExecConfig, "cluster"> | undefined {
  const command = str(exec.command);
  const apiVersion = str(exec.apiVersion);
  if (!command) problems.push(`command must be specified for ${userName} to use exec authentication plugin`);
  if (!apiVersion) problems.push(`apiVersion must be specified for ${userName} to use exec authentication plugin`);
  const env: { name: string; value: string }[] = [];
  for (const e of Array.isArray(exec.env) ? (exec.env as unknown[]) : []) {
    const r = asRecord(e);
    const name = str(r.name);
    if (!name) problems.push(`env variable name must be specified for ${userName} to use exec authentication plugin`);
    else env.push({ name, value: typeof r.value === "string" ? r.value : "" });
  }
  let mode = str(exec.interactiveMode);
  // tools/clientcmd/api/v1/defaults.go: v1beta1 defaults to IfAvailable; v1 requires the field.
  if (!mode && apiVersion === "client.authentication.k8s.io/v1beta1") mode = "IfAvailable";
  if (!mode) problems.push(`interactiveMode must be specified for ${userName} to use exec authentication plugin`);
  else if (!INTERACTIVE_MODES.includes(mode)) problems.push(`invalid interactiveMode for ${userName}: ${JSON.stringify(mode)}`);
  if (!command || !apiVersion || !mode || !INTERACTIVE_MODES.includes(mode)) return undefined;
  const badVersion = execApiVersionError(apiVersion);
  if (badVersion) {
    problems.push(badVersion);
    return undefined;
  }
  const installHint = str(exec.installHint);
  return {
    // ResolveLocalPaths: only a command with a path separator is made absolute; a bare name is looked up in PATH when run.
    command: command.includes(sep) ? resolvePath(command, file) : command,
    args: strings(exec.args),
    env,
    apiVersion,
    interactiveMode: mode as InteractiveMode,
    provideClusterInfo: exec.provideClusterInfo === true,
    ...(installHint ? { installHint } : {}),
  };
}

/** The legacy auth-providers: gcp and azure are gone from client-go 1.35; oidc's id-token is used while valid (credentials/oidc.ts). */
function readAuthProvider(provider: Rec, where: string, userName: string): OidcConfig | undefined {
  const name = str(provider.name) ?? "";
  const removed = REMOVED_PROVIDERS[name];
  if (removed) throw new KubeconfigError(`${where}: user "${userName}": auth-provider ${name}: ${removed}`);
  if (name !== "oidc") throw new KubeconfigError(`${where}: user "${userName}": no Auth Provider found for name ${JSON.stringify(name)}`);
  const cfg = asRecord(provider.config);
  const issuer = str(cfg["idp-issuer-url"]);
  if (!issuer) throw new KubeconfigError(`${where}: user "${userName}": auth-provider oidc: Must provide idp-issuer-url`);
  if (!str(cfg["client-id"])) throw new KubeconfigError(`${where}: user "${userName}": auth-provider oidc: Must provide client-id`);
  const idToken = str(cfg["id-token"]);
  const oidc: OidcConfig = { ...(idToken ? { idToken } : {}), canRefresh: Boolean(str(cfg["refresh-token"])), issuer };
  try {
    if (idToken) jwtExpiry(idToken);
    oidcToken(oidc);
  } catch (e) {
    throw new KubeconfigError(`${where}: user "${userName}": ${(e as Error).message}`);
  }
  return oidc;
}

function readImpersonation(u: Rec): Partial<Impersonation> | undefined {
  const user = str(u.as);
  const uid = str(u["as-uid"]);
  const groups = strings(u["as-groups"]);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(asRecord(u["as-user-extra"]))) extra[k] = strings(v);
  if (!user && !uid && groups.length === 0 && Object.keys(extra).length === 0) return undefined;
  return { ...(user ? { user } : {}), ...(uid ? { uid } : {}), ...(groups.length ? { groups } : {}), ...(Object.keys(extra).length ? { extra } : {}) };
}

/**
 * Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as client-go runs
 * them (wire-facts §13): the command with its args, the inherited environment plus the
 * kubeconfig's `env` plus KUBERNETES_EXEC_INFO, and an ExecCredential read from its standard
 * output. The credentials are kept until `expirationTimestamp` has passed (or, without one,
 * until a 401), one authenticator per plugin configuration and process.
 *
 * Where tollgate differs, on purpose: the plugin never gets tollgate's standard input (a run
 * executes the plugin in each of its worker processes and cannot prompt: `IfAvailable` means
 * not interactive, `Always` is refused with client-go's words); nothing the plugin writes, on
 * standard output or standard error, is ever shown (client-go passes standard error through:
 * run the command by hand to see why it fails); and it must finish within a time limit.
 */
import { spawn } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, sep } from "node:path";
import { isatty } from "node:tty";
import { load } from "js-yaml";
import { CredentialError, oneLine } from "./errors.js";

const EXEC_API_VERSIONS = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"] as const;
export type InteractiveMode = "Never" | "IfAvailable" | "Always";

/** The cluster as the plugin is told it with provideClusterInfo (pkg/apis/clientauthentication/v1 Cluster; field order as client-go writes it). */
export interface ExecCluster {
  server: string;
  tlsServerName?: string;
  insecureSkipTlsVerify?: boolean;
  /** The CA bundle's PEM text (sent base64-encoded). */
  ca?: string;
  proxyUrl?: string;
  disableCompression?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension (JSON); absent: `null`. */
  config?: unknown;
}

export interface ExecConfig {
  /** As in the kubeconfig; made absolute against the kubeconfig's directory when it holds a path separator. */
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion: string;
  interactiveMode: InteractiveMode;
  provideClusterInfo: boolean;
  installHint?: string;
  cluster: ExecCluster;
}

export interface ExecCredentials {
  token?: string;
  cert?: string;
  key?: string;
  /** expirationTimestamp in ms since the epoch; absent: valid until a 401. */
  expiry?: number;
}

export interface ExecOptions {
  /** How long the plugin may run (default 60 s); then it is killed and the request fails. */
  timeoutMs?: number;
  /** Whether tollgate's standard input is a terminal (default: isatty(0)). */
  isTerminal?: () => boolean;
  now?: () => number;
  /** The environment the plugin inherits (default process.env). */
  environ?: NodeJS.ProcessEnv;
  /** The PATH the command is looked up in (default process.env.PATH, as Go's exec.LookPath). */
  path?: string;
}

const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

const INSTALL_HELP =
  "It looks like you are trying to use a client-go credential plugin that is not installed. To learn more about this feature, consult the documentation available at: https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins";

/** client-go's check when the authenticator is made. */
export function execApiVersionError(apiVersion: string): string | undefined {
  return (EXEC_API_VERSIONS as readonly string[]).includes(apiVersion) ? undefined : `exec plugin: invalid apiVersion ${JSON.stringify(apiVersion)}`;
}

/** Whether the plugin runs interactively: never, for tollgate; `Always` is refused as client-go refuses it. */
function execInteractive(mode: InteractiveMode, isTerminal: () => boolean): false {
  if (mode !== "Always") return false;
  if (!isTerminal()) throw new CredentialError("exec plugin cannot support interactive mode: standard input is not a terminal");
  throw new CredentialError(
    "exec plugin cannot support interactive mode: standard input is unavailable: tollgate runs credential plugins without its terminal; log in first so that the plugin has a cached credential, and set interactiveMode: IfAvailable",
  );
}

/** Keys of every object sorted, as the YAML-to-JSON step of client-go's kubeconfig loading leaves an extension. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortedKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** KUBERNETES_EXEC_INFO: the ExecCredential without status, compact JSON and a newline (wire-facts §13). */
export function execInfo(config: ExecConfig, interactive: boolean): string {
  const spec: Record<string, unknown> = {};
  if (config.provideClusterInfo) {
    const c = config.cluster;
    const cluster: Record<string, unknown> = { server: c.server };
    if (c.tlsServerName) cluster["tls-server-name"] = c.tlsServerName;
    if (c.insecureSkipTlsVerify) cluster["insecure-skip-tls-verify"] = true;
    if (c.ca) cluster["certificate-authority-data"] = Buffer.from(c.ca, "utf8").toString("base64");
    if (c.proxyUrl) cluster["proxy-url"] = c.proxyUrl;
    if (c.disableCompression) cluster["disable-compression"] = true;
    cluster.config = c.config === undefined ? null : sortedKeys(c.config);
    spec.cluster = cluster;
  }
  spec.interactive = interactive;
  return `${JSON.stringify({ kind: "ExecCredential", apiVersion: config.apiVersion, spec })}\n`;
}

/** Go's exec.LookPath: a name with a separator is used as is; otherwise the first executable file in PATH (relative PATH entries are refused, as Go does). */
export function lookPath(command: string, pathEnv: string | undefined): string | undefined {
  const executable = (p: string): boolean => {
    try {
      if (!statSync(p).isFile()) return false;
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes(sep)) return command;
  for (const dir of (pathEnv ?? "").split(delimiter)) {
    const d = dir === "" ? "." : dir;
    if (!isAbsolute(d)) continue;
    const full = join(d, command);
    if (executable(full)) return full;
  }
  return undefined;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  timedOut: boolean;
  tooMuch: boolean;
  spawnError?: NodeJS.ErrnoException;
}

function runBounded(path: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let settled = false;
    const child = spawn(path, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const finish = (o: Partial<Outcome>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout: Buffer.concat(out), timedOut: false, tooMuch: false, ...o });
    };
    const stop = (o: Partial<Outcome>): void => {
      child.kill("SIGKILL");
      child.stdout.destroy();
      child.stderr.destroy();
      finish(o);
    };
    const timer = setTimeout(() => stop({ timedOut: true }), timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_OUTPUT_BYTES) stop({ tooMuch: true });
      else out.push(d);
    });
    // Read and dropped: what a plugin says may hold what it was asked for, and tollgate shows no plugin output.
    child.stderr.resume();
    child.once("error", (e) => finish({ spawnError: e }));
    child.once("close", (code, signal) => finish({ code, signal }));
  });
}

/** A kind or apiVersion the plugin printed, shown only when it looks like one (the output is never shown otherwise). */
const shown = (v: string): string => (/^[A-Za-z0-9][A-Za-z0-9./-]{0,99}$/.test(v) ? JSON.stringify(v) : "(not shown)");

const GO_TYPE = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "boolean" ? "bool" : typeof v);

/** Parses a plugin's standard output into credentials, with client-go's messages; the output itself never goes into a message. */
function parseExecOutput(text: string, apiVersion: string): ExecCredentials {
  const fail = (m: string): never => {
    throw new CredentialError(m);
  };
  if (text.trim() === "") fail("decoding stdout: Object 'Kind' is missing in the plugin's output (it printed nothing)");
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    try {
      doc = load(text);
    } catch {
      fail("decoding stdout: couldn't get version/kind; json parse error: the plugin's output is neither JSON nor YAML");
    }
  }
  const obj = typeof doc === "object" && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  if (typeof obj.kind !== "string" || obj.kind === "") fail("decoding stdout: Object 'Kind' is missing in the plugin's output");
  if (typeof obj.apiVersion !== "string" || obj.apiVersion === "") fail("decoding stdout: Object 'apiVersion' is missing in the plugin's output");
  const kind = obj.kind as string;
  const gotVersion = obj.apiVersion as string;
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(gotVersion) || kind !== "ExecCredential") {
    fail(`decoding stdout: no kind ${shown(kind)} is registered for version ${shown(gotVersion)}`);
  }
  if (gotVersion !== apiVersion) fail(`exec plugin is configured to use API version ${apiVersion}, plugin returned version ${gotVersion}`);
  const status = obj.status;
  if (status === undefined || status === null) fail("exec plugin didn't return a status field");
  if (typeof status !== "object" || Array.isArray(status))
    fail(`decoding stdout: json: cannot unmarshal ${GO_TYPE(status)} into Go struct field ExecCredential.status of type ExecCredentialStatus`);
  const s = status as Record<string, unknown>;
  const field = (name: string): string => {
    const v = s[name];
    if (v === undefined || v === null) return "";
    if (typeof v !== "string")
      fail(`decoding stdout: json: cannot unmarshal ${GO_TYPE(v)} into Go struct field ExecCredentialStatus.status.${name} of type string`);
    return v as string;
  };
  const token = field("token");
  const cert = field("clientCertificateData");
  const key = field("clientKeyData");
  let expiry: number | undefined;
  const ts = s.expirationTimestamp;
  if (ts !== undefined && ts !== null) {
    const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
    if (typeof ts !== "string" || !rfc3339.test(ts) || Number.isNaN(Date.parse(ts))) {
      fail('decoding stdout: parsing time: status.expirationTimestamp is not an RFC 3339 time ("2006-01-02T15:04:05Z07:00")');
    }
    expiry = Date.parse(ts as string);
  }
  if (token === "" && cert === "" && key === "") fail("exec plugin didn't return a token or cert/key pair");
  if ((cert === "") !== (key === "")) fail("exec plugin returned only certificate or key, not both");
  if (cert !== "") checkKeyPair(cert, key);
  return { ...(token ? { token } : {}), ...(cert ? { cert, key } : {}), ...(expiry !== undefined ? { expiry } : {}) };
}

/** tls.X509KeyPair's checks, with its words (no part of the key in the message). */
function checkKeyPair(cert: string, key: string): void {
  const fail = (m: string): never => {
    throw new CredentialError(`failed parsing client key/certificate: ${m}`);
  };
  if (!cert.includes("-----BEGIN")) fail("tls: failed to find any PEM data in certificate input");
  if (!key.includes("-----BEGIN")) fail("tls: failed to find any PEM data in key input");
  let x509: X509Certificate | undefined;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    fail("tls: failed to parse certificate");
  }
  let privateKey: ReturnType<typeof createPrivateKey> | undefined;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    fail("tls: failed to parse private key");
  }
  if (!(x509 as X509Certificate).checkPrivateKey(privateKey as ReturnType<typeof createPrivateKey>)) fail("tls: private key does not match public key");
}

/** Runs the plugin once and returns what it printed, checked. Throws CredentialError with a one-line message naming the plugin. */
export async function runExecPlugin(config: ExecConfig, opts: ExecOptions = {}): Promise<ExecCredentials> {
  const cmd = config.command;
  const fail = (m: string): never => {
    throw new CredentialError(`exec plugin ${cmd}: getting credentials: ${m}`);
  };
  let interactive: boolean;
  try {
    interactive = execInteractive(config.interactiveMode, opts.isTerminal ?? (() => isatty(0)));
  } catch (e) {
    return fail((e as Error).message);
  }
  const path = lookPath(cmd, opts.path ?? process.env.PATH);
  if (path === undefined) return fail(`exec: executable ${cmd} not found. ${INSTALL_HELP}${config.installHint ? ` ${oneLine(config.installHint, 300)}` : ""}`);
  const env: NodeJS.ProcessEnv = { ...(opts.environ ?? process.env) };
  for (const e of config.env) env[e.name] = e.value;
  env.KUBERNETES_EXEC_INFO = execInfo(config, interactive);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  const o = await runBounded(path, config.args, env, timeoutMs);
  if (o.spawnError) {
    if (o.spawnError.code === "ENOENT") return fail(`exec: executable ${cmd} not found. ${INSTALL_HELP}`);
    return fail(`exec: fork/exec ${path}: ${o.spawnError.code === "EACCES" ? "permission denied" : oneLine(o.spawnError.message, 200)}`);
  }
  if (o.timedOut) return fail(`exec: executable ${cmd} did not finish within ${timeoutMs / 1000} s and was stopped`);
  if (o.tooMuch) return fail(`exec: executable ${cmd} printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB and was stopped`);
  if (o.code !== 0) return fail(`exec: executable ${cmd} failed with exit code ${o.code ?? -1}`);
  try {
    return parseExecOutput(o.stdout.toString("utf8"), config.apiVersion);
  } catch (e) {
    return fail((e as Error).message);
  }
}

/**
 * The credentials of one plugin configuration in one process: the plugin runs when there are
 * none yet or they expired (now > expirationTimestamp, no margin), once at a time.
 */
export class ExecAuthenticator {
  private cached: ExecCredentials | undefined;
  private running: Promise<ExecCredentials> | undefined;

  constructor(
    readonly config: ExecConfig,
    private readonly opts: ExecOptions = {},
  ) {}

  /** The credentials last obtained, expired or not (for the TLS layer, which cannot wait). */
  get current(): ExecCredentials | undefined {
    return this.cached;
  }

  /** Valid credentials: the cached ones, or the plugin's next answer (a run under way, after a 401, is waited for). */
  async credentials(): Promise<ExecCredentials> {
    const valid = (c: ExecCredentials | undefined): c is ExecCredentials =>
      c !== undefined && !(c.expiry !== undefined && (this.opts.now ?? Date.now)() > c.expiry);
    if (this.running) {
      try {
        return await this.running;
      } catch (e) {
        if (valid(this.cached)) return this.cached;
        throw e;
      }
    }
    if (valid(this.cached)) return this.cached;
    return this.refresh();
  }

  private refresh(): Promise<ExecCredentials> {
    this.running ??= runExecPlugin(this.config, this.opts)
      .then((c) => {
        this.cached = c;
        return c;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /**
   * A request sent with `used` got 401: run the plugin again at once, unless the credentials
   * changed meanwhile. The 401 stays the request's answer (client-go does not retry).
   */
  unauthorized(used: ExecCredentials): void {
    if (used !== this.cached || this.running) return;
    // A failed rerun keeps the cached credentials in use; the plugin runs again at their expiry or the next 401, where a failure is thrown.
    this.refresh().catch(() => undefined);
  }
}

/** One authenticator per (exec config, cluster) and process, as client-go keeps them; shared across module copies. */
const CACHE = Symbol.for("tollgate.exec-authenticators");
const shared = globalThis as { [CACHE]?: Map<string, ExecAuthenticator> };

export function execAuthenticator(config: ExecConfig): ExecAuthenticator {
  const map = (shared[CACHE] ??= new Map());
  const key = JSON.stringify({ ...config, cluster: config.provideClusterInfo ? config.cluster : undefined });
  let a = map.get(key);
  if (!a) {
    a = new ExecAuthenticator(config);
    map.set(key, a);
  }
  return a;
}

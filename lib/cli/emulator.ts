/** `tollgate emulator`: the reference server on its own, until interrupted; with emulated doc3 daemons when asked. */
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import { ShellSyntaxError, shellWords } from "../daemons/shell-words.js";
import { parseDuration } from "../daemons/values/durations.js";
import { FeatureGateError, parseFeatureGates } from "../emulator/apimachinery/feature-gates.js";
import { CONTROLLER_MANAGER_FAULTS, NODE_AGENT_FAULTS } from "../emulator/daemons/fault-names.js";
import type { EmulatedControllerManagerOptions, EmulatedNodeAgentOptions, RunningEmulatedDaemons } from "../emulator/daemons/index.js";
import { type EmulatorOptions, leaderElection, type RunningEmulator, startEmulator } from "../emulator/index.js";
import { ServiceRangeError, serviceRange } from "../emulator/registry/core/service/cluster-ip.js";
import { servingTlsFromPem, TlsFileError } from "../emulator/tls.js";
import { type Fault, faultByName } from "../faults/index.js";
import { glueValues, parseOptions, UsageError } from "./usage.js";

/** setInterval's limit (2^31-1 ms) in whole seconds; one bound for every duration keeps the rule simple to state. */
const MAX_SECONDS = 2_147_483;

/**
 * A duration flag in decimal seconds, fractions allowed down to the millisecond the emulator
 * works in: 0 would mean "never" for bookmarks but "at once" for retention, so it is refused.
 */
function secondsFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = /^[0-9]+(\.[0-9]+)?$/.test(raw) ? Math.round(Number(raw) * 1000) : NaN;
  if (!(ms >= 1 && ms <= MAX_SECONDS * 1000)) {
    throw new UsageError(`--${flag} must be a number of seconds from 0.001 to ${MAX_SECONDS}, not "${raw}"`);
  }
  return ms;
}

/** A controller's delay in decimal seconds: 0 allowed (the controller still acts after the request). */
function delayFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === "0") return 0;
  return secondsFlag(flag, raw);
}

function portFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const port = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--${flag} must be a port number, not "${raw}"`);
  return port;
}

function argsFlag(flag: string, raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  try {
    return shellWords(raw);
  } catch (e) {
    if (e instanceof ShellSyntaxError) throw new UsageError(`--${flag}: ${e.message}`);
    throw e;
  }
}

/** The users behind the two daemon tokens (the token review stand-in of lib/emulator/daemons/access.ts). */
const DAEMON_ALLOWED_USER = "tollgate-probe";
const DAEMON_DENIED_USER = "tollgate-denied";

export interface EmulatorDaemonArgs {
  controllerManager?: EmulatedControllerManagerOptions;
  nodeAgent?: EmulatedNodeAgentOptions;
  /** Bearer token of an allowed user; random when not given. */
  token: string;
  /** Bearer token of a known user who is not allowed; random when not given. */
  deniedToken: string;
}

export interface EmulatorCommand {
  api: EmulatorOptions & { host: string; port: number };
  /** Present when any daemon flag is given. */
  daemons?: EmulatorDaemonArgs;
  /** --kubeconfig-out: where to write a kubeconfig for the running emulator. */
  kubeconfigOut?: string;
}

/** The names of the kubeconfig's cluster, user and context. */
export const KUBECONFIG_CLUSTER = "tollgate";
export const KUBECONFIG_USER = "tollgate-admin";

/**
 * A kubeconfig that kubectl and every client take as is: the server, the CA to trust (HTTPS),
 * the admin token (with --auth; client-go sends it over https only) and one current context.
 * An unspecified listening address (0.0.0.0, ::) is dialed as loopback.
 */
export function emulatorKubeconfig(url: string, ca: string | undefined, token: string | undefined): string {
  const server = new URL(url);
  if (server.hostname === "0.0.0.0") server.hostname = "127.0.0.1";
  if (server.hostname === "[::]") server.hostname = "[::1]";
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: KUBECONFIG_CLUSTER,
        cluster: { server: server.origin, ...(ca ? { "certificate-authority-data": Buffer.from(ca, "utf8").toString("base64") } : {}) },
      },
    ],
    users: [{ name: KUBECONFIG_USER, user: token ? { token } : {} }],
    contexts: [{ name: KUBECONFIG_CLUSTER, context: { cluster: KUBECONFIG_CLUSTER, user: KUBECONFIG_USER } }],
    "current-context": KUBECONFIG_CLUSTER,
    preferences: {},
  };
  return dump(config, { lineWidth: -1 });
}

/** Writes a file only its owner may read (it holds a credential), whether it existed or not. */
function writePrivate(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The --tls-cert-file / --tls-private-key-file pair, read and checked; a bad one is a one-line usage error. */
function tlsFiles(certFile: string, keyFile: string): EmulatorOptions["tls"] {
  const read = (flag: string, path: string): string => {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      throw new UsageError(`--${flag} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  try {
    return servingTlsFromPem(read("tls-cert-file", certFile), read("tls-private-key-file", keyFile), certFile, keyFile);
  } catch (e) {
    if (e instanceof TlsFileError) throw new UsageError(e.message);
    throw e;
  }
}

/** `--fault NAME...`: faults of the catalog that apply inside the emulator; a wire fault is the proxy's. */
function emulatorFaults(names: readonly string[]): Fault[] {
  return names.map((name) => {
    const f = faultByName(name);
    if (!f) throw new UsageError(`--fault: no fault "${name}" (tollgate rules faults lists them)`);
    if (f.mode === "wire")
      throw new UsageError(`--fault ${name} is a fault of the wire: put it in front of the emulator with tollgate proxy --fault ${name} --target URL`);
    if (f.mode === "checker")
      throw new UsageError(`--fault ${name} is a fault of tollgate's flag checker, not of a server: tollgate run --fault ${name} applies it`);
    return f;
  });
}

/** A size in bytes: a whole number from 1; undefined when not given. */
function bytesFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && Number.isSafeInteger(n))) throw new UsageError(`--${name} must be a whole number of bytes from 1, not "${value}"`);
  return n;
}

/** strconv.ParseBool's spellings, which pflag's bool flags take. */
const GO_TRUE = ["1", "t", "T", "TRUE", "true", "True"];
const GO_FALSE = ["0", "f", "F", "FALSE", "false", "False"];

/** A Go duration of at least 1 ms, in ms. */
function goDurationFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseDuration(raw);
  const ms = parsed.ok ? Number(parsed.value / 1_000_000n) : NaN;
  if (!(ms >= 1 && ms <= MAX_SECONDS * 1000)) throw new UsageError(`--${flag} must be a Go duration from 1ms (e.g. 15s, 500ms), not "${raw}"`);
  return ms;
}

/** The controller manager's leader-election flags (lib/daemons/catalog/controller-manager.ts): the emulated controllers' election. */
function leaderElectionFlags(values: Record<string, string | boolean | (string | boolean)[] | undefined>, api: EmulatorOptions): void {
  const str = (name: string): string | undefined => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const elect = str("leader-elect");
  if (elect !== undefined) {
    if (!GO_TRUE.includes(elect) && !GO_FALSE.includes(elect)) throw new UsageError(`--leader-elect takes true or false, not "${elect}"`);
    api.leaderElect = GO_TRUE.includes(elect);
  }
  const lease = goDurationFlag("leader-elect-lease-duration", str("leader-elect-lease-duration"));
  const renew = goDurationFlag("leader-elect-renew-deadline", str("leader-elect-renew-deadline"));
  const retry = goDurationFlag("leader-elect-retry-period", str("leader-elect-retry-period"));
  if (lease !== undefined) api.leaderElectLeaseDurationMs = lease;
  if (renew !== undefined) api.leaderElectRenewDeadlineMs = renew;
  if (retry !== undefined) api.leaderElectRetryPeriodMs = retry;
  for (const [flag, key] of [
    ["leader-elect-resource-name", "leaderElectResourceName"],
    ["leader-elect-resource-namespace", "leaderElectResourceNamespace"],
  ] as const) {
    const v = str(flag);
    if (v === undefined) continue;
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v) || v.length > 253) throw new UsageError(`--${flag} must be a lowercase DNS name, not "${v}"`);
    api[key] = v;
  }
  // Checked now, not at start: a usage error, as client-go's NewLeaderElector refuses them.
  if (api.leaderElect ?? api.etcdServers !== undefined) {
    try {
      leaderElection(api);
    } catch (e) {
      throw new UsageError(`leader election: ${(e as Error).message}`);
    }
  }
}

/** The whole command line: the API emulator's options, and the daemons' when any daemon flag is given. */
export function parseEmulatorCommand(argv: string[]): EmulatorCommand {
  const { values } = parseOptions({
    // A Go bool flag: bare is true, a value only after "=".
    args: glueValues(
      argv.map((a) => (a === "--leader-elect" ? "--leader-elect=true" : a)),
      ["--controller-manager-args", "--node-agent-args", "--daemon-token", "--daemon-denied-token"],
    ),
    options: {
      port: { type: "string", default: "8080" },
      host: { type: "string", default: "127.0.0.1" },
      admin: { type: "boolean", default: false },
      // Authentication and RBAC; --admin-token sets the administrator's token (random otherwise).
      auth: { type: "boolean", default: false },
      "admin-token": { type: "string" },
      // HTTPS: on with --auth (client-go sends credentials over TLS only) unless --plain-http.
      tls: { type: "boolean", default: false },
      "plain-http": { type: "boolean", default: false },
      "tls-cert-file": { type: "string" },
      "tls-private-key-file": { type: "string" },
      "kubeconfig-out": { type: "string" },
      "bookmark-interval": { type: "string" },
      retention: { type: "string" },
      "continue-lifetime": { type: "string" },
      // The emulated controllers' timing: namespace deletion, and the namespace's default content.
      "namespace-deletion-delay": { type: "string" },
      "no-namespace-content": { type: "boolean", default: false },
      "namespace-content-delay": { type: "string" },
      // kube-apiserver's name; 0 (the default here) means no limit.
      "max-requests-inflight": { type: "string" },
      // etcd's --max-request-bytes and --quota-backend-bytes, for the emulator's store.
      "max-storage-request-bytes": { type: "string" },
      "storage-quota-bytes": { type: "string" },
      // What a watcher that does not read may have waiting before its stream is ended.
      "watch-backlog-bytes": { type: "string" },
      // kube-apiserver's name: the Services' cluster IP range (kubeadm's 10.96.0.0/12 by default).
      "service-cluster-ip-range": { type: "string" },
      // kube-apiserver's form: --feature-gates CBORServingAndStorage=true,APIResponseCompression=false
      "feature-gates": { type: "string" },
      // kube-apiserver's names: store on etcd (comma-separated client URLs), under a key prefix, compacted every interval.
      "etcd-servers": { type: "string" },
      "etcd-prefix": { type: "string" },
      "etcd-compaction-interval": { type: "string" },
      "etcd-healthcheck-timeout": { type: "string" },
      "etcd-readycheck-timeout": { type: "string" },
      // kube-controller-manager's names, for the emulated controllers: Go bools and durations.
      "leader-elect": { type: "string" },
      "leader-elect-lease-duration": { type: "string" },
      "leader-elect-renew-deadline": { type: "string" },
      "leader-elect-retry-period": { type: "string" },
      "leader-elect-resource-name": { type: "string" },
      "leader-elect-resource-namespace": { type: "string" },
      "controller-manager-port": { type: "string" },
      "controller-manager-args": { type: "string" },
      "node-agent-port": { type: "string" },
      "node-agent-read-only-port": { type: "string" },
      "node-agent-healthz-port": { type: "string" },
      "node-agent-args": { type: "string" },
      "daemon-token": { type: "string" },
      "daemon-denied-token": { type: "string" },
      // Self-test: a fault of lib/faults/ of the emulator's state (failpoints) or of its daemons.
      fault: { type: "string", multiple: true },
    },
    allowPositionals: false,
  });
  const faults = emulatorFaults(values.fault ?? []);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  const api: EmulatorOptions & { host: string; port: number } = { host: values.host, port, admin: values.admin };
  const failpoints = faults.flatMap((f) => (f.mode === "emulator" ? f.failpoints : []));
  if (failpoints.length > 0) api.failpoints = failpoints;
  const adminToken = values["admin-token"];
  if (adminToken !== undefined && !values.auth) throw new UsageError("--admin-token needs --auth");
  if (adminToken !== undefined && !/^\S+$/.test(adminToken)) throw new UsageError("--admin-token must be one word without spaces");
  if (values.auth) {
    api.auth = true;
    if (adminToken !== undefined) api.adminToken = adminToken;
  }
  const certFile = values["tls-cert-file"];
  const keyFile = values["tls-private-key-file"];
  if ((certFile === undefined) !== (keyFile === undefined)) throw new UsageError("--tls-cert-file and --tls-private-key-file go together");
  if (values["plain-http"] && (values.tls || certFile !== undefined)) throw new UsageError("--plain-http goes with neither --tls nor --tls-cert-file");
  if (certFile !== undefined && keyFile !== undefined) api.tls = tlsFiles(certFile, keyFile);
  else if (values.tls || (values.auth && !values["plain-http"])) api.tls = "generate";
  const kubeconfigOut = values["kubeconfig-out"];
  if (kubeconfigOut === "") throw new UsageError("--kubeconfig-out needs a file name");
  const bookmarkIntervalMs = secondsFlag("bookmark-interval", values["bookmark-interval"]);
  const retentionMs = secondsFlag("retention", values.retention);
  const continueTokenLifetimeMs = secondsFlag("continue-lifetime", values["continue-lifetime"]);
  // Left out when not given, so the emulator's own defaults apply.
  if (bookmarkIntervalMs !== undefined) api.bookmarkIntervalMs = bookmarkIntervalMs;
  if (retentionMs !== undefined) api.retentionMs = retentionMs;
  if (continueTokenLifetimeMs !== undefined) api.continueTokenLifetimeMs = continueTokenLifetimeMs;
  const deletionDelayMs = delayFlag("namespace-deletion-delay", values["namespace-deletion-delay"]);
  const contentDelayMs = delayFlag("namespace-content-delay", values["namespace-content-delay"]);
  if (deletionDelayMs !== undefined) api.namespaceCleanupDelayMs = deletionDelayMs;
  if (contentDelayMs !== undefined && values["no-namespace-content"])
    throw new UsageError("--namespace-content-delay goes with the namespace content, which --no-namespace-content turns off");
  if (values["no-namespace-content"]) api.namespaceContent = false;
  if (contentDelayMs !== undefined) api.namespaceContentDelayMs = contentDelayMs;
  const inflight = values["max-requests-inflight"];
  if (inflight !== undefined) {
    const n = /^[0-9]+$/.test(inflight) ? Number(inflight) : NaN;
    if (!(n >= 0 && n <= 1_000_000)) throw new UsageError(`--max-requests-inflight must be a whole number from 0 (no limit) to 1000000, not "${inflight}"`);
    api.maxRequestsInFlight = n;
  }
  const maxStorageRequestBytes = bytesFlag("max-storage-request-bytes", values["max-storage-request-bytes"]);
  const storageQuotaBytes = bytesFlag("storage-quota-bytes", values["storage-quota-bytes"]);
  if (maxStorageRequestBytes !== undefined) api.maxStorageRequestBytes = maxStorageRequestBytes;
  if (storageQuotaBytes !== undefined) api.storageQuotaBytes = storageQuotaBytes;
  const etcdServers = values["etcd-servers"];
  if (etcdServers !== undefined) {
    const urls = etcdServers.split(",").filter((u) => u !== "");
    for (const u of urls)
      if (!/^https?:\/\/[^/\s]+\/?$/.test(u)) throw new UsageError(`--etcd-servers takes scheme://host:port URLs, comma-separated, not "${u}"`);
    if (urls.length === 0) throw new UsageError("--etcd-servers needs at least one URL");
    api.etcdServers = urls;
  }
  const etcdPrefix = values["etcd-prefix"];
  const compaction = values["etcd-compaction-interval"];
  const healthTimeout = values["etcd-healthcheck-timeout"];
  const readyTimeout = values["etcd-readycheck-timeout"];
  if ([etcdPrefix, compaction, healthTimeout, readyTimeout].some((v) => v !== undefined) && etcdServers === undefined)
    throw new UsageError("--etcd-prefix, --etcd-compaction-interval and the etcd check timeouts go with --etcd-servers");
  if (healthTimeout !== undefined) api.etcdHealthcheckTimeoutMs = secondsFlag("etcd-healthcheck-timeout", healthTimeout);
  if (readyTimeout !== undefined) api.etcdReadycheckTimeoutMs = secondsFlag("etcd-readycheck-timeout", readyTimeout);
  if (etcdPrefix !== undefined) {
    if (!/^\/[^\s]*$/.test(etcdPrefix) || etcdPrefix.replace(/\/+$/, "") === "")
      throw new UsageError(`--etcd-prefix must be a key prefix starting with /, not "${etcdPrefix}"`);
    api.etcdPrefix = etcdPrefix;
  }
  if (compaction !== undefined) api.etcdCompactionIntervalMs = compaction === "0" ? 0 : secondsFlag("etcd-compaction-interval", compaction);
  const watchBacklogBytes = bytesFlag("watch-backlog-bytes", values["watch-backlog-bytes"]);
  if (watchBacklogBytes !== undefined) api.watchBacklogBytes = watchBacklogBytes;
  const serviceCidr = values["service-cluster-ip-range"];
  if (serviceCidr !== undefined) {
    try {
      serviceRange(serviceCidr);
    } catch (e) {
      if (e instanceof ServiceRangeError) throw new UsageError(`--service-cluster-ip-range: ${e.message}`);
      throw e;
    }
    api.serviceClusterIpRange = serviceCidr;
  }
  leaderElectionFlags(values, api);
  const gates = values["feature-gates"];
  if (gates !== undefined) {
    try {
      api.featureGates = parseFeatureGates(gates);
    } catch (e) {
      if (e instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${e.message}`);
      throw e;
    }
  }

  // A daemon starts when any of its flags is given; a port not given is its command line's
  // (doc3's default when the command line does not set it either).
  const cmPort = portFlag("controller-manager-port", values["controller-manager-port"]);
  const cmArgs = argsFlag("controller-manager-args", values["controller-manager-args"]);
  const agentPorts = {
    port: portFlag("node-agent-port", values["node-agent-port"]),
    readOnlyPort: portFlag("node-agent-read-only-port", values["node-agent-read-only-port"]),
    healthzPort: portFlag("node-agent-healthz-port", values["node-agent-healthz-port"]),
  };
  const agentArgs = argsFlag("node-agent-args", values["node-agent-args"]);
  const withCm = cmPort !== undefined || cmArgs !== undefined;
  const withAgent = agentArgs !== undefined || Object.values(agentPorts).some((p) => p !== undefined);
  const token = values["daemon-token"];
  const deniedToken = values["daemon-denied-token"];
  const cmFaults = CONTROLLER_MANAGER_FAULTS.filter((x) => faults.some((f) => f.mode === "daemons" && f.controllerManager?.includes(x)));
  const agentFaults = NODE_AGENT_FAULTS.filter((x) => faults.some((f) => f.mode === "daemons" && f.nodeAgent?.includes(x)));
  if ((cmFaults.length > 0 && !withCm) || (agentFaults.length > 0 && !withAgent))
    throw new UsageError("--fault: a fault of the daemons needs that daemon (--controller-manager-args or --node-agent-args...)");
  if (!withCm && !withAgent) {
    if (token !== undefined || deniedToken !== undefined)
      throw new UsageError("--daemon-token and --daemon-denied-token need a daemon (--controller-manager-port or --node-agent-port...)");
    return { api, ...(kubeconfigOut ? { kubeconfigOut } : {}) };
  }
  if (token !== undefined && token === deniedToken) throw new UsageError("--daemon-token and --daemon-denied-token must differ");
  const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  return {
    api,
    ...(kubeconfigOut ? { kubeconfigOut } : {}),
    daemons: {
      controllerManager: withCm ? defined({ port: cmPort, args: cmArgs, faults: cmFaults.length > 0 ? cmFaults : undefined }) : undefined,
      nodeAgent: withAgent ? defined({ ...agentPorts, args: agentArgs, faults: agentFaults.length > 0 ? agentFaults : undefined }) : undefined,
      token: token ?? randomBytes(20).toString("hex"),
      deniedToken: deniedToken ?? randomBytes(20).toString("hex"),
    },
  };
}

/** The command line as startEmulator options; a bad value is a UsageError (one line, exit 2). */
export function parseEmulatorArgs(argv: string[]): EmulatorOptions & { host: string; port: number } {
  return parseEmulatorCommand(argv).api;
}

async function startDaemons(host: string, d: EmulatorDaemonArgs): Promise<RunningEmulatedDaemons> {
  const { daemonTls } = await import("../../fixtures/daemons/tls.js");
  const { startEmulatedDaemons } = await import("../emulator/daemons/index.js");
  try {
    return await startEmulatedDaemons({
      host,
      tls: daemonTls(),
      access: { tokens: { [d.token]: DAEMON_ALLOWED_USER, [d.deniedToken]: DAEMON_DENIED_USER }, allowedUsers: [DAEMON_ALLOWED_USER] },
      controllerManager: d.controllerManager,
      nodeAgent: d.nodeAgent,
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A refused command line already says which daemon and why, in one line.
    throw code ? new Error(`cannot start the emulated daemons on ${host}: ${code} ${(e as NodeJS.ErrnoException).message}`) : e;
  }
}

export async function emulatorCommand(argv: string[]): Promise<number> {
  const { api: options, daemons: daemonArgs, kubeconfigOut } = parseEmulatorCommand(argv);
  let emu: RunningEmulator;
  try {
    emu = await startEmulator(options);
  } catch (e) {
    throw new Error(`cannot listen on ${options.host}:${options.port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (kubeconfigOut) {
    try {
      writePrivate(kubeconfigOut, emulatorKubeconfig(emu.url, emu.ca, emu.adminToken));
    } catch (e) {
      await emu.close();
      throw new Error(`cannot write --kubeconfig-out ${kubeconfigOut}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  let daemons: RunningEmulatedDaemons | undefined;
  if (daemonArgs) {
    try {
      daemons = await startDaemons(options.host, daemonArgs);
    } catch (e) {
      await emu.close();
      throw e;
    }
  }
  const faults = argv.flatMap((a, i) => (a === "--fault" ? [argv[i + 1]] : a.startsWith("--fault=") ? [a.slice("--fault=".length)] : []));
  if (faults.length > 0) console.log(`faults on (wrong on purpose, for a self-test): ${faults.join(", ")}`);
  console.log(`listening on ${emu.url}`);
  if (emu.leaderIdentity) console.log(`controllers run while leading, as ${emu.leaderIdentity}`);
  if (emu.adminToken) console.log(`admin token (group system:masters): ${emu.adminToken}`);
  if (kubeconfigOut) console.log(`kubeconfig written to ${kubeconfigOut} (context ${KUBECONFIG_CLUSTER})`);
  else if (emu.ca) console.log("serving certificate made at start: --kubeconfig-out FILE writes a kubeconfig that trusts its CA");
  if (daemons) {
    const cm = daemons.controllerManager;
    const agent = daemons.nodeAgent;
    if (cm) console.log(cm.url ? `controller manager listening on ${cm.url}` : "controller manager: --secure-port=0, nothing served");
    if (agent) {
      console.log(agent.url ? `node agent listening on ${agent.url}` : "node agent: --enable-server=false, no main server");
      if (agent.readOnlyUrl) console.log(`node agent read-only port listening on ${agent.readOnlyUrl}`);
      if (agent.healthzUrl) console.log(`node agent healthz port listening on ${agent.healthzUrl}`);
    }
    // The checker's errors and warnings, and the notes that change what the emulated daemon answers
    // (tokens ignored, everything forbidden). The emulated daemons read their command lines without
    // the checker: they refuse only what a real daemon's flag parsing refuses, and run with the rest.
    // Loaded only with daemons: the catalog and the checker are no part of the API emulator's start.
    const [{ DAEMON_NAMES }, { checkFlags }, { DAEMON_TLS_CERT_FILE }] = await Promise.all([
      import("../daemons/catalog/index.js"),
      import("../daemons/checker/index.js"),
      import("../../fixtures/daemons/tls.js"),
    ]);
    const SHOWN_NOTES = ["doc3.cm-general.authn-kubeconfig-empty-anonymous", "doc3.cm-general.authz-kubeconfig-empty-forbidden"];
    for (const [daemon, d] of [
      ["controller-manager", cm],
      ["node-agent", agent],
    ] as const) {
      for (const f of d ? checkFlags(daemon, d.args) : []) {
        if (f.severity !== "note" || SHOWN_NOTES.includes(f.rule)) console.log(`${DAEMON_NAMES[daemon]}: ${f.severity}: ${f.option}: ${f.message} [${f.rule}]`);
      }
    }
    console.log(`daemon token of an allowed user (${DAEMON_ALLOWED_USER}): ${daemonArgs?.token}`);
    console.log(`daemon token of a known user who is not allowed (${DAEMON_DENIED_USER}): ${daemonArgs?.deniedToken}`);
    console.log(`daemon certificate authority: ${fileURLToPath(DAEMON_TLS_CERT_FILE)}`);
  }
  const running = emu;
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      void Promise.all([running.close(), daemons?.close()]).then(() => resolve());
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

/**
 * How a conformance run is configured between the CLI, vitest's main process and its
 * workers: environment variables in, one RunSettings object provided to every test file.
 */
import { ShellSyntaxError, shellWords } from "../daemons/shell-words.js";
import { DEFAULT_LOAD, type LoadSettings } from "../harness/load.js";
import { newRunId, type RunSettings } from "../harness/session.js";
import { defaultSpecSettings, replicaUrls, type Target } from "../harness/target.js";
import { type Capabilities, GATE_CAPABILITIES, type GateName } from "./capabilities.js";
import type { Selection } from "./selection.js";

export const ENV = {
  target: "TOLLGATE_TARGET",
  kubeconfig: "TOLLGATE_KUBECONFIG",
  context: "TOLLGATE_CONTEXT",
  token: "TOLLGATE_TOKEN",
  /** "1": the pod's service account (`tollgate run --in-cluster`). */
  inCluster: "TOLLGATE_IN_CLUSTER",
  /** `tollgate run --replica`: other API servers of the target's cluster, comma-separated URLs. */
  replicas: "TOLLGATE_REPLICAS",
  runId: "TOLLGATE_RUN_ID",
  groupDomain: "TOLLGATE_GROUP_DOMAIN",
  vendor: "TOLLGATE_VENDOR",
  // How the run is made: the property seed, gates the operator declared, the thorough mode.
  seed: "TOLLGATE_SEED",
  featureGates: "TOLLGATE_FEATURE_GATES",
  thoroughMinutes: "TOLLGATE_THOROUGH_MINUTES",
  /** Profiles whose not-verified rules fail the run (read by the summary, `tollgate run --require`). */
  require: "TOLLGATE_REQUIRE",
  // Load manners (lib/harness/load.ts): --qps, --burst, --max-inflight, --request-timeout (milliseconds).
  qps: "TOLLGATE_QPS",
  burst: "TOLLGATE_BURST",
  maxInflight: "TOLLGATE_MAX_INFLIGHT",
  requestTimeoutMs: "TOLLGATE_REQUEST_TIMEOUT_MS",
  /** --focus, --skip, --rerun-failed as JSON (lib/runner/selection.ts). */
  selection: "TOLLGATE_SELECTION",
  /** --list: collect the tests, run nothing, contact no target. */
  collectOnly: "TOLLGATE_COLLECT_ONLY",
  /** Set by `tollgate run`, which handles SIGINT and SIGTERM for the whole run. */
  cli: "TOLLGATE_CLI",
  /** The global setup file vitest.config.ts names: the compiled copy when `tollgate run` runs from dist/ (lib/cli/run.ts). */
  globalSetup: "TOLLGATE_GLOBAL_SETUP",
  // The daemons of doc3 (suites/daemons/probes.test.ts): where they serve, how they were started, how to reach them.
  controllerManager: "TOLLGATE_CONTROLLER_MANAGER",
  nodeAgent: "TOLLGATE_NODE_AGENT",
  nodeAgentHealthz: "TOLLGATE_NODE_AGENT_HEALTHZ",
  nodeAgentReadOnly: "TOLLGATE_NODE_AGENT_READ_ONLY",
  controllerManagerArgs: "TOLLGATE_CONTROLLER_MANAGER_ARGS",
  nodeAgentArgs: "TOLLGATE_NODE_AGENT_ARGS",
  daemonToken: "TOLLGATE_DAEMON_TOKEN",
  daemonDeniedToken: "TOLLGATE_DAEMON_DENIED_TOKEN",
  daemonCa: "TOLLGATE_DAEMON_CA",
  daemonInsecure: "TOLLGATE_DAEMON_INSECURE",
  // Client certificates (PEM files) for doc3 "Authentication" (suites/daemons/certificates.test.ts).
  daemonClientCert: "TOLLGATE_DAEMON_CLIENT_CERT",
  daemonClientKey: "TOLLGATE_DAEMON_CLIENT_KEY",
  daemonProxyCert: "TOLLGATE_DAEMON_PROXY_CERT",
  daemonProxyKey: "TOLLGATE_DAEMON_PROXY_KEY",
  daemonUnlistedProxyCert: "TOLLGATE_DAEMON_UNLISTED_PROXY_CERT",
  daemonUnlistedProxyKey: "TOLLGATE_DAEMON_UNLISTED_PROXY_KEY",
  /** `tollgate run --fault`: fault names of lib/faults/, comma-separated (self-test only). */
  faults: "TOLLGATE_FAULTS",
  /** The self-test's shared runs: JSON {fault name: [suite names]} limiting each wire fault to its suites' requests. */
  faultScopes: "TOLLGATE_FAULT_SCOPES",
  /** The self-test's clean variant: "1" applies only a daemon fault's command lines, none of its misbehaviours. */
  faultVariantOnly: "TOLLGATE_FAULT_VARIANT_ONLY",
} as const;

/** The certificate/key environment variable pairs, with what each certificate must be. */
const CERT_PAIRS = [
  { name: "clientCert", cert: ENV.daemonClientCert, key: ENV.daemonClientKey },
  { name: "proxyCert", cert: ENV.daemonProxyCert, key: ENV.daemonProxyKey },
  { name: "unlistedProxyCert", cert: ENV.daemonUnlistedProxyCert, key: ENV.daemonUnlistedProxyKey },
] as const;

/** The `--replica` URLs the environment names (none when unset). */
export function replicaUrlsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return replicaUrls([env[ENV.replicas] ?? ""]);
}

export function runIdFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env[ENV.runId] || newRunId();
}

export function specSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RunSettings["spec"] {
  return {
    groupDomain: env[ENV.groupDomain] || defaultSpecSettings.groupDomain,
    vendor: env[ENV.vendor] || defaultSpecSettings.vendor,
  };
}

/**
 * The daemon targets of a run. A URL left out means that server is not checked (its tests
 * skip). The command lines say how the daemons were started, which decides what the probes
 * expect (always-allow paths, anonymous requests, authorization mode...); left out, they are
 * doc3's defaults.
 */
export interface DaemonSettings {
  /** `https://host:port` of the controller manager's secure port. */
  controllerManager?: string;
  /** `https://host:port` of the node agent's main server. */
  nodeAgent?: string;
  /** `http://host:port` of the node agent's health server. */
  nodeAgentHealthz?: string;
  /** `http://host:port` of the node agent's read-only server. */
  nodeAgentReadOnly?: string;
  controllerManagerArgs: string[];
  nodeAgentArgs: string[];
  /** Bearer token of a user the daemons authenticate and authorize. */
  token?: string;
  /** Bearer token of a user the daemons authenticate but do not authorize. */
  deniedToken?: string;
  /** PEM certificates to trust on the HTTPS ports (default: the system's). */
  ca?: string;
  /** Skip TLS verification on the HTTPS ports. */
  insecure: boolean;
  /** A client certificate issued by the daemons' --client-ca-file (its common name is the user it should be taken for). */
  clientCert?: PemPair;
  /** A client certificate issued by the controller manager's --requestheader-client-ca-file, with a common name its --requestheader-allowed-names allows. */
  proxyCert?: PemPair;
  /** Issued by that CA too, with a common name not in a non-empty --requestheader-allowed-names. */
  unlistedProxyCert?: PemPair;
  /** Where these came from, for messages: "command line" or "emulated daemons". */
  source: string;
}

export interface PemPair {
  cert: string;
  key: string;
}

/** RunSettings as provided to the test files: the API target's, plus the daemons when a run has any. */
export interface ProvidedSettings extends RunSettings {
  daemons?: DaemonSettings;
  /** Other API servers of the target's cluster (`--replica`), reached with its credentials; empty without. */
  replicas?: Target[];
  /** What the target offers, detected once before any test (lib/runner/detect.ts). */
  capabilities: Capabilities;
  /** The seed of every property test of the run (`tollgate run --seed N` repeats it). */
  seed: number;
  /** --thorough: how long a test may wait for what a real server only shows with time. */
  thorough: { enabled: boolean; minutes: number };
  /** How long a test waits for a periodic BOOKMARK (detected cadence; a minute and more with --thorough; 0 when none is expected). */
  bookmarkWaitMs: number;
  /** One worker's load manners: its share of the run's --qps, --burst and --max-inflight. */
  load: LoadSettings;
  /** --focus, --skip, --rerun-failed; undefined: every test. */
  selection?: Selection;
  /** --list: the tests are collected, none runs, and the target is not contacted. */
  collectOnly: boolean;
  /** `tollgate run` handles SIGINT for the whole run, so a worker leaves it to it. */
  cliSignals: boolean;
  /** The project's test timeout (ms), for tests that declare none. */
  testTimeoutMs?: number;
  /**
   * No target runs behind the tests (the mutation runs of the flag checker, whose tests need none):
   * a failed test is never put down to the target as "target unavailable".
   */
  targetless?: boolean;
}

export class SettingsError extends Error {}

/** `--seed`: a non-negative 32-bit integer; absent, a fresh one (printed, so a failure can be repeated). */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env, fresh: () => number = () => Math.floor(Math.random() * 0x7fffffff)): number {
  const raw = env[ENV.seed];
  if (raw === undefined || raw === "") return fresh();
  if (!/^[0-9]+$/.test(raw) || Number(raw) > 0x7fffffff) throw new SettingsError(`seed ${JSON.stringify(raw)}: expected an integer from 0 to ${0x7fffffff}`);
  return Number(raw);
}

/** `--thorough[-minutes]`: on when the environment gives the minutes to wait at most. */
export function thoroughFromEnv(env: NodeJS.ProcessEnv = process.env): { enabled: boolean; minutes: number } {
  const raw = env[ENV.thoroughMinutes];
  if (raw === undefined || raw === "") return { enabled: false, minutes: 0 };
  const minutes = Number(raw);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 120)
    throw new SettingsError(`thorough minutes ${JSON.stringify(raw)}: expected a number above 0, at most 120`);
  return { enabled: true, minutes };
}

/** `--feature-gates Name=bool,...`: the gates whose state decides a capability (others are refused: a typo must not go unnoticed). */
export function declaredGatesFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<GateName, boolean>> {
  const raw = env[ENV.featureGates];
  if (raw === undefined || raw.trim() === "") return {};
  const out: Partial<Record<GateName, boolean>> = {};
  for (const item of raw.split(",")) {
    const m = /^\s*([A-Za-z0-9]+)=(true|false)\s*$/.exec(item);
    if (!m) throw new SettingsError(`--feature-gates: "${item}" is not Name=true or Name=false`);
    const name = m[1] as string;
    if (!Object.hasOwn(GATE_CAPABILITIES, name))
      throw new SettingsError(`--feature-gates: ${name} is not a gate tollgate's verdicts depend on (known: ${Object.keys(GATE_CAPABILITIES).join(", ")})`);
    out[name as GateName] = m[2] === "true";
  }
  return out;
}

/** A non-negative number from the environment, or undefined when unset. */
function numberFromEnv(env: NodeJS.ProcessEnv, name: string, integer: boolean): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new SettingsError(`${name} ${JSON.stringify(raw)}: expected a ${integer ? "whole " : ""}number, 0 or more`);
  return n;
}

/**
 * The run's load manners (lib/harness/load.ts): kubectl's defaults against a target given on the
 * command line; against the embedded emulator, which is the run's own and shared with no one, no
 * rate limit unless one is asked for. Whatever the environment sets wins.
 */
export function loadFromEnv(env: NodeJS.ProcessEnv, embedded: boolean): LoadSettings {
  const base: LoadSettings = embedded ? { ...DEFAULT_LOAD, qps: 0 } : { ...DEFAULT_LOAD };
  return {
    ...base,
    qps: numberFromEnv(env, ENV.qps, false) ?? base.qps,
    burst: numberFromEnv(env, ENV.burst, true) ?? base.burst,
    maxInflight: numberFromEnv(env, ENV.maxInflight, true) ?? base.maxInflight,
    requestTimeoutMs: numberFromEnv(env, ENV.requestTimeoutMs, true) ?? base.requestTimeoutMs,
  };
}

/** One worker's share of the run's budget: vitest runs test files in up to `workers` processes at once, each with its own client. */
export function workerShare(load: LoadSettings, workers: number): LoadSettings {
  const n = Math.max(1, workers);
  return {
    ...load,
    qps: load.qps / n,
    burst: load.qps > 0 ? Math.max(1, Math.floor(load.burst / n)) : load.burst,
    maxInflight: load.maxInflight > 0 ? Math.max(1, Math.floor(load.maxInflight / n)) : 0,
  };
}

export function selectionFromEnv(env: NodeJS.ProcessEnv = process.env): Selection | undefined {
  const raw = env[ENV.selection];
  if (raw === undefined || raw === "") return undefined;
  try {
    const sel = JSON.parse(raw) as Selection;
    if (!Array.isArray(sel.focus) || !Array.isArray(sel.skip)) throw new Error("focus and skip must be lists");
    return sel;
  } catch (e) {
    throw new SettingsError(`${ENV.selection}: ${(e as Error).message}`);
  }
}

export class DaemonSettingsError extends Error {}

const argsFromEnv = (name: string, value: string | undefined): string[] => {
  try {
    return value ? shellWords(value) : [];
  } catch (e) {
    if (e instanceof ShellSyntaxError) throw new DaemonSettingsError(`${name}: ${e.message}`);
    throw e;
  }
};

/**
 * The daemon targets the environment names, or undefined when it names none (then the
 * embedded run starts emulated ones). `readFile` reads TOLLGATE_DAEMON_CA and the certificate
 * and key files, all paths. A certificate without its key, or a key without its certificate,
 * is a DaemonSettingsError.
 */
export function daemonSettingsFromEnv(env: NodeJS.ProcessEnv, readFile: (path: string) => string): DaemonSettings | undefined {
  const url = (name: string): string | undefined => env[name] || undefined;
  const targets = {
    controllerManager: url(ENV.controllerManager),
    nodeAgent: url(ENV.nodeAgent),
    nodeAgentHealthz: url(ENV.nodeAgentHealthz),
    nodeAgentReadOnly: url(ENV.nodeAgentReadOnly),
  };
  if (Object.values(targets).every((v) => v === undefined)) return undefined;
  const caFile = env[ENV.daemonCa] || undefined;
  const pairs: Partial<Record<(typeof CERT_PAIRS)[number]["name"], PemPair>> = {};
  for (const p of CERT_PAIRS) {
    const cert = env[p.cert] || undefined;
    const key = env[p.key] || undefined;
    if ((cert === undefined) !== (key === undefined))
      throw new DaemonSettingsError(`${cert === undefined ? p.key : p.cert} needs ${cert === undefined ? p.cert : p.key} too`);
    if (cert !== undefined && key !== undefined) pairs[p.name] = { cert: readFile(cert), key: readFile(key) };
  }
  return {
    ...pairs,
    ...targets,
    controllerManagerArgs: argsFromEnv(ENV.controllerManagerArgs, env[ENV.controllerManagerArgs]),
    nodeAgentArgs: argsFromEnv(ENV.nodeAgentArgs, env[ENV.nodeAgentArgs]),
    token: env[ENV.daemonToken] || undefined,
    deniedToken: env[ENV.daemonDeniedToken] || undefined,
    ca: caFile === undefined ? undefined : readFile(caFile),
    insecure: ["1", "true"].includes(env[ENV.daemonInsecure] ?? ""),
    source: "command line",
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    tollgate: ProvidedSettings;
  }
}

/**
 * How a conformance run is configured between the CLI, vitest's main process and its
 * workers: environment variables in, one RunSettings object provided to every test file.
 */
import { ShellSyntaxError, shellWords } from "../daemons/shell-words.js";
import { newRunId, type RunSettings } from "../harness/session.js";
import { defaultSpecSettings } from "../harness/target.js";

export const ENV = {
  target: "TOLLGATE_TARGET",
  kubeconfig: "TOLLGATE_KUBECONFIG",
  context: "TOLLGATE_CONTEXT",
  token: "TOLLGATE_TOKEN",
  runId: "TOLLGATE_RUN_ID",
  groupDomain: "TOLLGATE_GROUP_DOMAIN",
  vendor: "TOLLGATE_VENDOR",
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
} as const;

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
  /** Where these came from, for messages: "command line" or "emulated daemons". */
  source: string;
}

/** RunSettings as provided to the test files: the API target's, plus the daemons when a run has any. */
export interface ProvidedSettings extends RunSettings {
  daemons?: DaemonSettings;
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
 * embedded run starts emulated ones). `readCa` reads TOLLGATE_DAEMON_CA, a file path.
 */
export function daemonSettingsFromEnv(env: NodeJS.ProcessEnv, readCa: (path: string) => string): DaemonSettings | undefined {
  const url = (name: string): string | undefined => env[name] || undefined;
  const targets = {
    controllerManager: url(ENV.controllerManager),
    nodeAgent: url(ENV.nodeAgent),
    nodeAgentHealthz: url(ENV.nodeAgentHealthz),
    nodeAgentReadOnly: url(ENV.nodeAgentReadOnly),
  };
  if (Object.values(targets).every((v) => v === undefined)) return undefined;
  const caFile = env[ENV.daemonCa] || undefined;
  return {
    ...targets,
    controllerManagerArgs: argsFromEnv(ENV.controllerManagerArgs, env[ENV.controllerManagerArgs]),
    nodeAgentArgs: argsFromEnv(ENV.nodeAgentArgs, env[ENV.nodeAgentArgs]),
    token: env[ENV.daemonToken] || undefined,
    deniedToken: env[ENV.daemonDeniedToken] || undefined,
    ca: caFile === undefined ? undefined : readCa(caFile),
    insecure: ["1", "true"].includes(env[ENV.daemonInsecure] ?? ""),
    source: "command line",
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    tollgate: ProvidedSettings;
  }
}

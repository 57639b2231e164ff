/**
 * The doc3 daemons' part of the capability set (lib/runner/capabilities.ts): which daemon
 * servers and credentials the run was given, what the daemons' command lines make them do
 * (read as lib/runner/daemon-views.ts reads them for the suites), and the few things only a
 * daemon's answer tells, asked once here before any test, each request bounded by a timeout.
 *
 * An answer no real 1.35 daemon gives (a 5xx, a body that is not what the path serves) is a
 * violation of the doc3 rule the probe exercises, and leaves the capability unavailable. A
 * daemon that does not answer at all is no evidence against it: the capability is unavailable
 * with "no answer from ...", and the tests that talk to that server fail on their own.
 */
import { readFileSync } from "node:fs";
import { daemonClient } from "../daemons/daemon-client.js";
import {
  controlLoopExpectations,
  type HttpClient,
  listsControllers,
  type ProbeResponse,
  parseAgentPods,
  parseRuntimePods,
  reportsRunningContainer,
  verboseHealthChecks,
} from "../daemons/probes.js";
import type { RuleId } from "../spec/catalog.js";
import type { CapabilityState } from "./capabilities.js";
import { AGENT_CAPABILITIES, CM_CAPABILITIES, DAEMON_CAPABILITIES, type RUN_DAEMON_CAPABILITIES } from "./daemon-capability-names.js";
import { type ControllerManagerView, type Credentials, controllerManagerView, type NodeAgentView, nodeAgentView, sniSetup } from "./daemon-views.js";
import type { Violation } from "./detect.js";
import type { DaemonSettings } from "./settings.js";

type States<T> = Record<keyof T, CapabilityState>;
export type DaemonCapabilities = States<typeof DAEMON_CAPABILITIES>;

export interface DaemonDetection {
  capabilities: DaemonCapabilities;
  /** Answers of a daemon probe that no real 1.35 daemon gives: failures of the named rules. */
  violations: Violation[];
}

export interface DaemonDetectionOptions {
  /** Bound of each probe request in milliseconds (default 5 s). */
  timeoutMs?: number;
  /** Reads the --tls-sni-cert-key certificate files (default: this machine's file system). */
  readFile?: (path: string) => string;
}

const PROBE_TIMEOUT_MS = 5_000;
const yes = (evidence: string): CapabilityState => ({ available: true, evidence });
const no = (evidence: string): CapabilityState => ({ available: false, evidence });
const brief = (r: ProbeResponse): string => `HTTP ${r.status}${r.body ? ` ${JSON.stringify(r.body.slice(0, 120))}` : ""}`;

/** Every capability of `table` with the same state (a daemon not given). */
function all<T extends Record<string, string>>(table: T, state: CapabilityState): States<T> {
  return Object.fromEntries(Object.keys(table).map((k) => [k, state])) as States<T>;
}

type Violate = (probe: string, rules: RuleId[], message: string) => void;

/** One GET of a probe: the answer, or the transport error when none came. */
async function ask(client: HttpClient, url: string, credentials: Credentials): Promise<ProbeResponse | Error> {
  try {
    return await client({ url, headers: credentials });
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** What the run's daemon settings offer, with one probe of each daemon answer that decides a test's applicability. */
export async function detectDaemons(d: DaemonSettings | undefined, options: DaemonDetectionOptions = {}): Promise<DaemonDetection> {
  const violations: Violation[] = [];
  if (!d) {
    const none = no("no daemon target given (tollgate run --controller-manager URL / --node-agent URL ...; an embedded run emulates both)");
    return { capabilities: all(DAEMON_CAPABILITIES, none), violations };
  }
  const violate: Violate = (probe, rules, message) => void violations.push({ probe, rules, message });
  const client = daemonClient(d, options.timeoutMs ?? PROBE_TIMEOUT_MS);
  const [cm, agent] = await Promise.all([
    controllerManagerCapabilities(d, controllerManagerView(d), client, options.readFile ?? ((path) => readFileSync(path, "utf8")), violate),
    nodeAgentCapabilities(d, nodeAgentView(d), client, violate),
  ]);
  return { capabilities: { ...runCapabilities(d), ...cm, ...agent }, violations };
}

function runCapabilities(d: DaemonSettings): States<typeof RUN_DAEMON_CAPABILITIES> {
  const agentUrls = [d.nodeAgent, d.nodeAgentHealthz, d.nodeAgentReadOnly].filter(Boolean);
  return {
    "controller-manager": d.controllerManager
      ? yes(`${d.controllerManager} (${d.source})`)
      : no("no controller manager target given (--controller-manager URL)"),
    "node-agent": agentUrls.length > 0 ? yes(`${agentUrls.join(", ")} (${d.source})`) : no("no node agent server given (--node-agent URL ...)"),
    "daemon-token": d.token ? yes("a daemon token is given (--daemon-token)") : no("no daemon token given (--daemon-token): nobody to be authorized as"),
    "daemon-any-token":
      d.token || d.deniedToken
        ? yes(`${d.token ? "the allowed user's" : "the not-allowed user's"} token is given`)
        : no("no daemon token given (--daemon-token, --daemon-denied-token)"),
    "daemon-client-cert": d.clientCert
      ? yes("a client certificate is given (--daemon-client-cert)")
      : no("no client certificate given (--daemon-client-cert FILE --daemon-client-key FILE)"),
    "daemon-proxy-cert": d.proxyCert
      ? yes("a front-proxy certificate is given (--daemon-proxy-cert)")
      : no("no front-proxy certificate given (--daemon-proxy-cert FILE --daemon-proxy-key FILE)"),
  };
}

async function controllerManagerCapabilities(
  d: DaemonSettings,
  cm: ControllerManagerView | undefined,
  client: HttpClient,
  readFile: (path: string) => string,
  violate: Violate,
): Promise<States<typeof CM_CAPABILITIES>> {
  if (!cm) return all(CM_CAPABILITIES, no("no controller manager target given (--controller-manager URL)"));
  const line = "the controller manager's command line given";
  const { view, target } = cm;
  const portOff = no(`${line} says --secure-port=0: it serves nothing`);

  let alwaysAllow: CapabilityState;
  if (!target) alwaysAllow = portOff;
  else if (target.alwaysAllowPaths.length === 0) alwaysAllow = no(`${line} sets no always-allow path`);
  else if (cm.askableAlwaysAllowPaths.length === 0)
    alwaysAllow = no(`${line} sets only always-allow patterns with * (${target.alwaysAllowPaths.join(", ")}): no single path to ask`);
  else alwaysAllow = yes(`always-allow paths ${cm.askableAlwaysAllowPaths.join(", ")}`);

  const loops = controlLoopExpectations(d.controllerManagerArgs);
  const lookup = "the cluster's, looked up through --authentication-kubeconfig";
  const clientCa = cm.clientCa
    ? yes(`${line} has ${view.set("--client-ca-file") ? "--client-ca-file" : `no --client-ca-file, but ${lookup}`}`)
    : no(`${line} has no --client-ca-file (and no lookup of the cluster's): it reads no client certificate`);
  const requestHeaderCa = cm.requestHeaderCa
    ? yes(`${line} has ${view.set("--requestheader-client-ca-file") ? "--requestheader-client-ca-file" : `no --requestheader-client-ca-file, but ${lookup}`}`)
    : no(`${line} has no --requestheader-client-ca-file (and no lookup of the cluster's): it trusts no identity header`);

  return {
    "cm-secure-port": target ? yes(`${line} serves HTTPS (--secure-port is not 0)`) : portOff,
    "cm-always-allow-paths": alwaysAllow,
    "cm-authentication-file": cm.authenticationFile
      ? yes(`${line} has --authentication-kubeconfig: tokens are reviewed`)
      : no(`${line} has no --authentication-kubeconfig: tokens are not reviewed, every request is anonymous`),
    "cm-authorization-file": cm.authorizationFile
      ? yes(`${line} has --authorization-kubeconfig: a subject access review decides`)
      : no(`${line} has no --authorization-kubeconfig: no subject access review is made`),
    "cm-healthz-access": !target
      ? portOff
      : cm.healthzReader
        ? yes(`/healthz?verbose is read ${cm.healthzReader.who}`)
        : no("/healthz is not an always-allow path and no daemon token can be authorized (--daemon-token, both connection files)"),
    "cm-core-loops":
      loops.enabled.length + loops.disabled.length > 0
        ? yes(`${line} enables ${loops.enabled.join(", ") || "no core loop"}${loops.disabled.length ? ` and disables ${loops.disabled.join(", ")}` : ""}`)
        : no(`${line} enables none of the core loops and disables none by name`),
    "cm-controller-checks": target ? await controllerChecks(cm, client, violate) : portOff,
    "cm-client-ca": clientCa,
    "cm-request-header-ca": requestHeaderCa,
    "cm-client-certificates":
      cm.clientCa || cm.requestHeaderCa
        ? yes(cm.clientCa ? clientCa.evidence : requestHeaderCa.evidence)
        : no(`${line} has no --client-ca-file or --requestheader-client-ca-file: it asks for no client certificate`),
    "cm-username-headers": cm.usernameHeader
      ? yes(`${line} names ${cm.usernameHeader} in --requestheader-username-headers`)
      : no(`${line} sets no --requestheader-username-headers`),
    ...sniCapabilities(cm, readFile, line),
  };
}

/** /healthz?verbose, read once: a standby that does not lead (or one that runs no loop) lists no controller check. */
async function controllerChecks(cm: ControllerManagerView, client: HttpClient, violate: Violate): Promise<CapabilityState> {
  if (!cm.healthzReader) return no("/healthz is not an always-allow path and no daemon token can be authorized (--daemon-token, both connection files)");
  const url = `${cm.url}/healthz?verbose`;
  const r = await ask(client, url, cm.healthzReader.credentials);
  if (r instanceof Error) return no(`no answer from ${url}: ${r.message}`);
  const checks = verboseHealthChecks(r);
  if (checks === undefined) {
    violate(
      "controller manager /healthz?verbose",
      ["doc3.service.cm-control-loops"],
      `GET ${url} ${cm.healthzReader.who} answered ${brief(r)}: a controller manager lists its checks, [+]<name> ok, with HTTP 200`,
    );
    return no(`GET ${url} answered ${r.status}, not the list of checks`);
  }
  if (!listsControllers(checks))
    return no(`/healthz?verbose lists no controller (${checks.join(", ")}): a standby that does not lead, or one that runs no loop`);
  return yes(`/healthz?verbose lists ${checks.filter((c) => c.endsWith("-controller")).length} controller checks`);
}

function sniCapabilities(
  cm: ControllerManagerView,
  readFile: (path: string) => string,
  line: string,
): States<Pick<typeof CM_CAPABILITIES, "cm-sni-cert-key" | "cm-sni-files" | "cm-sni-overlap">> {
  const sni = sniSetup(cm.view, readFile);
  if (sni.kind === "none") {
    const none = no(`${line} has no --tls-sni-cert-key`);
    return { "cm-sni-cert-key": none, "cm-sni-files": none, "cm-sni-overlap": none };
  }
  if (sni.kind === "malformed") {
    const bad = no(`--tls-sni-cert-key ${sni.error}`);
    return { "cm-sni-cert-key": bad, "cm-sni-files": bad, "cm-sni-overlap": bad };
  }
  const count = cm.view.occurrences("--tls-sni-cert-key").length;
  const entries = yes(`${line} has ${count} --tls-sni-cert-key entr${count === 1 ? "y" : "ies"}`);
  if (sni.kind === "unreadable") {
    const unread = no(
      `cannot read ${sni.file} here (${sni.error}): the check compares the served certificates with the files, so run it where the command line's paths can be read`,
    );
    return { "cm-sni-cert-key": entries, "cm-sni-files": unread, "cm-sni-overlap": unread };
  }
  const shown = sni.expectations.filter((e) => e.shows.length > 0);
  return {
    "cm-sni-cert-key": entries,
    "cm-sni-files": yes(`the ${count} certificate files were read here`),
    "cm-sni-overlap":
      shown.length > 0
        ? yes(`matched by two entries: ${shown.map((e) => `${e.serverName} (${e.shows.join(", ")})`).join("; ")}`)
        : no("no server name is matched by two of the command line's --tls-sni-cert-key entries: nothing shows which one wins"),
  };
}

async function nodeAgentCapabilities(
  d: DaemonSettings,
  agent: NodeAgentView | undefined,
  client: HttpClient,
  violate: Violate,
): Promise<States<typeof AGENT_CAPABILITIES>> {
  if (!agent) return all(AGENT_CAPABILITIES, no("no node agent server given (--node-agent URL ...)"));
  const line = "the node agent's command line given";
  const { targets } = agent;
  const noMain = no("no node agent main server given (--node-agent URL)");
  const noAuthorized = no(
    "no authorized client: anonymous requests are not permitted everything and no token can be authenticated (--authentication-token-webhook and --daemon-token)",
  );
  const noDebugging = no("--enable-debugging-handlers=false: /runningpods/ is not served");
  const main = d.nodeAgent;
  const mainCaps = main
    ? await mainServerProbes(main, agent, client, violate, { noAuthorized, noDebugging })
    : { pods: noMain, running: noMain, runtime: noMain, anonymous: noMain };

  let clientCa: CapabilityState;
  if (agent.clientCaFile) clientCa = yes(`${line} has --client-ca-file`);
  else if (agent.view.fromConfigFile && !agent.view.given("--client-ca-file")) {
    clientCa = no(
      `${line} leaves --client-ca-file to its --config file: give the file's authentication.x509.clientCAFile as --client-ca-file in --node-agent-args`,
    );
  } else clientCa = no(`${line} has no --client-ca-file: it reads no client certificate`);

  return {
    "agent-main-server": main ? yes(main) : noMain,
    "agent-healthz-server": d.nodeAgentHealthz ? yes(d.nodeAgentHealthz) : no("no node agent health server given (--node-agent-healthz URL)"),
    "agent-read-only-server": d.nodeAgentReadOnly ? yes(d.nodeAgentReadOnly) : no("no node agent read-only server given (--node-agent-read-only URL)"),
    "agent-token-webhook": agent.tokenWebhook
      ? yes(`${line} sets --authentication-token-webhook: tokens are reviewed`)
      : no(`${line} does not set --authentication-token-webhook: tokens are not reviewed`),
    "agent-authorization-webhook": (targets.authorizationMode === "Webhook" ? yes : no)(`${line} says --authorization-mode=${targets.authorizationMode}`),
    "agent-asker":
      agent.askers.length > 0
        ? yes(`its main server is asked ${agent.askers.map(([who]) => who).join(", ")}`)
        : no("anonymous requests are off and no token can be authenticated (--authentication-token-webhook and --daemon-token): nobody to ask as"),
    "agent-authorized-client": agent.authorized ? yes(`its main server serves everything ${agent.authorized.who}`) : noAuthorized,
    "agent-debugging-handlers": agent.debuggingHandlers ? yes(`${line} does not turn --enable-debugging-handlers off`) : noDebugging,
    "agent-client-ca": clientCa,
    "agent-pods": mainCaps.pods,
    "agent-running-containers": mainCaps.running,
    "agent-runtime-pods": mainCaps.runtime,
    "agent-anonymous-pods": mainCaps.anonymous,
  };
}

interface MainServerStates {
  pods: CapabilityState;
  running: CapabilityState;
  runtime: CapabilityState;
  anonymous: CapabilityState;
}

/** /pods and /runningpods/ as the authorized client, and /pods without credentials, asked at once. */
async function mainServerProbes(
  main: string,
  agent: NodeAgentView,
  client: HttpClient,
  violate: Violate,
  why: { noAuthorized: CapabilityState; noDebugging: CapabilityState },
): Promise<MainServerStates> {
  const authorized = agent.authorized;
  const [pods, runtime, anonymous] = await Promise.all([
    authorized ? podsStates(`${main}/pods`, authorized, client, violate) : { pods: why.noAuthorized, running: why.noAuthorized },
    !authorized ? why.noAuthorized : !agent.debuggingHandlers ? why.noDebugging : runtimeState(`${main}/runningpods/`, authorized, client, violate),
    anonymousState(`${main}/pods`, client, violate),
  ]);
  return { ...pods, runtime, anonymous };
}

type Asker = NonNullable<NodeAgentView["authorized"]>;

async function podsStates(url: string, authorized: Asker, client: HttpClient, violate: Violate): Promise<{ pods: CapabilityState; running: CapabilityState }> {
  const r = await ask(client, url, authorized.credentials);
  if (r instanceof Error) return { pods: no(`no answer from ${url}: ${r.message}`), running: no(`no answer from ${url}: ${r.message}`) };
  const listed = parseAgentPods(r);
  if (typeof listed === "string") {
    violate(
      "node agent /pods",
      ["doc3.service.agent-podspec-sources", "doc3.service.agent-podspec-running"],
      `GET ${url} ${authorized.who} answered ${listed}: the node agent lists its pods as a PodList (HTTP 200)`,
    );
    const wrong = no(`GET ${url} answered no PodList (${listed})`);
    return { pods: wrong, running: wrong };
  }
  return {
    pods: listed.length > 0 ? yes(`/pods lists ${listed.length} pod${listed.length === 1 ? "" : "s"}`) : no("/pods lists no pod: no source to see"),
    running: reportsRunningContainer(listed) ? yes("/pods reports running containers") : no("/pods reports no running container"),
  };
}

async function runtimeState(url: string, authorized: Asker, client: HttpClient, violate: Violate): Promise<CapabilityState> {
  const r = await ask(client, url, authorized.credentials);
  if (r instanceof Error) return no(`no answer from ${url}: ${r.message}`);
  const listed = parseRuntimePods(r);
  if (typeof listed === "string") {
    violate(
      "node agent /runningpods/",
      ["doc3.service.agent-ignores-foreign-containers"],
      `GET ${url} ${authorized.who} answered ${listed}: the node agent lists what the runtime runs for it as a PodList (HTTP 200)`,
    );
    return no(`GET ${url} answered no PodList (${listed})`);
  }
  return listed.length > 0 ? yes(`/runningpods/ lists ${listed.length} pod${listed.length === 1 ? "" : "s"}`) : no("/runningpods/ lists no pod");
}

async function anonymousState(url: string, client: HttpClient, violate: Violate): Promise<CapabilityState> {
  const r = await ask(client, url, undefined);
  if (r instanceof Error) return no(`no answer from ${url}: ${r.message}`);
  if (r.status >= 200 && r.status < 300)
    return yes(`/pods answered ${r.status} without credentials: anonymous requests are served too, so a 2xx does not show whom a certificate was taken for`);
  if (r.status === 401 || r.status === 403) return no(`/pods answered ${r.status} without credentials`);
  // A node agent serves /pods, or refuses who asks it: 401 (anonymous requests off) or 403 (Webhook).
  violate(
    "node agent /pods without credentials",
    ["doc3.auth.agent-anonymous-default"],
    `GET ${url} without credentials answered ${brief(r)}: a node agent serves it (2xx) or refuses it (401, 403)`,
  );
  return no(`/pods answered ${r.status} without credentials`);
}

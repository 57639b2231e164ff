/**
 * vitest global setup of the conformance project: resolve the target from the environment,
 * or start the embedded emulator on a free port when none is given; afterwards remove any
 * namespace of this run that a suite left behind.
 *
 * The doc3 daemons likewise: the ones the environment names, or, in the embedded run (no API
 * target and no daemon target given), an emulated controller manager and node agent on free
 * ports, with one token for an allowed user and one for a known user who is not allowed.
 * A run against a real API server without daemon targets checks no daemon: emulated ones
 * there would make the report speak for daemons the cluster does not run.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { PKI, readPair } from "../../fixtures/daemons/pki.js";
import { daemonTls } from "../../fixtures/daemons/tls.js";
// The emulator, its daemons and the fault catalog load only in the runs that use them (below): a
// run against a --target transforms and loads none of their modules (about 200 of lib/).
import type { ControllerManagerFault, NodeAgentFault, RunningEmulatedDaemons } from "../emulator/daemons/index.js";
import type { RunningEmulator } from "../emulator/index.js";
import type { Fault } from "../faults/index.js";
import type { RunningProxy } from "../faults/wire-proxy.js";
import { UnreachableError } from "../harness/client.js";
import { configureLoad, formatDuration, type LoadSettings } from "../harness/load.js";
import { probeTarget } from "../harness/probe.js";
import { ReplicaError } from "../harness/replicas.js";
import { deleteRunLeftovers } from "../harness/session.js";
import { replicaTarget, resolveTarget } from "../harness/target.js";
import { CAPABILITY_NAMES, type Capabilities } from "./capabilities.js";
import { detectDaemons } from "./daemon-capabilities.js";
import { detectApi, type Violation } from "./detect.js";
import { EMBEDDED_CONTROLLER_MANAGER_ARGS, EMBEDDED_NODE_AGENT_ARGS } from "./embedded-daemons.js";
import { getRunStop, setCleanupOutcome, setRunState, setSetupFailure } from "./run-state.js";
import {
  type DaemonSettings,
  daemonSettingsFromEnv,
  declaredGatesFromEnv,
  ENV,
  loadFromEnv,
  type ProvidedSettings,
  replicaUrlsFromEnv,
  runIdFromEnv,
  seedFromEnv,
  selectionFromEnv,
  specSettingsFromEnv,
  thoroughFromEnv,
  workerShare,
} from "./settings.js";

export { EMBEDDED_CONTROLLER_MANAGER_ARGS, EMBEDDED_NODE_AGENT_ARGS } from "./embedded-daemons.js";

/**
 * The embedded daemons: with the command lines of a daemon fault that has some (one at most a
 * run), else the embedded ones; with the faults' misbehaviours unless `variantOnly` (the
 * self-test's clean variant: the same command lines, nothing wrong on purpose).
 */
async function startEmbeddedDaemons(s: Shared, faults: readonly Fault[], variantOnly: boolean): Promise<DaemonSettings> {
  const [{ startEmulatedDaemons, CONTROLLER_MANAGER_FAULTS, NODE_AGENT_FAULTS }, { faultCommandLines }] = await Promise.all([
    import("../emulator/daemons/index.js"),
    import("../faults/check.js"),
  ]);
  // Refuses two faults with different command lines: one run starts one pair of daemons.
  const lines = faultCommandLines(faults);
  const cmArgs = lines?.controllerManager ?? EMBEDDED_CONTROLLER_MANAGER_ARGS;
  const agentArgs = lines?.nodeAgent ?? EMBEDDED_NODE_AGENT_ARGS;
  const misbehaviours = daemonFaults(variantOnly ? [] : faults, CONTROLLER_MANAGER_FAULTS, NODE_AGENT_FAULTS);
  const tls = daemonTls();
  const token = randomBytes(20).toString("hex");
  const deniedToken = randomBytes(20).toString("hex");
  const daemons = await startEmulatedDaemons({
    host: "127.0.0.1",
    tls,
    access: { tokens: { [token]: "tollgate-probe", [deniedToken]: "tollgate-denied" }, allowedUsers: ["tollgate-probe"] },
    controllerManager: { args: cmArgs, port: 0, faults: misbehaviours.controllerManager },
    nodeAgent: { args: agentArgs, port: 0, readOnlyPort: 0, healthzPort: 0, faults: misbehaviours.nodeAgent },
  });
  s.daemons = daemons;
  return {
    controllerManager: daemons.controllerManager?.url,
    nodeAgent: daemons.nodeAgent?.url,
    nodeAgentHealthz: daemons.nodeAgent?.healthzUrl,
    nodeAgentReadOnly: daemons.nodeAgent?.readOnlyUrl,
    controllerManagerArgs: [...cmArgs],
    nodeAgentArgs: [...agentArgs],
    token,
    deniedToken,
    ca: tls.cert,
    insecure: false,
    clientCert: readPair(PKI.client),
    proxyCert: readPair(PKI.proxy),
    unlistedProxyCert: readPair(PKI.proxyUnlisted),
    source: "emulated daemons",
  };
}

/** `tollgate run --fault`: the faults of the catalog the environment names (the CLI has checked the names). */
async function faultsFromEnv(env: NodeJS.ProcessEnv): Promise<Fault[]> {
  const names = (env[ENV.faults] ?? "").split(",").filter(Boolean);
  if (names.length === 0) return [];
  const { faultByName } = await import("../faults/index.js");
  return names.map((name) => {
    const f = faultByName(name);
    if (!f) throw new Error(`unknown fault "${name}"`);
    return f;
  });
}

/** The daemon misbehaviours the faults name, of the kinds each daemon has. */
function daemonFaults(
  faults: readonly Fault[],
  cmKinds: readonly ControllerManagerFault[],
  agentKinds: readonly NodeAgentFault[],
): { controllerManager: ControllerManagerFault[]; nodeAgent: NodeAgentFault[] } {
  const named = faults.flatMap((f) => (f.mode === "daemons" ? [f] : []));
  return {
    controllerManager: cmKinds.filter((x) => named.some((f) => f.controllerManager?.includes(x))),
    nodeAgent: agentKinds.filter((x) => named.some((f) => f.nodeAgent?.includes(x))),
  };
}

/**
 * The conformance suites run in two vitest projects: "conformance", and "conformance-exclusive"
 * (tests that change the whole target: compaction, the clock) in a serial phase after it. Both
 * projects name this setup; the first call starts the target and detects its capabilities, the
 * second reuses them, so a run has one target, one detection and one teardown.
 */
interface Shared {
  ready?: Promise<ProvidedSettings>;
  users: number;
  // Each project loads this module on its own, so what teardown needs lives here, not in module variables.
  emulator?: RunningEmulator;
  daemons?: RunningEmulatedDaemons;
  /** The wire faults' proxy in front of the target (`tollgate run --fault`). */
  proxy?: RunningProxy;
  settings?: ProvidedSettings;
}
const SHARED = Symbol.for("tollgate.global-setup");
const shared = globalThis as { [SHARED]?: Shared };

export async function setup(project: TestProject): Promise<void> {
  let s = shared[SHARED];
  if (!s) {
    s = { users: 0 };
    shared[SHARED] = s;
    s.ready = process.env[ENV.collectOnly] ? collectOnly() : prepare(s);
  }
  s.users += 1;
  const settings = await (s.ready as Promise<ProvidedSettings>);
  // The serial phase runs alone (maxWorkers 1), so its one worker gets the whole budget.
  const workers = Math.min(project.vitest.config.maxWorkers, project.config.maxWorkers ?? project.vitest.config.maxWorkers);
  project.provide("tollgate", { ...settings, load: workerShare(settings.load, workers), testTimeoutMs: project.config.testTimeout });
}

/**
 * `tollgate run --list`: settings for collecting the tests and nothing else. No target is
 * resolved or contacted; every capability reads as offered, so that every test registers to run
 * and the list shows each with what it needs.
 */
async function collectOnly(): Promise<ProvidedSettings> {
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((n) => [n, { available: true, evidence: "not detected (--list)" }])) as Capabilities;
  return {
    target: { url: "(not contacted)", credentials: {}, source: "--list" },
    runId: runIdFromEnv(),
    spec: specSettingsFromEnv(),
    capabilities,
    seed: 0,
    thorough: { enabled: false, minutes: 0 },
    bookmarkWaitMs: 0,
    load: loadFromEnv(process.env, true),
    selection: selectionFromEnv(),
    collectOnly: true,
    cliSignals: false,
  };
}

async function prepare(s: Shared): Promise<ProvidedSettings> {
  try {
    return await prepareTarget(s);
  } catch (e) {
    // The CLI turns this into exit 2 and one line (lib/cli/run.ts) instead of vitest's stack trace.
    if (e instanceof UnreachableError || e instanceof ReplicaError) setSetupFailure(e.message);
    throw e;
  }
}

async function prepareTarget(s: Shared): Promise<ProvidedSettings> {
  const env = process.env;
  let target = resolveTarget({
    target: env[ENV.target],
    kubeconfig: env[ENV.kubeconfig],
    context: env[ENV.context],
    token: env[ENV.token],
    inCluster: env[ENV.inCluster] === "1",
  });
  let daemonSettings = daemonSettingsFromEnv(env, (path) => readFileSync(path, "utf8"));
  const seed = seedFromEnv(env);
  const thorough = thoroughFromEnv(env);
  const declaredGates = declaredGatesFromEnv(env);
  const load = loadFromEnv(env, !target);
  // The main process detects alone before any worker starts, and cleans up after all: the whole budget.
  configureLoad(load);
  const selection = selectionFromEnv(env);
  const faults = await faultsFromEnv(env);
  const variantOnly = env[ENV.faultVariantOnly] === "1";
  // The clean variant keeps the faults' daemon command lines and nothing else of them.
  const applied = variantOnly ? [] : faults;
  if (!target) {
    // The admin endpoint lets the 410 suites compact history instead of waiting 5 minutes, and a
    // 1 s bookmark interval lets the bookmark suites see one; without them those checks do not apply.
    // Authentication is on, as on a real cluster: the suites act with the admin token.
    const failpoints = applied.flatMap((f) => (f.mode === "emulator" ? f.failpoints : []));
    // HTTPS too, as a real cluster serves: the suites trust the CA it makes at start.
    // The emulated daemons do not talk to the emulator: both start at once.
    const given = daemonSettings;
    const [started, daemons] = await Promise.allSettled([
      import("../emulator/index.js").then(({ startEmulator }) =>
        startEmulator({ host: "127.0.0.1", port: 0, admin: true, bookmarkIntervalMs: 1000, auth: true, failpoints, tls: "generate" }),
      ),
      given ?? startEmbeddedDaemons(s, faults, variantOnly),
    ]);
    if (started.status === "rejected" || daemons.status === "rejected") {
      // What did start would keep the process alive: no teardown follows a failed setup.
      await Promise.all([started.status === "fulfilled" ? started.value.close() : undefined, s.daemons?.close()]);
      throw started.status === "rejected" ? started.reason : (daemons as PromiseRejectedResult).reason;
    }
    const emulator = started.value;
    s.emulator = emulator;
    const credentials = { ...(emulator.adminToken ? { token: emulator.adminToken } : {}), ...(emulator.ca ? { ca: emulator.ca } : {}) };
    target = { url: emulator.url, credentials, source: "embedded emulator" };
    daemonSettings = daemons.value;
  }
  // Other servers of the cluster: the target's credentials at their URLs, taken before a fault proxy stands in front of the target.
  const direct = target;
  const replicas = replicaUrlsFromEnv(env).map((u) => replicaTarget(direct, u));
  if (replicas.length > 0) target = { ...target, source: `${target.source}, replicas ${replicas.map((r) => r.url).join(", ")}` };
  const scopes = JSON.parse(env[ENV.faultScopes] ?? "{}") as Record<string, string[]>;
  const wire = applied.flatMap((f) => (f.mode === "wire" ? [{ name: f.name, ...f.wire, ...(scopes[f.name] ? { suites: scopes[f.name] } : {}) }] : []));
  if (wire.length > 0) {
    const { startWireProxy } = await import("../faults/wire-proxy.js");
    s.proxy = await startWireProxy(target.url, wire, target.credentials.ca ? { upstreamCa: target.credentials.ca } : {});
    target = { ...target, url: s.proxy.url, source: `${target.source} behind the fault proxy` };
  }
  if (faults.length > 0) {
    // The report says so too: its verdicts are of a target made wrong on purpose.
    const names = faults.map((f) => f.name).join(", ");
    if (variantOnly) {
      target = { ...target, source: `${target.source}, daemons started with the command lines of: ${names} (no misbehaviour)` };
      console.log(`tollgate: the self-test's clean variant: the daemons start with the command lines of ${names}, nothing wrong on purpose`);
    } else {
      target = { ...target, source: `${target.source}, faults on: ${names}` };
      console.log(`tollgate: faults on (a self-test: the target is wrong on purpose): ${names}`);
    }
  }
  const base = { target, runId: runIdFromEnv(env), spec: specSettingsFromEnv(env), daemons: daemonSettings, replicas };
  // The daemons' probes do not touch the API server: they run beside its detection.
  const [api, daemonsFound] = await Promise.all([detectApi(base, { declaredGates, thorough, replicas }), detectDaemons(daemonSettings)]);
  const capabilities: Capabilities = { ...api.capabilities, ...daemonsFound.capabilities };
  const violations = [...api.violations, ...daemonsFound.violations];
  const settings: ProvidedSettings = {
    ...base,
    capabilities,
    seed,
    thorough,
    bookmarkWaitMs: api.bookmarkWaitMs,
    load,
    selection,
    collectOnly: false,
    cliSignals: env[ENV.cli] === "1",
  };
  s.settings = settings;
  setRunState({ settings, serverVersion: api.serverVersion, capabilities, violations, detectionMs: api.durationMs, declaredGates });
  printDetection(settings, api.serverVersion, violations, api.durationMs);
  return settings;
}

/** The load manners in a few words, for the opening lines. */
function describeLoad(l: LoadSettings): string {
  const rate = l.qps > 0 ? `${l.qps} requests/s, burst ${l.burst}` : "no rate limit";
  const inflight = l.maxInflight > 0 ? `${l.maxInflight} in flight` : "no bound in flight";
  const timeout = l.requestTimeoutMs > 0 ? `${formatDuration(l.requestTimeoutMs)} a request` : "no request timeout";
  return `${rate}, ${inflight}, ${timeout}, 429s retried after Retry-After up to ${l.max429Retries} times`;
}

/** One line per capability, so the terminal says what was checked and why some tests do not apply. */
function printDetection(s: ProvidedSettings, version: string | undefined, violations: readonly Violation[], ms: number): void {
  const lines = [`tollgate: target ${s.target.url} (${s.target.source})${version ? `, server ${version}` : ""}; seed ${s.seed} (repeat with --seed ${s.seed})`];
  lines.push(`tollgate: capabilities detected in ${(ms / 1000).toFixed(1)} s:`);
  const width = Math.max(...CAPABILITY_NAMES.map((n) => n.length));
  for (const name of CAPABILITY_NAMES) {
    const c = s.capabilities[name];
    lines.push(`  ${c.available ? "yes" : "no "} ${name.padEnd(width)} ${c.evidence}`);
  }
  for (const v of violations) lines.push(`tollgate: detection: ${v.probe}: ${v.message} (fails ${v.rules.join(", ")})`);
  if (s.thorough.enabled)
    lines.push(`tollgate: --thorough: some tests wait up to ${s.thorough.minutes} minutes for the target to compact its history and send periodic bookmarks`);
  lines.push(`tollgate: load: ${describeLoad(s.load)} (shared by vitest's workers)`);
  console.log(lines.join("\n"));
}

export async function teardown(): Promise<void> {
  const s = shared[SHARED];
  if (s) s.users -= 1;
  if (s && s.users > 0) return;
  delete shared[SHARED];
  if (!s) return;
  try {
    if (s.settings) await cleanUp(s.settings);
  } finally {
    await s.proxy?.close();
    await Promise.all([s.emulator?.close(), s.daemons?.close()]);
  }
}

/**
 * The run-wide safety net at the end: whatever of the run is still on the target. After the
 * target stopped answering, one quick look first: a dead target would make every deletion wait
 * out its timeout.
 */
async function cleanUp(settings: ProvidedSettings): Promise<void> {
  if (getRunStop()?.reason === "target-unavailable") {
    try {
      await probeTarget(settings.target, Math.min(3_000, settings.load.requestTimeoutMs || 3_000));
    } catch (e) {
      setCleanupOutcome({ error: e instanceof Error ? e.message : String(e) });
      return;
    }
  }
  try {
    setCleanupOutcome({ result: await deleteRunLeftovers(settings) });
  } catch (e) {
    setCleanupOutcome({ error: e instanceof Error ? e.message : String(e) });
  }
}

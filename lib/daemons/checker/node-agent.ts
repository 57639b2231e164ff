/** The node agent's rules: deprecated flags and --config, modes, serving, resources, limits, the credential provider directory. */

import { credentialConfigMergePlan, readDirEntries } from "../credential-config.js";
import type { OptionView } from "../options/view.js";
import { parseCidr } from "../values/addresses.js";
import { formatDuration } from "../values/durations.js";
import { formatNano, parseQuantity, parseReservedMemory } from "../values/quantities.js";
import type { CheckOptions, Report } from "./check.js";
import { checkVersionFlag } from "./common-options.js";

/** The controller manager's doc3 default, for the one-daemon form of the cross-daemon rule. */
const CM_DEFAULT_NODE_MONITOR_GRACE = 50_000_000_000n;

/** The reserved label domains (doc3's {group_domain}) as a real node agent knows them. */
const RESERVED_LABEL_DOMAINS: readonly string[] = ["kubernetes.io", "k8s.io"];
/**
 * Label namespaces a node agent may set under the reserved domain (doc3's prefixes
 * `nodeagent.` and `node.`). doc3 says a key must "start with" them; a real node agent also
 * takes their subdomains (`team.node.kubernetes.io/x`), so the checker does too.
 */
const AGENT_LABEL_NAMESPACES: readonly string[] = ["kubelet.kubernetes.io", "node.kubernetes.io"];
/** doc3's exact reserved keys a node agent may set. */
const AGENT_LABEL_KEYS: readonly string[] = [
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/instance-type",
  "beta.kubernetes.io/os",
  "failure-domain.beta.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "kubernetes.io/arch",
  "kubernetes.io/hostname",
  "kubernetes.io/os",
  "node.kubernetes.io/instance-type",
  "topology.kubernetes.io/region",
  "topology.kubernetes.io/zone",
];

/** 20 seconds, in the unit of OptionView.duration (nanoseconds). */
const SOURCE_CHECK_DEFAULT = 20_000_000_000n;

export function checkNodeAgent(view: OptionView, r: Report, options: CheckOptions): void {
  checkAgentDeprecation(view, r);
  checkAgentModes(view, r);
  checkAgentServing(view, r);
  checkAgentResources(view, r);
  checkAgentLimits(view, r, options);
  checkCredentialConfig(view, r, options);
  checkVersionFlag(view, r);
  checkSourceIntervals(view, r);
}

/** Both PodSpec source intervals can be set (doc3 "What the service does"); a value other than the default says what it changes. */
function checkSourceIntervals(view: OptionView, r: Report): void {
  for (const [name, what] of [
    ["--file-check-frequency", "its static pod files"],
    ["--http-check-frequency", "its static pod URL"],
  ] as const) {
    const d = view.duration(name);
    if (d !== undefined && view.given(name) && d !== SOURCE_CHECK_DEFAULT && d > 0n)
      r.note(
        name,
        "doc3.service.agent-intervals-configurable",
        `the node agent reads ${what} every ${formatDuration(d)} (default ${formatDuration(SOURCE_CHECK_DEFAULT)})`,
      );
  }
}

/** When the credential provider config is a directory on this machine: the merge order the node agent will use. */
function checkCredentialConfig(view: OptionView, r: Report, options: CheckOptions): void {
  const OPT = "--image-credential-provider-config";
  const RULE = "doc3.agent-options.credential-config-merge-order";
  const path = view.given(OPT) ? view.raw(OPT) : undefined;
  if (!path) return;
  const entries = (options.readDir ?? readDirEntries)(path);
  if (entries === undefined) return;
  const plan = credentialConfigMergePlan(entries);
  if (plan.merged.length === 0) {
    r.error(OPT, RULE, `the directory ${path} holds no .json, .yaml or .yml file: the node agent will not start`);
  } else {
    r.note(OPT, RULE, `the directory ${path} is merged in this order: ${plan.merged.join(", ")}`);
  }
  for (const i of plan.ignored) r.note(OPT, RULE, `${i.name} is not read: ${i.why}`);
}

function checkAgentDeprecation(view: OptionView, r: Report): void {
  const deprecatedGiven: string[] = [];
  for (const [name] of view.line.byName) {
    const { spec } = view.entry(name);
    if (spec.removal) {
      r.warning(
        name,
        "doc3.agent-options.removal-scheduled",
        `deprecated and scheduled for removal in ${spec.removal}; this is 1.35, so it may be gone already`,
      );
    } else if (spec.replacedBy) {
      r.warning(name, "doc3.agent-options.gc-flags-use-eviction", `deprecated: use the ${spec.replacedBy} (--eviction-hard, --eviction-soft) instead`);
    } else if (!spec.notDeprecated) {
      r.warning(name, "doc3.service.agent-flags-deprecated", "deprecated as a flag: set it in the file given by --config");
    }
    if (!spec.notDeprecated) deprecatedGiven.push(name);
  }
  if (view.given("--config") && deprecatedGiven.length > 0) {
    r.note(
      "--config",
      "doc3.service.agent-flags-override-config",
      `${deprecatedGiven.join(", ")} override${deprecatedGiven.length === 1 ? "s" : ""} the value in the --config file`,
    );
  }
  if (!view.given("--config")) {
    r.note("--config", "doc3.agent-options.config-flags-override", "no --config: built-in defaults apply wherever no flag is given");
  }
  if (view.given("--config-dir")) {
    r.note(
      "--config-dir",
      "doc3.agent-options.config-dir-overrides",
      "drop-ins in --config-dir override the defaults and the --config file; flags still override both",
    );
  }
}

function checkAgentModes(view: OptionView, r: Report): void {
  const apiServerMode = view.set("--kubeconfig") || view.set("--bootstrap-kubeconfig");
  if (!apiServerMode) {
    r.note("--kubeconfig", "doc3.agent-options.kubeconfig-mode", "no --kubeconfig: the node agent runs standalone, with pods only from files or URLs");
  }
  if (view.raw("--node-ip") === "::") {
    r.note("--node-ip", "doc3.agent-options.node-ip-family", '"::" picks the default IPv6 address, falling back to IPv4');
  }
  const labels = view.pairs("--node-labels");
  for (const key of labels?.keys() ?? []) {
    const problem = reservedLabelProblem(key);
    if (problem) r.error("--node-labels", "doc3.agent-options.node-labels-reserved", problem);
  }
  if (view.set("--register-with-taints") && view.bool("--register-node") === false) {
    r.warning("--register-with-taints", "doc3.agent-options.register-with-taints-format", "has no effect with --register-node=false");
  }
  if (view.bool("--runonce") === true && view.bool("--enable-server") === true) {
    r.error("--runonce", "doc3.agent-options.runonce-excludes-server", "--runonce cannot run with the server enabled: add --enable-server=false");
  }
  const podCidr = view.raw("--pod-cidr");
  if (podCidr) {
    if (apiServerMode)
      r.warning(
        "--pod-cidr",
        "doc3.agent-options.pod-cidr-standalone",
        "used only in standalone mode; with --kubeconfig the pod CIDR comes from the node object",
      );
    const c = parseCidr(podCidr);
    if (c.ok && c.value.family === 6 && c.value.prefix < 112) {
      r.note("--pod-cidr", "doc3.agent-options.pod-cidr-standalone", `an IPv6 pod CIDR yields at most 65536 addresses, however large /${c.value.prefix} is`);
    }
  }
}

/** Why a node agent refuses a label key, or undefined when it may set it. */
function reservedLabelProblem(key: string): string | undefined {
  const slash = key.indexOf("/");
  if (slash < 0) return undefined;
  const namespace = key.slice(0, slash);
  const reserved = RESERVED_LABEL_DOMAINS.some((d) => namespace === d || namespace.endsWith(`.${d}`));
  if (!reserved) return undefined;
  if (AGENT_LABEL_KEYS.includes(key)) return undefined;
  if (AGENT_LABEL_NAMESPACES.some((ns) => namespace === ns || namespace.endsWith(`.${ns}`))) return undefined;
  return `"${key}" is under the reserved domain ${RESERVED_LABEL_DOMAINS.find((d) => namespace === d || namespace.endsWith(`.${d}`))}: the node agent refuses it (allowed: [*.]kubelet.kubernetes.io/*, [*.]node.kubernetes.io/* and ${AGENT_LABEL_KEYS.length} exact keys such as kubernetes.io/hostname); set such labels from the control plane instead`;
}

function checkAgentServing(view: OptionView, r: Report): void {
  if (view.given("--read-only-port") && view.int("--read-only-port") === 0) {
    r.note("--read-only-port", "doc3.agent-options.read-only-port-zero-disables", "0 turns the unauthenticated read-only server off");
  }
  if (view.given("--healthz-port") && view.int("--healthz-port") === 0) {
    r.note("--healthz-port", "doc3.agent-options.healthz-port-zero-disables", "0 turns the local health server off");
  }
  if (view.bool("--enable-server") !== false && view.bool("--anonymous-auth") === true && view.raw("--authorization-mode") === "AlwaysAllow") {
    r.warning(
      "--anonymous-auth",
      "doc3.auth.agent-anonymous-always-allow",
      "anonymous requests with --authorization-mode=AlwaysAllow: anyone who reaches the main port may do anything there; use --anonymous-auth=false and --authorization-mode=Webhook",
    );
  }
  const idle = view.duration("--streaming-connection-idle-timeout");
  if (idle === 0n) {
    r.note(
      "--streaming-connection-idle-timeout",
      "doc3.agent-options.streaming-idle-zero-none",
      "0 means no idle timeout (connections still end after 4 hours)",
    );
  } else if (idle !== undefined && idle > 4n * 3_600_000_000_000n) {
    r.warning(
      "--streaming-connection-idle-timeout",
      "doc3.limits.agent-connection-max-4h",
      `${formatDuration(idle)} has no effect beyond 4h0m0s: every connection to the node agent ends after 4 hours`,
    );
  }
  for (const name of ["--container-runtime-endpoint", "--image-service-endpoint"]) {
    const v = view.raw(name);
    if (v?.startsWith("/")) {
      r.warning(name, "doc3.agent-options.runtime-endpoint-schemes", `a bare path is read as unix://${v}; write the scheme`);
    } else if (v && /^(npipe|tcp):\/\//.test(v)) {
      r.warning(name, "doc3.agent-options.runtime-endpoint-schemes", `${v.split(":")[0]} endpoints are for Windows nodes; Linux uses unix sockets`);
    }
  }
}

function checkAgentResources(view: OptionView, r: Report): void {
  const kubeReserved = view.pairs("--kube-reserved");
  const systemReserved = view.pairs("--system-reserved");
  if (view.set("--reserved-cpus") && (kubeReserved?.has("cpu") || systemReserved?.has("cpu"))) {
    r.note("--reserved-cpus", "doc3.agent-options.reserved-cpus-supersedes", "supersedes the cpu amounts of --kube-reserved and --system-reserved");
  }
  checkReservedMemory(view, r, kubeReserved, systemReserved);

  const enforce = view.list("--enforce-node-allocatable");
  if (enforce) {
    if (enforce.includes("none") && enforce.length > 1) {
      r.error(
        "--enforce-node-allocatable",
        "doc3.agent-options.enforce-allocatable-none-alone",
        `"none" must stand alone, not with ${enforce.filter((e) => e !== "none").join(", ")}`,
      );
    }
    for (const [variant, cgroup] of [
      ["system-reserved", "--system-reserved-cgroup"],
      ["kube-reserved", "--kube-reserved-cgroup"],
    ] as const) {
      const asked = enforce.filter((e) => e === variant || e === `${variant}-compressible`);
      if (asked.length > 0 && view.known(cgroup) && !view.set(cgroup)) {
        r.error("--enforce-node-allocatable", "doc3.agent-options.enforce-allocatable-needs-cgroups", `${asked.join(", ")} needs ${cgroup}`);
      }
    }
  }
  const maxGrace = view.int("--eviction-max-pod-grace-period");
  if (maxGrace !== undefined && maxGrace < 0) {
    r.note("--eviction-max-pod-grace-period", "doc3.agent-options.eviction-max-pod-grace-negative", "negative: soft evictions use the pod's own grace period");
  }
  const high = view.int("--image-gc-high-threshold");
  const low = view.int("--image-gc-low-threshold");
  if (high !== undefined && low !== undefined && (view.given("--image-gc-high-threshold") || view.given("--image-gc-low-threshold")) && low >= high) {
    r.error("--image-gc-low-threshold", "doc3.agent-options.image-gc-low-below-high", `${low} must be below --image-gc-high-threshold (${high})`);
  }
  if (high === 100 && view.given("--image-gc-high-threshold")) {
    r.note("--image-gc-high-threshold", "doc3.agent-options.image-gc-high-range", "100 turns image garbage collection off");
  }
  const dead = view.int("--maximum-dead-containers");
  if (view.given("--maximum-dead-containers") && dead !== undefined && dead < 0) {
    r.note("--maximum-dead-containers", "doc3.agent-options.max-dead-containers-negative", "negative: no global limit on old containers");
  }
  const perCore = view.int("--pods-per-core");
  if (perCore !== undefined && perCore > 0) {
    r.note("--pods-per-core", "doc3.agent-options.pods-per-core-capped", `pods per core are capped by --max-pods (${view.int("--max-pods") ?? "?"})`);
  }
  if (view.given("--pod-max-pids") && view.int("--pod-max-pids") === -1) {
    r.note("--pod-max-pids", "doc3.agent-options.pod-max-pids-default", "-1: each pod may use up to the node's allocatable pid capacity");
  }
  for (const entry of view.list("--allowed-unsafe-sysctls") ?? []) {
    if (entry === "" || entry.slice(0, -1).includes("*")) {
      r.error(
        "--allowed-unsafe-sysctls",
        "doc3.agent-options.unsafe-sysctls-patterns",
        `"${entry}": entries are sysctl names or patterns with one * at the end`,
      );
    }
  }
  const stats = view.duration("--volume-stats-agg-period");
  if (stats !== undefined && stats < 0n) {
    r.note("--volume-stats-agg-period", "doc3.agent-options.volume-stats-negative-disables", "negative: volume usage is not computed");
  }
}

function checkReservedMemory(view: OptionView, r: Report, kube: Map<string, string> | undefined, system: Map<string, string> | undefined): void {
  const occ = view.occurrences("--reserved-memory");
  if (occ.length === 0 || kube === undefined || system === undefined) return;
  let reserved = 0n;
  for (const o of occ) {
    const p = parseReservedMemory(o.value);
    if (!p.ok) return;
    for (const node of p.value.values()) reserved += node.get("memory") ?? 0n;
  }
  const qty = (v: string | undefined): bigint | undefined => {
    if (v === undefined) return 0n;
    const q = parseQuantity(v);
    return q.ok ? q.value : undefined;
  };
  const hard = view.given("--eviction-hard") ? view.pairs("--eviction-hard", "<") : new Map<string, string>();
  const threshold = hard?.get("memory.available");
  if (threshold?.endsWith("%")) return; // a share of node memory: not comparable without the node
  const parts = [qty(kube.get("memory")), qty(system.get("memory")), qty(threshold)];
  if (parts.some((p) => p === undefined) || hard === undefined) return;
  const expected = (parts as bigint[]).reduce((a, b) => a + b, 0n);
  if (expected === reserved) return;
  const detail = `--reserved-memory reserves ${formatNano(reserved)} of memory, but --kube-reserved (${formatNano(parts[0] as bigint)}) + --system-reserved (${formatNano(parts[1] as bigint)}) + the hard eviction threshold (${formatNano(parts[2] as bigint)}) make ${formatNano(expected)}`;
  if (view.given("--eviction-hard")) r.error("--reserved-memory", "doc3.agent-options.reserved-memory-sums", detail);
  else
    r.warning(
      "--reserved-memory",
      "doc3.agent-options.reserved-memory-sums",
      `${detail}; doc3 gives --eviction-hard no default, but a real node agent defaults to memory.available<100Mi: give --eviction-hard explicitly`,
    );
}

function checkAgentLimits(view: OptionView, r: Report, options: CheckOptions): void {
  const freq = view.duration("--node-status-update-frequency");
  if (!options.peer && view.given("--node-status-update-frequency") && freq !== undefined && freq > 0n && CM_DEFAULT_NODE_MONITOR_GRACE % freq !== 0n) {
    r.warning(
      "--node-status-update-frequency",
      "doc3.agent-options.status-frequency-vs-grace",
      `${formatDuration(freq)} does not divide the controller manager's default --node-monitor-grace-period (${formatDuration(CM_DEFAULT_NODE_MONITOR_GRACE)}); check both command lines together to compare the real values`,
    );
  }
  if (view.given("--node-status-max-images") && view.int("--node-status-max-images") === -1) {
    r.note("--node-status-max-images", "doc3.agent-options.node-status-max-images", "-1: every image is reported in the node status");
  }
  const zeroMeans: [string, string, string][] = [
    ["--kube-api-qps", "doc3.agent-options.kube-api-qps-zero", "0 means 50, not unlimited"],
    ["--kube-api-burst", "doc3.agent-options.kube-api-burst-zero", "0 means 100, not unlimited"],
    ["--event-qps", "doc3.agent-options.event-qps-zero", "0 means 5, not unlimited"],
    ["--event-burst", "doc3.agent-options.event-burst-zero", "0 means 10, not unlimited"],
    ["--registry-qps", "doc3.agent-options.registry-qps-zero-unlimited", "0 means no limit on image pulls"],
  ];
  for (const [name, rule, text] of zeroMeans) {
    if (view.given(name) && view.int(name) === 0) r.note(name, rule, text);
  }
  if (view.given("--registry-burst") && view.int("--registry-qps") === 0) {
    r.warning("--registry-burst", "doc3.agent-options.registry-burst-needs-qps", "has no effect while --registry-qps is 0");
  }
}

/**
 * `checkFlags(daemon, argv)`: what doc3 says is wrong, risky or worth knowing about a daemon's
 * command line, before the daemon runs. Errors are what stops the daemon or breaks a doc3
 * "must"; warnings are what runs but is deprecated, insecure, test-only or has no effect;
 * notes explain what a value means where operators commonly read it otherwise. Every finding
 * names the doc3 rule it comes from.
 */
import {
  CONTROLLERS,
  CONTROLLERS_DISABLED_BY_DEFAULT,
  DAEMON_NAMES,
  LEGACY_CONTROLLER_ALIASES,
  gatesByName,
  INSECURE_CIPHER_SUITES,
  PREFERRED_CIPHER_SUITES,
  realGateName,
  type Daemon,
  type GateEntry,
} from "./catalog/index.js";
import { readCommandLine, type CommandLine, type Occurrence } from "./options/command-line.js";
import { readGateEntries } from "./options/gate-entries.js";
import { OptionView } from "./options/view.js";
import { credentialConfigMergePlan, readDirEntries, type DirEntry } from "./credential-config.js";
import { sortFindings, type Finding, type Severity } from "./findings.js";
import { parseCidr, parseCidrList, parseIpList } from "./values/addresses.js";
import { closest } from "./values/closest.js";
import { checkLabelValue, checkQualifiedName } from "./values/cluster-names.js";
import { formatDuration, parseDuration } from "./values/durations.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "./values/go-scalars.js";
import { parsePairs, splitCsv } from "./values/lists.js";
import { formatNano, parseQuantity, parseReservedMemory } from "./values/quantities.js";
import { compareMajorMinor, formatMajorMinor, parseMajorMinor, parseVersionSelectors, type MajorMinor } from "./values/versions.js";

export type { Finding, Severity } from "./findings.js";
export type { Daemon } from "./catalog/index.js";

export interface CheckOptions {
  /**
   * The other daemon's command line is checked too (cross-check.ts): comparisons with the
   * other daemon's doc3 defaults are left to the cross-check, which has the real values.
   */
  peer?: boolean;
  /** Lists a directory named by an option; the local file system unless a test gives another. */
  readDir?: (path: string) => DirEntry[] | undefined;
}

/** doc3 defaults of the other daemon, for the one-daemon forms of the cross-daemon rules. */
export const CM_DEFAULT_NODE_MONITOR_GRACE = 50_000_000_000n;
export const AGENT_DEFAULT_STATUS_UPDATE_FREQUENCY = 10_000_000_000n;

/**
 * doc3 asks the node monitor grace period to exceed "the sum of the HTTP/2 ping and
 * read-idle timeouts" without giving them; these are the API client's defaults (15 s and
 * 30 s, settable by environment variables the command line does not show).
 */
export const HTTP2_PING_PLUS_READ_IDLE = 45_000_000_000n;

/** kube range of --emulated-version and --min-compatibility-version. */
export const KUBE_VERSION_MIN: MajorMinor = { major: 1, minor: 32 };
export const KUBE_VERSION_MAX: MajorMinor = { major: 1, minor: 35 };

/** The reserved label domains (doc3's {group_domain}) as a real node agent knows them. */
export const RESERVED_LABEL_DOMAINS: readonly string[] = ["kubernetes.io", "k8s.io"];
/**
 * Label namespaces a node agent may set under the reserved domain (doc3's prefixes
 * `nodeagent.` and `node.`). doc3 says a key must "start with" them; a real node agent also
 * takes their subdomains (`team.node.kubernetes.io/x`), so the checker does too.
 */
export const AGENT_LABEL_NAMESPACES: readonly string[] = ["kubelet.kubernetes.io", "node.kubernetes.io"];
/** doc3's exact reserved keys a node agent may set. */
export const AGENT_LABEL_KEYS: readonly string[] = [
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

/** The signer domain of doc3's {signer_domain} on a real cluster. */
const SIGNER_DOMAIN = "kubernetes.io";

/** Eviction signals the node agent knows (doc3 shows memory.available; the rest are the real agent's). */
const EVICTION_SIGNALS: readonly string[] = [
  "memory.available",
  "allocatableMemory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "containerfs.available",
  "containerfs.inodesFree",
  "pid.available",
];

const RESERVED_RESOURCES: readonly string[] = ["cpu", "memory", "pid", "ephemeral-storage"];


// ── Gates ───────────────────────────────────────────────────────────────────────────────

interface GateWrite {
  entry: GateEntry;
  value: boolean;
  text: string;
}

/** The gates a command line sets, by real name, and whether a gate is on. */
export class GateView {
  readonly writes: GateWrite[] = [];

  constructor(private readonly view: OptionView) {}

  /** On, off, or unknown (a node agent whose --config may set it). */
  enabled(doc3Name: string): boolean | undefined {
    const real = realGateName(doc3Name);
    const spec = gatesByName.get(real)?.spec;
    if (!spec) throw new Error(`checker bug: unknown gate ${doc3Name}`);
    const last = (name: string): boolean | undefined => [...this.writes].reverse().find((w) => w.entry.realName === name)?.value;
    const explicit = last(real);
    if (explicit !== undefined) return explicit;
    // A meta gate sets every gate of its stage that is not set by name, to its own value.
    const meta = spec.list === "meta" ? undefined : last(spec.stage === "alpha" ? "AllAlpha" : "AllBeta");
    if (meta !== undefined) return meta;
    if (this.view.fromConfigFile) return undefined;
    return spec.default;
  }
}

// ── The check ───────────────────────────────────────────────────────────────────────────

export interface Analysis {
  readonly daemon: Daemon;
  readonly view: OptionView;
  readonly gates: GateView;
  readonly findings: Finding[];
}

class Report {
  readonly findings: Finding[] = [];
  add(severity: Severity, option: string, rule: string, message: string): void {
    this.findings.push({ severity, option, rule, message });
  }
  error(option: string, rule: string, message: string): void {
    this.add("error", option, rule, message);
  }
  warning(option: string, rule: string, message: string): void {
    this.add("warning", option, rule, message);
  }
  note(option: string, rule: string, message: string): void {
    this.add("note", option, rule, message);
  }
}

export function checkFlags(daemon: Daemon, argv: readonly string[], options: CheckOptions = {}): Finding[] {
  return sortFindings(analyze(daemon, argv, options).findings);
}

export function analyze(daemon: Daemon, argv: readonly string[], options: CheckOptions = {}): Analysis {
  const line = readCommandLine(daemon, argv);
  const view = new OptionView(line);
  const gates = new GateView(view);
  const r = new Report();
  readProblems(line, r);
  for (const occ of line.occurrences) checkValue(occ, r);
  readGates(view, gates, r);
  checkDefaults(view, r);
  checkGatedOptions(view, gates, r);
  checkTls(view, r);
  if (daemon === "controller-manager") checkControllerManager(view, r, options);
  else checkNodeAgent(view, r, options);
  return { daemon, view, gates, findings: r.findings };
}

// ── What stops the daemon's flag parsing ────────────────────────────────────────────────

/** The reader's problems (unknown options, stray arguments, missing values), each with the rule it breaks. */
function readProblems(line: CommandLine, r: Report): void {
  for (const p of line.problems) r.error(p.option, p.kind === "doc3-spelling" ? "doc3.options.nodeagent-names" : "doc3.options.known-options", p.message);
}

// ── One value at a time ─────────────────────────────────────────────────────────────────

function checkValue(occ: Occurrence, r: Report): void {
  const { spec, table, realName } = occ.entry;
  const rule = spec.rule ?? (spec.kind === "duration" ? "doc3.options.duration-format" : table.rule);
  const problem = valueProblem(occ);
  if (problem !== undefined) r.error(realName, rule, `${occ.written}=${occ.value}: ${problem}`);
}

/**
 * The value's problem: that it cannot be read as its kind (the option model's answer, which
 * is what stops the daemon), else what doc3 asks of it beyond its form.
 */
function valueProblem(occ: Occurrence): string | undefined {
  const { spec } = occ.entry;
  if (spec.kind === "gates" || spec.kind === "componentGates") return undefined; // readGates reports gate entries one by one, with their own rules
  return occ.problem ?? ruleProblem(occ);
}

const err = (p: { ok: boolean; error?: string }): string | undefined => (p.ok ? undefined : p.error);

/** What doc3 asks of a value that parses: its names, resources and signals, --node-ip's families. */
function ruleProblem(occ: Occurrence): string | undefined {
  const { spec } = occ.entry;
  const v = occ.value;
  switch (spec.kind) {
    case "ipList": {
      const p = parseIpList(v);
      if (!p.ok) return p.error;
      if (spec.name === "--node-ip") {
        if (p.value.length > 2) return "at most two addresses (one per family, for dual-stack)";
        if (p.value.length === 2 && p.value[0]?.family === p.value[1]?.family) return "a dual-stack pair needs one IPv4 and one IPv6 address";
      }
      return undefined;
    }
    case "labels": {
      const p = parsePairs(v);
      if (!p.ok) return p.error;
      for (const [k, val] of p.value) {
        const problem = checkQualifiedName(k) ?? checkLabelValue(val);
        if (problem) return `label ${problem}`;
      }
      return undefined;
    }
    case "resourceList": {
      const p = parsePairs(v);
      if (!p.ok) return p.error;
      for (const [k, val] of p.value) {
        if (!RESERVED_RESOURCES.includes(k)) return `resource "${k}" is not one of ${RESERVED_RESOURCES.join(", ")}`;
        const q = parseQuantity(val);
        if (!q.ok) return `${k}: ${q.error}`;
        if (q.value < 0n) return `${k}: must not be negative`;
      }
      return undefined;
    }
    case "qosReserved": {
      const p = parsePairs(v);
      if (!p.ok) return p.error;
      for (const [k, val] of p.value) {
        if (k !== "memory") return `only memory can be reserved per QoS level, not "${k}"`;
        const m = /^(\d+)%$/.exec(val);
        if (!m || Number(m[1]) > 100) return `"${val}" is not a percentage 0% to 100%`;
      }
      return undefined;
    }
    case "thresholds":
      return thresholdsProblem(v, "<", quantityOrPercent);
    case "signalDurations":
      return thresholdsProblem(v, "=", (x) => err(parseDuration(x)));
    case "signalQuantities":
      return thresholdsProblem(v, "=", quantityOrPercent);
    case "cipherSuites": {
      const p = splitCsv(v);
      if (!p.ok) return p.error;
      const known = new Set([...PREFERRED_CIPHER_SUITES, ...INSECURE_CIPHER_SUITES]);
      const bad = p.value.map((x) => x.trim()).filter((x) => !known.has(x));
      if (bad.length === 0) return undefined;
      const hint = bad.map((b) => {
        const c = closest(b, known);
        return c ? `"${b}" (did you mean ${c}?)` : `"${b}"`;
      });
      return `unknown cipher suite ${hint.join(", ")}`;
    }
    default:
      return undefined;
  }
}

function quantityOrPercent(x: string): string | undefined {
  const pct = /^(\d+(\.\d+)?)%$/.exec(x);
  if (pct) return Number(pct[1]) <= 100 ? undefined : `"${x}" is above 100%`;
  return err(parseQuantity(x));
}

function thresholdsProblem(v: string, sep: string, valueCheck: (x: string) => string | undefined): string | undefined {
  const p = parsePairs(v, sep);
  if (!p.ok) return p.error;
  for (const [signal, val] of p.value) {
    if (!EVICTION_SIGNALS.includes(signal)) {
      const c = closest(signal, EVICTION_SIGNALS);
      return `unknown eviction signal "${signal}"${c ? ` (did you mean ${c}?)` : ""}`;
    }
    const problem = valueCheck(val);
    if (problem) return `${signal}: ${problem}`;
  }
  return undefined;
}

// ── Gates on the command line ───────────────────────────────────────────────────────────

function readGates(view: OptionView, gates: GateView, r: Report): void {
  const cm = view.line.daemon === "controller-manager";
  const problemRule = {
    syntax: cm ? "doc3.cm-general.feature-gates-syntax" : "doc3.agent-options.feature-gates-syntax",
    component: "doc3.versioning.agent-gate-syntax",
    value: "doc3.versioning.gate-values-bool",
    "unknown-component": "doc3.versioning.cm-gate-syntax",
    "doc3-name": "doc3.versioning.agent-gate-name-prefix",
    "unknown-gate": "doc3.versioning.gate-known-names",
  } as const;
  for (const occ of view.occurrences("--feature-gates")) {
    for (const { text, setting, gate, problem } of readGateEntries(view.line.daemon, occ.value)) {
      if (!setting || problem?.kind === "unknown-component") {
        if (problem) r.error("--feature-gates", problemRule[problem.kind], problem.message);
        continue;
      }
      if (cm && !setting.componentWritten) {
        r.note("--feature-gates", "doc3.versioning.cm-gate-syntax", `"${text}" has no component and is read as kube:${text}`);
      }
      if (problem) r.error("--feature-gates", problemRule[problem.kind], problem.message);
      // doc3's spelling of a gate still says which gate is meant; an unknown name says none.
      if (!gate) continue;
      gates.writes.push({ entry: gate, value: setting.value, text });
      noteGate(gate, setting.value, r);
    }
  }
}

function noteGate(entry: GateEntry, value: boolean, r: Report): void {
  const { spec, realName } = entry;
  if (spec.list === "meta") {
    if (realName === "AllAlpha" && value) r.warning("--feature-gates", "doc3.versioning.alpha-gate-enabled", "AllAlpha=true turns on every alpha gate not set by name");
    else if (realName === "AllBeta") r.note("--feature-gates", "doc3.versioning.all-beta-meta-gate", `AllBeta=${value} sets every beta gate not set by name to ${value}`);
    else r.note("--feature-gates", "doc3.versioning.all-alpha-meta-gate", "AllAlpha=false is the default");
    return;
  }
  if (spec.stage === "alpha") {
    if (value) r.warning("--feature-gates", "doc3.versioning.alpha-gate-enabled", `${realName} is an alpha gate: ${realName}=true turns on an alpha-stage feature`);
    else r.note("--feature-gates", "doc3.versioning.alpha-default-false", `${realName}=false is the default (alpha gates are off)`);
    return;
  }
  if (spec.list === "beta-on") {
    if (value) r.note("--feature-gates", "doc3.versioning.beta-on-default-true", `${realName}=true is the default (beta, on by default)`);
    else r.note("--feature-gates", "doc3.versioning.beta-on-default-true", `${realName}=false turns off a beta feature that is on by default`);
    return;
  }
  if (value) r.note("--feature-gates", "doc3.versioning.beta-off-default-false", `${realName}=true turns on a beta feature that is off by default`);
  else r.note("--feature-gates", "doc3.versioning.beta-off-default-false", `${realName}=false is the default (beta, off by default)`);
}

// ── Checks that apply to every option ───────────────────────────────────────────────────

function sameValue(kind: string, a: string, b: string): boolean {
  switch (kind) {
    case "duration": {
      const x = parseDuration(a);
      const y = parseDuration(b);
      return x.ok && y.ok && x.value === y.value;
    }
    case "int":
    case "int32": {
      const x = parseGoInt(a, 64);
      const y = parseGoInt(b, 64);
      return x.ok && y.ok && x.value === y.value;
    }
    case "float": {
      const x = parseGoFloat(a);
      const y = parseGoFloat(b);
      return x.ok && y.ok && x.value === y.value;
    }
    case "bool": {
      const x = parseGoBool(a);
      const y = parseGoBool(b);
      return x.ok && y.ok && x.value === y.value;
    }
    case "quantity": {
      const x = parseQuantity(a);
      const y = parseQuantity(b);
      return x.ok && y.ok && x.value === y.value;
    }
    default:
      return a === b;
  }
}

/** An option given at its doc3 default changes nothing; saying so shows which default the checker holds. */
function checkDefaults(view: OptionView, r: Report): void {
  for (const [name, occs] of view.line.byName) {
    const { spec, table } = view.entry(name);
    const last = occs[occs.length - 1];
    if (last && last.value === "" && spec.default === "(empty)" && valueProblem(last) === undefined) {
      r.note(name, "doc3.options.empty-default-unset", `${last.written}="" is the same as leaving the option out`);
      continue;
    }
    if (!last || spec.defaultValue === undefined || valueProblem(last) !== undefined) continue;
    if (sameValue(spec.kind, last.value, spec.defaultValue)) {
      r.note(name, spec.defaultRule ?? table.rule, `${last.value} is the default (${spec.default}); the option can be left out`);
    }
  }
}

/** Whether a given option asks for something (a true boolean, a non-zero quantity, a non-empty list). */
function asksForSomething(view: OptionView, name: string): boolean {
  if (!view.given(name)) return false;
  const { spec } = view.entry(name);
  const v = view.raw(name) ?? "";
  if (spec.kind === "bool") return view.bool(name) === true;
  if (spec.kind === "quantity") {
    const q = parseQuantity(v);
    return q.ok && q.value !== 0n;
  }
  return v.trim() !== "";
}

function checkGatedOptions(view: OptionView, gates: GateView, r: Report): void {
  for (const [name, { spec }] of view.line.catalog.byName) {
    if (!spec.gate || !asksForSomething(view, name)) continue;
    const gate = realGateName(spec.gate.name);
    const how = view.line.daemon === "controller-manager" ? `kube:${gate}=true` : `${gate}=true`;
    if (gates.enabled(spec.gate.name) === false) r.error(name, spec.gate.rule, `${name} needs feature gate ${gate}, which is off: add --feature-gates=${how}`);
  }
}

function checkTls(view: OptionView, r: Report): void {
  const cm = view.line.daemon === "controller-manager";
  const cert = view.set("--tls-cert-file");
  const key = view.set("--tls-private-key-file");
  const pairRule = cm ? "doc3.cm-general.tls-cert-key-together" : "doc3.agent-options.tls-cert-key-together";
  if (cert !== key && view.known("--tls-cert-file") && view.known("--tls-private-key-file")) {
    const [has, lacks] = cert ? ["--tls-cert-file", "--tls-private-key-file"] : ["--tls-private-key-file", "--tls-cert-file"];
    r.error(lacks, pairRule, `${has} is given without ${lacks}: the certificate and its private key go together`);
  }
  if (cert && key && view.given("--cert-dir")) {
    r.note("--cert-dir", cm ? "doc3.cm-general.cert-dir-ignored-with-files" : "doc3.agent-options.cert-dir-ignored-with-files", "--cert-dir is ignored because --tls-cert-file and --tls-private-key-file are given");
  }
  const min = view.raw("--tls-min-version");
  if (min === "VersionTLS10" || min === "VersionTLS11") {
    r.warning("--tls-min-version", cm ? "doc3.cm-general.tls-min-version-legacy" : "doc3.agent-options.tls-min-version-legacy", `${min} admits TLS ${min === "VersionTLS10" ? "1.0" : "1.1"}, older than TLS 1.2: use VersionTLS12 or VersionTLS13`);
  }
  for (const suite of view.list("--tls-cipher-suites") ?? []) {
    if (INSECURE_CIPHER_SUITES.includes(suite)) r.warning("--tls-cipher-suites", "doc3.tls.insecure-suites", `${suite} is on doc3's insecure list`);
  }
}

// ── Controller manager ──────────────────────────────────────────────────────────────────

function checkControllerManager(view: OptionView, r: Report, options: CheckOptions): void {
  checkCmGeneral(view, r);
  checkCmVersions(view, r);
  checkCmBehaviour(view, r, options);
  checkCmSigning(view, r);
}

function checkCmGeneral(view: OptionView, r: Report): void {
  const lease = view.duration("--leader-elect-lease-duration");
  const renew = view.duration("--leader-elect-renew-deadline");
  if (lease !== undefined && renew !== undefined && renew >= lease) {
    const on = view.bool("--leader-elect") !== false;
    r.add(on ? "error" : "warning", "--leader-elect-renew-deadline", "doc3.cm-general.renew-deadline-below-lease",
      `renew deadline ${formatDuration(renew)} must be below the lease duration ${formatDuration(lease)}${on ? "" : " (harmless only while --leader-elect=false)"}`);
  }

  const securePort = view.int("--secure-port");
  if (securePort === 0) {
    r.note("--secure-port", "doc3.cm-general.secure-port-zero-disables", "--secure-port=0 turns HTTPS off: /healthz, /readyz, /livez and metrics are not served");
  }
  const serving = securePort !== 0;
  if (serving && !view.set("--tls-cert-file") && !view.set("--tls-private-key-file")) {
    r.note("--tls-cert-file", "doc3.cm-general.self-signed-without-cert", "no --tls-cert-file/--tls-private-key-file: a self-signed pair is generated and saved in --cert-dir");
  }
  if (view.given("--http2-max-streams-per-connection") && view.int("--http2-max-streams-per-connection") === 0) {
    r.note("--http2-max-streams-per-connection", "doc3.cm-general.http2-max-streams-zero-default", "0 means the Go HTTP/2 server's own limit, not unlimited");
  }
  if (serving && !view.set("--authentication-kubeconfig")) {
    r.note("--authentication-kubeconfig", "doc3.cm-general.authn-kubeconfig-empty-anonymous", "no --authentication-kubeconfig: every token request is anonymous and no client CA is looked up");
  }
  if (serving && !view.set("--authorization-kubeconfig")) {
    const paths = (view.list("--authorization-always-allow-paths") ?? []).join(",");
    r.note("--authorization-kubeconfig", "doc3.cm-general.authz-kubeconfig-empty-forbidden", `no --authorization-kubeconfig: every request outside the always-allow paths (${paths || "none"}) is forbidden`);
  }
  if (view.set("--requestheader-client-ca-file") && (view.list("--requestheader-allowed-names") ?? []).length === 0) {
    r.warning("--requestheader-allowed-names", "doc3.cm-general.requestheader-allowed-names-empty-any", "empty: any client certificate validated by --requestheader-client-ca-file may assert an identity through the request headers");
  }
  if (view.set("--master") && view.set("--kubeconfig")) {
    r.note("--master", "doc3.cm-general.master-overrides-kubeconfig", "--master overrides the server address in --kubeconfig");
  }
  if (view.bool("--contention-profiling") === true && view.bool("--profiling") === false) {
    r.warning("--contention-profiling", "doc3.cm-general.contention-profiling-needs-profiling", "has no effect while --profiling=false");
  }
  if (view.set("--disabled-metrics") && view.set("--show-hidden-metrics-for-version")) {
    r.note("--disabled-metrics", "doc3.cm-general.disabled-metrics-precedence", "metrics listed here stay disabled even when hidden metrics are shown");
  }
  if (view.set("--allow-metric-labels") && view.set("--allow-metric-labels-manifest")) {
    r.note("--allow-metric-labels", "doc3.cm-general.metric-labels-flag-overrides-manifest", "overrides the mapping read from --allow-metric-labels-manifest");
  }
  checkControllers(view, r);
  checkVersionFlag(view, r);
}

function checkVersionFlag(view: OptionView, r: Report): void {
  const v = view.raw("--version");
  if (!view.given("--version") || v === undefined) return;
  const off = parseGoBool(v);
  if (off.ok && !off.value) return;
  r.warning("--version", "doc3.versioning.version-flag", v.startsWith("v")
    ? `--version=${v} sets the version the daemon reports`
    : `--version${v === "true" ? "" : `=${v}`} prints the version and exits: the ${DAEMON_NAMES[view.line.daemon]} will not run`);
}

function checkControllers(view: OptionView, r: Report): void {
  if (!view.given("--controllers")) return;
  const entries = view.list("--controllers");
  if (!entries) return;
  const disabledByDefault = new Set(CONTROLLERS_DISABLED_BY_DEFAULT);
  for (const e of entries) {
    if (e === "*" || !/^-?[a-z0-9]+(-[a-z0-9]+)*$/.test(e)) continue;
    const written = e.replace(/^-/, "");
    const alias = LEGACY_CONTROLLER_ALIASES.get(written);
    if (alias) r.note("--controllers", "doc3.cm-general.controllers-known-names", `"${written}" is the pre-1.28 name of ${alias}; still accepted`);
    const name = alias ?? written;
    if (!CONTROLLERS.includes(name)) {
      const c = closest(name, CONTROLLERS);
      r.error("--controllers", "doc3.cm-general.controllers-known-names", `unknown controller "${name}"${c ? ` (did you mean ${c}?)` : ""}`);
    } else if (disabledByDefault.has(name)) {
      r.note("--controllers", "doc3.cm-general.controllers-disabled-by-default", e.startsWith("-")
        ? `${name} is already disabled by default`
        : `${name} is disabled by default; naming it enables it`);
    }
  }
  if (!entries.includes("*")) {
    r.warning("--controllers", "doc3.cm-general.controllers-syntax", "no \"*\": only the controllers named here run; write \"*,-name\" to keep the on-by-default ones");
  }
}

function kubeVersion(view: OptionView, name: string, r: Report, rule: string): MajorMinor | undefined {
  const raw = view.raw(name);
  if (raw === undefined) return undefined;
  const p = parseVersionSelectors(raw);
  if (!p.ok) return undefined;
  let kube: MajorMinor | undefined;
  for (const sel of p.value) {
    if (sel.component !== "kube") {
      r.error(name, rule, `unknown component "${sel.component}": the controller manager emulates only kube`);
      continue;
    }
    kube = sel.version;
  }
  if (kube && view.given(name) && (compareMajorMinor(kube, KUBE_VERSION_MIN) < 0 || compareMajorMinor(kube, KUBE_VERSION_MAX) > 0)) {
    r.error(name, rule, `kube=${formatMajorMinor(kube)} is outside ${formatMajorMinor(KUBE_VERSION_MIN)} to ${formatMajorMinor(KUBE_VERSION_MAX)}`);
    return undefined;
  }
  return kube;
}

function checkCmVersions(view: OptionView, r: Report): void {
  const emulated = kubeVersion(view, "--emulated-version", r, "doc3.cm-general.emulated-version-range") ?? KUBE_VERSION_MAX;
  // doc3 gives kube=1.34 as the default, which is the emulated version minus one minor for the
  // default 1.35; the real default follows the emulated version, so only a given value is compared.
  if (view.given("--min-compatibility-version")) {
    const min = kubeVersion(view, "--min-compatibility-version", r, "doc3.cm-general.min-compat-range");
    if (min && compareMajorMinor(min, emulated) > 0) {
      r.error("--min-compatibility-version", "doc3.cm-general.min-compat-not-above-emulated", `kube=${formatMajorMinor(min)} is above the emulated version ${formatMajorMinor(emulated)}`);
    }
  }
  const hidden = view.raw("--show-hidden-metrics-for-version");
  if (hidden) {
    const p = parseMajorMinor(hidden);
    const previous = { major: emulated.major, minor: emulated.minor - 1 };
    if (p.ok && compareMajorMinor(p.value, previous) !== 0) {
      r.error("--show-hidden-metrics-for-version", "doc3.cm-general.show-hidden-metrics-previous-minor", `${hidden} is not the previous minor version: with version ${formatMajorMinor(emulated)} only ${formatMajorMinor(previous)} is accepted`);
    }
  }
}

function checkCmBehaviour(view: OptionView, r: Report, options: CheckOptions): void {
  const allocate = view.bool("--allocate-node-cidrs") === true;
  if (allocate && !view.set("--cluster-cidr")) {
    r.error("--allocate-node-cidrs", "doc3.cm-behaviour.allocate-cidrs-needs-cluster-cidr", "--allocate-node-cidrs=true needs --cluster-cidr");
  }
  if (!allocate && view.set("--cluster-cidr")) {
    r.warning("--cluster-cidr", "doc3.cm-behaviour.cluster-cidr-only-with-allocate", "has no effect without --allocate-node-cidrs=true");
  }
  if (!allocate && view.set("--service-cluster-ip-range")) {
    r.warning("--service-cluster-ip-range", "doc3.cm-behaviour.service-range-only-with-allocate", "has no effect without --allocate-node-cidrs=true");
  }
  const clusterCidr = view.raw("--cluster-cidr");
  const cidrs = clusterCidr ? parseCidrList(clusterCidr) : undefined;
  if (cidrs?.ok) {
    const rule = "doc3.cm-behaviour.node-cidr-mask-default-by-family";
    const single = view.int("--node-cidr-mask-size");
    if (cidrs.value.length === 2 && view.given("--node-cidr-mask-size")) {
      r.warning("--node-cidr-mask-size", rule, "applies to a single-stack --cluster-cidr; a dual-stack one uses --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6");
    } else if (cidrs.value.length === 1) {
      const family = cidrs.value[0]?.family;
      if (single === undefined) r.note("--node-cidr-mask-size", rule, `not given: the IPv${family} --cluster-cidr gets the default mask ${family === 4 ? 24 : 64}`);
      else if (family === 4 && single > 32) r.error("--node-cidr-mask-size", rule, `${single} is no IPv4 mask size, and --cluster-cidr is IPv4`);
    }
  }
  if (view.bool("--enable-garbage-collector") === false) {
    r.warning("--enable-garbage-collector", "doc3.cm-behaviour.gc-matches-apiserver", "false: the API server must be started with garbage collection off as well");
  }
  if (view.bool("--enable-hostpath-provisioner") === true) {
    r.warning("--enable-hostpath-provisioner", "doc3.cm-behaviour.hostpath-provisioner-test-only", "host-path provisioning is for testing only, not for a real cluster");
  }
  for (const [name] of view.line.byName) {
    if (view.entry(name).spec.purpose === "development") {
      r.warning(name, "doc3.cm-behaviour.hostpath-recycler-development-only", "host-path recycling is for development only");
    }
  }
  const attach = view.duration("--attach-detach-reconcile-sync-period");
  if (attach !== undefined && attach <= 1_000_000_000n) {
    r.error("--attach-detach-reconcile-sync-period", "doc3.cm-behaviour.attach-detach-sync-above-1s", `${formatDuration(attach)} must exceed one second`);
  }
  const grace = view.duration("--node-monitor-grace-period");
  if (grace !== undefined && grace <= HTTP2_PING_PLUS_READ_IDLE) {
    r.warning("--node-monitor-grace-period", "doc3.cm-behaviour.node-monitor-grace-above-http2", `${formatDuration(grace)} must exceed the HTTP/2 ping plus read-idle timeouts (${formatDuration(HTTP2_PING_PLUS_READ_IDLE)} with the client defaults)`);
  }
  if (!options.peer && view.given("--node-monitor-grace-period") && grace !== undefined && grace % AGENT_DEFAULT_STATUS_UPDATE_FREQUENCY !== 0n) {
    r.warning("--node-monitor-grace-period", "doc3.cm-behaviour.node-monitor-grace-multiple", `${formatDuration(grace)} is not a multiple of the node agent's default --node-status-update-frequency (${formatDuration(AGENT_DEFAULT_STATUS_UPDATE_FREQUENCY)}); check both command lines together to compare the real values`);
  }
  const secondary = view.float("--secondary-node-eviction-rate");
  if (view.given("--secondary-node-eviction-rate") && secondary !== undefined && secondary > 0) {
    r.note("--secondary-node-eviction-rate", "doc3.cm-behaviour.secondary-eviction-small-clusters", `applies only above --large-cluster-size-threshold (${view.int("--large-cluster-size-threshold") ?? "?"} nodes); smaller clusters use 0`);
  }
  if (view.given("--large-cluster-size-threshold")) {
    r.note("--large-cluster-size-threshold", "doc3.cm-behaviour.large-cluster-per-zone", "counts nodes per zone in a multi-zone cluster");
  }
  if (view.given("--unhealthy-zone-threshold")) {
    r.note("--unhealthy-zone-threshold", "doc3.cm-behaviour.unhealthy-zone-min-3", "a zone counts as unhealthy only with at least 3 not-Ready nodes, whatever the fraction");
  }
  const gcThreshold = view.int("--terminated-pod-gc-threshold");
  if (gcThreshold !== undefined && gcThreshold <= 0) {
    r.note("--terminated-pod-gc-threshold", "doc3.cm-behaviour.terminated-pod-gc-nonpositive-disables", `${gcThreshold} turns terminated-pod collection off`);
  }
  if (view.bool("--disable-force-detach-on-timeout") === true) {
    r.warning("--disable-force-detach-on-timeout", "doc3.cm-behaviour.force-detach-needs-graceful-shutdown", "volumes are no longer force-detached on timeout: node failures must be handled by graceful node shutdown");
  }
}

interface SigningPair {
  cert: string;
  key: string;
  signer?: string;
}

const SIGNING_PAIRS: readonly SigningPair[] = [
  { cert: "--cluster-signing-cert-file", key: "--cluster-signing-key-file" },
  { cert: "--cluster-signing-kube-apiserver-client-cert-file", key: "--cluster-signing-kube-apiserver-client-key-file", signer: `${SIGNER_DOMAIN}/kube-apiserver-client` },
  { cert: "--cluster-signing-kubelet-client-cert-file", key: "--cluster-signing-kubelet-client-key-file", signer: `${SIGNER_DOMAIN}/kube-apiserver-client-kubelet` },
  { cert: "--cluster-signing-kubelet-serving-cert-file", key: "--cluster-signing-kubelet-serving-key-file", signer: `${SIGNER_DOMAIN}/kubelet-serving` },
  { cert: "--cluster-signing-legacy-unknown-cert-file", key: "--cluster-signing-legacy-unknown-key-file", signer: `${SIGNER_DOMAIN}/legacy-unknown` },
];

function checkCmSigning(view: OptionView, r: Report): void {
  const [generic, ...specific] = SIGNING_PAIRS as [SigningPair, ...SigningPair[]];
  for (const pair of SIGNING_PAIRS) {
    const cert = view.set(pair.cert);
    const key = view.set(pair.key);
    if (cert !== key) {
      const [has, lacks] = cert ? [pair.cert, pair.key] : [pair.key, pair.cert];
      r.error(lacks, "doc3.cm-signing.cert-key-pairs", `${has} is given without ${lacks}`);
    }
    if (pair.signer && (cert || key)) {
      r.note(cert ? pair.cert : pair.key, "doc3.cm-signing.specific-signers", `signs for signer ${pair.signer}`);
    }
  }
  if (view.set(generic.cert) || view.set(generic.key)) {
    for (const pair of specific) {
      for (const name of [pair.cert, pair.key]) {
        if (view.set(name)) r.error(name, "doc3.cm-signing.generic-excludes-specific", `cannot be combined with ${generic.cert}/${generic.key}: set either the generic pair or the signer-specific ones`);
      }
    }
  }
  const duration = view.duration("--cluster-signing-duration");
  if (duration !== undefined && duration <= 0n) {
    r.error("--cluster-signing-duration", "doc3.cm-signing.duration-maximum", `${formatDuration(duration)} leaves no lifetime for signed certificates`);
  }
}

// ── Node agent ──────────────────────────────────────────────────────────────────────────

function checkNodeAgent(view: OptionView, r: Report, options: CheckOptions): void {
  checkAgentDeprecation(view, r);
  checkAgentModes(view, r);
  checkAgentServing(view, r);
  checkAgentResources(view, r);
  checkAgentLimits(view, r, options);
  checkCredentialConfig(view, r, options);
  checkVersionFlag(view, r);
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
      r.warning(name, "doc3.agent-options.removal-scheduled", `deprecated and scheduled for removal in ${spec.removal}; this is 1.35, so it may be gone already`);
    } else if (spec.replacedBy) {
      r.warning(name, "doc3.agent-options.gc-flags-use-eviction", `deprecated: use the ${spec.replacedBy} (--eviction-hard, --eviction-soft) instead`);
    } else if (!spec.notDeprecated) {
      r.warning(name, "doc3.service.agent-flags-deprecated", "deprecated as a flag: set it in the file given by --config");
    }
    if (!spec.notDeprecated) deprecatedGiven.push(name);
  }
  if (view.given("--config") && deprecatedGiven.length > 0) {
    r.note("--config", "doc3.service.agent-flags-override-config", `${deprecatedGiven.join(", ")} override${deprecatedGiven.length === 1 ? "s" : ""} the value in the --config file`);
  }
  if (!view.given("--config")) {
    r.note("--config", "doc3.agent-options.config-flags-override", "no --config: built-in defaults apply wherever no flag is given");
  }
  if (view.given("--config-dir")) {
    r.note("--config-dir", "doc3.agent-options.config-dir-overrides", "drop-ins in --config-dir override the defaults and the --config file; flags still override both");
  }
}

function checkAgentModes(view: OptionView, r: Report): void {
  const apiServerMode = view.set("--kubeconfig") || view.set("--bootstrap-kubeconfig");
  if (!apiServerMode) {
    r.note("--kubeconfig", "doc3.agent-options.kubeconfig-mode", "no --kubeconfig: the node agent runs standalone, with pods only from files or URLs");
  }
  if (view.raw("--node-ip") === "::") {
    r.note("--node-ip", "doc3.agent-options.node-ip-family", "\"::\" picks the default IPv6 address, falling back to IPv4");
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
    if (apiServerMode) r.warning("--pod-cidr", "doc3.agent-options.pod-cidr-standalone", "used only in standalone mode; with --kubeconfig the pod CIDR comes from the node object");
    const c = parseCidr(podCidr);
    if (c.ok && c.value.family === 6 && c.value.prefix < 112) {
      r.note("--pod-cidr", "doc3.agent-options.pod-cidr-standalone", `an IPv6 pod CIDR yields at most 65536 addresses, however large /${c.value.prefix} is`);
    }
  }
}

/** Why a node agent refuses a label key, or undefined when it may set it. */
export function reservedLabelProblem(key: string): string | undefined {
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
    r.warning("--anonymous-auth", "doc3.auth.agent-anonymous-always-allow", "anonymous requests with --authorization-mode=AlwaysAllow: anyone who reaches the main port may do anything there; use --anonymous-auth=false and --authorization-mode=Webhook");
  }
  const idle = view.duration("--streaming-connection-idle-timeout");
  if (idle === 0n) {
    r.note("--streaming-connection-idle-timeout", "doc3.agent-options.streaming-idle-zero-none", "0 means no idle timeout (connections still end after 4 hours)");
  } else if (idle !== undefined && idle > 4n * 3_600_000_000_000n) {
    r.warning("--streaming-connection-idle-timeout", "doc3.limits.agent-connection-max-4h", `${formatDuration(idle)} has no effect beyond 4h0m0s: every connection to the node agent ends after 4 hours`);
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
      r.error("--enforce-node-allocatable", "doc3.agent-options.enforce-allocatable-none-alone", `"none" must stand alone, not with ${enforce.filter((e) => e !== "none").join(", ")}`);
    }
    for (const [variant, cgroup] of [["system-reserved", "--system-reserved-cgroup"], ["kube-reserved", "--kube-reserved-cgroup"]] as const) {
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
      r.error("--allowed-unsafe-sysctls", "doc3.agent-options.unsafe-sysctls-patterns", `"${entry}": entries are sysctl names or patterns with one * at the end`);
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
  else r.warning("--reserved-memory", "doc3.agent-options.reserved-memory-sums", `${detail}; doc3 gives --eviction-hard no default, but a real node agent defaults to memory.available<100Mi: give --eviction-hard explicitly`);
}

function checkAgentLimits(view: OptionView, r: Report, options: CheckOptions): void {
  const freq = view.duration("--node-status-update-frequency");
  if (!options.peer && view.given("--node-status-update-frequency") && freq !== undefined && freq > 0n && CM_DEFAULT_NODE_MONITOR_GRACE % freq !== 0n) {
    r.warning("--node-status-update-frequency", "doc3.agent-options.status-frequency-vs-grace", `${formatDuration(freq)} does not divide the controller manager's default --node-monitor-grace-period (${formatDuration(CM_DEFAULT_NODE_MONITOR_GRACE)}); check both command lines together to compare the real values`);
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

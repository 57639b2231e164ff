/** Feature gates: the entries of --feature-gates, each with its rule and what it means, and the options a gate must be on for. */
import { type GateEntry, gatesByName, realGateName } from "../catalog/index.js";
import { readGateEntries } from "../options/gate-entries.js";
import type { OptionView } from "../options/view.js";
import { parseQuantity } from "../values/quantities.js";
import type { Report } from "./check.js";

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

/** Each --feature-gates entry: its problem under its doc3 rule, or what setting it means. */
export function readGates(view: OptionView, gates: GateView, r: Report): void {
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

/** The doc3 rules a gate's stage and default rest on: its list, and the gate's own line where doc3 gives one. */
function gateBasis(spec: GateEntry["spec"]): string[] {
  const list = LIST_RULES[spec.list];
  const own = GATE_RULES[spec.name];
  return [...(list ? [list] : []), ...(own ? [own] : [])];
}

const LIST_RULES: Partial<Record<GateEntry["spec"]["list"], string>> = {
  alpha: "doc3.versioning.alpha-gate-list",
  "beta-on": "doc3.versioning.beta-on-gate-list",
  "beta-off": "doc3.versioning.beta-off-gate-list",
};

/** The gates doc3 names one by one (the ones other documents rely on), by doc3's name. */
const GATE_RULES: Readonly<Record<string, string>> = {
  APIResponseCompression: "doc3.versioning.gate-api-response-compression",
  ListFromCacheSnapshot: "doc3.versioning.gate-list-from-cache-snapshot",
  WatchList: "doc3.versioning.gate-watch-list",
  RemoteRequestHeaderUID: "doc3.versioning.gate-remote-request-header-uid",
  RotateAgentServerCertificate: "doc3.versioning.gate-rotate-agent-server-certificate",
  CBORServingAndStorage: "doc3.versioning.gate-cbor-serving-and-storage",
  AllowUnsafeMalformedObjectDeletion: "doc3.versioning.gate-allow-unsafe-malformed-object-deletion",
  ClientsAllowCBOR: "doc3.versioning.gate-clients-allow-cbor",
  ClientsPreferCBOR: "doc3.versioning.gate-clients-prefer-cbor",
  LoggingAlphaOptions: "doc3.versioning.gate-logging-alpha-options",
  QOSReserved: "doc3.versioning.gate-qos-reserved",
};

function noteGate(entry: GateEntry, value: boolean, r: Report): void {
  const { spec, realName } = entry;
  if (spec.list === "meta") {
    if (realName === "AllAlpha" && value)
      r.warning("--feature-gates", "doc3.versioning.alpha-gate-enabled", "AllAlpha=true turns on every alpha gate not set by name");
    else if (realName === "AllBeta")
      r.note("--feature-gates", "doc3.versioning.all-beta-meta-gate", `AllBeta=${value} sets every beta gate not set by name to ${value}`);
    else r.note("--feature-gates", "doc3.versioning.all-alpha-meta-gate", "AllAlpha=false is the default");
    return;
  }
  const basis = gateBasis(spec);
  if (spec.stage === "alpha") {
    if (value)
      r.warning(
        "--feature-gates",
        "doc3.versioning.alpha-gate-enabled",
        `${realName} is an alpha gate: ${realName}=true turns on an alpha-stage feature`,
        basis,
      );
    else r.note("--feature-gates", "doc3.versioning.alpha-default-false", `${realName}=false is the default (alpha gates are off)`, basis);
    return;
  }
  if (spec.list === "beta-on") {
    if (value) r.note("--feature-gates", "doc3.versioning.beta-on-default-true", `${realName}=true is the default (beta, on by default)`, basis);
    else r.note("--feature-gates", "doc3.versioning.beta-on-default-true", `${realName}=false turns off a beta feature that is on by default`, basis);
    return;
  }
  if (value) r.note("--feature-gates", "doc3.versioning.beta-off-default-false", `${realName}=true turns on a beta feature that is off by default`, basis);
  else r.note("--feature-gates", "doc3.versioning.beta-off-default-false", `${realName}=false is the default (beta, off by default)`, basis);
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

/** An option that needs a gate asks for something while the gate is off. */
export function checkGatedOptions(view: OptionView, gates: GateView, r: Report): void {
  for (const [name, { spec }] of view.line.catalog.byName) {
    if (!spec.gate || !asksForSomething(view, name)) continue;
    const gate = realGateName(spec.gate.name);
    const how = view.line.daemon === "controller-manager" ? `kube:${gate}=true` : `${gate}=true`;
    const gateSpec = gatesByName.get(gate)?.spec;
    // Off by default rests on the gate's stage in doc3's lists.
    if (gates.enabled(spec.gate.name) === false)
      r.error(name, spec.gate.rule, `${name} needs feature gate ${gate}, which is off: add --feature-gates=${how}`, gateSpec ? gateBasis(gateSpec) : []);
  }
}

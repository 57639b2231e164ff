/**
 * Value rules: each option's value on its own, that it can be read as its kind (the option
 * model's answer, which is what stops the daemon) and what doc3 asks of it beyond its form;
 * and options given at their doc3 default.
 */
import { INSECURE_CIPHER_SUITES, PREFERRED_CIPHER_SUITES, type ValueKind } from "../catalog/index.js";
import type { CommandLine, Occurrence } from "../options/command-line.js";
import type { OptionView } from "../options/view.js";
import { parseIpList } from "../values/addresses.js";
import { closest } from "../values/closest.js";
import { checkLabelValue, checkQualifiedName } from "../values/cluster-names.js";
import { parseDuration } from "../values/durations.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../values/go-scalars.js";
import { parsePairs, splitCsv } from "../values/lists.js";
import type { Parse } from "../values/parse.js";
import { parseQuantity } from "../values/quantities.js";
import type { Report } from "./check.js";

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

/** What --kube-reserved and --system-reserved can reserve. */
const RESERVED_RESOURCES: readonly string[] = ["cpu", "memory", "pid", "ephemeral-storage"];

/** One finding per option occurrence whose value is wrong. */
export function checkValues(line: CommandLine, r: Report): void {
  for (const occ of line.occurrences) checkValue(occ, r);
}

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

/** Kinds whose values can be equal in different spellings (`60s` and `1m0s`, `0x10` and `16`). */
const COMPARABLE: Partial<Record<ValueKind, (s: string) => Parse<bigint | number | boolean>>> = {
  duration: parseDuration,
  int: (s) => parseGoInt(s, 64),
  int32: (s) => parseGoInt(s, 64),
  float: parseGoFloat,
  bool: parseGoBool,
  quantity: parseQuantity,
};

function sameValue(kind: ValueKind, a: string, b: string): boolean {
  const parse = COMPARABLE[kind];
  if (!parse) return a === b;
  const x = parse(a);
  const y = parse(b);
  return x.ok && y.ok && x.value === y.value;
}

const NUMERIC_KINDS: ReadonlySet<string> = new Set(["int", "int32", "float", "duration", "quantity"]);

/** An option given at its doc3 default changes nothing; saying so shows which default the checker holds. */
export function checkDefaults(view: OptionView, r: Report): void {
  for (const [name, occs] of view.line.byName) {
    const { spec, table } = view.entry(name);
    const last = occs[occs.length - 1];
    if (last && last.value === "" && spec.default === "(empty)" && valueProblem(last) === undefined) {
      r.note(name, "doc3.options.empty-default-unset", `${last.written}="" is the same as leaving the option out`);
      continue;
    }
    if (!last || spec.defaultValue === undefined || valueProblem(last) !== undefined) continue;
    if (sameValue(spec.kind, last.value, spec.defaultValue)) {
      // A number's default is one of doc3's numeric limits and defaults (its "Limits" section: they are the tables').
      const basis = NUMERIC_KINDS.has(spec.kind) ? ["doc3.limits.numeric-limits-are-options"] : [];
      r.note(name, spec.defaultRule ?? table.rule, `${last.value} is the default (${spec.default}); the option can be left out`, basis);
    }
  }
}

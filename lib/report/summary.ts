/**
 * summary.json: the verdict per rule (not only per test), the target's detected capabilities
 * with their evidence, the verdict per profile, and the exit code with its reasons.
 *
 * A rule fails when any test naming it failed (the detection step counts as a test: an answer
 * no 1.35 server gives fails the rule its probe exercises); passes when at least one passed and
 * none failed; is not applicable when all its tests were (each with the runner's reason); is
 * not observable when the catalog says no request from outside can show it; is untested when no
 * test names it. A client duty no suite test names gets "client": a run gives no verdict on
 * the server for it.
 *
 * A failed rule carries what decided it (the failing tests' messages, their last exchanges with
 * the target, a property's seed and counterexample), a not-applicable one the unmet needs with
 * the capability evidence. The shape is published as schemas/summary.schema.json.
 */
import type { Exchange } from "../harness/exchanges.js";
import type { UnmetNeed } from "../runner/capabilities.js";
import type { PropertyEvidence } from "../runner/evidence.js";
import { PROFILE_NAMES, profileOf, type Profile } from "../spec/profiles.js";
import type { Rule } from "../spec/types.js";

/**
 * The version of summary.json's shape (schemas/summary.schema.json). It changes only when a
 * reader of the previous version could misread a new summary: a field removed, renamed,
 * retyped or given another meaning, or a new value of a closed set (a rule status). Adding an
 * optional field keeps it; readers ignore fields they do not know.
 */
export const SUMMARY_SCHEMA_VERSION = 1;

export type TestState = "passed" | "failed" | "not-applicable";
export type RuleStatus = "passed" | "failed" | "not-applicable" | "not-observable" | "untested" | "client";

export interface TestOutcome {
  name: string;
  file: string;
  rules: string[];
  /** The capabilities the test declared it needs. */
  needs?: string[];
  state: TestState;
  durationMs: number;
  /** The first line of each error: the summary of what went wrong. */
  errors: string[];
  /** The whole messages behind `errors`, when one has more than its first line (capped in length). */
  fullErrors?: string[];
  /** A failed test's last exchanges with the target, oldest first. */
  exchanges?: Exchange[];
  /** A failed property test: its seed and shrunk counterexample. */
  property?: PropertyEvidence;
  /** Why a test did not apply (the runner's reason from its needs and the detected capabilities). */
  note?: string;
  /** The unmet needs behind `note`, each with the capability's evidence. */
  unmet?: UnmetNeed[];
}

export interface CapabilityRecord {
  available: boolean;
  evidence: string;
}

export interface DetectionViolation {
  rules: string[];
  probe: string;
  message: string;
}

/** One failing test of a rule, with what decided it. */
export interface RuleFailure {
  test: string;
  /** The first line of the test's first error. */
  message: string;
  /** The whole message, when it has more than its first line. */
  fullMessage?: string;
  exchanges?: Exchange[];
  property?: PropertyEvidence;
}

export interface RuleVerdict {
  id: string;
  title: string;
  doc: string;
  section: string;
  source: string;
  level: Rule["level"];
  /** Undefined for client duties. */
  profile?: Profile;
  gate?: Rule["gate"];
  realServer?: string;
  /** Why no request from outside can show the statement. */
  unobservable?: string;
  status: RuleStatus;
  tests: number;
  failures: RuleFailure[];
  /** Reasons given by the runner for tests of this rule that did not apply to the target. */
  notApplicable?: { test: string; reason: string; unmet?: UnmetNeed[] }[];
}

export interface ProfileVerdict {
  name: Profile;
  /** "verified": every rule that counts passed; "failed": one failed; "partial": some were not verified; "not verified": none was. */
  verdict: "verified" | "failed" | "partial" | "not verified";
  rules: Record<RuleStatus, number> & { total: number };
  /** Rules that count for the profile but were neither passed nor failed (not applicable or untested). */
  notVerified: string[];
  /** Named with --require: its not-verified rules fail the run. */
  required: boolean;
}

/** Which part of a run this is (`tollgate run --shard I/N`): `report merge` puts the parts together. */
export interface ShardRef {
  index: number;
  count: number;
}

/** A summary made by `tollgate report merge`: the runs it was made from, and what they disagreed on. */
export interface MergedFrom {
  runs: { runId: string; toolVersion: string; target: { url: string; source: string }; startedAt: string; durationMs: number; shard?: ShardRef }[];
  notes: string[];
}

export interface Summary {
  schemaVersion: typeof SUMMARY_SCHEMA_VERSION;
  tool: { name: "tollgate"; version: string };
  runId: string;
  target: { url: string; source: string };
  serverVersion?: string;
  /** The seed of the run's property tests; `tollgate run --seed N` repeats them. */
  seed?: number;
  /** Set on one shard of a run. */
  shard?: ShardRef;
  /** Set on a merged summary. */
  merged?: MergedFrom;
  startedAt: string;
  durationMs: number;
  /** Gates the operator declared off (--feature-gates): their rules do not count as unverified. */
  gatesDeclaredOff?: string[];
  capabilities: Record<string, CapabilityRecord>;
  detection: { durationMs: number; violations: DetectionViolation[] };
  totals: {
    tests: Record<TestState, number> & { total: number };
    rules: Record<RuleStatus, number> & { total: number };
    requiredFailed: number;
  };
  profiles: ProfileVerdict[];
  /** Tests that name no rule or an unknown one, unhandled errors: anything that makes the verdict incomplete. */
  problems: string[];
  /** 0 or 1, and why. */
  exit: { code: 0 | 1; reasons: string[] };
  rules: RuleVerdict[];
  tests: TestOutcome[];
}

export interface SummaryInput {
  toolVersion: string;
  runId: string;
  target: { url: string; source: string };
  serverVersion?: string;
  seed?: number;
  shard?: ShardRef;
  startedAt: Date;
  durationMs: number;
  rules: readonly Rule[];
  tests: readonly TestOutcome[];
  capabilities?: Record<string, CapabilityRecord>;
  detection?: { durationMs: number; violations: readonly DetectionViolation[] };
  /** Profiles named with --require. */
  require?: readonly Profile[];
  /** Gates the operator declared off: rules behind them do not count as unverified. */
  gatesDeclaredOff?: readonly string[];
  unhandledErrors?: readonly string[];
}

export const DETECTION_FILE = "(capability detection)";
/** How an unhandled error starts among `problems` (report merge carries them over by it). */
export const UNHANDLED_ERROR = "unhandled error: ";

const count = <K extends string>(keys: readonly K[], of: (k: K) => number): Record<K, number> => Object.fromEntries(keys.map((k) => [k, of(k)])) as Record<K, number>;
const TEST_STATES = ["passed", "failed", "not-applicable"] as const;
const RULE_STATES = ["passed", "failed", "not-applicable", "not-observable", "untested", "client"] as const;

export function buildSummary(input: SummaryInput): Summary {
  const violations = [...(input.detection?.violations ?? [])];
  // An answer of the detection step that no 1.35 server gives fails the rules its probe exercises, like a failed test.
  const tests: TestOutcome[] = [
    ...violations.map((v) => ({ name: `detection: ${v.probe}`, file: DETECTION_FILE, rules: [...v.rules], state: "failed" as const, durationMs: 0, errors: [v.message] })),
    ...input.tests,
  ];
  const byRule = new Map<string, TestOutcome[]>();
  const problems: string[] = [];
  const catalog = new Map(input.rules.map((r) => [r.id, r]));
  for (const t of tests) {
    if (t.rules.length === 0) problems.push(`test "${t.name}" (${t.file}) names no rule`);
    for (const id of t.rules) {
      const rule = catalog.get(id);
      if (!rule) problems.push(`test "${t.name}" (${t.file}) names unknown rule ${id}`);
      else if (rule.unobservable !== undefined && t.file !== DETECTION_FILE) problems.push(`test "${t.name}" (${t.file}) names ${id}, which no request from outside can show`);
      byRule.set(id, [...(byRule.get(id) ?? []), t]);
    }
  }
  for (const e of input.unhandledErrors ?? []) problems.push(`${UNHANDLED_ERROR}${e}`);

  const verdicts: RuleVerdict[] = input.rules.map((r) => {
    const mine = byRule.get(r.id) ?? [];
    const failed = mine.filter((t) => t.state === "failed");
    let status: RuleStatus;
    if (failed.length > 0) status = "failed";
    else if (r.unobservable !== undefined) status = "not-observable";
    else if (mine.length === 0) status = r.subject === "client" ? "client" : "untested";
    else status = mine.some((t) => t.state === "passed") ? "passed" : "not-applicable";
    const v: RuleVerdict = {
      id: r.id,
      title: r.title,
      doc: r.doc,
      section: r.section,
      source: `${r.doc} § ${r.section}`,
      level: r.level,
      status,
      tests: mine.length,
      failures: failed.map(failureOf),
    };
    const profile = profileOf(r);
    if (profile) v.profile = profile;
    const notes = mine.filter((t) => t.state === "not-applicable" && t.note).map((t) => ({ test: t.name, reason: t.note as string, ...(t.unmet?.length ? { unmet: t.unmet } : {}) }));
    if (notes.length) v.notApplicable = notes;
    if (r.gate) v.gate = r.gate;
    if (r.realServer) v.realServer = r.realServer;
    if (r.unobservable) v.unobservable = r.unobservable;
    return v;
  });

  const required = new Set(input.require ?? []);
  const declaredOff = new Set(input.gatesDeclaredOff ?? []);
  const profiles: ProfileVerdict[] = PROFILE_NAMES.map((name) => {
    const mine = verdicts.filter((v) => v.profile === name);
    // Optional core rules are a "may": not offering them is no gap. A gate the operator turned off takes its rules out too.
    const counts = mine.filter((v) => v.status !== "not-observable" && !(name === "core" && v.level === "optional") && !(v.gate && declaredOff.has(v.gate.name)));
    const notVerified = counts.filter((v) => v.status === "not-applicable" || v.status === "untested").map((v) => v.id);
    const failed = counts.some((v) => v.status === "failed");
    const passed = counts.filter((v) => v.status === "passed").length;
    const verdict = failed ? "failed" : notVerified.length === 0 ? "verified" : passed > 0 ? "partial" : "not verified";
    return { name, verdict, rules: { ...count(RULE_STATES, (s) => mine.filter((v) => v.status === s).length), total: mine.length }, notVerified, required: required.has(name) };
  });

  const summary: Summary = {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    tool: { name: "tollgate", version: input.toolVersion },
    runId: input.runId,
    target: input.target,
    ...(input.serverVersion ? { serverVersion: input.serverVersion } : {}),
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
    ...(input.shard ? { shard: input.shard } : {}),
    startedAt: input.startedAt.toISOString(),
    durationMs: Math.round(input.durationMs),
    ...(declaredOff.size ? { gatesDeclaredOff: [...declaredOff] } : {}),
    capabilities: input.capabilities ?? {},
    detection: { durationMs: Math.round(input.detection?.durationMs ?? 0), violations },
    totals: {
      // The suites' tests; the detection step's violations are in `tests` and `detection`, not counted here.
      tests: { ...count(TEST_STATES, (s) => input.tests.filter((t) => t.state === s).length), total: input.tests.length },
      rules: { ...count(RULE_STATES, (s) => verdicts.filter((v) => v.status === s).length), total: verdicts.length },
      requiredFailed: verdicts.filter((v) => v.status === "failed" && v.level === "required").length,
    },
    profiles,
    problems,
    exit: { code: 0, reasons: [] },
    rules: verdicts,
    tests,
  };
  summary.exit = exitDecision(summary);
  return summary;
}

function failureOf(t: TestOutcome): RuleFailure {
  const f: RuleFailure = { test: t.name, message: t.errors[0] ?? "failed" };
  const full = t.fullErrors?.[0];
  if (full !== undefined && full !== f.message) f.fullMessage = full;
  if (t.exchanges?.length) f.exchanges = t.exchanges;
  if (t.property) f.property = t.property;
  return f;
}

/**
 * The exit code of `tollgate run` and why. 1 when any rule failed: a required rule, or one of a
 * feature the target offers (a test only runs when the target offers what it needs, so a failed
 * test of an optional or gated rule is a feature served wrongly); when a profile named with
 * --require has rules that were not verified; or when the run is unsound (a test with no or an
 * unknown rule, an unhandled error, no test at all). Not applicable, not observable, untested
 * and client verdicts alone never fail a run.
 */
export function exitDecision(s: Pick<Summary, "rules" | "profiles" | "problems" | "totals" | "shard">): { code: 0 | 1; reasons: string[] } {
  const reasons: string[] = [];
  const failed = s.rules.filter((r) => r.status === "failed");
  const required = failed.filter((r) => r.level === "required");
  if (required.length > 0) reasons.push(`${required.length} required rule(s) failed: ${required.slice(0, 5).map((r) => r.id).join(", ")}${required.length > 5 ? ", …" : ""}`);
  const offered = failed.filter((r) => r.level !== "required");
  if (offered.length > 0) reasons.push(`${offered.length} rule(s) of a feature the target offers failed: ${offered.slice(0, 5).map((r) => r.id).join(", ")}${offered.length > 5 ? ", …" : ""}`);
  // A shard's unverified rules may be another shard's: `report merge` decides --require for the whole run.
  if (!s.shard) for (const p of s.profiles) if (p.required && p.notVerified.length > 0) reasons.push(`profile ${p.name} is required (--require) but ${p.notVerified.length} of its rules were not verified: ${p.notVerified.slice(0, 5).join(", ")}${p.notVerified.length > 5 ? ", …" : ""}`);
  if (s.problems.length > 0) reasons.push(`the run is unsound: ${s.problems[0]}${s.problems.length > 1 ? ` (and ${s.problems.length - 1} more)` : ""}`);
  if (s.totals.tests.total === 0) reasons.push("no test ran");
  return { code: reasons.length > 0 ? 1 : 0, reasons };
}

/** Exit code of `tollgate run` for a finished run (see exitDecision). */
export function exitCodeFor(summary: Summary): 0 | 1 {
  return exitDecision(summary).code;
}

/**
 * summary.json: the verdict per rule (not only per test), the target's detected capabilities
 * with their evidence, the verdict per profile, and the exit code with its reasons.
 *
 * A rule fails when any test naming it failed (the detection step counts as a test: an answer
 * no 1.35 server gives fails the rule its probe exercises); passes when at least one passed and
 * none failed; is not applicable when all its tests were (each with the runner's reason); is
 * not observable when the catalog says no request from outside can show it; is untested when no
 * test names it. A client duty no suite test names gets "client": a run gives no verdict on
 * the server for it. A test that could not be decided because the target did not answer is
 * "target unavailable", never passed or failed, and so is a rule with such a test and no failed
 * one; the run then exits 2. Tests left out by the run's selection, or not run because the run
 * was stopped, are in no verdict (only counted).
 *
 * A failed rule carries what decided it (the failing tests' messages, their last exchanges with
 * the target, a property's seed and counterexample), a not-applicable one the unmet needs with
 * the capability evidence. The shape is published as schemas/summary.schema.json.
 */
import type { Exchange } from "../harness/exchanges.js";
import type { LoadCounters, LoadSettings } from "../harness/load.js";
import type { UnmetNeed } from "../runner/capabilities.js";
import type { PropertyEvidence } from "../runner/evidence.js";
import type { RunStop } from "../runner/run-state.js";
import { PROFILE_NAMES, type Profile, profileOf } from "../spec/profiles.js";
import type { Rule } from "../spec/types.js";

/**
 * The version of summary.json's shape (schemas/summary.schema.json). It changes only when a
 * reader of the previous version could misread a new summary: a field removed, renamed,
 * retyped or given another meaning, or a new value of a closed set (a rule status). Adding an
 * optional field keeps it; readers ignore fields they do not know.
 */
export const SUMMARY_SCHEMA_VERSION = 1;

export type TestState = "passed" | "failed" | "not-applicable" | "target-unavailable";
export type RuleStatus = "passed" | "failed" | "not-applicable" | "target-unavailable" | "not-observable" | "untested" | "client";

/**
 * 0 no rule failed; 1 a rule failed or the run is unsound; 2 the target did not answer (or bad
 * usage); 124 --timeout ran out; 130 SIGINT; 143 SIGTERM (128 + the signal, as a shell reports it).
 */
export type ExitCode = 0 | 1 | 2 | 124 | 130 | 143;
export const STOP_EXIT_CODES: Record<RunStop["reason"], ExitCode> = { SIGINT: 130, SIGTERM: 143, timeout: 124, "target-unavailable": 2 };

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
  /** Why a test did not apply (the runner's reason from its needs and the detected capabilities), or what went unanswered. */
  note?: string;
  /** The unmet needs behind `note`, each with the capability's evidence. */
  unmet?: UnmetNeed[];
}

/** The target did not answer during the run (summary.target.problem). */
export interface TargetProblem {
  /** The first thing that went unanswered, naming the request. */
  message: string;
  /** Tests left undecided ("target unavailable"). */
  tests: number;
  /** The run was stopped because the target stayed silent (--unavailable-after). */
  stopped: boolean;
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
  /** Where the run went; `problem` when the target did not answer at some point. */
  target: { url: string; source: string; problem?: TargetProblem };
  serverVersion?: string;
  /** The seed of the run's property tests; `tollgate run --seed N` repeats them. */
  seed?: number;
  /** Set on one shard of a run. */
  shard?: ShardRef;
  /** Set on a merged summary. */
  merged?: MergedFrom;
  /** Set when the run was stopped before its end (a signal, --timeout, the target gone); the report covers what ran. */
  stopped?: { reason: RunStop["reason"]; message: string };
  /** --focus, --skip, --rerun-failed, as given. */
  selection?: { focus: string[]; skip: string[]; rerunFailed?: string };
  /** The run's load manners and what they cost (the requests of the tests, of detection and of the health probes). */
  load?: LoadSettings & LoadCounters;
  /** What the end of the run removed of what it created (added by `tollgate run` after the cleanup). */
  cleanup?: { removed: number; deleting: number; failed: string[]; error?: string };
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
    /** Tests the selection left out, and tests a stopped run never got to: in no verdict. */
    leftOut: number;
    notRun: number;
  };
  profiles: ProfileVerdict[];
  /** Tests that name no rule or an unknown one, unhandled errors: anything that makes the verdict incomplete. */
  problems: string[];
  /** The exit code of `tollgate run`, and why. */
  exit: { code: ExitCode; reasons: string[] };
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
  /** Errors outside any test that were the target not answering (a suite's setup or cleanup, detection). */
  targetErrors?: readonly string[];
  stop?: RunStop;
  selection?: Summary["selection"];
  load?: Summary["load"];
  leftOut?: number;
  notRun?: number;
}

export const DETECTION_FILE = "(capability detection)";
/** How an unhandled error starts among `problems` (report merge carries them over by it). */
export const UNHANDLED_ERROR = "unhandled error: ";

const count = <K extends string>(keys: readonly K[], of: (k: K) => number): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, of(k)])) as Record<K, number>;
const TEST_STATES = ["passed", "failed", "not-applicable", "target-unavailable"] as const;
const RULE_STATES = ["passed", "failed", "not-applicable", "target-unavailable", "not-observable", "untested", "client"] as const;

export function buildSummary(input: SummaryInput): Summary {
  const violations = [...(input.detection?.violations ?? [])];
  // An answer of the detection step that no 1.35 server gives fails the rules its probe exercises, like a failed test.
  const tests: TestOutcome[] = [
    ...violations.map((v) => ({
      name: `detection: ${v.probe}`,
      file: DETECTION_FILE,
      rules: [...v.rules],
      state: "failed" as const,
      durationMs: 0,
      errors: [v.message],
    })),
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
      else if (rule.unobservable !== undefined && t.file !== DETECTION_FILE)
        problems.push(`test "${t.name}" (${t.file}) names ${id}, which no request from outside can show`);
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
    // One undecided test keeps the rule undecided: the ones that passed did not check all of it.
    else if (mine.some((t) => t.state === "target-unavailable")) status = "target-unavailable";
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
    const notes = mine
      .filter((t) => t.state === "not-applicable" && t.note)
      .map((t) => ({ test: t.name, reason: t.note as string, ...(t.unmet?.length ? { unmet: t.unmet } : {}) }));
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
    const counts = mine.filter(
      (v) => v.status !== "not-observable" && !(name === "core" && v.level === "optional") && !(v.gate && declaredOff.has(v.gate.name)),
    );
    const notVerified = counts.filter((v) => v.status === "not-applicable" || v.status === "untested" || v.status === "target-unavailable").map((v) => v.id);
    const failed = counts.some((v) => v.status === "failed");
    const passed = counts.filter((v) => v.status === "passed").length;
    const verdict = failed ? "failed" : notVerified.length === 0 ? "verified" : passed > 0 ? "partial" : "not verified";
    return {
      name,
      verdict,
      rules: { ...count(RULE_STATES, (s) => mine.filter((v) => v.status === s).length), total: mine.length },
      notVerified,
      required: required.has(name),
    };
  });

  const undecided = input.tests.filter((t) => t.state === "target-unavailable");
  const silence = [...(input.targetErrors ?? []), ...undecided.map((t) => t.note ?? t.errors[0] ?? "no answer")];
  const stoppedForTarget = input.stop?.reason === "target-unavailable";
  const problem: TargetProblem | undefined =
    silence.length > 0 || stoppedForTarget
      ? { message: silence[0] ?? input.stop?.message ?? "no answer", tests: undecided.length, stopped: stoppedForTarget }
      : undefined;

  const summary: Summary = {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    tool: { name: "tollgate", version: input.toolVersion },
    runId: input.runId,
    target: { ...input.target, ...(problem ? { problem } : {}) },
    ...(input.serverVersion ? { serverVersion: input.serverVersion } : {}),
    ...(input.seed !== undefined ? { seed: input.seed } : {}),
    ...(input.shard ? { shard: input.shard } : {}),
    ...(input.stop ? { stopped: { reason: input.stop.reason, message: input.stop.message } } : {}),
    ...(input.selection ? { selection: input.selection } : {}),
    ...(input.load ? { load: input.load } : {}),
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
      leftOut: input.leftOut ?? 0,
      notRun: input.notRun ?? 0,
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
 * The exit code of `tollgate run` and why. A stopped run exits with its stop's code (130 SIGINT,
 * 143 SIGTERM, 124 --timeout, 2 the target stopped answering). Otherwise 2 when the target did not
 * answer at some point (its tests are undecided, whatever else failed) or the selection left no
 * test to run; 1 when any rule failed: a required rule, or one of a feature the target offers (a
 * test only runs when the target offers what it needs, so a failed test of an optional or gated
 * rule is a feature served wrongly); when a profile named with --require has rules that were not
 * verified; or when the run is unsound (a test with no or an unknown rule, an unhandled error, no
 * test at all). Not applicable, not observable, untested and client verdicts alone never fail a run.
 */
function exitDecision(s: Pick<Summary, "rules" | "profiles" | "problems" | "totals"> & Partial<Pick<Summary, "stopped" | "target" | "selection" | "shard">>): {
  code: ExitCode;
  reasons: string[];
} {
  const reasons: string[] = [];
  const problem = s.target?.problem;
  if (s.stopped) reasons.push(`stopped before its end: ${s.stopped.message}`);
  if (problem && !problem.stopped)
    reasons.push(`the target did not answer${problem.tests ? ` (${problem.tests} test(s) undecided: target unavailable)` : ""}: ${problem.message}`);
  const failed = s.rules.filter((r) => r.status === "failed");
  const required = failed.filter((r) => r.level === "required");
  if (required.length > 0)
    reasons.push(
      `${required.length} required rule(s) failed: ${required
        .slice(0, 5)
        .map((r) => r.id)
        .join(", ")}${required.length > 5 ? ", …" : ""}`,
    );
  const offered = failed.filter((r) => r.level !== "required");
  if (offered.length > 0)
    reasons.push(
      `${offered.length} rule(s) of a feature the target offers failed: ${offered
        .slice(0, 5)
        .map((r) => r.id)
        .join(", ")}${offered.length > 5 ? ", …" : ""}`,
    );
  // A shard's unverified rules may be another shard's: `report merge` decides --require for the whole run.
  if (!s.shard)
    for (const p of s.profiles)
      if (p.required && p.notVerified.length > 0)
        reasons.push(
          `profile ${p.name} is required (--require) but ${p.notVerified.length} of its rules were not verified: ${p.notVerified.slice(0, 5).join(", ")}${p.notVerified.length > 5 ? ", …" : ""}`,
        );
  if (s.problems.length > 0) reasons.push(`the run is unsound: ${s.problems[0]}${s.problems.length > 1 ? ` (and ${s.problems.length - 1} more)` : ""}`);
  const noTest = s.totals.tests.total === 0;
  const selectedNothing = noTest && s.selection !== undefined && s.totals.leftOut > 0;
  if (selectedNothing) reasons.push("the selection (--focus, --skip, --rerun-failed) left no test to run");
  else if (noTest && !s.stopped && !problem) reasons.push("no test ran");
  if (s.stopped) return { code: STOP_EXIT_CODES[s.stopped.reason], reasons };
  if (problem || selectedNothing) return { code: 2, reasons };
  return { code: reasons.length > 0 ? 1 : 0, reasons };
}

/** Exit code of `tollgate run` for a finished run (see exitDecision). */
export function exitCodeFor(summary: Summary): ExitCode {
  return exitDecision(summary).code;
}

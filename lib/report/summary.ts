/**
 * summary.json: the verdict per rule (not only per test). A rule fails when any test that
 * names it failed, passes when at least one passed and none failed, is skipped when all
 * its tests were skipped, and is untested when no test names it. A client duty no suite test
 * names gets "client": it binds clients, so a run gives no verdict on the server for it
 * (tollgate's own unit tests check that its client keeps it).
 */
import type { Rule } from "../spec/types.js";

export type TestState = "passed" | "failed" | "skipped";
export type RuleStatus = "passed" | "failed" | "skipped" | "untested" | "client";

export interface TestOutcome {
  name: string;
  file: string;
  rules: string[];
  state: TestState;
  durationMs: number;
  errors: string[];
  /** Why a skipped test did not apply (for example a shortcut the target does not offer). */
  note?: string;
}

export interface RuleVerdict {
  id: string;
  title: string;
  doc: string;
  source: string;
  level: Rule["level"];
  gate?: Rule["gate"];
  realServer?: string;
  status: RuleStatus;
  tests: number;
  failures: { test: string; message: string }[];
  /** Reasons given by tests of this rule that did not apply to the target. */
  notApplicable?: { test: string; reason: string }[];
}

export interface Summary {
  tool: { name: "tollgate"; version: string };
  runId: string;
  target: { url: string; source: string };
  serverVersion?: string;
  startedAt: string;
  durationMs: number;
  totals: {
    tests: Record<TestState, number> & { total: number };
    rules: Record<RuleStatus, number> & { total: number };
    requiredFailed: number;
  };
  /** Tests that name no rule or an unknown one, unhandled errors: anything that makes the verdict incomplete. */
  problems: string[];
  rules: RuleVerdict[];
  tests: TestOutcome[];
}

export interface SummaryInput {
  toolVersion: string;
  runId: string;
  target: { url: string; source: string };
  serverVersion?: string;
  startedAt: Date;
  durationMs: number;
  rules: readonly Rule[];
  tests: readonly TestOutcome[];
  unhandledErrors?: readonly string[];
}

export function buildSummary(input: SummaryInput): Summary {
  const byRule = new Map<string, TestOutcome[]>();
  const problems: string[] = [];
  const known = new Set(input.rules.map((r) => r.id));
  for (const t of input.tests) {
    if (t.rules.length === 0) problems.push(`test "${t.name}" (${t.file}) names no rule`);
    for (const id of t.rules) {
      if (!known.has(id)) problems.push(`test "${t.name}" (${t.file}) names unknown rule ${id}`);
      const list = byRule.get(id) ?? [];
      list.push(t);
      byRule.set(id, list);
    }
  }
  for (const e of input.unhandledErrors ?? []) problems.push(`unhandled error: ${e}`);

  const verdicts: RuleVerdict[] = input.rules.map((r) => {
    const tests = byRule.get(r.id) ?? [];
    const failed = tests.filter((t) => t.state === "failed");
    const status: RuleStatus =
      tests.length === 0 ? (r.subject === "client" ? "client" : "untested") : failed.length > 0 ? "failed" : tests.some((t) => t.state === "passed") ? "passed" : "skipped";
    const v: RuleVerdict = {
      id: r.id,
      title: r.title,
      doc: r.doc,
      source: `${r.doc} § ${r.section}`,
      level: r.level,
      status,
      tests: tests.length,
      failures: failed.map((t) => ({ test: t.name, message: t.errors[0] ?? "failed" })),
    };
    const notes = tests.filter((t) => t.state === "skipped" && t.note).map((t) => ({ test: t.name, reason: t.note as string }));
    if (notes.length) v.notApplicable = notes;
    if (r.gate) v.gate = r.gate;
    if (r.realServer) v.realServer = r.realServer;
    return v;
  });

  const count = <K extends string>(keys: readonly K[], of: (k: K) => number): Record<K, number> =>
    Object.fromEntries(keys.map((k) => [k, of(k)])) as Record<K, number>;
  const testStates = ["passed", "failed", "skipped"] as const;
  const ruleStates = ["passed", "failed", "skipped", "untested", "client"] as const;
  return {
    tool: { name: "tollgate", version: input.toolVersion },
    runId: input.runId,
    target: input.target,
    ...(input.serverVersion ? { serverVersion: input.serverVersion } : {}),
    startedAt: input.startedAt.toISOString(),
    durationMs: Math.round(input.durationMs),
    totals: {
      tests: { ...count(testStates, (s) => input.tests.filter((t) => t.state === s).length), total: input.tests.length },
      rules: { ...count(ruleStates, (s) => verdicts.filter((v) => v.status === s).length), total: verdicts.length },
      requiredFailed: verdicts.filter((v) => v.status === "failed" && v.level === "required").length,
    },
    problems,
    rules: verdicts,
    tests: [...input.tests],
  };
}

/** Exit code of `tollgate run` for a finished run: 1 when a required rule failed or the run is unsound (a test with no or an unknown rule, an unhandled error, no test at all). */
export function exitCodeFor(summary: Summary): 0 | 1 {
  if (summary.totals.requiredFailed > 0) return 1;
  if (summary.problems.length > 0) return 1;
  if (summary.totals.tests.total === 0) return 1;
  return 0;
}

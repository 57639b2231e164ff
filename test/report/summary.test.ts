import { describe, expect, it } from "vitest";
import { buildSummary, exitCodeFor, type TestOutcome } from "../../lib/report/summary.js";
import type { Rule } from "../../lib/spec/types.js";

const rules: Rule[] = [
  { id: "doc1.a.one", title: "one", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.a.two", title: "two", doc: "doc1", section: "A", level: "optional" },
  { id: "doc1.a.three", title: "three", doc: "doc1", section: "A", level: "gated", gate: { name: "G", default: false } },
  { id: "doc1.a.four", title: "four", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.a.five", title: "five", doc: "doc1", section: "A", level: "optional", subject: "client" },
  { id: "doc1.a.six", title: "six", doc: "doc1", section: "A", level: "optional", subject: "client" },
];

const t = (name: string, ruleIds: string[], state: TestOutcome["state"], errors: string[] = [], note?: string): TestOutcome => ({
  ...(note ? { note } : {}),
  name,
  file: "suites/x.test.ts",
  rules: ruleIds,
  state,
  durationMs: 1,
  errors,
});

const summarize = (tests: TestOutcome[], unhandledErrors: string[] = []) =>
  buildSummary({
    toolVersion: "0",
    runId: "r",
    target: { url: "http://x", source: "test" },
    startedAt: new Date(0),
    durationMs: 5,
    rules,
    tests,
    unhandledErrors,
  });

describe("summary: verdicts per rule", () => {
  it("a rule fails when any of its tests failed, even if others passed", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed"), t("f", ["doc1.a.one", "doc1.a.two"], "failed", ["boom"])]);
    const one = s.rules.find((r) => r.id === "doc1.a.one");
    expect(one).toMatchObject({ status: "failed", tests: 2, failures: [{ test: "f", message: "boom" }], source: "doc1 § A" });
    expect(s.rules.find((r) => r.id === "doc1.a.two")?.status).toBe("failed");
    expect(s.totals.requiredFailed).toBe(1);
    expect(exitCodeFor(s)).toBe(1);
  });

  it("passed, skipped, untested and client duties are told apart, and only required failures fail the run", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed"), t("s", ["doc1.a.three"], "skipped", [], "gate G is off"), t("f", ["doc1.a.two"], "failed"), t("c", ["doc1.a.six"], "passed")]);
    expect(Object.fromEntries(s.rules.map((r) => [r.id, r.status]))).toEqual({
      "doc1.a.one": "passed",
      "doc1.a.two": "failed",
      "doc1.a.three": "skipped",
      "doc1.a.four": "untested",
      "doc1.a.five": "client",
      "doc1.a.six": "passed",
    });
    expect(s.totals.rules).toEqual({ passed: 2, failed: 1, skipped: 1, untested: 1, client: 1, total: 6 });
    expect(s.totals.tests).toEqual({ passed: 2, failed: 1, skipped: 1, total: 4 });
    expect(s.rules.find((r) => r.id === "doc1.a.three")).toMatchObject({ gate: { name: "G", default: false }, notApplicable: [{ test: "s", reason: "gate G is off" }] });
    expect(exitCodeFor(s)).toBe(0);
  });

  it("an unknown rule id, a test without rules, an unhandled error or an empty run make the run unsound", () => {
    expect(summarize([t("u", ["doc9.nope"], "passed")]).problems).toEqual([`test "u" (suites/x.test.ts) names unknown rule doc9.nope`]);
    expect(exitCodeFor(summarize([t("n", [], "passed")]))).toBe(1);
    expect(exitCodeFor(summarize([t("p", ["doc1.a.one"], "passed")], ["worker crashed"]))).toBe(1);
    expect(exitCodeFor(summarize([]))).toBe(1);
  });
});

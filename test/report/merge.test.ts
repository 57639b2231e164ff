/** report merge: the shards of a run give the verdicts of the run unsharded. */
import { describe, expect, it } from "vitest";
import { junitXml } from "../../lib/report/junit.js";
import { MergeError, type MergeInput, mergeSummaries } from "../../lib/report/merge.js";
import { summaryErrors } from "../../lib/report/schema.js";
import { buildSummary, DETECTION_FILE, type Summary, type SummaryInput, type TestOutcome } from "../../lib/report/summary.js";
import type { Rule } from "../../lib/spec/types.js";

const rules: Rule[] = [
  { id: "doc1.a.one", title: "one", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.a.two", title: "two", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.b.three", title: "three", doc: "doc1", section: "B", level: "gated", gate: { name: "CBORServingAndStorage", default: false } },
  { id: "doc1.b.four", title: "four", doc: "doc1", section: "B", level: "required" },
];

const t = (name: string, file: string, ruleIds: string[], state: TestOutcome["state"], errors: string[] = []): TestOutcome => ({
  name,
  file,
  rules: ruleIds,
  state,
  durationMs: 3,
  errors,
  ...(state === "not-applicable" ? { note: "needs cbor: 406", unmet: [{ need: "cbor", evidence: "406" }] } : {}),
  ...(state === "failed" ? { exchanges: [{ method: "GET", path: "/api/v1/namespaces", status: 500, excerpt: "<oops> & \u0001" }] } : {}),
});

const tests = [
  t("one passes", "suites/a.test.ts", ["doc1.a.one"], "passed"),
  t("two fails", "suites/a.test.ts", ["doc1.a.two"], "failed", ["expected 409 to be 201"]),
  t("three n/a", "suites/b.test.ts", ["doc1.b.three"], "not-applicable"),
  t("one again", "suites/c.test.ts", ["doc1.a.one"], "passed"),
];
const violation = { probe: "authentication", rules: ["doc1.b.four"], message: "a made-up token got 200" };
const capabilities = { cbor: { available: false, evidence: "406" } };

function run(part: TestOutcome[], extra: Partial<SummaryInput> = {}): Summary {
  return buildSummary({
    toolVersion: "0",
    runId: `r${extra.shard?.index ?? 0}`,
    target: { url: "http://x", source: "--target" },
    seed: 5,
    startedAt: new Date(1000 * (extra.shard?.index ?? 0)),
    durationMs: 500,
    rules,
    tests: part,
    capabilities,
    detection: { durationMs: 10, violations: [violation] },
    ...extra,
  });
}

const shards = (count: number, extra: Partial<SummaryInput> = {}): MergeInput[] =>
  Array.from({ length: count }, (_, i) => ({
    label: `shard${i + 1}`,
    summary: run(
      tests.filter((_, k) => k % count === i),
      { shard: { index: i + 1, count }, ...extra },
    ),
  }));

const statuses = (s: Summary): Record<string, string> => Object.fromEntries(s.rules.map((r) => [r.id, r.status]));

describe("report merge", () => {
  it("recomputes every verdict from all shards' tests: the same as the run unsharded, the detection's violation once", () => {
    const whole = run(tests);
    const merged = mergeSummaries(shards(3).reverse(), rules);
    expect(summaryErrors(merged, { closed: true })).toEqual([]);
    expect(statuses(merged)).toEqual(statuses(whole));
    expect(merged.rules).toEqual(whole.rules);
    expect(merged.totals).toEqual(whole.totals);
    expect(merged.exit).toEqual(whole.exit);
    expect(merged.tests.filter((x) => x.file === DETECTION_FILE)).toHaveLength(1);
    expect(merged.shard).toBeUndefined();
    expect(merged.merged?.runs.map((r) => r.shard?.index)).toEqual([1, 2, 3]);
    expect(merged.merged?.notes).toEqual([]);
    expect(merged.startedAt).toBe(new Date(1000).toISOString());
    expect(merged.durationMs).toBe(2500);
  });

  it("decides --require for the whole run, which no shard could", () => {
    const parts = shards(2, { require: ["cbor"] });
    for (const p of parts) expect(p.summary.exit.reasons.some((r) => r.startsWith("profile cbor"))).toBe(false);
    const merged = mergeSummaries(parts, rules);
    expect(merged.exit.reasons).toContainEqual(
      expect.stringMatching(/^profile cbor is required \(--require\) but 1 of its rules were not verified: doc1.b.three/),
    );
  });

  it("keeps the first shard's capabilities and notes where another shard, its seed or its tool differ; unhandled errors carry over", () => {
    const [one, two] = shards(2);
    const other = {
      ...(two as MergeInput),
      summary: {
        ...(two as MergeInput).summary,
        seed: 6,
        capabilities: { cbor: { available: true, evidence: "CBOR list 200" } },
        problems: ["unhandled error: worker crashed"],
      },
    };
    const merged = mergeSummaries([one as MergeInput, other], rules);
    expect(merged.capabilities).toEqual(capabilities);
    expect(merged.merged?.notes).toEqual([
      "capability cbor: shard1 found it not offered (406), shard2 offered (CBOR list 200); the first is reported",
      "shard2 ran its properties with seed 6, shard1 with 5",
    ]);
    expect(merged.problems).toContain("unhandled error: worker crashed");
    expect(merged.exit.code).toBe(1);
  });

  it("refuses shards that do not make one run, in one line", () => {
    const [a, b, c] = shards(3);
    expect(() => mergeSummaries([a as MergeInput, c as MergeInput], rules)).toThrow(
      new MergeError("shard 2/3 missing: a merge of part of a run would report the rest untested"),
    );
    expect(() => mergeSummaries([a as MergeInput, a as MergeInput, b as MergeInput, c as MergeInput], rules)).toThrow(
      /^shard1 and shard1 are both shard 1\/3$/,
    );
    expect(() => mergeSummaries([a as MergeInput, { label: "whole", summary: run(tests) }], rules)).toThrow(/^whole is not a shard, but shard1 is/);
    expect(() => mergeSummaries([a as MergeInput, ...shards(2).slice(1)], rules)).toThrow(/is shard 2\/2, but shard1 is one of 3/);
  });

  it("junit.xml: one testsuite per file, failures with their evidence, not-applicable tests skipped, XML escaped", () => {
    const xml = junitXml(mergeSummaries(shards(2), rules));
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8" \?>\n<testsuites name="tollgate" tests="5" failures="2" errors="0" skipped="1"/);
    expect(xml).toContain('<testsuite name="suites/a.test.ts"');
    expect(xml).toContain('<testsuite name="(capability detection)"');
    expect(xml).toContain(
      '<failure message="expected 409 to be 201" type="failure">expected 409 to be 201\nlast exchanges, oldest first:\nGET /api/v1/namespaces → 500: &lt;oops&gt; &amp; </failure>',
    );
    expect(xml).toContain('<skipped message="needs cbor: 406"/>');
    expect(xml).not.toContain("\u0001");
  });
});

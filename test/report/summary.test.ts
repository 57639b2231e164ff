import { describe, expect, it } from "vitest";
import { summaryErrors } from "../../lib/report/schema.js";
import {
  buildSummary,
  DETECTION_FILE,
  exitCodeFor,
  SUMMARY_SCHEMA_VERSION,
  type Summary,
  type SummaryInput,
  type TestOutcome,
} from "../../lib/report/summary.js";
import type { Rule } from "../../lib/spec/types.js";

const rules: Rule[] = [
  { id: "doc1.a.one", title: "one", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.a.two", title: "two", doc: "doc1", section: "A", level: "optional" },
  { id: "doc1.a.three", title: "three", doc: "doc1", section: "A", level: "gated", gate: { name: "CBORServingAndStorage", default: false } },
  { id: "doc1.a.four", title: "four", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.a.five", title: "five", doc: "doc1", section: "A", level: "optional", subject: "client" },
  { id: "doc1.a.six", title: "six", doc: "doc1", section: "A", level: "optional", subject: "client" },
  { id: "doc1.a.seven", title: "seven", doc: "doc1", section: "A", level: "required", unobservable: "looks the same on the wire" },
  { id: "doc1.a.eight", title: "eight", doc: "doc1", section: "A", level: "gated", gate: { name: "WatchList", default: true } },
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

/** Every summary these tests build is checked against the published schema, closed: each field written is described there. */
const summarize = (tests: TestOutcome[], extra: Partial<SummaryInput> = {}): Summary => {
  const s = buildSummary({
    toolVersion: "0",
    runId: "r",
    target: { url: "http://x", source: "test" },
    startedAt: new Date(0),
    durationMs: 5,
    rules,
    tests,
    ...extra,
  });
  expect(summaryErrors(s, { closed: true })).toEqual([]);
  return s;
};

const statuses = (s: ReturnType<typeof summarize>): Record<string, string> => Object.fromEntries(s.rules.map((r) => [r.id, r.status]));

describe("summary: verdicts per rule", () => {
  it("a rule fails when any of its tests failed, even if others passed", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed"), t("f", ["doc1.a.one", "doc1.a.two"], "failed", ["boom"])]);
    expect(s.rules.find((r) => r.id === "doc1.a.one")).toMatchObject({
      status: "failed",
      tests: 2,
      failures: [{ test: "f", message: "boom" }],
      source: "doc1 § A",
      profile: "core",
    });
    expect(s.rules.find((r) => r.id === "doc1.a.two")?.status).toBe("failed");
    expect(s.totals.requiredFailed).toBe(1);
  });

  it("passed, not applicable, not observable, untested and client duties are told apart", () => {
    const s = summarize([
      t("p", ["doc1.a.one"], "passed"),
      t("s", ["doc1.a.three"], "not-applicable", [], "needs cbor: 406"),
      t("c", ["doc1.a.six"], "passed"),
    ]);
    expect(statuses(s)).toEqual({
      "doc1.a.one": "passed",
      "doc1.a.two": "untested",
      "doc1.a.three": "not-applicable",
      "doc1.a.four": "untested",
      "doc1.a.five": "client",
      "doc1.a.six": "passed",
      "doc1.a.seven": "not-observable",
      "doc1.a.eight": "untested",
    });
    expect(s.rules.find((r) => r.id === "doc1.a.three")).toMatchObject({ profile: "cbor", notApplicable: [{ test: "s", reason: "needs cbor: 406" }] });
    expect(s.rules.find((r) => r.id === "doc1.a.seven")).toMatchObject({ unobservable: "looks the same on the wire" });
    expect(s.totals.tests).toEqual({ passed: 2, failed: 0, "not-applicable": 1, "target-unavailable": 0, total: 3 });
  });

  it("a test that claims an unobservable rule makes the run unsound, and the rule is still not passed", () => {
    const s = summarize([t("claims", ["doc1.a.seven"], "passed")]);
    expect(s.rules.find((r) => r.id === "doc1.a.seven")?.status).toBe("not-observable");
    expect(s.problems).toEqual([expect.stringMatching(/names doc1\.a\.seven, which no request from outside can show/)]);
    expect(s.exit.code).toBe(1);
  });
});

describe("summary: the exit code, one verdict rule at a time", () => {
  it("a required rule failed: exit 1", () => {
    const s = summarize([t("f", ["doc1.a.one"], "failed", ["x"])]);
    expect(s.exit).toEqual({ code: 1, reasons: [expect.stringMatching(/^1 required rule\(s\) failed: doc1\.a\.one/)] });
  });

  it("an optional or gated rule of a feature the target offers failed (its test ran): exit 1", () => {
    for (const id of ["doc1.a.two", "doc1.a.three", "doc1.a.eight"]) {
      const s = summarize([t("p", ["doc1.a.one"], "passed"), t("f", [id], "failed", ["x"])]);
      expect(s.exit.code, id).toBe(1);
      expect(s.exit.reasons, id).toEqual([
        expect.stringMatching(new RegExp(`^1 rule\\(s\\) of a feature the target offers failed: ${id.replace(/\./g, "\\.")}`)),
      ]);
    }
  });

  it("a feature the target does not offer (its tests not applicable): exit 0", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed"), t("s", ["doc1.a.three"], "not-applicable", [], "needs cbor: 406")]);
    expect(s.exit).toEqual({ code: 0, reasons: [] });
    expect(exitCodeFor(s)).toBe(0);
  });

  it("a rule not observable from outside: reported, exit 0", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed")]);
    expect(s.totals.rules["not-observable"]).toBe(1);
    expect(s.exit.code).toBe(0);
  });

  it("a detection answer no 1.35 server gives fails the rule its probe exercises, like a failed test", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed")], {
      detection: { durationMs: 10, violations: [{ probe: "authentication", rules: ["doc1.a.four"], message: "a made-up token got 200" }] },
    });
    expect(s.rules.find((r) => r.id === "doc1.a.four")).toMatchObject({
      status: "failed",
      failures: [{ test: "detection: authentication", message: "a made-up token got 200" }],
    });
    expect(s.tests[0]).toMatchObject({ file: DETECTION_FILE, state: "failed" });
    expect(s.totals.tests.total, "the suites' tests alone").toBe(1);
    expect(s.exit.code).toBe(1);
  });

  it("--require: a profile with rules not verified fails the run; verified, or not required, it does not", () => {
    const ran = [t("p1", ["doc1.a.one"], "passed"), t("p4", ["doc1.a.four"], "passed"), t("s", ["doc1.a.three"], "not-applicable", [], "needs cbor")];
    const core = summarize(ran, { require: ["core"] });
    const coreProfile = core.profiles.find((p) => p.name === "core");
    // doc1.a.eight (a default-on gate) counts for core; doc1.a.two (optional) and doc1.a.seven (unobservable) do not.
    expect(coreProfile).toMatchObject({ verdict: "partial", notVerified: ["doc1.a.eight"], required: true });
    expect(core.exit.code).toBe(1);
    expect(core.exit.reasons).toEqual([expect.stringMatching(/^profile core is required \(--require\) but 1 of its rules were not verified: doc1\.a\.eight/)]);
    expect(summarize(ran, { require: ["core"], gatesDeclaredOff: ["WatchList"] }).exit.code, "a gate the operator turned off takes its rules out").toBe(0);
    expect(summarize([...ran, t("p8", ["doc1.a.eight"], "passed")], { require: ["core"] }).exit.code).toBe(0);
    expect(summarize(ran, { require: ["cbor"] }).profiles.find((p) => p.name === "cbor")).toMatchObject({
      verdict: "not verified",
      notVerified: ["doc1.a.three"],
    });
    expect(summarize(ran, { require: ["cbor"] }).exit.code).toBe(1);
    expect(summarize(ran).exit.code).toBe(0);
    // A shard's unverified rules may be another shard's: report merge decides --require.
    expect(summarize(ran, { require: ["core"], shard: { index: 1, count: 2 } })).toMatchObject({ shard: { index: 1, count: 2 }, exit: { code: 0 } });
  });

  it("an unknown rule id, a test without rules, an unhandled error or an empty run make the run unsound", () => {
    expect(summarize([t("u", ["doc9.nope"], "passed")]).problems).toEqual([`test "u" (suites/x.test.ts) names unknown rule doc9.nope`]);
    expect(exitCodeFor(summarize([t("n", [], "passed")]))).toBe(1);
    expect(exitCodeFor(summarize([t("p", ["doc1.a.one"], "passed")], { unhandledErrors: ["worker crashed"] }))).toBe(1);
    expect(summarize([]).exit.reasons).toContain("no test ran");
  });
});

describe("summary: what decided a verdict", () => {
  const exchanges = [
    { method: "POST", path: "/api/v1/namespaces/n/configmaps?dryRun=All", status: 201, excerpt: '{"kind":"ConfigMap"}' },
    { method: "GET", path: "/api/v1/namespaces/n/configmaps?watch=true", status: 200, watch: true as const },
  ];
  const property = { seed: 42, path: "3:1", counterexample: '["a"]', runs: 4, shrinks: 2 };

  it("a failed rule carries each failing test's first line, whole message, last exchanges and property evidence", () => {
    const failed: TestOutcome = {
      ...t("f", ["doc1.a.one"], "failed", ["property failed after 4 run(s); seed 42"]),
      fullErrors: ['property failed after 4 run(s); seed 42\ncounterexample: ["a"]\nexpected 1 to be 2'],
      exchanges,
      property,
    };
    const s = summarize([failed, t("g", ["doc1.a.one"], "failed", ["expected 409 to be 201"])]);
    expect(s.schemaVersion).toBe(SUMMARY_SCHEMA_VERSION);
    expect(s.rules.find((r) => r.id === "doc1.a.one")?.failures).toEqual([
      { test: "f", message: "property failed after 4 run(s); seed 42", fullMessage: failed.fullErrors?.[0], exchanges, property },
      { test: "g", message: "expected 409 to be 201" },
    ]);
    expect(s.rules.find((r) => r.id === "doc1.a.one")).toMatchObject({ section: "A", source: "doc1 § A" });
  });

  it("a not-applicable rule carries the unmet needs with the capability evidence", () => {
    const unmet = [{ need: "cbor", evidence: "a CBOR list got 406" }];
    const s = summarize([{ ...t("s", ["doc1.a.three"], "not-applicable", [], "needs cbor: a CBOR list got 406"), needs: ["cbor"], unmet }], {
      gatesDeclaredOff: ["WatchList"],
    });
    expect(s.rules.find((r) => r.id === "doc1.a.three")?.notApplicable).toEqual([{ test: "s", reason: "needs cbor: a CBOR list got 406", unmet }]);
    expect(s.gatesDeclaredOff).toEqual(["WatchList"]);
  });

  it("the closed schema refuses a field it does not describe, and a wrong status; the published one lets readers skip new fields", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed")]);
    const extra = { ...s, somethingNew: 1 };
    expect(summaryErrors(extra, { closed: true })).toEqual([expect.stringMatching(/must NOT have additional properties \(somethingNew\)/)]);
    expect(summaryErrors(extra)).toEqual([]);
    const wrong = structuredClone(s) as unknown as { rules: { status: string }[] };
    (wrong.rules[0] as { status: string }).status = "green";
    expect(summaryErrors(wrong)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/rules\/0\/status must be equal to one of the allowed values/)]));
  });
});

describe("summary: a target that did not answer, a stopped run, a selection", () => {
  const silent = "cannot reach http://x: ECONNREFUSED (connect ECONNREFUSED) (GET /api/v1/namespaces)";

  it("a test the target left undecided is neither passed nor failed; its rule is target unavailable even where another test passed; exit 2", () => {
    const s = summarize([
      t("p", ["doc1.a.one"], "passed"),
      t("u", ["doc1.a.one", "doc1.a.four"], "target-unavailable", [], silent),
      t("q", ["doc1.a.two"], "passed"),
    ]);
    expect(statuses(s)).toMatchObject({ "doc1.a.one": "target-unavailable", "doc1.a.four": "target-unavailable", "doc1.a.two": "passed" });
    expect(s.totals.tests).toMatchObject({ passed: 2, failed: 0, "target-unavailable": 1 });
    expect(s.totals.rules).toMatchObject({ failed: 0, "target-unavailable": 2 });
    expect(s.target.problem).toEqual({ message: silent, tests: 1, stopped: false });
    expect(s.problems, "the run is not unsound for it").toEqual([]);
    expect(s.profiles.find((p) => p.name === "core")?.notVerified).toContain("doc1.a.one");
    expect(s.exit).toEqual({ code: 2, reasons: [`the target did not answer (1 test(s) undecided: target unavailable): ${silent}`] });
  });

  it("a failed rule is still failed while the target was away, and the exit says both (2)", () => {
    const s = summarize([t("f", ["doc1.a.one"], "failed", ["boom"]), t("u", ["doc1.a.one"], "target-unavailable", [], silent)]);
    expect(statuses(s)["doc1.a.one"]).toBe("failed");
    expect(s.exit.code).toBe(2);
    expect(s.exit.reasons).toEqual([expect.stringMatching(/^the target did not answer/), expect.stringMatching(/^1 required rule\(s\) failed/)]);
  });

  it("a suite's setup that met no answer leaves a target problem, not an unsound run", () => {
    const s = summarize([t("p", ["doc1.a.one"], "passed")], { targetErrors: [`suites/x.test.ts: ${silent}`] });
    expect(s.target.problem).toMatchObject({ tests: 0, stopped: false });
    expect(s.problems).toEqual([]);
    expect(s.exit.code).toBe(2);
  });

  it("a stopped run exits with its stop's code, whatever ran: 130 SIGINT, 143 SIGTERM, 124 --timeout, 2 a silent target", () => {
    const ran = [t("p", ["doc1.a.one"], "passed")];
    for (const [reason, code] of [
      ["SIGINT", 130],
      ["SIGTERM", 143],
      ["timeout", 124],
      ["target-unavailable", 2],
    ] as const) {
      const s = summarize(ran, { stop: { reason, message: `stopped: ${reason}`, at: 0 }, notRun: 3 });
      expect(s.exit.code, reason).toBe(code);
      expect(s.exit.reasons[0]).toBe(`stopped before its end: stopped: ${reason}`);
      expect(s.stopped).toEqual({ reason, message: `stopped: ${reason}` });
      expect(s.totals.notRun).toBe(3);
    }
    expect(
      summarize([], { stop: { reason: "SIGINT", message: "interrupted", at: 0 } }).exit.reasons,
      "no test ran is no news when the run was stopped",
    ).toEqual(["stopped before its end: interrupted"]);
    expect(summarize(ran, { stop: { reason: "target-unavailable", message: "gone", at: 0 } }).target.problem).toEqual({
      message: "gone",
      tests: 0,
      stopped: true,
    });
  });

  it("tests left out by the selection are in no verdict; a selection that leaves nothing is exit 2", () => {
    const selection = { focus: ["doc1.a.one"], skip: [] };
    const s = summarize([t("p", ["doc1.a.one"], "passed")], { selection, leftOut: 5 });
    expect(statuses(s)["doc1.a.four"]).toBe("untested");
    expect(s.totals.leftOut).toBe(5);
    expect(s.exit.code).toBe(0);
    const none = summarize([], { selection, leftOut: 6 });
    expect(none.exit).toEqual({ code: 2, reasons: ["the selection (--focus, --skip, --rerun-failed) left no test to run"] });
  });
});

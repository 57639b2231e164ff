/** report compare: the release gate between runs, and its one-line refusals of bad input. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../lib/cli/main.js";
import { comparePage, compareSummaries } from "../../lib/report/compare.js";
import { buildSummary, type Summary, type TestOutcome } from "../../lib/report/summary.js";
import type { Rule } from "../../lib/spec/types.js";

const catalog: Rule[] = [
  { id: "doc1.a.one", title: "one", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.a.two", title: "two", doc: "doc1", section: "A", level: "required" },
  { id: "doc1.b.three", title: "three <&>", doc: "doc1", section: "B", level: "gated", gate: { name: "CBORServingAndStorage", default: false } },
  { id: "doc1.b.four", title: "four", doc: "doc1", section: "B", level: "required" },
  { id: "doc2.c.five", title: "five", doc: "doc2", section: "C", level: "required" },
];

const t = (name: string, rules: string[], state: TestOutcome["state"], errors: string[] = []): TestOutcome => ({
  name,
  file: "suites/x.test.ts",
  rules,
  state,
  durationMs: 1,
  errors,
  ...(state === "not-applicable" ? { note: "needs cbor: 406" } : {}),
});

const run = (tests: TestOutcome[], rules: Rule[] = catalog): Summary =>
  buildSummary({ toolVersion: "0", runId: "r", target: { url: "http://x", source: "--target" }, startedAt: new Date(0), durationMs: 1, rules, tests });

const base = run([
  t("1", ["doc1.a.one"], "passed"),
  t("2", ["doc1.a.two"], "passed"),
  t("3", ["doc1.b.three"], "passed"),
  t("4", ["doc1.b.four"], "failed", ["boom"]),
  t("5", ["doc2.c.five"], "passed"),
]);

describe("report compare", () => {
  it("a rule passed in the base and failed, not applicable, untested or gone later is a regression; a fixed one is not", () => {
    const later = run(
      [
        t("1", ["doc1.a.one"], "failed", ["expected 409 to be 201"]),
        t("3", ["doc1.b.three"], "not-applicable"),
        t("4", ["doc1.b.four"], "passed"),
        t("5", ["doc2.c.five"], "passed"),
      ],
      catalog.filter((r) => r.id !== "doc2.c.five").concat({ id: "doc2.c.six", title: "six", doc: "doc2", section: "C", level: "required" }),
    );
    const c = compareSummaries([
      { label: "old", summary: base },
      { label: "new", summary: later },
    ]);
    expect(c.rules.map((r) => [r.id, r.statuses])).toEqual([
      ["doc1.a.one", ["passed", "failed"]],
      ["doc1.a.two", ["passed", "untested"]],
      ["doc1.b.three", ["passed", "not-applicable"]],
      ["doc1.b.four", ["failed", "passed"]],
      ["doc2.c.five", ["passed", "absent"]],
      ["doc2.c.six", ["absent", "untested"]],
    ]);
    expect(c.regressions.map((r) => [r.rule, r.now, r.why])).toEqual([
      ["doc1.a.one", "failed", ["1: expected 409 to be 201"]],
      ["doc1.a.two", "untested", ["no test of the run named it"]],
      ["doc1.b.three", "not-applicable", ["3: needs cbor: 406"]],
      ["doc2.c.five", "absent", ["the run's catalog has no such rule"]],
    ]);
    expect(c.exit.code).toBe(1);
    expect(c.exit.reasons).toEqual([
      "4 rule(s) that passed in old are not passed in new: doc1.a.one (failed), doc1.a.two (untested), doc1.b.three (not-applicable), doc2.c.five (absent)",
    ]);
    expect(c.rules.find((r) => r.id === "doc1.b.four")).toMatchObject({ regressedIn: [], changed: true });
  });

  it("any later run counts against the base; a run compared with itself has no regression", () => {
    const broken = run([
      t("1", ["doc1.a.one"], "passed"),
      t("2", ["doc1.a.two"], "passed"),
      t("3", ["doc1.b.three"], "passed"),
      t("5", ["doc2.c.five"], "failed", ["x"]),
    ]);
    const c = compareSummaries([
      { label: "a", summary: base },
      { label: "b", summary: base },
      { label: "c", summary: broken },
    ]);
    expect(c.regressions.map((r) => [r.rule, r.run])).toEqual([["doc2.c.five", 2]]);
    expect(
      compareSummaries([
        { label: "a", summary: base },
        { label: "a", summary: base },
      ]).exit,
    ).toEqual({ code: 0, reasons: [] });
  });

  it("the page: runs side by side, grouped by document and section, regressions first, escaped, no script", () => {
    const later = run([t("1", ["doc1.a.one"], "failed", ["<b>"])]);
    const html = comparePage(
      compareSummaries([
        { label: "old/summary.json", summary: base },
        { label: "new", summary: later },
      ]),
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link|src=/);
    expect(html.indexOf("<h2>Regressions</h2>")).toBeLessThan(html.indexOf("<h2>doc1</h2>"));
    expect(html.indexOf("<h2>doc1</h2>")).toBeLessThan(html.indexOf("<h3>B</h3>"));
    expect(html.indexOf("<h3>B</h3>")).toBeLessThan(html.indexOf("<h2>doc2</h2>"));
    expect(html).toContain("three &lt;&amp;&gt;");
    expect(html).toContain('<td class="s failed reg" title="1: &lt;b&gt;">failed ▼</td>');
    expect(html).toContain("<b>Exit 1</b>");
    expect(html).toContain("<th>#1 base</th><th>#2</th>");
  });
});

describe("tollgate report compare on the command line: bad input is exit 2 with one line", () => {
  const errors: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    errors.length = 0;
  });
  const runMain = async (args: string[]): Promise<number> => {
    vi.spyOn(console, "error").mockImplementation((m: unknown) => void errors.push(String(m)));
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    return main(args);
  };

  it("a missing file, a file that is not a summary, an unknown schemaVersion", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-compare-"));
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify(base));
    const cases: [string, string, RegExp][] = [
      ["missing", join(dir, "nope"), /^tollgate: no such file or folder: .*nope$/],
      ["empty folder", dir, /^tollgate: .* holds no summary\.json$/],
      ["not JSON", "text.json", /^tollgate: .*text\.json is not a summary: not JSON/],
      ["no version", "old.json", /^tollgate: .*old\.json is not a summary: it has no schemaVersion/],
      ["future version", "future.json", /^tollgate: .*future\.json has schemaVersion 99, which this tollgate does not read \(it reads 1\)$/],
      ["wrong shape", "shape.json", /^tollgate: .*shape\.json is not a summary: \/rules must be array/],
    ];
    writeFileSync(join(dir, "text.json"), "not json");
    writeFileSync(join(dir, "old.json"), JSON.stringify({ ...base, schemaVersion: undefined }));
    writeFileSync(join(dir, "future.json"), JSON.stringify({ ...base, schemaVersion: 99 }));
    writeFileSync(join(dir, "shape.json"), JSON.stringify({ ...base, rules: {} }));
    for (const [what, file, message] of cases) {
      const path = file.startsWith("/") ? file : join(dir, file);
      expect(await runMain(["report", "compare", good, path, "--output", join(dir, "out")]), what).toBe(2);
      expect(errors, what).toHaveLength(1);
      expect(errors[0], what).toMatch(message);
      errors.length = 0;
    }
    expect(await runMain(["report", "compare", good, good, "--output", join(dir, "out")])).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "out", "compare.json"), "utf8"))).toMatchObject({
      kind: "tollgate-compare",
      version: 1,
      regressions: [],
      exit: { code: 0 },
    });
  });
});

/**
 * The release-gate commands through the real CLI against one emulator: a run sharded three
 * ways and merged says for every rule what the run unsharded says; and `report compare` of
 * that run with one through a wrong server names the rule the server broke as a regression
 * (exit 1), with the failure's evidence, while a run compared with itself passes (exit 0).
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../lib/emulator/index.js";
import type { Comparison } from "../lib/report/compare.js";
import { summaryErrors } from "../lib/report/schema.js";
import type { Summary } from "../lib/report/summary.js";
import { startMutantProxy } from "./support/mutant-proxy.js";
import { runViaCli, tollgate, type SuiteRun } from "./support/run-suite.js";

const SUITES = ["suites/crud", "suites/errors", "suites/verbs", "suites/list-semantics"];
/** Broken by the wrong server below, in the list-semantics suite only. */
const RULE = "doc1.list-rv.exact-limit-unset-rv-other-exact";

let emulator: RunningEmulator;
let base: SuiteRun;
const args = (target: string): string[] => ["--target", target, ...SUITES.flatMap((s) => ["--suite", s]), `--token=${emulator.adminToken ?? ""}`, "--seed", "5"];
const statuses = (s: Summary): Record<string, string> => Object.fromEntries(s.rules.map((r) => [r.id, r.status]));
const tmp = (): string => mkdtempSync(join(tmpdir(), "tollgate-report-"));

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, auth: true, bookmarkIntervalMs: 1000 });
  base = await runViaCli(args(emulator.url));
}, 120_000);
afterAll(async () => {
  await emulator.close();
});

describe("the release gate's commands", () => {
  it("two shards merged give every rule the status the unsharded run gives it", { timeout: 150_000 }, async () => {
    expect(base.code, base.output).toBe(0);
    const shards = await Promise.all([1, 2].map((i) => runViaCli([...args(emulator.url), "--shard", `${i}/2`])));
    shards.forEach((s, i) => {
      expect(s.summary.shard, s.output).toEqual({ index: i + 1, count: 2 });
      // Every shard detected the target on its own, and kept its Allure results for the merge.
      expect(Object.keys(s.summary.capabilities)).toEqual(Object.keys(base.summary.capabilities));
      expect(existsSync(join(s.dir, "allure-results")), s.output).toBe(true);
    });
    const out = tmp();
    const merge = await tollgate(["report", "merge", ...shards.map((s) => s.dir).reverse(), "--output", out]);
    expect(merge.code, merge.stdout + merge.stderr).toBe(0);
    const merged = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    expect(summaryErrors(merged, { closed: true })).toEqual([]);
    expect(statuses(merged)).toEqual(statuses(base.summary));
    expect(merged.totals).toEqual(base.summary.totals);
    expect(merged.merged?.runs.map((r) => r.shard?.index)).toEqual([1, 2]);
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain(`tests="${base.summary.tests.length}"`);
    expect(readFileSync(join(out, "rules.html"), "utf8")).toContain("merged from 2 run(s)");
    expect(existsSync(join(out, "index.html"))).toBe(true);
    expect(existsSync(join(out, "allure-results"))).toBe(false);
  });

  it("compare names the rule a wrong server broke as a regression, with the failure's evidence; a run compared with itself passes", { timeout: 120_000 }, async () => {
    expect(base.status(RULE)).toBe("passed");
    const proxy = await startMutantProxy(emulator.url, {
      name: "ignores resourceVersionMatch on lists",
      suite: "list-semantics",
      request: (method, path) => (method === "GET" ? path.replace(/([?&])resourceVersionMatch=[^&]*&?/, "$1") : path),
    });
    let bad: SuiteRun;
    try {
      bad = await runViaCli(args(proxy.url));
    } finally {
      await proxy.close();
    }
    expect(bad.status(RULE), bad.output).toBe("failed");
    const failure = bad.summary.rules.find((r) => r.id === RULE)?.failures[0];
    expect(failure?.exchanges?.length, JSON.stringify(failure)).toBeGreaterThan(0);
    expect(failure?.exchanges?.some((e) => e.method === "GET" && /\/configmaps\?/.test(e.path) && e.status === 200)).toBe(true);
    expect(JSON.stringify(bad.summary)).not.toContain(emulator.adminToken ?? "no token");

    const out = tmp();
    const cmp = await tollgate(["report", "compare", base.dir, bad.dir, "--output", out]);
    expect(cmp.code, cmp.stdout + cmp.stderr).toBe(1);
    expect(cmp.stdout).toContain(`tollgate: regression: ${RULE} passed in ${base.dir}, failed in ${bad.dir}`);
    const comparison = JSON.parse(readFileSync(join(out, "compare.json"), "utf8")) as Comparison;
    expect(comparison.regressions).toContainEqual(expect.objectContaining({ rule: RULE, run: 1, base: "passed", now: "failed" }));
    // Exactly the rules passed before and not now: the gate neither misses nor invents one.
    const lost = base.summary.rules.filter((r) => r.status === "passed" && bad.status(r.id) !== "passed").map((r) => r.id);
    expect(comparison.regressions.map((r) => r.rule).sort()).toEqual(lost.sort());
    const html = readFileSync(join(out, "compare.html"), "utf8");
    expect(html).toContain(RULE);
    expect(html).not.toMatch(/<script/i);

    const self = await tollgate(["report", "compare", base.dir, join(base.dir, "summary.json"), "--output", tmp()]);
    expect(self.code, self.stdout + self.stderr).toBe(0);
    expect(self.stdout).toContain("0 regression(s)");
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computeCoverage, ruleIdsIn } from "../../lib/spec/coverage.js";
import type { Rule } from "../../lib/spec/types.js";

describe("rule coverage scan", () => {
  it("finds rule ids in string literals of any quote style", () => {
    expect(ruleIdsIn(`check("t", ["doc1.a.b", 'doc2.c-d.e'], f); x(\`doc3.x.y\`); "doc1" "doc4.a.b" "doc1.A.b"`)).toEqual([
      "doc1.a.b",
      "doc2.c-d.e",
      "doc3.x.y",
    ]);
  });

  it("splits rules into tested and untested, and reports ids the catalog lacks", () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-cov-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "a.test.ts"), `check("x", ["doc1.s.one", "doc1.s.ghost"], f)`);
    writeFileSync(join(dir, "sub", "b.test.ts"), `check("y", ["doc1.s.one"], f)`);
    writeFileSync(join(dir, "helper.ts"), `"doc1.s.two"`);
    const rules: Rule[] = [
      { id: "doc1.s.one", title: "1", doc: "doc1", section: "S", level: "required" },
      { id: "doc1.s.two", title: "2", doc: "doc1", section: "S", level: "required" },
    ];
    const cov = computeCoverage(rules, dir, dir);
    expect([...cov.tested.entries()]).toEqual([["doc1.s.one", ["a.test.ts", join("sub", "b.test.ts")]]]);
    expect(cov.untested.map((r) => r.id)).toEqual(["doc1.s.two"]);
    expect(cov.unknown).toEqual([{ id: "doc1.s.ghost", file: "a.test.ts" }]);
  });
});

describe("client duties in the coverage scan", () => {
  it("counts a client duty named by a unit test of tollgate's client, and nothing else from unit tests", () => {
    const root = mkdtempSync(join(tmpdir(), "tollgate-cov-"));
    mkdirSync(join(root, "suites"));
    mkdirSync(join(root, "test"));
    writeFileSync(join(root, "suites", "a.test.ts"), `check("x", ["doc1.s.server"], f)`);
    writeFileSync(join(root, "test", "client.test.ts"), `it("duty", () => {}); const ids = ["doc1.s.client", "doc1.s.other", "doc1.s.ghost"];`);
    const rules: Rule[] = [
      { id: "doc1.s.server", title: "1", doc: "doc1", section: "S", level: "required" },
      { id: "doc1.s.client", title: "2", doc: "doc1", section: "S", level: "optional", subject: "client" },
      { id: "doc1.s.other", title: "3", doc: "doc1", section: "S", level: "required" },
    ];
    const withTests = computeCoverage(rules, join(root, "suites"), root, join(root, "test"));
    expect([...withTests.tested.keys()].sort()).toEqual(["doc1.s.client", "doc1.s.server"]);
    expect(withTests.untested.map((r) => r.id)).toEqual(["doc1.s.other"]);
    expect(withTests.unknown, "ids in unit tests are test data, never unknown rules").toEqual([]);
    const suitesOnly = computeCoverage(rules, join(root, "suites"), root);
    expect(suitesOnly.untested.map((r) => r.id)).toEqual(["doc1.s.client", "doc1.s.other"]);
  });
});

describe("the project's own suites", () => {
  it("name only rule ids the catalog has", async () => {
    const { allRules } = await import("../../lib/spec/catalog.js");
    const root = join(import.meta.dirname, "../..");
    expect(computeCoverage(allRules, join(root, "suites"), root, join(root, "test")).unknown).toEqual([]);
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computeCoverage, declarationsIn } from "../../lib/spec/coverage.js";
import type { Rule } from "../../lib/spec/types.js";

const rules: Rule[] = [
  { id: "doc1.s.one", title: "1", doc: "doc1", section: "S", level: "required" },
  { id: "doc1.s.two", title: "2", doc: "doc1", section: "S", level: "required" },
  { id: "doc1.s.three", title: "3", doc: "doc1", section: "S", level: "required" },
  { id: "doc1.s.hidden", title: "h", doc: "doc1", section: "S", level: "optional", unobservable: "not on the wire" },
  { id: "doc1.s.client", title: "c", doc: "doc1", section: "S", level: "optional", subject: "client" },
];

describe("rule coverage scan: only the rules in test metadata count", () => {
  it("reads literals, spreads of constant arrays and tables a loop reads; quoted ids elsewhere count for nothing", () => {
    const src = `
      const SHARED = ["doc1.s.two"] as const;
      const cases = [{ title: "a", rules: ["doc1.s.three"] }, { title: "b", rules: ["doc1.s.one"], rule: "x" }];
      // "doc1.s.hidden" in a comment, and in a message:
      const msg = "see doc1.s.client";
      check({ title: "t", rules: ["doc1.s.one", ...SHARED], needs: ["cbor", "!authentication"] }, async () => {
        expect(1, "doc1.s.three").toBe(1);
      });
      describe("d", () => {
        for (const c of cases) check({ title: c.title, rules: c.rules }, () => {});
      });
    `;
    const { declarations, problems } = declarationsIn(src, "x.test.ts", "check");
    expect(problems).toEqual([]);
    expect(declarations.map((d) => [d.rules, d.needs])).toEqual([
      [
        ["doc1.s.one", "doc1.s.two"],
        ["cbor", "!authentication"],
      ],
      [["doc1.s.three", "doc1.s.one"], []],
    ]);
  });

  it("reports a declaration whose rules cannot be read statically, and the old positional form", () => {
    const src = `
      check({ title: "t", rules: makeRules() }, () => {});
      check("old", ["doc1.s.one"], () => {});
    `;
    const { declarations, problems } = declarationsIn(src, "x.test.ts", "check");
    expect(declarations).toHaveLength(1);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/x\.test\.ts:2: the rules of this declaration are not statically known/);
    expect(problems[1]).toMatch(/x\.test\.ts:3: check\(\.\.\.\) takes a declaration object/);
  });

  it("splits rules into tested and untested, leaves unobservable rules out of untested, and reports ids the catalog lacks", () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-cov-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "a.test.ts"), `check({ title: "x", rules: ["doc1.s.one", "doc1.s.ghost"] }, f)`);
    writeFileSync(join(dir, "sub", "b.test.ts"), `check({ title: "y", rules: ["doc1.s.one"] }, f)`);
    writeFileSync(join(dir, "helper.ts"), `check({ title: "z", rules: ["doc1.s.two"] }, f)`);
    const cov = computeCoverage(rules, dir, dir);
    expect([...cov.tested.entries()]).toEqual([["doc1.s.one", ["a.test.ts", join("sub", "b.test.ts")]]]);
    expect(cov.untested.map((r) => r.id)).toEqual(["doc1.s.two", "doc1.s.three", "doc1.s.client"]);
    expect(cov.unknown).toEqual([{ id: "doc1.s.ghost", file: "a.test.ts" }]);
  });
});

describe("client duties in the coverage scan", () => {
  it("counts a client duty declared with clientDuty in a unit test, refuses a server rule there, and ignores every other call", () => {
    const root = mkdtempSync(join(tmpdir(), "tollgate-cov-"));
    mkdirSync(join(root, "suites"));
    mkdirSync(join(root, "test"));
    writeFileSync(join(root, "suites", "a.test.ts"), `check({ title: "x", rules: ["doc1.s.one"] }, f)`);
    writeFileSync(
      join(root, "test", "client.test.ts"),
      `clientDuty({ title: "duty", rules: ["doc1.s.client"] }, () => {});
       clientDuty({ title: "not a duty", rules: ["doc1.s.two"] }, () => {});
       check({ title: "a unit test's own helper", rules: ["doc1.s.three"] }, () => {});
       it("data", () => { const ids = ["doc1.s.three"]; });`,
    );
    const cov = computeCoverage(rules, join(root, "suites"), root, join(root, "test"));
    expect([...cov.tested.keys()].sort()).toEqual(["doc1.s.client", "doc1.s.one"]);
    expect(cov.untested.map((r) => r.id)).toEqual(["doc1.s.two", "doc1.s.three"]);
    expect(cov.problems).toEqual([expect.stringMatching(/client\.test\.ts:2: clientDuty names doc1\.s\.two, which binds the server/)]);
  });
});

describe("the project's own tests", () => {
  it("declare only rule ids the catalog has, every one statically readable, and none that no request can show", async () => {
    const { allRules } = await import("../../lib/spec/catalog.js");
    const root = join(import.meta.dirname, "../..");
    const cov = computeCoverage(allRules, join(root, "suites"), root, join(root, "test"));
    expect(cov.unknown).toEqual([]);
    expect(cov.problems).toEqual([]);
    const unobservable = new Set(allRules.filter((r) => r.unobservable).map((r) => r.id));
    expect(cov.declarations.flatMap((d) => d.rules.filter((id) => unobservable.has(id)).map((id) => `${d.file}:${d.line} ${id}`))).toEqual([]);
  });
});

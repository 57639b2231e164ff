/**
 * What --focus, --skip and --rerun-failed choose (lib/runner/selection.ts), and how the run's
 * load budget is split among vitest's workers (lib/runner/settings.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { selectionFrom } from "../../lib/cli/run-flags.js";
import { DEFAULT_LOAD } from "../../lib/harness/load.js";
import { checkTerm, rerunFromReport, SelectionError, selects, type TestIdentity, termMatches } from "../../lib/runner/selection.js";
import { ENV, loadFromEnv, SettingsError, workerShare } from "../../lib/runner/settings.js";

const chunked: TestIdentity = {
  name: "chunked lists > the pages are one snapshot",
  file: "/repo/suites/chunked-list.test.ts",
  rules: ["doc1.chunking.step2-rv-constant", "doc1.list-rv.continuation"],
};
const crud: TestIdentity = {
  name: "crud > create, get, list, update and delete round trip",
  file: "/repo/suites/crud.test.ts",
  rules: ["doc1.verbs.create-post"],
};

describe("selection terms", () => {
  it("a rule id, or its start", () => {
    expect(termMatches("doc1.list-rv.continuation", chunked)).toBe(true);
    expect(termMatches("doc1.list-rv", chunked)).toBe(true);
    expect(termMatches("doc1.list-rv", crud)).toBe(false);
  });

  it("a section, as `doc § Section` or its start, in any case and spacing", () => {
    expect(termMatches("doc1 § Chunked lists", chunked)).toBe(true);
    expect(termMatches("doc1§chunked", chunked)).toBe(true);
    expect(termMatches("doc1 § Chunked lists", crud)).toBe(false);
    expect(termMatches("doc2 § Chunked lists", chunked)).toBe(false);
  });

  it("text of the name or the file, and /regex/", () => {
    expect(termMatches("ROUND TRIP", crud)).toBe(true);
    expect(termMatches("crud.test", crud)).toBe(true);
    expect(termMatches("/^crud > create/", crud)).toBe(true);
    expect(termMatches("/^create/", crud)).toBe(false);
  });

  it("a bad term is a usage error", () => {
    expect(() => checkTerm("--focus", " ")).toThrow(SelectionError);
    expect(() => checkTerm("--skip", "/(/")).toThrow(/^--skip \/\(\/: Invalid regular expression/);
  });

  it("focus keeps, skip removes, and --rerun-failed narrows to its tests and the tests of its rules", () => {
    const none = { focus: [], skip: [] };
    expect([selects(none, chunked), selects(none, crud)]).toEqual([true, true]);
    expect([selects({ focus: ["doc1.chunking"], skip: [] }, chunked), selects({ focus: ["doc1.chunking"], skip: [] }, crud)]).toEqual([true, false]);
    expect(selects({ focus: ["doc1"], skip: ["crud"] }, crud)).toBe(false);
    const rerun = { from: "r", tests: [{ name: crud.name, file: "suites/crud.test.ts" }], rules: ["doc1.list-rv.continuation"] };
    expect([selects({ ...none, rerun }, chunked), selects({ ...none, rerun }, crud)]).toEqual([true, true]);
    expect(selects({ ...none, rerun: { ...rerun, rules: [] } }, chunked)).toBe(false);
    expect(
      selects({ ...none, rerun: { ...rerun, tests: [{ name: crud.name, file: "suites/other.test.ts" }], rules: [] } }, crud),
      "same name, other file",
    ).toBe(false);
  });

  it("--rerun-failed reads the failed and undecided tests and rules of a report", () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-rerun-"));
    writeFileSync(
      join(dir, "summary.json"),
      JSON.stringify({
        tests: [
          { name: "a > x", file: "suites/a.test.ts", state: "failed" },
          { name: "a > y", file: "suites/a.test.ts", state: "passed" },
          { name: "b > z", file: "suites/b.test.ts", state: "target-unavailable" },
        ],
        rules: [
          { id: "doc1.a.one", status: "failed" },
          { id: "doc1.a.two", status: "passed" },
          { id: "doc1.a.three", status: "target-unavailable" },
        ],
      }),
    );
    expect(rerunFromReport(dir)).toEqual({
      from: dir,
      tests: [
        { name: "a > x", file: "suites/a.test.ts" },
        { name: "b > z", file: "suites/b.test.ts" },
      ],
      rules: ["doc1.a.one", "doc1.a.three"],
    });
    expect(() => selectionFrom({ "rerun-failed": join(dir, "nope") })).toThrow(/^--rerun-failed: no summary\.json in /);
    writeFileSync(join(dir, "summary.json"), "{");
    expect(() => rerunFromReport(dir)).toThrow(/is not JSON/);
  });
});

describe("the load budget of a run", () => {
  it("kubectl's rate limit against a target given on the command line, none against the embedded emulator, the flags winning", () => {
    expect(loadFromEnv({}, false)).toEqual(DEFAULT_LOAD);
    expect(loadFromEnv({}, true).qps).toBe(0);
    expect(loadFromEnv({ [ENV.qps]: "50", [ENV.burst]: "300", [ENV.requestTimeoutMs]: "0" }, true)).toMatchObject({ qps: 50, burst: 300, requestTimeoutMs: 0 });
    expect(() => loadFromEnv({ [ENV.burst]: "1.5" }, false)).toThrow(SettingsError);
  });

  it("each of vitest's workers gets its share, and never nothing", () => {
    expect(workerShare({ ...DEFAULT_LOAD }, 2)).toMatchObject({ qps: 2.5, burst: 5, maxInflight: 8 });
    expect(workerShare({ ...DEFAULT_LOAD, burst: 1, maxInflight: 1 }, 4)).toMatchObject({ qps: 1.25, burst: 1, maxInflight: 1 });
    expect(workerShare({ ...DEFAULT_LOAD, qps: 0, maxInflight: 0 }, 2)).toMatchObject({ qps: 0, maxInflight: 0 });
  });
});

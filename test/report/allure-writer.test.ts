import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestResult, TestResultContainer } from "allure-js-commons";
import { FileSystemWriter } from "allure-js-commons/sdk/reporter";
import { afterEach, describe, expect, it } from "vitest";
import RuleAwareAllureReporter, { UnsyncedResultsWriter } from "../../lib/report/allure-reporter.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "tollgate-allure-writer-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every file of a folder with its bytes, by name. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), "utf8")]),
  );
}

describe("the Allure results writer", () => {
  it("writes the same files with the same bytes as allure-js-commons' FileSystemWriter", () => {
    const source = join(tempDir(), "log.txt");
    writeFileSync(source, "GET /api/v1 → 200\n");
    const calls = (w: FileSystemWriter) => {
      w.writeResult({ uuid: "u1", name: "a test", status: "passed", labels: [{ name: "tag", value: "doc1.a.one" }] } as unknown as TestResult);
      w.writeGroup({ uuid: "g1", children: ["u1"], befores: [], afters: [] } as unknown as TestResultContainer);
      w.writeGlobals("x-globals.json", { attachments: [], errors: [] });
      w.writeAttachment("a-attachment.txt", Buffer.from("last exchanges"));
      w.writeAttachmentFromPath("b-attachment.txt", source);
    };
    const theirs = join(tempDir(), "results");
    const ours = join(tempDir(), "results");
    calls(new FileSystemWriter({ resultsDir: theirs }));
    calls(new UnsyncedResultsWriter(ours));
    const expected = contents(theirs);
    expect(Object.keys(expected)).toEqual(["a-attachment.txt", "b-attachment.txt", "g1-container.json", "u1-result.json", "x-globals.json"]);
    expect(contents(ours)).toEqual(expected);
    expect(JSON.parse(expected["u1-result.json"] as string)).toMatchObject({ uuid: "u1", name: "a test", labels: [{ name: "tag", value: "doc1.a.one" }] });
  });

  it("the run's Allure reporter writes its results through it", () => {
    const resultsDir = join(tempDir(), "allure-results");
    const reporter = new RuleAwareAllureReporter({ resultsDir });
    reporter.onInit({ projects: [] } as unknown as Parameters<RuleAwareAllureReporter["onInit"]>[0]);
    const runtime = (reporter as unknown as { allureReporterRuntime: { writer: unknown } }).allureReporterRuntime;
    expect(runtime.writer).toBeInstanceOf(UnsyncedResultsWriter);
    (runtime.writer as UnsyncedResultsWriter).writeResult({ uuid: "u2", name: "t" } as unknown as TestResult);
    expect(readdirSync(resultsDir).sort()).toEqual(["u2-result.json"]);
  });
});

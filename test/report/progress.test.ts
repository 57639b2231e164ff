/** The progress line (lib/report/progress-reporter.ts), with vitest's test objects stood in for by what the reporter reads. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { TestCase, TestModule, TestSpecification } from "vitest/node";
import ProgressReporter from "../../lib/report/progress-reporter.js";

interface Fake {
  id: string;
  fullName: string;
  rules: string[];
  deselected?: boolean;
  state?: "passed" | "failed" | "skipped";
  targetUnavailable?: string;
}

const testCase = (f: Fake): TestCase =>
  ({
    id: f.id,
    fullName: f.fullName,
    meta: () => ({ rules: f.rules, ...(f.deselected ? { deselected: true } : {}), ...(f.targetUnavailable ? { targetUnavailable: f.targetUnavailable } : {}) }),
    result: () => ({ state: f.state ?? "pending" }),
  }) as unknown as TestCase;
const testModule = (tests: Fake[]): TestModule => ({ children: { allTests: () => tests.map(testCase) } }) as unknown as TestModule;

function setup(tty: boolean) {
  let now = 1_000;
  const out = new PassThrough();
  let written = "";
  out.on("data", (d: Buffer) => (written += d.toString()));
  const reporter = new ProgressReporter({ tty, out, intervalMs: 60_000, now: () => now, status: () => "target silent for 3 s" });
  const tests: Fake[] = [
    { id: "a", fullName: "crud > a", rules: ["doc1.x.one", "doc1.x.two"] },
    { id: "b", fullName: "crud > b", rules: ["doc1.x.two"] },
    { id: "c", fullName: "watch > c", rules: ["doc1.y.one"] },
    { id: "d", fullName: "watch > d", rules: ["doc1.z.one"], deselected: true },
  ];
  reporter.onTestRunStart([{}, {}, {}] as unknown as TestSpecification[]);
  reporter.onTestModuleCollected(testModule(tests));
  return { reporter, tests, advance: (ms: number) => (now += ms), written: () => written };
}

describe("progress", () => {
  it("rules done of those named so far, tests done, failures, elapsed, the slowest test still running", () => {
    const { reporter, tests, advance } = setup(false);
    reporter.onTestCaseReady(testCase(tests[0] as Fake));
    advance(2_000);
    reporter.onTestCaseReady(testCase(tests[2] as Fake));
    advance(12_000);
    expect(reporter.line()).toBe("tollgate: rules 0/3 · tests 0/3 · files 0/3 · 0 failed · 14 s · slowest running: crud > a (14 s) · target silent for 3 s");
    reporter.onTestCaseResult(testCase({ ...(tests[0] as Fake), state: "failed" }));
    reporter.onTestCaseResult(testCase({ ...(tests[2] as Fake), state: "skipped", targetUnavailable: "GET /x: no answer" }));
    reporter.onTestModuleEnd();
    // doc1.x.two waits for test b; doc1.x.one and doc1.y.one are done; the left-out test counts nowhere.
    expect(reporter.line()).toBe("tollgate: rules 2/3 · tests 2/3 · files 1/3 · 1 failed · 1 target unavailable · 14 s · target silent for 3 s");
    reporter.onTestRunEnd();
  });

  it("on a terminal the line is redrawn in place and cleared for other output; elsewhere it is a plain line", () => {
    const term = setup(true);
    (term.reporter as unknown as { tick(): void }).tick();
    term.reporter.clear();
    expect(term.written()).toMatch(/^\r\x1b\[2Ktollgate: rules 0\/3 .*\r\x1b\[2K$/);
    term.reporter.onTestRunEnd();
    const log = setup(false);
    (log.reporter as unknown as { tick(): void }).tick();
    log.reporter.clear();
    expect(log.written()).toMatch(/^tollgate: rules 0\/3 · tests 0\/3 .*\n$/);
    log.reporter.onTestRunEnd();
  });
});

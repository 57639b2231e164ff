/**
 * junit.xml from a summary's tests, for a merged run (a single run's comes from vitest's junit
 * reporter): one testsuite per file, the detection's violations as failures of their own
 * "file", a failure's first line as its message and the whole message with the last exchanges
 * as its text, a not-applicable test as skipped with its reason.
 */
import { formatExchange } from "../harness/exchanges.js";
import type { Summary, TestOutcome } from "./summary.js";

// XML 1.0 has no escape for most control characters: they are dropped.
const INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const xml = (s: string): string =>
  s.replace(INVALID, "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] as string);
const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function testcase(t: TestOutcome): string {
  const open = `    <testcase classname="${xml(t.file)}" name="${xml(t.name)}" time="${seconds(t.durationMs)}"`;
  if (t.state === "passed") return `${open}/>`;
  if (t.state === "not-applicable") return `${open}>\n      <skipped message="${xml(t.note ?? "not applicable")}"/>\n    </testcase>`;
  const text = [
    ...(t.fullErrors ?? t.errors),
    ...(t.property ? [`property: seed ${t.property.seed}, counterexample ${t.property.counterexample}`] : []),
    ...(t.exchanges?.length ? ["last exchanges, oldest first:", ...t.exchanges.map(formatExchange)] : []),
  ].join("\n");
  return `${open}>\n      <failure message="${xml(t.errors[0] ?? "failed")}" type="failure">${xml(text)}</failure>\n    </testcase>`;
}

export function junitXml(s: Summary): string {
  const files = new Map<string, TestOutcome[]>();
  for (const t of s.tests) files.set(t.file, [...(files.get(t.file) ?? []), t]);
  const count = (ts: readonly TestOutcome[], state: TestOutcome["state"]): number => ts.filter((t) => t.state === state).length;
  const time = (ts: readonly TestOutcome[]): string => seconds(ts.reduce((n, t) => n + t.durationMs, 0));
  const suites = [...files.entries()].map(
    ([file, ts]) =>
      `  <testsuite name="${xml(file)}" timestamp="${xml(s.startedAt)}" hostname="tollgate" tests="${ts.length}" failures="${count(ts, "failed")}" errors="0" skipped="${count(ts, "not-applicable")}" time="${time(ts)}">\n${ts.map(testcase).join("\n")}\n  </testsuite>`,
  );
  return `<?xml version="1.0" encoding="UTF-8" ?>\n<testsuites name="tollgate" tests="${s.tests.length}" failures="${count(s.tests, "failed")}" errors="0" skipped="${count(s.tests, "not-applicable")}" time="${seconds(s.durationMs)}">\n${suites.join("\n")}\n</testsuites>\n`;
}

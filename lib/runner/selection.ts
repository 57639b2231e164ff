/**
 * Which tests a run runs: `--focus` and `--skip` terms, and `--rerun-failed REPORT_DIR`. Decided
 * per test from its declaration (lib/runner/declare.ts), before anything runs; a test left out
 * is in no verdict, and a rule none of whose tests ran is "untested".
 *
 * A term matches a test when one of its rules' ids starts with it (`doc1.list-rv`, or a whole
 * id), when it starts a section one of its rules is in (`doc1 § Chunked lists`), or when the
 * test's name or file contains it (case-insensitive); `/…/` is a regular expression on the name
 * and file.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ruleById } from "../spec/catalog.js";

export interface Selection {
  /** A test runs only when it matches one of these (all run when empty). */
  focus: string[];
  /** A test that matches one of these does not run. */
  skip: string[];
  /** From --rerun-failed: only these tests, and the tests of these rules. */
  rerun?: RerunSet;
}

export interface RerunSet {
  /** The report directory it came from. */
  from: string;
  /** Tests by full name and file (as summary.json gives them). */
  tests: { name: string; file: string }[];
  /** Rules that failed (or were not decided because the target did not answer). */
  rules: string[];
}

export interface TestIdentity {
  /** The full name: describe blocks and title joined by " > ", as vitest and summary.json give it. */
  name: string;
  /** The file's path (absolute, or relative to the root). */
  file: string;
  rules: readonly string[];
}

export class SelectionError extends Error {}

const SECTION = " § ";

/** Checks a term and returns it as it will be matched (a regular expression compiles). */
export function checkTerm(flag: string, term: string): string {
  const t = term.trim();
  if (t === "") throw new SelectionError(`${flag} needs a rule id, a section or a pattern`);
  const re = /^\/(.+)\/([a-z]*)$/.exec(t);
  if (re) {
    try {
      new RegExp(re[1] as string, re[2]);
    } catch (e) {
      throw new SelectionError(`${flag} ${t}: ${(e as Error).message}`);
    }
  }
  return t;
}

const normalSection = (s: string): string =>
  s
    .toLowerCase()
    .replace(/\s*§\s*/, SECTION)
    .trim();

export function termMatches(term: string, test: TestIdentity): boolean {
  const re = /^\/(.+)\/([a-z]*)$/.exec(term);
  if (re) {
    const r = new RegExp(re[1] as string, re[2]);
    return r.test(test.name) || r.test(test.file);
  }
  const section = term.includes("§") ? normalSection(term) : undefined;
  for (const id of test.rules) {
    if (id.startsWith(term)) return true;
    const rule = ruleById.get(id);
    if (section !== undefined && rule && normalSection(`${rule.doc}${SECTION}${rule.section}`).startsWith(section)) return true;
  }
  const lower = term.toLowerCase();
  return test.name.toLowerCase().includes(lower) || test.file.toLowerCase().includes(lower);
}

/** Whether `file` (absolute or relative) is the report's `reported` (relative to the run's directory). */
function sameFile(file: string, reported: string): boolean {
  const a = file.replace(/\\/g, "/");
  const b = reported.replace(/\\/g, "/").replace(/^\.\//, "");
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

export function selects(sel: Selection, test: TestIdentity): boolean {
  if (sel.focus.length > 0 && !sel.focus.some((t) => termMatches(t, test))) return false;
  if (sel.skip.some((t) => termMatches(t, test))) return false;
  if (sel.rerun) {
    const r = sel.rerun;
    if (!r.tests.some((t) => t.name === test.name && sameFile(test.file, t.file)) && !test.rules.some((id) => r.rules.includes(id))) return false;
  }
  return true;
}

export function isEmptySelection(sel: Selection | undefined): boolean {
  return !sel || (sel.focus.length === 0 && sel.skip.length === 0 && sel.rerun === undefined);
}

/** The shape of summary.json this needs (lib/report/summary.ts). */
interface ReportedRun {
  tests?: { name?: unknown; file?: unknown; state?: unknown; rules?: unknown }[];
  rules?: { id?: unknown; status?: unknown }[];
}

const UNDECIDED = new Set(["failed", "target-unavailable"]);

/**
 * The tests to run again from a report directory: those that failed or met no answer from the
 * target, and every test of a rule that failed or was left undecided (detection failures
 * included: their rules failed). Throws SelectionError when the report cannot be read.
 */
export function rerunFromReport(dir: string): RerunSet {
  const file = join(dir, "summary.json");
  if (!existsSync(file)) throw new SelectionError(`--rerun-failed: no summary.json in ${dir}`);
  let run: ReportedRun;
  try {
    run = JSON.parse(readFileSync(file, "utf8")) as ReportedRun;
  } catch (e) {
    throw new SelectionError(`--rerun-failed: ${file} is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(run.tests) || !Array.isArray(run.rules))
    throw new SelectionError(`--rerun-failed: ${file} is not a tollgate summary (no tests and rules)`);
  const tests = run.tests
    .filter((t) => UNDECIDED.has(String(t.state)) && typeof t.name === "string" && typeof t.file === "string")
    .map((t) => ({ name: t.name as string, file: t.file as string }));
  const rules = run.rules.filter((r) => UNDECIDED.has(String(r.status)) && typeof r.id === "string").map((r) => r.id as string);
  return { from: dir, tests, rules };
}

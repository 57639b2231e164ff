/**
 * tollgate's self-test: every fault of the catalog applied to the embedded emulator, each run
 * against only the suites that name its rules, through the real CLI (`tollgate run --fault`).
 * A fault is caught when the run exits 1 and every rule it names failed; the clean emulator
 * must pass every suite (exit 0). The result is a table and selftest.json.
 *
 * Runs through the CLI are the slow part, so faults share runs where that cannot blur the
 * verdict: wire faults whose suites are disjoint, each limited to its own suites' requests
 * (tollgate's client names its suite in the User-Agent), and checker faults (one per doc3
 * option rule) whose rules no single test names together. A fault of state, of the daemons,
 * or one that must meet the runner's own requests runs alone. A daemon fault that starts the
 * daemons with other command lines (for rules of another setting) is run a second time with
 * those lines and no misbehaviour, its "clean variant": its rules must pass there.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PROJECT_ROOT } from "../project-root.js";
import { allRules } from "../spec/catalog.js";
import { computeCoverage } from "../spec/coverage.js";
import { areaOf, FAULTS, type Fault } from "./index.js";

const ROOT = PROJECT_ROOT;
const BIN = join(ROOT, "bin", "tollgate.js");
const SUITES = join(ROOT, "suites");
/** Checker faults per run: enough to keep the self-test short, few enough that a failing batch stays readable. */
const CHECKER_BATCH = 25;
/** Wire faults per run, each on suites of its own. */
const WIRE_BATCH = 8;

export interface SelftestOptions {
  /** Fault names; every fault of the catalog when empty. */
  readonly faults: readonly string[];
  /** Also run every suite against the clean emulator (expected: exit 0). */
  readonly clean: boolean;
  /** Runs at once. */
  readonly jobs: number;
  /** Where the runs' reports and selftest.json go. */
  readonly outputDir: string;
  /** Told of each run as it ends. */
  readonly onResult?: (line: string) => void;
}

export interface FaultResult {
  name: string;
  /** The catalog file it is in. */
  area: string;
  mode: Fault["mode"];
  rules: string[];
  suites: string[];
  /** The run's exit code. */
  exit: number | null;
  /** Each named rule's status in the run (failed when caught). */
  statuses: Record<string, string>;
  /**
   * A daemon fault with command lines: the run with those lines and no misbehaviour (its report
   * folder is the fault's, with `.clean-variant`). The fault is caught only if its rules passed there.
   */
  cleanVariant?: { exit: number | null; statuses: Record<string, string> };
  /** Exit 1 and every named rule failed (and, with a clean variant, exit 0 and every rule passed there). */
  caught: boolean;
  /** The run's time; a batch's time is shared by its faults. */
  seconds: number;
  /** The run (and its report folder) this fault was proved in; checker faults share one. */
  run: string;
}

export interface SelftestResult {
  clean?: { exit: number | null; seconds: number; failedRules: string[] };
  faults: FaultResult[];
  totals: { faults: number; caught: number; missed: number; rulesCovered: number; seconds: number };
}

/**
 * What the suites declare, read the way rule coverage reads it (lib/spec/coverage.ts: the rules
 * of each `check(...)`, not any quoted id): the suite files naming each rule (relative, without
 * .test.ts, as --suite takes them), and the rules each test names together.
 */
export function suiteDeclarations(): { suitesByRule: Map<string, string[]>; namedTogether: (a: string, b: string) => boolean } {
  const cov = computeCoverage(allRules, SUITES, ROOT);
  const suitesByRule = new Map([...cov.tested].map(([id, files]) => [id, files.map((f) => f.replace(/\.test\.ts$/, ""))]));
  const pairs = new Set(cov.declarations.flatMap((d) => d.rules.flatMap((a) => d.rules.map((b) => `${a} ${b}`))));
  return { suitesByRule, namedTogether: (a, b) => a === b || pairs.has(`${a} ${b}`) };
}

interface RunOutcome {
  exit: number | null;
  seconds: number;
  statuses: Map<string, string>;
  output: string;
}

function tollgateRun(args: readonly string[], outDir: string, env: Record<string, string> = {}): Promise<RunOutcome> {
  const started = Date.now();
  mkdirSync(outDir, { recursive: true });
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, "run", "--no-html", "--qps", "0", "--output", outDir, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("exit", (exit) => {
      let statuses = new Map<string, string>();
      try {
        const summary = JSON.parse(readFileSync(join(outDir, "summary.json"), "utf8")) as { rules: { id: string; status: string }[] };
        statuses = new Map(summary.rules.map((r) => [r.id, r.status]));
      } catch {
        // No summary: the run broke before reporting; every rule reads as not failed, so the fault counts as missed.
      }
      writeFileSync(join(outDir, "output.txt"), output);
      done({ exit, seconds: (Date.now() - started) / 1000, statuses, output });
    });
  });
}

/** Runs `work` over `items` with at most `jobs` at once. */
async function pool<T>(items: readonly T[], jobs: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
}

/** The name a suite file gives useSuite(): what its requests carry in the User-Agent. */
function suiteName(file: string): string {
  const m = /useSuite\("([^"]+)"\)/.exec(readFileSync(join(ROOT, `${file}.test.ts`), "utf8"));
  // A suite without a client of its own (the daemon suites) makes no API request a wire fault could touch.
  return m?.[1] ?? file;
}

/** Wire faults grouped so that no two of a group share a suite: each group is one run, each fault limited to its suites. */
function wireBatches(faults: readonly Fault[], suitesOf: (f: Fault) => string[]): Fault[][] {
  const batches: { faults: Fault[]; suites: Set<string> }[] = [];
  for (const f of faults) {
    const mine = suitesOf(f);
    const fits = batches.find((b) => b.faults.length < WIRE_BATCH && mine.every((s) => !b.suites.has(s)));
    if (fits) {
      fits.faults.push(f);
      for (const s of mine) fits.suites.add(s);
    } else batches.push({ faults: [f], suites: new Set(mine) });
  }
  return batches.map((b) => b.faults);
}

/** Checker faults grouped so that no test names rules of two faults of one group. */
function checkerBatches(faults: readonly Fault[], together: (a: string, b: string) => boolean): Fault[][] {
  const batches: Fault[][] = [];
  for (const f of faults) {
    const fits = batches.find((b) => b.length < CHECKER_BATCH && b.every((g) => !g.rules.some((r) => f.rules.some((s) => together(r, s)))));
    if (fits) fits.push(f);
    else batches.push([f]);
  }
  return batches;
}

export async function selftest(o: SelftestOptions): Promise<SelftestResult> {
  const started = Date.now();
  const named = o.faults.length === 0 ? [...FAULTS] : o.faults.map((n) => FAULTS.find((f) => f.name === n) as Fault);
  // One embedded emulator is one server: a fault only several servers show is left to the test it names.
  for (const f of named)
    if (f.severalServers) o.onResult?.(`${f.name}: needs several servers of one cluster, not run here (${f.severalServers} shows it caught)`);
  const chosen = named.filter((f) => !f.severalServers);
  const { suitesByRule, namedTogether } = suiteDeclarations();
  const suitesOf = (rules: readonly string[]): string[] => [...new Set(rules.flatMap((r) => suitesByRule.get(r) ?? []))].sort();
  mkdirSync(o.outputDir, { recursive: true });
  const result: SelftestResult = { faults: [], totals: { faults: 0, caught: 0, missed: 0, rulesCovered: 0, seconds: 0 } };
  const checker = chosen.filter((f) => f.mode === "checker");

  const units: { faults: Fault[]; id: string }[] = [
    ...chosen.filter((f) => f.mode === "emulator" || f.mode === "daemons" || (f.mode === "wire" && f.wholeRun)).map((f) => ({ faults: [f], id: f.name })),
    ...wireBatches(
      chosen.filter((f) => f.mode === "wire" && !f.wholeRun),
      (f) => suitesOf(f.rules),
    ).map((b, i) => ({ faults: b, id: b.length === 1 ? (b[0] as Fault).name : `wire-batch-${i + 1}` })),
    ...checkerBatches(checker, namedTogether).map((b, i) => ({ faults: b, id: b.length === 1 ? (b[0] as Fault).name : `checker-batch-${i + 1}` })),
  ];
  const jobs: (() => Promise<void>)[] = units.map((u) => async () => {
    const rules = u.faults.flatMap((f) => f.rules);
    const suites = suitesOf(rules);
    // Wire faults sharing a run each touch only the requests of their own suites (by User-Agent).
    const scopes =
      u.faults.length > 1 && u.faults[0]?.mode === "wire" ? Object.fromEntries(u.faults.map((f) => [f.name, suitesOf(f.rules).map(suiteName)])) : undefined;
    const run = await tollgateRun(
      [...u.faults.flatMap((f) => ["--fault", f.name]), ...suites.flatMap((s) => ["--suite", s])],
      join(o.outputDir, "faults", u.id),
      scopes ? { TOLLGATE_FAULT_SCOPES: JSON.stringify(scopes) } : {},
    );
    // A fault that changes the daemons' command lines is fair only if those lines alone pass its rules:
    // else the rules would fail for the setting, not for the misbehaviour. Such a fault runs alone.
    const variantOf = u.faults[0]?.mode === "daemons" && u.faults[0].commandLines ? u.faults[0] : undefined;
    let cleanVariant: FaultResult["cleanVariant"];
    let variantSeconds = 0;
    if (variantOf) {
      const clean = await tollgateRun(
        ["--fault", variantOf.name, ...suites.flatMap((s) => ["--suite", s])],
        join(o.outputDir, "faults", `${u.id}.clean-variant`),
        { TOLLGATE_FAULT_VARIANT_ONLY: "1" },
      );
      variantSeconds = clean.seconds;
      cleanVariant = { exit: clean.exit, statuses: Object.fromEntries(variantOf.rules.map((r) => [r, clean.statuses.get(r) ?? "not run"])) };
    }
    const variantPassed = !cleanVariant || (cleanVariant.exit === 0 && Object.values(cleanVariant.statuses).every((s) => s === "passed"));
    for (const f of u.faults) {
      const statuses = Object.fromEntries(f.rules.map((r) => [r, run.statuses.get(r) ?? "not run"]));
      const caught = run.exit === 1 && Object.values(statuses).every((s) => s === "failed") && variantPassed;
      const r: FaultResult = {
        name: f.name,
        area: areaOf(f.name) ?? "?",
        mode: f.mode,
        rules: [...f.rules],
        suites: suitesOf(f.rules),
        exit: run.exit,
        statuses,
        ...(cleanVariant ? { cleanVariant } : {}),
        caught,
        seconds: run.seconds + variantSeconds,
        run: u.id,
      };
      result.faults.push(r);
      o.onResult?.(resultLine(r));
    }
  });
  if (o.clean) {
    jobs.unshift(async () => {
      const run = await tollgateRun([], join(o.outputDir, "clean"));
      const failedRules = [...run.statuses].filter(([, s]) => s === "failed").map(([id]) => id);
      result.clean = { exit: run.exit, seconds: run.seconds, failedRules };
      o.onResult?.(
        `clean emulator, every suite: exit ${run.exit}${failedRules.length ? `, failed ${failedRules.join(", ")}` : ""} (${run.seconds.toFixed(1)} s)`,
      );
    });
  }
  await pool(jobs, o.jobs, (job) => job());

  result.faults.sort((a, b) => FAULTS.indexOf(FAULTS.find((f) => f.name === a.name) as Fault) - FAULTS.indexOf(FAULTS.find((f) => f.name === b.name) as Fault));
  const caught = result.faults.filter((f) => f.caught);
  result.totals = {
    faults: result.faults.length,
    caught: caught.length,
    missed: result.faults.length - caught.length,
    rulesCovered: new Set(caught.flatMap((f) => f.rules)).size,
    seconds: (Date.now() - started) / 1000,
  };
  writeFileSync(join(o.outputDir, "selftest.json"), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

export function resultLine(r: FaultResult): string {
  const missed = Object.entries(r.statuses).filter(([, s]) => s !== "failed");
  const unfair = Object.entries(r.cleanVariant?.statuses ?? {}).filter(([, s]) => s !== "passed");
  const variant = r.cleanVariant
    ? `; clean variant exit ${r.cleanVariant.exit}${unfair.length ? `, ${unfair.map(([id, s]) => `${id} ${s}`).join(", ")}` : ", rules passed"}`
    : "";
  const verdict = r.caught
    ? `caught${variant}`
    : `MISSED (exit ${r.exit}${missed.length ? `; ${missed.map(([id, s]) => `${id} ${s}`).join(", ")}` : ""}${variant})`;
  return `${r.name} [${r.mode}] → ${r.rules.join(", ")}: ${verdict} (${r.seconds.toFixed(1)} s)`;
}

/** The table the README carries: per catalog area, faults by kind, caught and missed, rules proved able to fail. */
export function selftestTable(r: SelftestResult): string {
  const areas = [...new Set(r.faults.map((f) => f.area))];
  const row = (label: string, fs: readonly FaultResult[]): string => {
    const kinds = (["wire", "emulator", "daemons", "checker"] as const)
      .map((m) => [m, fs.filter((f) => f.mode === m).length] as const)
      .filter(([, n]) => n > 0)
      .map(([m, n]) => `${n} ${m}`)
      .join(", ");
    const caught = fs.filter((f) => f.caught);
    const rules = new Set(caught.flatMap((f) => f.rules)).size;
    const missed = fs.filter((f) => !f.caught).map((f) => f.name);
    return `| ${label} | ${fs.length} (${kinds}) | ${caught.length} | ${missed.length ? missed.join(", ") : "0"} | ${rules} |`;
  };
  return [
    "| area (lib/faults/catalog/) | faults | caught | missed | rules proved able to fail |",
    "|---|---|---|---|---|",
    ...areas.map((a) =>
      row(
        `${a}.ts`,
        r.faults.filter((f) => f.area === a),
      ),
    ),
    row("**all**", r.faults),
  ].join("\n");
}

export const defaultSelftestDir = (): string => resolve("reports", "selftest");

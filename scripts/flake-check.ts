/**
 * The flake bar (not part of `npm test`): N consecutive `tollgate run`s against the embedded
 * emulator, all green, while other processes keep every core busy. A correct server must never
 * fail a run, however loaded the machine.
 *
 *   npx tsx scripts/flake-check.ts [--runs 20] [--busy N] [--output DIR] [--tests [FILTER...]]
 *
 * --busy N starts N busy-looping processes (default: one per core) for the whole check; each
 * also stops by itself after a bound, so nothing outlives the script. Each run gets a fresh
 * seed (printed). Writes DIR/flake.json (default reports/flake-<time>) and ends with the line
 * "N passed, M failed".
 *
 * --tests checks the project's own tests instead: N times `vitest run` (npm test without lint
 * and type check), Vite's module cache emptied before each as in CI's fresh clone, naming each
 * failed test; FILTERs (vitest's file filters) repeat only some files. Its own runs load the
 * cores: --busy defaults to 0 there.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "tollgate.js");

/** Bad usage: one line, exit 2. */
function usage(message: string): never {
  console.error(`flake-check: ${message}`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      options: { runs: { type: "string", default: "20" }, busy: { type: "string" }, output: { type: "string" }, tests: { type: "boolean", default: false } },
      allowPositionals: true,
    });
  } catch (e) {
    return usage((e as Error).message);
  }
})();
if (positionals.length > 0 && !values.tests) usage(`unexpected ${positionals[0]}: file filters go with --tests`);
const runs = Number(values.runs);
const busy = values.busy === undefined ? (values.tests ? 0 : availableParallelism()) : Number(values.busy);
if (!Number.isInteger(runs) || runs < 1 || runs > 200) usage(`--runs ${values.runs}: expected 1 to 200`);
if (!Number.isInteger(busy) || busy < 0 || busy > 64) usage(`--busy ${values.busy}: expected 0 to 64`);
const out = resolve(values.output ?? join(ROOT, "reports", `flake-${new Date().toISOString().replace(/[:.]/g, "-")}`));
mkdirSync(out, { recursive: true });

/** A busy loop in its own process, that ends itself after `maxMinutes` even if this script dies. */
function burner(maxMinutes: number): ChildProcess {
  const code = `const end = Date.now() + ${maxMinutes * 60_000}; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0; }`;
  return spawn(process.execPath, ["-e", code], { stdio: "ignore" });
}

interface RunResult {
  run: number;
  exit: number | null;
  seconds: number;
  seed?: number;
  tests?: { passed: number; failed: number; "not-applicable": number };
  failures: string[];
  loadAverage: number;
}

/**
 * Runs `args` under Node in `dir`'s name, keeps its output there as output.log, and completes the
 * result with `read` (which fills in the tests and failures from the child's report).
 */
function spawnRun(i: number, dir: string, args: string[], read: (result: RunResult) => void): Promise<RunResult> {
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    child.stdout.on("data", (d: Buffer) => (log += d.toString()));
    child.stderr.on("data", (d: Buffer) => (log += d.toString()));
    child.once("exit", (exit) => {
      writeFileSync(join(dir, "output.log"), log);
      const result: RunResult = {
        run: i,
        exit,
        seconds: Math.round((Date.now() - started) / 100) / 10,
        failures: [],
        loadAverage: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      };
      try {
        read(result);
      } catch (e) {
        result.failures = [`no report: ${(e as Error).message}`];
      }
      done(result);
    });
  });
}

/** One `tollgate run` against the embedded emulator; failures from its summary.json. */
function oneRun(i: number): Promise<RunResult> {
  const dir = join(out, `run-${String(i).padStart(2, "0")}`);
  return spawnRun(i, dir, [BIN, "run", "--no-html", "--output", dir], (result) => {
    const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as {
      seed?: number;
      totals: { tests: { passed: number; failed: number; "not-applicable": number } };
      tests: { name: string; state: string; errors: string[] }[];
    };
    result.seed = s.seed;
    result.tests = { passed: s.totals.tests.passed, failed: s.totals.tests.failed, "not-applicable": s.totals.tests["not-applicable"] };
    result.failures = s.tests.filter((t) => t.state === "failed").map((t) => `${t.name}: ${t.errors[0] ?? ""}`);
  });
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: { name: string; message?: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** One `vitest run` of the project's tests with an empty module cache; failures named by file and test. */
function oneTestRun(i: number): Promise<RunResult> {
  const dir = join(out, `tests-${String(i).padStart(2, "0")}`);
  for (const cache of [".vite", ".vite-temp"]) rmSync(join(ROOT, "node_modules", cache), { recursive: true, force: true });
  const report = join(dir, "vitest.json");
  const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
  return spawnRun(i, dir, [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...positionals], (result) => {
    const r = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
    result.tests = { passed: r.numPassedTests, failed: r.numFailedTests, "not-applicable": r.numPendingTests };
    for (const file of r.testResults) {
      const name = file.name.startsWith(ROOT) ? file.name.slice(ROOT.length + 1) : file.name;
      const failed = file.assertionResults.filter((a) => a.status === "failed");
      for (const a of failed) result.failures.push(`${name} > ${a.fullName}: ${(a.failureMessages[0] ?? "").split("\n")[0]}`);
      // A file that failed outside its tests (a hook, an import) has no failed test to name.
      if (failed.length === 0 && file.message) result.failures.push(`${name}: ${file.message.split("\n")[0]}`);
    }
  });
}

const burners: ChildProcess[] = [];
const stopBurners = (): void => {
  for (const b of burners) b.kill("SIGKILL");
};
process.on("exit", stopBurners);
process.on("SIGINT", () => process.exit(130));

console.log(
  `flake check: ${runs} runs of ${values.tests ? "vitest run" : "tollgate run"}, ${busy} busy process(es) on ${cpus().length} core(s); results in ${out}`,
);
for (let i = 0; i < busy; i++) burners.push(burner(runs * 6 + 10));
const results: RunResult[] = [];
for (let i = 1; i <= runs; i++) {
  const r = values.tests ? await oneTestRun(i) : await oneRun(i);
  results.push(r);
  const t = r.tests;
  console.log(
    `run ${String(i).padStart(2)}: exit ${r.exit} in ${r.seconds} s (load ${r.loadAverage})${values.tests ? "" : ` seed ${r.seed ?? "?"}`}${t ? `, tests ${t.passed} passed, ${t.failed} failed, ${t["not-applicable"]} ${values.tests ? "skipped" : "not applicable"}` : ""}${r.failures.length ? `\n  ${r.failures.join("\n  ")}` : ""}`,
  );
}
stopBurners();
const passed = results.filter((r) => r.exit === 0).length;
const seconds = results.map((r) => r.seconds).sort((a, b) => a - b);
const summary = {
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "?", node: process.version },
  what: values.tests ? "vitest run" : "tollgate run",
  busy,
  runs,
  passed,
  failed: runs - passed,
  seconds: { min: seconds[0], median: seconds[Math.floor(seconds.length / 2)], max: seconds.at(-1) },
  results,
};
writeFileSync(join(out, "flake.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`run time ${summary.seconds.min}-${summary.seconds.max} s (median ${summary.seconds.median} s)`);
console.log(`${passed} passed, ${runs - passed} failed`);
process.exitCode = passed === runs ? 0 : 1;

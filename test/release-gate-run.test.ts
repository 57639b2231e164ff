/**
 * The release gate end to end. The CI recipe (docs/ci/conformance.yml) runs as written: its YAML
 * is parsed and each job's `run:` steps are executed with bash here, as a runner would, against
 * the emulator the workflow itself starts. What only GitHub provides is stood in for: the
 * checkout and Node setup (this checkout), `npm ci` (already done), artifacts (one shared
 * folder), the release download (a baseline the test writes), and `npx tollgate` (this
 * checkout's bin); the suites are narrowed through the workflow's own TOLLGATE_RUN_FLAGS.
 * Then the shards merged must say for every rule what the same run unsharded says, and
 * `report compare` of the merged run with one through a wrong server must name the rule the
 * server broke as a regression (exit 1), with the failure's evidence.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../lib/emulator/index.js";
import { startWireProxy } from "../lib/faults/wire-proxy.js";
import type { Comparison } from "../lib/report/compare.js";
import { summaryErrors } from "../lib/report/schema.js";
import type { Summary } from "../lib/report/summary.js";
import { runViaCli, type SuiteRun, tollgate } from "./support/run-suite.js";

const ROOT = resolve(import.meta.dirname, "..");
const WORKFLOW = join(ROOT, "docs", "ci", "conformance.yml");
const BIN = join(ROOT, "bin", "tollgate.js");

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  "continue-on-error"?: boolean;
}
interface Job {
  needs?: string;
  strategy?: { matrix?: { shard?: number[] } };
  steps: Step[];
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const freePort = (): Promise<number> =>
  new Promise((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });

interface StepResult {
  id: string;
  code: number;
  output: string;
}

/** `bash -c script` to its end (at most 240 s): exit code and everything it printed. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.once("error", (e) => {
      clearTimeout(timer);
      done({ code: 1, output: `${output}${e.message}` });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code: code ?? 1, output });
    });
  });
}

let jobCount = 0;

/**
 * Runs a job's steps in `dir` as a runner would: one bash per step (`set -e`), a failed step
 * fails the job, later steps run only with `if: always()`, `continue-on-error` keeps the job
 * going. `stand` replaces a step by id (or skips it with null); background processes a step
 * started are stopped when the job ends. Jobs may run at the same time, as the matrix's do.
 */
async function runJob(
  job: Job,
  dir: string,
  env: Record<string, string>,
  matrix: Record<string, string>,
  stand: Record<string, string | null>,
): Promise<StepResult[]> {
  const results: StepResult[] = [];
  let failed = false;
  jobCount += 1;
  const pidFile = join(dir, `.background-pids-${jobCount}`);
  for (const step of job.steps) {
    if (step.uses) continue; // checkout, setup-node, artifacts: this checkout and one shared folder stand in for them
    const id = step.id ?? step.name ?? "step";
    if (failed && step.if !== "always()") continue;
    const standIn = step.id !== undefined ? stand[step.id] : undefined;
    if (standIn === null) continue;
    let script = standIn ?? step.run ?? "";
    script = script.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, k: string) => matrix[k] ?? "").replace(/\$\{\{[^}]*\}\}/g, "");
    script = script.replace(/\bnpx tollgate\b/g, `node ${JSON.stringify(BIN)}`);
    const wrapped = `set -e\n${script}\njobs -p >> ${JSON.stringify(pidFile)}\n`;
    const r = await bash(wrapped, dir, { ...process.env, ...env, ...step.env });
    results.push({ id, ...r });
    if (r.code !== 0 && !step["continue-on-error"]) failed = true;
  }
  if (existsSync(pidFile)) {
    for (const pid of readFileSync(pidFile, "utf8").split(/\s+/).filter(Boolean)) {
      try {
        process.kill(Number(pid));
      } catch {
        // already gone
      }
    }
  }
  return results;
}

const step = (rs: StepResult[], id: string): StepResult => {
  const r = rs.find((x) => x.id === id);
  if (!r) throw new Error(`step ${id} did not run: ${rs.map((x) => `${x.id}=${x.code}`).join(", ")}`);
  return r;
};

const SUITES = ["suites/crud", "suites/verbs", "suites/list-semantics"];
/** Broken by the wrong server below, in the list-semantics suite only. */
const RULE = "doc1.list-rv.exact-limit-unset-rv-other-exact";
/** `tollgate run RUNFLAGS` against a fresh emulator (admin token `token`) as the workflow starts its server, through `front` (the emulator itself, or a proxy before it). */
async function unshardedRun(
  token: string,
  runFlags: readonly string[],
  front: (url: string) => Promise<{ url: string; close(): Promise<void> }> | { url: string; close(): Promise<void> },
): Promise<SuiteRun> {
  const emulator = await startEmulator({ port: 0, auth: true, adminToken: token, bookmarkIntervalMs: 1000 });
  try {
    const target = await front(emulator.url);
    try {
      return await runViaCli(["--target", target.url, ...runFlags]);
    } finally {
      await target.close();
    }
  } finally {
    await emulator.close();
  }
}

const statuses = (s: Summary): Record<string, string> => Object.fromEntries(s.rules.map((r) => [r.id, r.status]));

describe("the release gate", () => {
  const wf = load(readFileSync(WORKFLOW, "utf8")) as Workflow;

  it("is a workflow of sharded runs, a merge and a comparison with the last release", () => {
    expect(Object.keys(wf.jobs)).toEqual(["shard", "verdict"]);
    expect(wf.jobs["verdict"]?.needs).toBe("shard");
    expect(wf.jobs["shard"]?.strategy?.matrix?.shard).toEqual([1, 2]);
    const ids = (j: string): string[] => (wf.jobs[j]?.steps ?? []).flatMap((s) => (s.id ? [s.id] : []));
    expect(ids("shard")).toEqual(["install", "server", "run"]);
    expect(ids("verdict")).toEqual(["install", "baseline", "merge", "compare"]);
  });

  it("the recipe runs: its shards merge into one report that equals the unsharded run; the gate passes against itself and fails on a regression, a wrong server's included", {
    timeout: 280_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-ci-"));
    const flags = `${wf.env["TOLLGATE_RUN_FLAGS"] ?? ""} ${SUITES.map((s) => `--suite ${s}`).join(" ")} --no-html --seed 5`;
    const env = { ...wf.env, TOLLGATE_RUN_FLAGS: flags, TOLLGATE_REPORT_FLAGS: "--no-html" };
    const shardJob = wf.jobs["shard"] as Job;
    const token = wf.env["TOLLGATE_TOKEN"] ?? "";
    const runFlags = ["--token", token, ...flags.trim().split(/\s+/)];
    // The shards (as the matrix's jobs, at the same time), the same run unsharded and the one
    // through a wrong server are independent: each has its own server, and they run together.
    const [, [base, bad]] = await Promise.all([
      Promise.all(
        (shardJob.strategy?.matrix?.shard ?? []).map(async (shard) => {
          const rs = await runJob(shardJob, dir, { ...env, TOLLGATE_PORT: String(await freePort()) }, { shard: String(shard) }, { install: null });
          expect(step(rs, "server").code, step(rs, "server").output).toBe(0);
          expect(step(rs, "run").code, step(rs, "run").output).toBe(0);
          const s = JSON.parse(readFileSync(join(dir, "reports", `shard-${shard}`, "summary.json"), "utf8")) as Summary;
          expect(s.shard).toEqual({ index: shard, count: 2 });
        }),
      ),
      // Against emulators started as the workflow starts its server, one behind a wrong server.
      Promise.all([
        unshardedRun(token, runFlags, (url) => ({ url, close: async () => undefined })),
        unshardedRun(token, runFlags, (url) =>
          startWireProxy(url, {
            name: "ignores resourceVersionMatch on lists",
            suite: "list-semantics",
            request: (method, path) => (method === "GET" ? path.replace(/([?&])resourceVersionMatch=[^&]*&?/, "$1") : path),
          }),
        ),
      ]),
    ]);

    const verdict = (baseline: Summary | undefined): Promise<StepResult[]> => {
      const fetch = baseline
        ? `mkdir -p baseline && cp ${JSON.stringify(join(dir, "release.json"))} baseline/summary.json`
        : "mkdir -p baseline && rm -f baseline/summary.json";
      if (baseline) writeFileSync(join(dir, "release.json"), JSON.stringify(baseline));
      return runJob(wf.jobs["verdict"] as Job, dir, env, {}, { install: null, baseline: fetch });
    };

    const first = await verdict(undefined);
    expect(step(first, "merge").code, step(first, "merge").output).toBe(0);
    expect(step(first, "compare").output).toMatch(/no baseline: nothing to compare/);
    const merged = JSON.parse(readFileSync(join(dir, "reports", "merged", "summary.json"), "utf8")) as Summary;
    expect(merged.merged?.runs).toHaveLength(2);
    expect(summaryErrors(merged, { closed: true })).toEqual([]);
    expect(readFileSync(join(dir, "reports", "merged", "junit.xml"), "utf8")).toContain(`tests="${merged.tests.length}"`);
    expect(readFileSync(join(dir, "reports", "merged", "rules.html"), "utf8")).toContain("merged from 2 run(s)");

    expect(base.code, base.output).toBe(0);
    expect(statuses(merged), "the shards merged say what the unsharded run says, rule by rule").toEqual(statuses(base.summary));
    expect(merged.totals).toEqual(base.summary.totals);

    expect(base.status(RULE)).toBe("passed");
    expect(bad.status(RULE), bad.output).toBe("failed");
    const failure = bad.summary.rules.find((r) => r.id === RULE)?.failures[0];
    expect(
      failure?.exchanges?.some((e) => e.method === "GET" && /\/configmaps\?/.test(e.path) && e.status === 200),
      JSON.stringify(failure),
    ).toBe(true);
    expect(JSON.stringify(bad.summary)).not.toContain(wf.env["TOLLGATE_TOKEN"]);
    const out = mkdtempSync(join(tmpdir(), "tollgate-compare-"));
    const mergedDir = join(dir, "reports", "merged");
    const cmp = await tollgate(["report", "compare", mergedDir, bad.dir, "--output", out]);
    expect(cmp.code, cmp.stdout + cmp.stderr).toBe(1);
    expect(cmp.stdout).toContain(`tollgate: regression: ${RULE} passed in ${mergedDir}, failed in ${bad.dir}`);
    const comparison = JSON.parse(readFileSync(join(out, "compare.json"), "utf8")) as Comparison;
    // Exactly the rules passed before and not now: the gate neither misses nor invents one.
    const lost = merged.rules.filter((r) => r.status === "passed" && bad.status(r.id) !== "passed").map((r) => r.id);
    expect(comparison.regressions.map((r) => r.rule).sort()).toEqual(lost.sort());
    expect(readFileSync(join(out, "compare.html"), "utf8")).not.toMatch(/<script/i);

    const same = await verdict(merged);
    expect(step(same, "compare").code, step(same, "compare").output).toBe(0);

    // A last release that verified a rule this run leaves untested: the gate must fail on it.
    const untested = merged.rules.find((r) => r.status === "untested");
    if (!untested) throw new Error("the narrowed run leaves no rule untested");
    const release = structuredClone(merged);
    for (const r of release.rules) if (r.id === untested.id) r.status = "passed";
    const regressed = await verdict(release);
    expect(step(regressed, "compare").code, step(regressed, "compare").output).toBe(1);
    expect(step(regressed, "compare").output).toContain(untested.id);
  });
});

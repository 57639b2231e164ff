/**
 * The CI recipe (docs/ci/conformance.yml) runs as written: its YAML is parsed and each job's
 * `run:` steps are executed with bash here, as a runner would, against the emulator the
 * workflow itself starts. What only GitHub provides is stood in for: the checkout and Node
 * setup (this checkout), `npm ci` (already done), artifacts (one shared folder), the release
 * download (a baseline the test writes), and `npx tollgate` (this checkout's bin). The suites are
 * narrowed through the workflow's own TOLLGATE_RUN_FLAGS.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import type { Summary } from "../lib/report/summary.js";

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

/**
 * Runs a job's steps in `dir` as a runner would: one bash per step (`set -e`), a failed step
 * fails the job, later steps run only with `if: always()`, `continue-on-error` keeps the job
 * going. `stand` replaces a step by id (or skips it with null); background processes a step
 * started are stopped when the job ends.
 */
function runJob(job: Job, dir: string, env: Record<string, string>, matrix: Record<string, string>, stand: Record<string, string | null>): StepResult[] {
  const results: StepResult[] = [];
  let failed = false;
  const pidFile = join(dir, ".background-pids");
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
    const r = spawnSync("bash", ["-c", wrapped], { cwd: dir, env: { ...process.env, ...env, ...step.env }, encoding: "utf8", timeout: 240_000 });
    results.push({ id, code: r.status ?? 1, output: `${r.stdout}${r.stderr}` });
    if (r.status !== 0 && !step["continue-on-error"]) failed = true;
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

describe("the CI recipe", () => {
  const wf = load(readFileSync(WORKFLOW, "utf8")) as Workflow;

  it("is a workflow of sharded runs, a merge and a comparison with the last release", () => {
    expect(Object.keys(wf.jobs)).toEqual(["shard", "verdict"]);
    expect(wf.jobs["verdict"]?.needs).toBe("shard");
    expect(wf.jobs["shard"]?.strategy?.matrix?.shard).toEqual([1, 2]);
    const ids = (j: string): string[] => (wf.jobs[j]?.steps ?? []).flatMap((s) => (s.id ? [s.id] : []));
    expect(ids("shard")).toEqual(["install", "server", "run"]);
    expect(ids("verdict")).toEqual(["install", "baseline", "merge", "compare"]);
  });

  it("runs: the shards pass and merge into one report; the comparison passes against itself and fails on a regression", { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-ci-"));
    const env = { ...wf.env, TOLLGATE_RUN_FLAGS: `${wf.env["TOLLGATE_RUN_FLAGS"] ?? ""} --suite suites/crud --suite suites/verbs --no-html`, TOLLGATE_REPORT_FLAGS: "--no-html" };
    const shardJob = wf.jobs["shard"] as Job;
    for (const shard of shardJob.strategy?.matrix?.shard ?? []) {
      const rs = runJob(shardJob, dir, { ...env, TOLLGATE_PORT: String(await freePort()) }, { shard: String(shard) }, { install: null });
      expect(step(rs, "server").code, step(rs, "server").output).toBe(0);
      expect(step(rs, "run").code, step(rs, "run").output).toBe(0);
      const s = JSON.parse(readFileSync(join(dir, "reports", `shard-${shard}`, "summary.json"), "utf8")) as Summary;
      expect(s.shard).toEqual({ index: shard, count: 2 });
    }

    const verdict = (baseline: Summary | undefined): StepResult[] => {
      const fetch = baseline ? `mkdir -p baseline && cp ${JSON.stringify(join(dir, "release.json"))} baseline/summary.json` : "mkdir -p baseline && rm -f baseline/summary.json";
      if (baseline) writeFileSync(join(dir, "release.json"), JSON.stringify(baseline));
      return runJob(wf.jobs["verdict"] as Job, dir, env, {}, { install: null, baseline: fetch });
    };

    const first = verdict(undefined);
    expect(step(first, "merge").code, step(first, "merge").output).toBe(0);
    expect(step(first, "compare").output).toMatch(/no baseline: nothing to compare/);
    const merged = JSON.parse(readFileSync(join(dir, "reports", "merged", "summary.json"), "utf8")) as Summary;
    expect(merged.merged?.runs).toHaveLength(2);

    const same = verdict(merged);
    expect(step(same, "compare").code, step(same, "compare").output).toBe(0);

    // A last release that verified a rule this run leaves untested: the gate must fail on it.
    const untested = merged.rules.find((r) => r.status === "untested");
    if (!untested) throw new Error("the narrowed run leaves no rule untested");
    const release = structuredClone(merged);
    for (const r of release.rules) if (r.id === untested.id) r.status = "passed";
    const regressed = verdict(release);
    expect(step(regressed, "compare").code, step(regressed, "compare").output).toBe(1);
    expect(step(regressed, "compare").output).toContain(untested.id);
  });
});

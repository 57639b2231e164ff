/**
 * `npm run bench`: every benchmark in scripts/bench-*.ts, one after the other, each in its own
 * process with a deadline, into ONE JSON file with each one's ratios (issue #18). Not part of
 * `npm test`; figures are only comparable as ratios measured in the same run (docs/performance.md).
 *
 *   npm run bench [-- --only start,list] [--quick] [--output bench-results.json]
 *
 * A benchmark listed in BENCHES runs with its arguments and has its report summarized; any other
 * scripts/bench-*.ts that is not a helper (HELPERS) runs with no arguments and keeps its own
 * `ratios` field, so a new benchmark is picked up by adding the file. bench-etcd runs only when
 * an etcd binary is found (lib/etcd/launch.ts's findEtcd). --quick runs each with smaller
 * parameters (a smoke run of the whole set; its figures are not the issue's).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { findEtcd } from "../lib/etcd/launch.js";
import { machine } from "./bench-support.js";

type Report = Record<string, unknown>;

interface Bench {
  /** Arguments of a full run, and of a --quick one. */
  args: string[];
  quickArgs: string[];
  timeoutMs: number;
  /** Why it cannot run here, or undefined. */
  unavailable?: () => string | undefined;
  /** The ratios (and the few figures the README's table shows) from its report. */
  summarize: (r: Report) => { ratios: Record<string, unknown>; figures: Record<string, unknown> };
}

const SCRIPTS = fileURLToPath(new URL(".", import.meta.url));
/** scripts/bench-*.ts that are pieces of the benchmarks, not benchmarks. */
const HELPERS = new Set(["bench-support", "bench-child", "bench-watch-client"]);
const MINUTE = 60_000;

const get = (r: Report, path: string): unknown => path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], r);

const BENCHES: Record<string, Bench> = {
  start: {
    args: ["--runs", "15"],
    quickArgs: ["--runs", "3"],
    timeoutMs: 10 * MINUTE,
    summarize: (r) => ({
      ratios: get(r, "ratios") as Record<string, unknown>,
      figures: {
        emulatorReadyMsMedian: get(r, "ms.emulator.median"),
        versionMsMedian: get(r, "ms.version.median"),
        firstJsonRequestMsMedian: get(r, "ms.firstJsonRequest.median"),
        firstProtobufRequestMsMedian: get(r, "ms.firstProtobufRequest.median"),
        targets: get(r, "targets"),
      },
    }),
  },
  list: {
    args: [],
    quickArgs: ["--events", "20000", "--runs", "2"],
    timeoutMs: 15 * MINUTE,
    summarize: (r) => ({
      ratios: { throughputToPlainStream: get(r, "summary.throughputRatio") },
      figures: { items: get(r, "summary.items"), worstMemoryGrowthMb: get(r, "summary.worstMemoryGrowthMb"), targets: get(r, "summary.targets") },
    }),
  },
  watch: {
    args: [],
    quickArgs: ["--watchers", "300", "--seconds", "5"],
    timeoutMs: 15 * MINUTE,
    // The emulator, then a bare node:http fan-out server under the same client (bench-child watch-bare).
    summarize: (r) => ({
      ratios: (get(r, "ratios") as Record<string, unknown> | undefined) ?? {},
      figures: {
        watchers: get(r, "setup.watchers"),
        writesPerSecond: get(r, "setup.writesPerSecond"),
        latencyFromSendMs: get(r, "latencyFromSendMs"),
        bareLatencyFromSendMs: get(r, "bare.latencyFromSendMs"),
        missing: get(r, "delivery.missing"),
        outOfOrder: get(r, "delivery.outOfOrder"),
        bareMissing: get(r, "bare.delivery.missing"),
      },
    }),
  },
  etcd: {
    args: [],
    quickArgs: ["--creates", "300", "--items", "200", "--runs", "1", "--lists", "5"],
    timeoutMs: 15 * MINUTE,
    unavailable: () => (findEtcd() === undefined ? "no etcd binary found (lib/etcd/launch.ts: ETCD_BIN, PATH, /usr/bin/etcd)" : undefined),
    summarize: (r) => ({ ratios: get(r, "ratios") as Record<string, unknown>, figures: {} }),
  },
};

/** The benchmarks present: the known ones in their order, then any other scripts/bench-*.ts. */
function discover(): string[] {
  const present = readdirSync(SCRIPTS)
    .flatMap((f) => {
      const name = /^bench-([\w-]+)\.ts$/.exec(f)?.[1];
      return name === undefined ? [] : [name];
    })
    .filter((name) => !HELPERS.has(`bench-${name}`));
  return [...Object.keys(BENCHES).filter((n) => present.includes(n)), ...present.filter((n) => !(n in BENCHES)).sort()];
}

/** Runs one benchmark script with BENCH_JSON set; resolves with its report, or rejects. */
function runOne(name: string, args: string[], timeoutMs: number, dir: string): Promise<Report> {
  const out = join(dir, `${name}.json`);
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(SCRIPTS, `bench-${name}.ts`), ...args], {
      // The report also goes to stdout; the progress lines (stderr) show what is running.
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, BENCH_JSON: out },
    });
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      fail(new Error(`did not finish within ${timeoutMs / MINUTE} min`));
    }, timeoutMs);
    child.on("error", fail);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return fail(new Error(`exited with ${signal ?? code}`));
      if (!existsSync(out)) return fail(new Error("wrote no report"));
      done(JSON.parse(readFileSync(out, "utf8")) as Report);
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: "string" }, quick: { type: "boolean", default: false }, output: { type: "string", default: "bench-results.json" } },
  });
  const all = discover();
  const only = values.only?.split(",").filter(Boolean);
  const unknown = only?.filter((n) => !all.includes(n)) ?? [];
  if (unknown.length > 0) throw new Error(`--only: no scripts/bench-${unknown[0]}.ts (there are: ${all.join(", ")})`);
  const names = only ?? all;
  const dir = mkdtempSync(join(tmpdir(), "tollgate-bench-"));
  const results: Record<string, unknown> = {};
  const started = new Date();
  const loadBefore = loadavg().map((l) => Number(l.toFixed(2)));
  let failed = 0;
  try {
    for (const name of names) {
      const bench = BENCHES[name];
      const why = bench?.unavailable?.();
      if (why) {
        results[name] = { status: "skipped", reason: why };
        console.error(`bench ${name}: skipped, ${why}`);
        continue;
      }
      const args = bench ? (values.quick ? bench.quickArgs : bench.args) : [];
      console.error(`bench ${name}: ${[`scripts/bench-${name}.ts`, ...args].join(" ")}`);
      const t0 = Date.now();
      try {
        const report = await runOne(name, args, bench?.timeoutMs ?? 15 * MINUTE, dir);
        const summary = bench ? bench.summarize(report) : { ratios: (report["ratios"] as Record<string, unknown>) ?? {}, figures: {} };
        results[name] = { status: "ok", seconds: Math.round((Date.now() - t0) / 1000), args, ...summary, report };
      } catch (e) {
        failed++;
        results[name] = { status: "failed", seconds: Math.round((Date.now() - t0) / 1000), args, reason: (e as Error).message };
        console.error(`bench ${name}: failed, ${(e as Error).message}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const output = resolve(values.output);
  const doc = {
    bench: "npm run bench",
    mode: values.quick ? "quick (smaller parameters: a smoke run, not the issue's figures)" : "full",
    machine: machine(),
    started: started.toISOString(),
    finished: new Date().toISOString(),
    loadAverage1m5m15m: { before: loadBefore, after: loadavg().map((l) => Number(l.toFixed(2))) },
    results,
  };
  writeFileSync(output, `${JSON.stringify(doc, null, 2)}\n`);
  const line = (name: string): string => {
    const r = results[name] as { status: string; ratios?: unknown; reason?: string };
    return `  ${name}: ${r.status}${r.ratios ? ` ${JSON.stringify(r.ratios)}` : ""}${r.reason ? ` (${r.reason})` : ""}`;
  };
  console.log(`${names.map(line).join("\n")}\nwritten to ${output}`);
  if (failed > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 2;
});

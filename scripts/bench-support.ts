/**
 * Shared pieces of the emulator benchmarks: child processes (so the client's memory and CPU are
 * not the server's), memory sampling, percentiles and the machine description that goes with
 * every figure. Benchmarks are scripts, not tests: run them with `npx tsx scripts/bench-*.ts`.
 */
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import type { IntervalHistogram } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

export const CHILD_SCRIPT = fileURLToPath(new URL("./bench-child.ts", import.meta.url));

/** Messages between a benchmark and its child processes. */
export type ChildMessage =
  | { type: "ready"; url: string; baseline: MemorySample; setupMs: number; detail: Record<string, number | string> }
  | { type: "sampling" }
  | { type: "sampled"; peak: MemorySample; samples: number; loopDelayMs: LoopDelay; counters: Record<string, number> }
  | { type: "gced"; memory: MemorySample }
  | { type: "error"; message: string };

export type ParentMessage = { type: "sample-start" } | { type: "sample-stop" } | { type: "gc" };

export interface MemorySample {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** Event-loop delay while sampling: how long ready work waited for the loop. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export function loopDelay(h: IntervalHistogram): LoopDelay {
  const ms = (ns: number): number => Number((ns / 1e6).toFixed(1));
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

export function memorySample(): MemorySample {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

export function maxSample(a: MemorySample, b: MemorySample): MemorySample {
  return {
    rss: Math.max(a.rss, b.rss),
    heapUsed: Math.max(a.heapUsed, b.heapUsed),
    external: Math.max(a.external, b.external),
    arrayBuffers: Math.max(a.arrayBuffers, b.arrayBuffers),
  };
}

export interface Child {
  readonly process: ChildProcess;
  readonly ready: Extract<ChildMessage, { type: "ready" }>;
  /** Sends a message and resolves with the next reply of the given type. */
  ask<T extends ChildMessage["type"]>(message: ParentMessage, reply: T, timeoutMs?: number): Promise<Extract<ChildMessage, { type: T }>>;
  /** Sends a message that has no reply. */
  tell(message: ParentMessage): void;
  stop(): Promise<void>;
}

/**
 * Forks bench-child.ts (or another script speaking the same messages) in a role, through tsx,
 * with --expose-gc; resolves once it is listening.
 */
export async function startChild(role: string, args: string[], timeoutMs: number, extraNodeArgs: string[] = [], script = CHILD_SCRIPT): Promise<Child> {
  const child = fork(script, [role, ...args], {
    // BENCH_CHILD_NODE_ARGS passes profiling flags (e.g. --cpu-prof) to the server process.
    execArgv: ["--import", "tsx", "--expose-gc", ...extraNodeArgs, ...(process.env["BENCH_CHILD_NODE_ARGS"]?.split(" ").filter(Boolean) ?? [])],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = <T extends ChildMessage["type"]>(type: T, ms: number): Promise<Extract<ChildMessage, { type: T }>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`child ${role}: no "${type}" within ${ms} ms`)), ms);
      const onMessage = (m: ChildMessage): void => {
        if (m.type === "error") done(new Error(`child ${role}: ${m.message}`));
        else if (m.type === type) done(undefined, m as Extract<ChildMessage, { type: T }>);
      };
      const onExit = (code: number | null): void => done(new Error(`child ${role} exited (${code}) while waiting for "${type}"`));
      function done(error?: Error, value?: Extract<ChildMessage, { type: T }>): void {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        if (error) reject(error);
        else resolve(value as Extract<ChildMessage, { type: T }>);
      }
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  let ready: Extract<ChildMessage, { type: "ready" }>;
  try {
    ready = await next("ready", timeoutMs);
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  }
  return {
    process: child,
    ready,
    ask: (message, reply, ms = 30_000) => {
      const answer = next(reply, ms);
      child.send(message);
      return answer;
    },
    tell: (message) => {
      child.send(message);
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Resident memory of another process as the kernel reports it (VmRSS), read from outside so a
 * child busy in one long synchronous step is still measured.
 */
export function procRss(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples procRss every intervalMs until stopped; returns the peak. */
export function watchRss(pid: number, intervalMs = 5): { stop(): number } {
  let peak = procRss(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, procRss(pid) ?? 0);
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, procRss(pid) ?? 0);
    },
  };
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

export const mb = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `nproc ${cpus().length} (${cpu.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, node ${process.version}, ${process.platform}/${process.arch}`;
}

/** Prints the report, and writes it as JSON when BENCH_JSON names a file. */
export function report(name: string, figures: Record<string, unknown>): void {
  // The load average shows whether other work shared the machine during the run.
  const load = loadavg().map((l) => Number(l.toFixed(2)));
  const out = { bench: name, machine: machine(), loadAverage1m5m15m: load, date: new Date().toISOString(), ...figures };
  console.log(JSON.stringify(out, null, 2));
  const file = process.env["BENCH_JSON"];
  if (file) writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
}

/** Rejects after ms: every benchmark is bounded in time. */
export function deadline(ms: number, what: string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  promise.catch(() => {});
  return { promise, clear: () => clearTimeout(timer) };
}

/** One function's share of a CPU profile: self time, by name and place. */
export interface ProfileItem {
  function: string;
  selfMs: number;
  selfPercent: number;
}

/**
 * The top self-time items of a V8 .cpuprofile (what --cpu-prof writes), as shares of the busy
 * time: "(idle)" ticks are left out, garbage collection and native calls (writev) stay in.
 */
export function profileTop(file: string, top = 20): ProfileItem[] {
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const nameOf = new Map<number, string>();
  for (const n of profile.nodes) {
    const { functionName, url, lineNumber } = n.callFrame;
    const where = url ? ` ${url.replace(/^.*\/(node_modules|lib|scripts)\//, "$1/")}:${lineNumber + 1}` : "";
    nameOf.set(n.id, `${functionName || "(anonymous)"}${where}`);
  }
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const name = nameOf.get(id) ?? "?";
    if (name === "(idle)") return;
    total += us;
    self.set(name, (self.get(name) ?? 0) + us);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ function: name, selfMs: Math.round(us / 1000), selfPercent: Number(((100 * us) / total).toFixed(1)) }));
}

/**
 * How many threads `tollgate run` starts, counted from outside (issue #18): each vitest worker
 * thread compiles and loads vitest, undici and the harness again, about half a second of CPU, so
 * a thread that gets one file or none is a cost every run pays. Node writes one CPU profile per
 * thread under --cpu-prof (given to node itself: NODE_OPTIONS may not carry it), vitest's worker
 * threads included.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");

/** `node --cpu-prof bin/tollgate.js ARGS`: its exit code, output, and the number of threads it ran. */
function profiled(args: readonly string[]): Promise<{ code: number | null; output: string; threads: number }> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-threads-"));
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", fail);
    child.once("exit", (code) => {
      const threads = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).length;
      // A profile is megabytes: only their number is kept.
      rmSync(dir, { recursive: true, force: true });
      done({ code, output, threads });
    });
  });
}

describe("the threads tollgate run starts (issue #18)", () => {
  it("--list collects several suite files in one worker thread", { timeout: 60_000 }, async () => {
    const r = await profiled(["run", "--list", "--suite", "suites/daemons"]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/tollgate: \d+ test\(s\) in 3 file\(s\)/);
    // The main thread and one worker (three workers and the serial phase's one before).
    expect(r.threads, r.output).toBe(2);
  });
});

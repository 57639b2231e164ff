/**
 * Runs one suite through the real CLI against a target and reads back its summary.json, which
 * must match the published schema (schemas/summary.schema.json, closed: every field described).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { summaryErrors } from "../../lib/report/schema.js";
import type { Summary } from "../../lib/report/summary.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");

export interface SuiteRun {
  code: number | null;
  summary: Summary;
  output: string;
  /** The report directory (--output). */
  dir: string;
  status(ruleId: string): string | undefined;
}

export function runSuiteViaCli(target: string, suite: string, extraArgs: readonly string[] = []): Promise<SuiteRun> {
  return runViaCli(["--target", target, "--suite", suite, ...extraArgs]);
}

/**
 * `tollgate run --no-html --output <temp dir> ARGS...`, in this process's environment unless
 * `env` is given, with no client-side rate limit unless ARGS set one: the emulators and proxies
 * of these tests serve no one else, and kubectl's 5 requests a second would only make them slow.
 */
export function runViaCli(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), "tollgate-run-"));
  const qps = args.some((a) => a === "--qps" || a.startsWith("--qps=")) ? [] : ["--qps", "0"];
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, "run", "--no-html", "--output", out, ...qps, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      ...(env ? { env } : {}),
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      try {
        const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
        const errors = summaryErrors(summary, { closed: true });
        if (errors.length > 0) throw new Error(`summary.json does not match schemas/summary.schema.json: ${errors.slice(0, 5).join("; ")}`);
        resolveRun({ code, output, summary, dir: out, status: (id) => summary.rules.find((r) => r.id === id)?.status });
      } catch (e) {
        reject(new Error(`no valid summary.json (${(e as Error).message}); output:\n${output}`));
      }
    });
  });
}

/** `tollgate ARGS...` to its end: exit code and everything it printed. */
export function tollgate(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolveRun({ code, stdout, stderr }));
  });
}

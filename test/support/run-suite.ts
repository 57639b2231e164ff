/** Runs one suite through the real CLI against a target and reads back its summary.json. */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Summary } from "../../lib/report/summary.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");

export interface SuiteRun {
  code: number | null;
  summary: Summary;
  output: string;
  status(ruleId: string): string | undefined;
}

export function runSuiteViaCli(target: string, suite: string, extraArgs: readonly string[] = []): Promise<SuiteRun> {
  return runViaCli(["--target", target, "--suite", suite, ...extraArgs]);
}

/**
 * `tollgate run --no-html --output <temp dir> ARGS...`, with no client-side rate limit unless
 * ARGS set one: the emulators and proxies of these tests serve no one else, and kubectl's 5
 * requests a second would only make them slow.
 */
export function runViaCli(args: readonly string[]): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), "tollgate-run-"));
  const qps = args.some((a) => a === "--qps" || a.startsWith("--qps=")) ? [] : ["--qps", "0"];
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, "run", "--no-html", "--output", out, ...qps, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      try {
        const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
        resolveRun({ code, output, summary, status: (id) => summary.rules.find((r) => r.id === id)?.status });
      } catch (e) {
        reject(new Error(`no summary.json (${(e as Error).message}); output:\n${output}`));
      }
    });
  });
}

/** vitest reporter that turns the finished run into summary.json (see summary.ts). */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { SerializedError, TestError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";
import { allRules } from "../spec/catalog.js";
import { isProfile, type Profile } from "../spec/profiles.js";
import { getRunState } from "../runner/run-state.js";
import { ENV } from "../runner/settings.js";
import { toolVersion } from "../tool-version.js";
import { buildSummary, type ShardRef, type Summary, type TestOutcome } from "./summary.js";
import "./task-meta.js";

export interface SummaryReporterOptions {
  outputDir: string;
  /** This run is one shard of a larger one (`tollgate run --shard I/N`). */
  shard?: ShardRef;
  /** Called with the summary once it is written (the CLI uses it for the exit code). */
  onSummary?: (summary: Summary) => void;
}

/** TOLLGATE_REQUIRE: comma-separated profile names (checked by the CLI; unknown names are dropped here). */
function requiredProfiles(env: NodeJS.ProcessEnv = process.env): Profile[] {
  return (env[ENV.require] ?? "").split(",").map((s) => s.trim()).filter(isProfile);
}

/** Long enough for a property's counterexample and an assertion's diff; a summary stays readable. */
const FULL_MESSAGE_CHARS = 4000;
const ANSI = /\x1b\[[0-9;]*m/g;

/** An error's whole message, with the assertion's diff when vitest made one (colour codes removed). */
function fullMessage(e: TestError): string {
  const text = `${e.message}${e.diff ? `\n${e.diff}` : ""}`.replace(ANSI, "");
  return text.length > FULL_MESSAGE_CHARS ? `${text.slice(0, FULL_MESSAGE_CHARS)}…` : text;
}

export default class SummaryReporter implements Reporter {
  private startedAt = new Date();

  constructor(private readonly options: SummaryReporterOptions) {}

  onTestRunStart(): void {
    this.startedAt = new Date();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const tests: TestOutcome[] = [];
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        const meta = test.meta();
        const state = result.state === "passed" || result.state === "failed" ? result.state : "not-applicable";
        const note = meta.notApplicable ?? (result.state === "skipped" ? result.note : undefined);
        const failed = result.state === "failed" ? result.errors.map(fullMessage) : [];
        tests.push({
          name: test.fullName,
          file: relative(process.cwd(), mod.moduleId),
          rules: meta.rules ?? [],
          ...(meta.needs?.length ? { needs: meta.needs } : {}),
          state,
          durationMs: Math.round(test.diagnostic()?.duration ?? 0),
          errors: failed.map((m) => m.split("\n")[0] ?? "failed"),
          ...(failed.some((m) => m.includes("\n")) ? { fullErrors: failed } : {}),
          ...(state === "failed" && meta.exchanges?.length ? { exchanges: meta.exchanges } : {}),
          ...(state === "failed" && meta.property ? { property: meta.property } : {}),
          ...(state === "not-applicable" && note ? { note } : {}),
          ...(state === "not-applicable" && meta.unmet?.length ? { unmet: meta.unmet } : {}),
        });
      }
      // A file that failed to load has no tests to report, and its rules would silently go untested.
      for (const e of mod.errors()) unhandledErrors = [...unhandledErrors, { ...e, message: `${relative(process.cwd(), mod.moduleId)}: ${e.message}` } as SerializedError];
    }
    const run = getRunState();
    const summary = buildSummary({
      toolVersion,
      runId: run?.settings.runId ?? "unknown",
      target: run ? { url: run.settings.target.url, source: run.settings.target.source } : { url: "unknown", source: "unknown" },
      serverVersion: run?.serverVersion,
      seed: run?.settings.seed,
      shard: this.options.shard,
      startedAt: this.startedAt,
      durationMs: Date.now() - this.startedAt.getTime(),
      rules: allRules,
      tests,
      capabilities: run?.capabilities,
      detection: run ? { durationMs: run.detectionMs, violations: run.violations } : undefined,
      require: requiredProfiles(),
      gatesDeclaredOff: run ? Object.entries(run.declaredGates).filter(([, on]) => !on).map(([g]) => g) : [],
      unhandledErrors: unhandledErrors.map((e) => e.message),
    });
    mkdirSync(this.options.outputDir, { recursive: true });
    writeFileSync(join(this.options.outputDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    this.options.onSummary?.(summary);
  }
}

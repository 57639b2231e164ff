/** vitest reporter that turns the finished run into summary.json (see summary.ts). */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";
import { allRules } from "../spec/catalog.js";
import { getRunState } from "../runner/run-state.js";
import { toolVersion } from "../tool-version.js";
import { buildSummary, type Summary, type TestOutcome } from "./summary.js";
import "./task-meta.js";

export interface SummaryReporterOptions {
  outputDir: string;
  /** Called with the summary once it is written (the CLI uses it for the exit code). */
  onSummary?: (summary: Summary) => void;
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
        const state = result.state === "passed" || result.state === "failed" ? result.state : "skipped";
        tests.push({
          name: test.fullName,
          file: relative(process.cwd(), mod.moduleId),
          rules: test.meta().rules ?? [],
          state,
          durationMs: Math.round(test.diagnostic()?.duration ?? 0),
          errors: result.state === "failed" ? result.errors.map((e) => e.message.split("\n")[0] ?? "failed") : [],
          ...(result.state === "skipped" && result.note ? { note: result.note } : {}),
        });
      }
    }
    const run = getRunState();
    const summary = buildSummary({
      toolVersion,
      runId: run?.settings.runId ?? "unknown",
      target: run ? { url: run.settings.target.url, source: run.settings.target.source } : { url: "unknown", source: "unknown" },
      serverVersion: run?.serverVersion,
      startedAt: this.startedAt,
      durationMs: Date.now() - this.startedAt.getTime(),
      rules: allRules,
      tests,
      unhandledErrors: unhandledErrors.map((e) => e.message),
    });
    mkdirSync(this.options.outputDir, { recursive: true });
    writeFileSync(join(this.options.outputDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    this.options.onSummary?.(summary);
  }
}

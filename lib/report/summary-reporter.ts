/** vitest reporter that turns the finished run into summary.json (see summary.ts). */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { SerializedError, TestError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";
import { addCounters, loadCounters, zeroCounters } from "../harness/load.js";
import { getRunState, getRunStop, getSetupFailure } from "../runner/run-state.js";
import { isEmptySelection } from "../runner/selection.js";
import { ENV } from "../runner/settings.js";
import { allRules } from "../spec/catalog.js";
import { isProfile, type Profile } from "../spec/profiles.js";
import { toolVersion } from "../tool-version.js";
import { buildSummary, type ShardRef, type Summary, type TestOutcome } from "./summary.js";
import "./task-meta.js";

/** An error that is the target not answering (lib/harness/client.ts UnreachableError), as vitest serializes it. */
function isTargetError(e: { name?: string; message?: string }): boolean {
  return e.name === "UnreachableError" || /^cannot reach \S+: /.test(e.message ?? "");
}

export interface SummaryReporterOptions {
  outputDir: string;
  /** This run is one shard of a larger one (`tollgate run --shard I/N`). */
  shard?: ShardRef;
  /** Called with the summary once it is written (the CLI uses it for the exit code). */
  onSummary?: (summary: Summary) => void;
}

/** TOLLGATE_REQUIRE: comma-separated profile names (checked by the CLI; unknown names are dropped here). */
function requiredProfiles(env: NodeJS.ProcessEnv = process.env): Profile[] {
  return (env[ENV.require] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(isProfile);
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
    const targetErrors: string[] = [];
    const otherErrors: string[] = [];
    let leftOut = 0;
    let notRun = 0;
    let load = zeroCounters();
    for (const mod of modules) {
      const file = relative(process.cwd(), mod.moduleId);
      // A suite's setup or cleanup that met no answer: its tests are undecided, not the run unsound.
      const silence = mod.errors().find(isTargetError);
      for (const e of mod.errors()) (isTargetError(e) ? targetErrors : otherErrors).push(`${file}: ${e.message}`);
      for (const test of mod.children.allTests()) {
        const result = test.result();
        const meta = test.meta();
        if (meta.load) load = addCounters(load, meta.load);
        if (meta.deselected) {
          leftOut += 1;
          continue;
        }
        let state: TestOutcome["state"];
        let note: string | undefined;
        if (meta.targetUnavailable !== undefined) [state, note] = ["target-unavailable", meta.targetUnavailable];
        else if (result.state === "passed" || result.state === "failed") state = result.state;
        else if (meta.notApplicable !== undefined) [state, note] = ["not-applicable", meta.notApplicable];
        else if (silence) [state, note] = ["target-unavailable", silence.message];
        else {
          // Never started: the run was stopped first, or the file's setup failed (reported as a problem).
          notRun += 1;
          continue;
        }
        const failed = result.state === "failed" && state === "failed" ? result.errors.map(fullMessage) : [];
        tests.push({
          name: test.fullName,
          file,
          rules: meta.rules ?? [],
          ...(meta.needs?.length ? { needs: meta.needs } : {}),
          state,
          durationMs: Math.round(test.diagnostic()?.duration ?? 0),
          errors: failed.map((m) => m.split("\n")[0] ?? "failed"),
          ...(failed.some((m) => m.includes("\n")) ? { fullErrors: failed } : {}),
          ...(state === "failed" && meta.exchanges?.length ? { exchanges: meta.exchanges } : {}),
          ...(state === "failed" && meta.property ? { property: meta.property } : {}),
          ...(note ? { note } : {}),
          ...(state === "not-applicable" && meta.unmet?.length ? { unmet: meta.unmet } : {}),
        });
      }
    }
    for (const e of unhandledErrors) (isTargetError(e) ? targetErrors : otherErrors).push(e.message);
    const setupFailure = getSetupFailure();
    if (setupFailure && !targetErrors.includes(setupFailure)) targetErrors.unshift(setupFailure);
    const run = getRunState();
    const selection = run?.settings.selection;
    const stop = getRunStop();
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
      gatesDeclaredOff: run
        ? Object.entries(run.declaredGates)
            .filter(([, on]) => !on)
            .map(([g]) => g)
        : [],
      // While a stopped run winds down, errors of its interrupted files are the stop's doing, not the suites'.
      unhandledErrors: stop ? [] : otherErrors,
      targetErrors,
      stop,
      selection:
        selection && !isEmptySelection(selection)
          ? { focus: selection.focus, skip: selection.skip, ...(selection.rerun ? { rerunFailed: selection.rerun.from } : {}) }
          : undefined,
      // The main process's own requests (detection) count too; the workers' come per test.
      load: run ? { ...run.settings.load, ...addCounters(load, loadCounters()) } : undefined,
      leftOut,
      notRun,
    });
    mkdirSync(this.options.outputDir, { recursive: true });
    writeFileSync(join(this.options.outputDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    this.options.onSummary?.(summary);
  }
}

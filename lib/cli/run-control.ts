/**
 * Stopping a run safely: on SIGINT, SIGTERM, --timeout, or a target silent for longer than
 * --unavailable-after, `tollgate run` says so in one line, lets vitest end the running tests
 * (each suite's own cleanup runs), cleans up by the run label (lib/runner/global-setup.ts
 * teardown), writes the report of what ran, and exits with the stop's code. A second signal
 * exits at once.
 */
import type { Reporter, Vitest } from "vitest/node";
import { ApiClient, UnreachableError } from "../harness/client.js";
import { formatDuration } from "../harness/load.js";
import type { Target } from "../harness/target.js";
import { STOP_EXIT_CODES } from "../report/summary.js";
import { getRunStop, type RunStop, setRunStop } from "../runner/run-state.js";

export interface RunControlOptions {
  /** Prints a line of the stop (stderr), after clearing any progress line. */
  say: (line: string) => void;
  /** The command that removes what the run left, said when exiting without cleanup (none for the embedded emulator, which ends with the run). */
  cleanupHint: () => string | undefined;
  /** How long after a stop the run may take to wind down before the process exits anyway. */
  graceMs: number;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

export class RunControl {
  private vitest: Vitest | undefined;
  private cancelledThisRun = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(private readonly options: RunControlOptions) {}

  get stopped(): RunStop | undefined {
    return getRunStop();
  }

  /**
   * Takes SIGINT and SIGTERM over from vitest, whose own handlers exit at once (its logger
   * installs them in createVitest): call right after createVitest.
   */
  attach(vitest: Vitest, before: Record<(typeof SIGNALS)[number], NodeJS.SignalsListener[]>): void {
    this.vitest = vitest;
    for (const sig of SIGNALS) {
      for (const l of process.listeners(sig)) if (!before[sig].includes(l)) process.off(sig, l);
      const handler = (): void => this.onSignal(sig);
      process.on(sig, handler);
      this.cleanups.push(() => process.off(sig, handler));
    }
  }

  /** The signal handlers as they are before vitest adds its own. */
  static listenersNow(): Record<(typeof SIGNALS)[number], NodeJS.SignalsListener[]> {
    return { SIGINT: process.listeners("SIGINT"), SIGTERM: process.listeners("SIGTERM") };
  }

  private onSignal(sig: (typeof SIGNALS)[number]): void {
    if (this.stopped) {
      this.options.say(`tollgate: ${sig} again: exiting at once without cleanup${this.hint()}`);
      process.exit(STOP_EXIT_CODES[sig]);
    }
    this.stop(
      sig,
      sig === "SIGINT" ? "interrupted (SIGINT)" : "terminated (SIGTERM)",
      `stopping the run, cleaning up what it created and writing the report (${sig} again exits at once)`,
    );
  }

  /** Ends the run for `reason`: `cause` goes to the report, `then` only to the line said now. The first stop wins. */
  stop(reason: RunStop["reason"], cause: string, then: string): void {
    if (this.stopped) return;
    setRunStop({ reason, message: cause, at: Date.now() });
    this.options.say(`tollgate: ${cause}: ${then}`);
    this.cancel();
    // A wind-down that hangs (a suite's cleanup against a target that stalls) must not keep the process forever.
    const t = setTimeout(() => {
      this.options.say(`tollgate: the run did not wind down within ${formatDuration(this.options.graceMs)} of the stop; exiting${this.hint()}`);
      process.exit(STOP_EXIT_CODES[reason]);
    }, this.options.graceMs);
    t.unref();
    this.cleanups.push(() => clearTimeout(t));
  }

  private hint(): string {
    const command = this.options.cleanupHint();
    return command ? ` (${command} removes what the run left)` : "";
  }

  private cancel(): void {
    if (!this.vitest || this.cancelledThisRun) return;
    this.cancelledThisRun = true;
    void this.vitest.cancelCurrentRun(this.stopped?.reason === "timeout" ? "test-failure" : "keyboard-input");
  }

  /** `--timeout`: stops the run when it has taken `ms`. */
  startTimeout(ms: number, flag: string): void {
    const t = setTimeout(() => this.stop("timeout", `--timeout ${flag} reached`, "stopping the run, cleaning up what it created and writing the report"), ms);
    t.unref();
    this.cleanups.push(() => clearTimeout(t));
  }

  /**
   * Asks the target for /version every few seconds; when it has answered nothing (no HTTP answer
   * at all, or none within the probe's timeout) for `afterMs`, the run stops with exit 2.
   * Returns a status for the progress line while it is silent.
   */
  watchTarget(target: Target, afterMs: number): () => string | undefined {
    const client = new ApiClient(target);
    const every = Math.min(5_000, Math.max(250, Math.floor(afterMs / 4)));
    const probeTimeout = Math.min(5_000, Math.max(500, every * 2));
    let silentSince: number | undefined;
    let lastError = "";
    let busy = false;
    const probe = async (): Promise<void> => {
      if (busy || this.stopped) return;
      busy = true;
      try {
        await client.raw("GET", "/version", { bypassLimits: true, timeoutMs: probeTimeout });
        silentSince = undefined;
      } catch (e) {
        if (!(e instanceof UnreachableError)) throw e;
        silentSince ??= Date.now();
        lastError = e.message;
        if (Date.now() - silentSince >= afterMs) {
          this.stop(
            "target-unavailable",
            `the target has not answered for ${formatDuration(Date.now() - silentSince)} (${lastError})`,
            "stopping the run, cleaning up what it can (exit 2)",
          );
        }
      } finally {
        busy = false;
      }
    };
    const t = setInterval(() => void probe().catch(() => undefined), every);
    t.unref();
    this.cleanups.push(() => {
      clearInterval(t);
      void client.close();
    });
    return () => (silentSince === undefined ? undefined : `target silent for ${formatDuration(Date.now() - silentSince)}`);
  }

  /**
   * A reporter that repeats the cancel once the run has started: a stop that came during
   * vitest's start-up or the capability detection would otherwise be forgotten when the run begins.
   */
  reporter(): Reporter {
    return {
      onTestRunStart: () => {
        this.cancelledThisRun = false;
      },
      onTestModuleQueued: () => {
        if (this.stopped) this.cancel();
      },
    };
  }

  dispose(): void {
    for (const c of this.cleanups.splice(0)) c();
  }
}

/**
 * The resolved target of the current run, handed from the global setup to the reporters.
 * Both run in vitest's main process but load modules through different loaders, so the
 * hand-over goes through globalThis rather than a module variable.
 */
import type { CleanupResult } from "../harness/session.js";
import type { Capabilities, GateName } from "./capabilities.js";
import type { Violation } from "./detect.js";
import type { ProvidedSettings } from "./settings.js";

export interface RunState {
  settings: ProvidedSettings;
  serverVersion?: string;
  capabilities: Capabilities;
  /** Answers of the detection step that no 1.35 server gives: failures of the named rules. */
  violations: Violation[];
  detectionMs: number;
  /** Gates the operator declared with --feature-gates. */
  declaredGates: Partial<Record<GateName, boolean>>;
}

const KEY = Symbol.for("tollgate.run-state");

export function setRunState(state: RunState): void {
  (globalThis as Record<symbol, unknown>)[KEY] = state;
}

export function getRunState(): RunState | undefined {
  return (globalThis as Record<symbol, unknown>)[KEY] as RunState | undefined;
}

/** Why a run was stopped before its end (`tollgate run`: a signal, --timeout, or a target that stopped answering). */
export interface RunStop {
  reason: "SIGINT" | "SIGTERM" | "timeout" | "target-unavailable";
  /** One line saying what happened. */
  message: string;
  /** Date.now() when it was asked for. */
  at: number;
}

/** What the end of a run did about the objects it created (lib/harness/session.ts deleteRunLeftovers). */
export interface CleanupOutcome {
  result?: CleanupResult;
  /** Why nothing (or not everything) could be removed. */
  error?: string;
}

interface Extras {
  stop?: RunStop;
  cleanup?: CleanupOutcome;
  /** The target stopped answering during the global setup (detection); no test ran. */
  setupFailure?: string;
}

const EXTRAS = Symbol.for("tollgate.run-extras");
const extras = (): Extras => ((globalThis as Record<symbol, unknown>)[EXTRAS] ??= {}) as Extras;

export function setRunStop(stop: RunStop): void {
  extras().stop ??= stop;
}
export function getRunStop(): RunStop | undefined {
  return extras().stop;
}
export function setCleanupOutcome(outcome: CleanupOutcome): void {
  extras().cleanup = outcome;
}
export function getCleanupOutcome(): CleanupOutcome | undefined {
  return extras().cleanup;
}
export function setSetupFailure(message: string): void {
  extras().setupFailure = message;
}
export function getSetupFailure(): string | undefined {
  return extras().setupFailure;
}
/** Forgets the stop, cleanup and setup failure (a second run in the same process). */
export function resetRunExtras(): void {
  delete (globalThis as Record<symbol, unknown>)[EXTRAS];
}

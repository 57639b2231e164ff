/**
 * The resolved target of the current run, handed from the global setup to the reporters.
 * Both run in vitest's main process but load modules through different loaders, so the
 * hand-over goes through globalThis rather than a module variable.
 */
import type { RunSettings } from "../harness/session.js";

export interface RunState {
  settings: RunSettings;
  serverVersion?: string;
}

const KEY = Symbol.for("tollgate.run-state");

export function setRunState(state: RunState): void {
  (globalThis as Record<symbol, unknown>)[KEY] = state;
}

export function getRunState(): RunState | undefined {
  return (globalThis as Record<symbol, unknown>)[KEY] as RunState | undefined;
}

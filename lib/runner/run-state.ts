/**
 * The resolved target of the current run, handed from the global setup to the reporters.
 * Both run in vitest's main process but load modules through different loaders, so the
 * hand-over goes through globalThis rather than a module variable.
 */
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

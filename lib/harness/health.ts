/**
 * What this process saw of the target's health: requests that met no answer (refused, reset,
 * timed out) and requests still waiting for one. A test that failed while the target did not
 * answer is "target unavailable", not a failed rule (lib/runner/declare.ts decides from this).
 * Per process, on globalThis like lib/harness/load.ts.
 */

export interface TransportFailure {
  /** Date.now() when it happened. */
  at: number;
  /** One line naming the request and what went wrong. */
  message: string;
}

interface Pending {
  started: number;
  what: string;
}

interface HealthState {
  failures: TransportFailure[];
  pending: Map<number, Pending>;
  next: number;
}

const KEY = Symbol.for("tollgate.health");
const store = globalThis as { [KEY]?: HealthState };
const MAX_KEPT = 100;

function state(): HealthState {
  store[KEY] ??= { failures: [], pending: new Map(), next: 1 };
  return store[KEY];
}

/** A request was sent; returns the token to call `answered` with once its headers arrive (or it failed). */
export function requestSent(what: string): number {
  const s = state();
  const id = s.next++;
  s.pending.set(id, { started: Date.now(), what });
  return id;
}

export function answered(id: number): void {
  state().pending.delete(id);
}

export function transportFailed(message: string): void {
  const s = state();
  s.failures.push({ at: Date.now(), message });
  if (s.failures.length > MAX_KEPT) s.failures.splice(0, s.failures.length - MAX_KEPT);
}

/**
 * Why the target may be to blame for what went wrong since `since`: the first transport failure
 * since then, or else a request sent since then that is still without an answer after `stalledMs`
 * (a test that ran out of time while the target said nothing). Undefined when the target answered.
 */
export function targetTroubleSince(since: number, stalledMs: number, now = Date.now()): string | undefined {
  const s = state();
  const failure = s.failures.find((f) => f.at >= since);
  if (failure) return failure.message;
  for (const p of s.pending.values()) {
    if (p.started >= since && now - p.started >= stalledMs) return `${p.what}: no answer after ${Math.round((now - p.started) / 1000)} s`;
  }
  return undefined;
}

/** Forgets everything (unit tests). */
export function resetHealth(): void {
  delete store[KEY];
}

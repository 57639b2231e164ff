/**
 * The flags of `tollgate run` for load manners, run bounds and selection, checked before
 * anything runs (a mistake is one line and exit 2) and turned into the environment the global
 * setup reads (lib/runner/settings.ts).
 */
import { resolve } from "node:path";
import { parseDuration } from "../harness/load.js";
import { checkTerm, rerunFromReport, type Selection, SelectionError } from "../runner/selection.js";
import { ENV } from "../runner/settings.js";
import { UsageError } from "./usage.js";

/** The values of `tollgate run`'s flags as parseArgs gives them. */
export type RunFlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** How long a silent target is waited for before the run stops (a restarting API server is back within a minute). */
const DEFAULT_UNAVAILABLE_AFTER_MS = 60_000;

function count(flag: string, raw: unknown, { integer, min }: { integer: boolean; min: number }): string | undefined {
  if (raw === undefined) return undefined;
  const v = String(raw);
  const n = Number(v);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(v) || (integer && !Number.isInteger(n)) || n < min) {
    throw new UsageError(`--${flag} must be a ${integer ? "whole " : ""}number${min > 0 ? ` of at least ${min}` : ""}, not "${v}"`);
  }
  return String(n);
}

export function duration(flag: string, raw: unknown, allowZero: boolean): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDuration(String(raw));
  if (ms === undefined) throw new UsageError(`--${flag} takes a duration like 90s, 10m or 1h30m, not "${String(raw)}"`);
  if (ms === 0 && !allowZero) throw new UsageError(`--${flag} must be longer than 0`);
  return ms;
}

/** --qps, --burst, --max-inflight, --request-timeout as the environment of the global setup (unset: its defaults). */
export function loadEnvironment(values: RunFlagValues): Record<string, string | undefined> {
  const timeout = duration("request-timeout", values["request-timeout"], true);
  return {
    [ENV.qps]: count("qps", values.qps, { integer: false, min: 0 }),
    [ENV.burst]: count("burst", values.burst, { integer: true, min: 1 }),
    [ENV.maxInflight]: count("max-inflight", values["max-inflight"], { integer: true, min: 0 }),
    [ENV.requestTimeoutMs]: timeout === undefined ? undefined : String(timeout),
  };
}

/** --timeout (the whole run) and --unavailable-after (a silent target), in milliseconds. */
export function runBounds(values: RunFlagValues): { timeoutMs?: number; unavailableAfterMs: number } {
  return {
    timeoutMs: duration("timeout", values.timeout, false),
    unavailableAfterMs: duration("unavailable-after", values["unavailable-after"], false) ?? DEFAULT_UNAVAILABLE_AFTER_MS,
  };
}

/** --focus, --skip and --rerun-failed; undefined when none is given. */
export function selectionFrom(values: RunFlagValues): Selection | undefined {
  const terms = (flag: string): string[] => ((values[flag] as string[] | undefined) ?? []).map((t) => checkTerm(`--${flag}`, t));
  try {
    const focus = terms("focus");
    const skip = terms("skip");
    const dir = values["rerun-failed"] as string | undefined;
    const rerun = dir === undefined ? undefined : rerunFromReport(resolve(dir));
    if (focus.length === 0 && skip.length === 0 && !rerun) return undefined;
    return { focus, skip, ...(rerun ? { rerun } : {}) };
  } catch (e) {
    if (e instanceof SelectionError) throw new UsageError(e.message);
    throw e;
  }
}

export function selectionEnvironment(sel: Selection | undefined): Record<string, string | undefined> {
  return { [ENV.selection]: sel ? JSON.stringify(sel) : undefined };
}

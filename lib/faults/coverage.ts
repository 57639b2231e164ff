/**
 * Which rules the fault catalog proves able to fail. Every observable rule a server must keep
 * (required or optional, not a client's duty) needs at least one fault; gated rules are
 * counted where a fault exists but not demanded.
 */
import { allRules } from "../spec/catalog.js";
import type { Rule } from "../spec/types.js";
import { FAULTS, type Fault } from "./index.js";

export function needsFault(r: Rule): boolean {
  return r.unobservable === undefined && r.subject !== "client" && r.level !== "gated";
}

export interface FaultCoverage {
  /** Rule id → names of the faults that must break it. */
  byRule: Map<string, string[]>;
  /** Rules that need a fault and have none. */
  missing: Rule[];
  /** Rules that need a fault. */
  needed: Rule[];
}

export function faultCoverage(faults: readonly Fault[] = FAULTS, rules: readonly Rule[] = allRules): FaultCoverage {
  const byRule = new Map<string, string[]>();
  for (const f of faults) for (const r of f.rules) byRule.set(r, [...(byRule.get(r) ?? []), f.name]);
  const needed = rules.filter(needsFault);
  return { byRule, needed, missing: needed.filter((r) => !byRule.has(r.id)) };
}

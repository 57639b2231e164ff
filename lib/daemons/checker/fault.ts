/**
 * The checker's one failpoint, for tollgate's self-test (lib/faults/, mode "checker"): with
 * TOLLGATE_CHECKER_FAULT_RULES set to rule ids (comma-separated), the checker drops the
 * findings of those rules and those resting on them, as a checker written without them would. The doc3 option suite
 * must then fail each of those rules; a rule it names but does not examine shows up as missed.
 * Never set outside `tollgate run --fault`.
 */
import type { Finding } from "./findings.js";

export const CHECKER_FAULT_ENV = "TOLLGATE_CHECKER_FAULT_RULES";

export function withoutFaultedRules<F extends Finding>(findings: F[]): F[] {
  const raw = process.env[CHECKER_FAULT_ENV];
  if (!raw) return findings;
  const blind = new Set(raw.split(","));
  return findings.filter((f) => !blind.has(f.rule) && !f.basis?.some((b) => blind.has(b)));
}

/** What the checker reports: one problem of one option, with the doc3 rule it breaks. */

export type Severity = "error" | "warning" | "note";

export const SEVERITIES: readonly Severity[] = ["error", "warning", "note"];

export interface Finding {
  severity: Severity;
  /** The option as a real daemon names it (`--leader-elect-renew-deadline`), or the stray argument. */
  option: string;
  message: string;
  /** A doc3 rule id of lib/spec/doc3.ts. */
  rule: string;
  /**
   * The doc3 rules the finding rests on besides its own (a gate's list and stage, the option
   * tables' defaults): a checker without one of them could not give it.
   */
  basis?: string[];
}

/** Severity first, then option, then rule: the order of both output forms, independent of the order of checks. */
export function sortFindings<T extends Finding>(findings: readonly T[]): T[] {
  const rank = (s: Severity): number => SEVERITIES.indexOf(s);
  return [...findings].sort((a, b) => rank(a.severity) - rank(b.severity) || cmp(a.option, b.option) || cmp(a.rule, b.rule) || cmp(a.message, b.message));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

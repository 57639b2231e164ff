/** What every rule module of the checker works with: the options of a check and the report its findings go to. */
import type { DirEntry } from "../credential-config.js";
import type { Finding, Severity } from "./findings.js";

export interface CheckOptions {
  /**
   * The other daemon's command line is checked too (cross-check.ts): comparisons with the
   * other daemon's doc3 defaults are left to the cross-check, which has the real values.
   */
  peer?: boolean;
  /** Lists a directory named by an option; the local file system unless a test gives another. */
  readDir?: (path: string) => DirEntry[] | undefined;
}

/** The findings of one command line, in the order the rules add them. */
export class Report {
  readonly findings: Finding[] = [];
  add(severity: Severity, option: string, rule: string, message: string, basis: readonly string[] = []): void {
    this.findings.push({ severity, option, rule, message, ...(basis.length > 0 ? { basis: [...basis] } : {}) });
  }
  error(option: string, rule: string, message: string, basis?: readonly string[]): void {
    this.add("error", option, rule, message, basis);
  }
  warning(option: string, rule: string, message: string, basis?: readonly string[]): void {
    this.add("warning", option, rule, message, basis);
  }
  note(option: string, rule: string, message: string, basis?: readonly string[]): void {
    this.add("note", option, rule, message, basis);
  }
}

/**
 * `checkFlags(daemon, argv)`: what doc3 says is wrong, risky or worth knowing about a daemon's
 * command line, before the daemon runs. Errors are what stops the daemon or breaks a doc3
 * "must"; warnings are what runs but is deprecated, insecure, test-only or has no effect;
 * notes explain what a value means where operators commonly read it otherwise. Every finding
 * names the doc3 rule it comes from.
 */
import type { Daemon } from "../catalog/index.js";
import { type CommandLine, readCommandLine } from "../options/command-line.js";
import { OptionView } from "../options/view.js";
import { type CheckOptions, Report } from "./check.js";
import { checkTls } from "./common-options.js";
import { checkControllerManager } from "./controller-manager.js";
import { withoutFaultedRules } from "./fault.js";
import { type Finding, sortFindings } from "./findings.js";
import { checkGatedOptions, GateView, readGates } from "./gates.js";
import { checkNodeAgent } from "./node-agent.js";
import { checkDefaults, checkValues } from "./values.js";

export type { CheckOptions } from "./check.js";
export type { Finding, Severity } from "./findings.js";

export interface Analysis {
  readonly daemon: Daemon;
  readonly view: OptionView;
  readonly findings: Finding[];
}

export function checkFlags(daemon: Daemon, argv: readonly string[], options: CheckOptions = {}): Finding[] {
  return withoutFaultedRules(sortFindings(analyze(daemon, argv, options).findings));
}

export function analyze(daemon: Daemon, argv: readonly string[], options: CheckOptions = {}): Analysis {
  const line = readCommandLine(daemon, argv);
  const view = new OptionView(line);
  const gates = new GateView(view);
  const r = new Report();
  readProblems(line, r);
  checkValues(line, r);
  readGates(view, gates, r);
  checkDefaults(view, r);
  checkGatedOptions(view, gates, r);
  checkTls(view, r);
  if (daemon === "controller-manager") checkControllerManager(view, r, options);
  else checkNodeAgent(view, r, options);
  return { daemon, view, findings: r.findings };
}

/** The reader's problems (unknown options, stray arguments, missing values), each with the rule it breaks. */
function readProblems(line: CommandLine, r: Report): void {
  for (const p of line.problems) r.error(p.option, p.kind === "doc3-spelling" ? "doc3.options.nodeagent-names" : "doc3.options.known-options", p.message);
}

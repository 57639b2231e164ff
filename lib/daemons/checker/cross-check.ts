/**
 * Rules that tie the two daemons together, checked when both command lines are given. Each
 * daemon is first checked on its own (without the comparisons against the other's doc3
 * defaults, which the real values replace here).
 */

import type { Daemon } from "../catalog/index.js";
import { formatDuration } from "../values/durations.js";
import { withoutFaultedRules } from "./fault.js";
import { type Finding, sortFindings } from "./findings.js";
import { type Analysis, analyze } from "./index.js";

export interface DaemonFinding extends Finding {
  /** The command line the finding is about; "both" for the rules across the two. */
  daemon: Daemon | "both";
}

export function checkBoth(controllerManagerArgv: readonly string[], nodeAgentArgv: readonly string[]): DaemonFinding[] {
  const cm = analyze("controller-manager", controllerManagerArgv, { peer: true });
  const agent = analyze("node-agent", nodeAgentArgv, { peer: true });
  return withoutFaultedRules(
    sortFindings([
      ...cm.findings.map((f) => ({ ...f, daemon: "controller-manager" as const })),
      ...agent.findings.map((f) => ({ ...f, daemon: "node-agent" as const })),
      ...crossFindings(cm, agent).map((f) => ({ ...f, daemon: "both" as const })),
    ]),
  );
}

function crossFindings(cm: Analysis, agent: Analysis): Finding[] {
  const out: Finding[] = [];
  const grace = cm.view.duration("--node-monitor-grace-period");
  const frequency = agent.view.duration("--node-status-update-frequency");
  if (grace !== undefined && frequency === undefined && !agent.view.known("--node-status-update-frequency")) {
    out.push({
      severity: "note",
      option: "--node-status-update-frequency",
      rule: "doc3.agent-options.status-frequency-vs-grace",
      message: "comes from the node agent's --config file, so --node-monitor-grace-period cannot be compared with it here",
    });
  } else if (grace !== undefined && frequency !== undefined && frequency > 0n && grace % frequency !== 0n) {
    out.push({
      severity: "error",
      option: "--node-monitor-grace-period",
      rule: "doc3.cm-behaviour.node-monitor-grace-multiple",
      message: `controller manager --node-monitor-grace-period ${formatDuration(grace)} is not a multiple of node agent --node-status-update-frequency ${formatDuration(frequency)}`,
    });
  }
  return out;
}

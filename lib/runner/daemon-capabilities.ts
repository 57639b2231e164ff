/**
 * The doc3 daemons' part of the capability set (lib/runner/capabilities.ts): which daemon
 * servers the run was given, and what their command lines make them do. Detected from the
 * run's daemon settings (and, where only an answer can tell, one probe) before any test.
 */
import type { CapabilityState } from "./capabilities.js";
import type { Violation } from "./detect.js";
import type { DaemonSettings } from "./settings.js";
export const DAEMON_CAPABILITIES = {
  "controller-manager": "a controller manager secure port is given (--controller-manager URL, or the embedded run's emulated one)",
  "node-agent": "a node agent server is given (--node-agent URL ..., or the embedded run's emulated one)",
} as const;


export type DaemonCapabilities = Record<keyof typeof DAEMON_CAPABILITIES, CapabilityState>;

export interface DaemonDetection {
  capabilities: DaemonCapabilities;
  /** Answers of a daemon probe that no real 1.35 daemon gives: failures of the named rules. */
  violations: Violation[];
}

/** What the run's daemon settings offer; the daemons' own answers are read by the tests. */
export async function detectDaemons(d: DaemonSettings | undefined): Promise<DaemonDetection> {
  return { capabilities: daemonCapabilities(d), violations: [] };
}

function daemonCapabilities(d: DaemonSettings | undefined): DaemonCapabilities {
  const none = { available: false, evidence: "no daemon target given (tollgate run --controller-manager URL / --node-agent URL ...; an embedded run emulates both)" };
  if (!d) return { "controller-manager": none, "node-agent": none };
  return {
    "controller-manager": d.controllerManager ? { available: true, evidence: `${d.controllerManager} (${d.source})` } : { available: false, evidence: "no controller manager target given (--controller-manager URL)" },
    "node-agent":
      d.nodeAgent || d.nodeAgentHealthz || d.nodeAgentReadOnly
        ? { available: true, evidence: `${[d.nodeAgent, d.nodeAgentHealthz, d.nodeAgentReadOnly].filter(Boolean).join(", ")} (${d.source})` }
        : { available: false, evidence: "no node agent server given (--node-agent URL ...)" },
  };
}

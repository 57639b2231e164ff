/** The catalog's own consistency, against the rule catalog and the failpoints the emulator has. */
import { CONTROLLER_MANAGER_FAULTS, NODE_AGENT_FAULTS } from "../emulator/daemons/index.js";
import { FAILPOINT_NAMES, isFailpointName } from "../emulator/failpoints.js";
import { ruleById } from "../spec/catalog.js";
import { type DaemonCommandLines, FAULTS, type Fault } from "./index.js";

/** What is wrong with the catalog: duplicate or malformed names, unknown rules, failpoints or daemon faults. */
export function checkFaultCatalog(faults: readonly Fault[] = FAULTS): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const cm = new Set<string>(CONTROLLER_MANAGER_FAULTS);
  const agent = new Set<string>(NODE_AGENT_FAULTS);
  for (const f of faults) {
    if (seen.has(f.name)) problems.push(`${f.name}: name used twice`);
    seen.add(f.name);
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(f.name)) problems.push(`${f.name}: a name is lowercase words joined by dashes`);
    if (f.rules.length === 0) problems.push(`${f.name}: breaks no rule`);
    for (const r of f.rules) {
      const rule = ruleById.get(r);
      if (!rule) problems.push(`${f.name}: unknown rule ${r}`);
      else if (rule.unobservable) problems.push(`${f.name}: ${r} is not observable, no fault can be shown to break it`);
    }
    if (!f.models.trim()) problems.push(`${f.name}: says no defect it models`);
    if (f.mode === "emulator") {
      if (f.failpoints.length === 0) problems.push(`${f.name}: names no failpoint`);
      for (const p of f.failpoints) if (!isFailpointName(p)) problems.push(`${f.name}: the emulator has no failpoint "${p}"`);
    }
    if (f.mode === "daemons") {
      if (!f.controllerManager?.length && !f.nodeAgent?.length) problems.push(`${f.name}: names no daemon fault`);
      for (const p of f.controllerManager ?? []) if (!cm.has(p)) problems.push(`${f.name}: the controller manager has no fault "${p}"`);
      for (const p of f.nodeAgent ?? []) if (!agent.has(p)) problems.push(`${f.name}: the node agent has no fault "${p}"`);
      // Command lines alone are no fault: the self-test runs them clean too, and a misbehaviour must make the difference.
      if (f.commandLines && !f.commandLines.controllerManager && !f.commandLines.nodeAgent) problems.push(`${f.name}: commandLines names no daemon`);
    }
  }
  return problems;
}

/** Failpoints, controller manager and node agent misbehaviours that no fault of the catalog names: code no self-test exercises. */
export function unusedFailpoints(faults: readonly Fault[] = FAULTS): string[] {
  const used = new Set(
    faults.flatMap((f) => (f.mode === "emulator" ? f.failpoints : f.mode === "daemons" ? [...(f.controllerManager ?? []), ...(f.nodeAgent ?? [])] : [])),
  );
  return [...FAILPOINT_NAMES, ...CONTROLLER_MANAGER_FAULTS, ...NODE_AGENT_FAULTS].filter((n) => !used.has(n));
}

/**
 * The daemon command lines a run's faults start the embedded daemons with: undefined when none
 * has any. One run starts one pair of daemons, so two faults with different lines are refused.
 */
export function faultCommandLines(faults: readonly Fault[]): DaemonCommandLines | undefined {
  const withLines = faults.flatMap((f) => (f.mode === "daemons" && f.commandLines ? [f] : []));
  const first = withLines[0];
  const other = withLines.find((f) => JSON.stringify(f.commandLines) !== JSON.stringify(first?.commandLines));
  if (first && other) throw new Error(`faults ${first.name} and ${other.name} start the daemons with different command lines: apply them in separate runs`);
  return first?.commandLines;
}

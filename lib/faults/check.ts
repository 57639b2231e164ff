/** The catalog's own consistency, against the rule catalog and the failpoints the emulator has. */
import { CONTROLLER_MANAGER_FAULTS, NODE_AGENT_FAULTS } from "../emulator/daemons/index.js";
import { isFailpointName } from "../emulator/failpoints.js";
import { ruleById } from "../spec/catalog.js";
import { FAULTS, type Fault } from "./index.js";

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
    }
  }
  return problems;
}

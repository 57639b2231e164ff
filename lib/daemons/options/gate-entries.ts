/**
 * --feature-gates as a real daemon's gate flag reads it: every entry must parse, name the
 * `kube` component (controller manager) or none (node agent), and name a gate the daemon
 * knows by its real name; a real daemon refuses to start on any other entry. The checker
 * gives each kind of problem its doc3 rule; the emulated daemons only need to know there is one.
 */
import { type Daemon, type GateEntry, gatesByDoc3Name, gatesByName } from "../catalog/index.js";
import { closest } from "../values/closest.js";
import { type GateProblem, type GateSetting, parseGateEntry } from "../values/gates.js";

export type GateEntryProblem = GateProblem | "unknown-component" | "doc3-name" | "unknown-gate";

export interface GateEntryRead {
  /** The entry as written, trimmed. */
  readonly text: string;
  /** The entry parsed; undefined when its shape, component or value is wrong. */
  readonly setting?: GateSetting;
  /** The catalog gate it sets; also for doc3's spelling of a name, which a real daemon refuses but whose meaning is clear. */
  readonly gate?: GateEntry;
  readonly problem?: { readonly kind: GateEntryProblem; readonly message: string };
}

/** The entries of one --feature-gates value, in order; blank entries are skipped, as the real flag skips them. */
export function readGateEntries(daemon: Daemon, value: string): GateEntryRead[] {
  const cm = daemon === "controller-manager";
  const out: GateEntryRead[] = [];
  for (const raw of value.split(",")) {
    const text = raw.trim();
    if (text === "") continue;
    const parsed = parseGateEntry(text, cm);
    if (!parsed.ok) {
      out.push({ text, problem: { kind: parsed.problem, message: parsed.error } });
      continue;
    }
    const setting = parsed.value;
    const { component, name } = setting;
    if (cm && component !== "kube") {
      const message = `"${text}": unknown component "${component}"; the controller manager's gates are written kube:${name}=<bool>`;
      out.push({ text, setting, problem: { kind: "unknown-component", message } });
      continue;
    }
    const gate = gatesByName.get(name);
    if (gate) {
      out.push({ text, setting, gate });
      continue;
    }
    const neutral = gatesByDoc3Name.get(name);
    if (neutral) {
      const message = `"${name}" is doc3's spelling; the real gate is ${neutral.realName}, and a real daemon refuses the other`;
      out.push({ text, setting, gate: neutral, problem: { kind: "doc3-name", message } });
      continue;
    }
    const guess = closest(name, gatesByName.keys());
    out.push({ text, setting, problem: { kind: "unknown-gate", message: `unknown feature gate "${name}"${guess ? ` (did you mean ${guess}?)` : ""}` } });
  }
  return out;
}

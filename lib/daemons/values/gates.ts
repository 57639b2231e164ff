/** One --feature-gates entry: `kube:Name=bool` for the controller manager, `Name=bool` for the node agent. */
import { parseGoBool } from "./go-scalars.js";

export interface GateSetting {
  /** The controller manager's component (`kube` when left out); undefined for the node agent, which has none. */
  component?: string;
  /** Whether the entry wrote its component (`kube:Name=true`) or left it to the default. */
  componentWritten: boolean;
  name: string;
  value: boolean;
  /** The entry as written. */
  text: string;
}

/** What is wrong with a gate entry: its shape, a component where none is allowed, or a value that is not a boolean. */
export type GateProblem = "syntax" | "component" | "value";

/**
 * One feature gate entry. The controller manager takes `component:Name=bool` (component
 * `kube` when left out); the node agent takes `Name=bool` and has no components, so a
 * prefix there is the error a real node agent reports as an unknown gate.
 */
export function parseGateEntry(text: string, withComponents: boolean): { ok: true; value: GateSetting } | { ok: false; error: string; problem: GateProblem } {
  const form = withComponents ? "kube:Name=true|false" : "Name=true|false";
  const eq = text.indexOf("=");
  if (eq < 0) return { ok: false, problem: "syntax", error: `"${text}" is malformed: expected ${form}` };
  let name = text.slice(0, eq).trim();
  const valueText = text.slice(eq + 1).trim();
  const colon = name.indexOf(":");
  let component: string | undefined;
  if (colon >= 0 && !withComponents) {
    return {
      ok: false,
      problem: "component",
      error: `"${text}": gates are written Name=<bool> here, without a component (${name.slice(colon + 1)}=${valueText})`,
    };
  }
  if (withComponents) {
    component = colon < 0 ? "kube" : name.slice(0, colon).trim();
    if (colon >= 0) name = name.slice(colon + 1).trim();
  }
  if (name === "") return { ok: false, problem: "syntax", error: `"${text}" names no gate: expected ${form}` };
  const value = parseGoBool(valueText);
  if (!value.ok) return { ok: false, problem: "value", error: `"${text}": gates take true or false, not "${valueText}"` };
  return { ok: true, value: { component, componentWritten: colon >= 0, name, value: value.value, text } };
}

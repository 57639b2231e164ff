/** The cluster's name syntaxes as the node agent's flags and answers use them: label keys and values (--node-labels), taints (--register-with-taints), node names. */
import { fail, ok, type Parse } from "./parse.js";

const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Kubernetes' DNS-1123 subdomain: a label key's prefix, a Node's name. */
export const isDns1123Subdomain = (s: string): boolean =>
  s.length > 0 && s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);

/** A label or taint key: `[prefix/]name`, prefix a DNS subdomain of at most 253, name at most 63. */
export function checkQualifiedName(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return `"${key}" has more than one "/"`;
  const name = parts[parts.length - 1] as string;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (!isDns1123Subdomain(prefix)) return `"${key}": prefix "${prefix}" is not a DNS subdomain`;
  }
  if (name === "" || name.length > 63 || !QUALIFIED_NAME_PART.test(name)) {
    return `"${key}": name part must be 1-63 characters, alphanumeric at both ends, with -, _ or . inside`;
  }
  return undefined;
}

export function checkLabelValue(value: string): string | undefined {
  if (value.length > 63 || !LABEL_VALUE.test(value))
    return `"${value}" is not a label value (at most 63 characters, alphanumeric at both ends, with -, _ or . inside)`;
  return undefined;
}

export interface Taint {
  key: string;
  value: string;
  effect: string;
}

const TAINT_EFFECTS: readonly string[] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/** `--register-with-taints`: comma-separated `<key>=<value>:<effect>` (the value may be left out: `<key>:<effect>`). */
export function parseTaints(s: string): Parse<Taint[]> {
  const out: Taint[] = [];
  for (const raw of s.split(",")) {
    const spec = raw.trim();
    if (spec === "") continue;
    const colon = spec.lastIndexOf(":");
    if (colon < 0) return fail(`"${spec}" has no effect: expected <key>=<value>:<effect>`);
    const effect = spec.slice(colon + 1);
    const kv = spec.slice(0, colon);
    const eq = kv.indexOf("=");
    const key = eq < 0 ? kv : kv.slice(0, eq);
    const value = eq < 0 ? "" : kv.slice(eq + 1);
    if (!TAINT_EFFECTS.includes(effect)) return fail(`"${spec}": effect "${effect}" is not one of ${TAINT_EFFECTS.join(", ")}`);
    const keyProblem = checkQualifiedName(key);
    if (keyProblem) return fail(`"${spec}": taint key ${keyProblem}`);
    const valueProblem = checkLabelValue(value);
    if (valueProblem) return fail(`"${spec}": taint value ${valueProblem}`);
    out.push({ key, value, effect });
  }
  return ok(out);
}

/**
 * How Go prints the decoded JSON values that appear inside patch error texts: `%v` of a
 * map[string]interface{} (`map[data:map[a:1]]`, keys sorted) and json.Marshal of one (keys
 * sorted, compact, <>& escaped).
 */
import { compactJson, isJsonObject, type Json } from "../../apimachinery/json.js";

/** fmt's %v (and %+v) of a value decoded from JSON. */
export function goValue(value: Json | undefined): string {
  if (value === undefined || value === null) return "<nil>";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(" ")}]`;
  return `map[${Object.keys(value)
    .sort()
    .map((k) => `${k}:${goValue(value[k])}`)
    .join(" ")}]`;
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  // fromEntries: keys are user data, `__proto__` included.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k] ?? null)]),
  );
}

/** json.Marshal of a map-based document: compact, keys sorted at every level. */
export function goMarshalSorted(value: Json): string {
  return compactJson(sortKeys(value)).slice(0, -1);
}

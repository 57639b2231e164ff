/** Query parameters shared by the writing verbs. */
import { invalid } from "../api-errors.js";
import { notSupported } from "../field-errors.js";

/** dryRun: absent or empty for a real write, "All" for a dry run; anything else is refused. */
export function dryRunOf(values: readonly string[], optionsKind: string): boolean {
  const given = values.filter((v) => v !== "");
  for (const v of given) {
    if (v !== "All") throw invalid({ group: "meta.k8s.io", kind: optionsKind }, "", [notSupported("dryRun", v, ["All"])]);
  }
  return given.length > 0;
}

/** Warning headers for the response, when there are any. */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  return warnings.length ? { Warning: [...warnings] } : {};
}

/**
 * Go's strconv.ParseBool, the one reading of boolean text every side shares: the API server's
 * boolean query parameters and feature-gate values, and the daemons' flags and gates (pflag).
 */

/** true for 1, t, T, TRUE, true, True; false for 0, f, F, FALSE, false, False; undefined otherwise. */
export function parseGoBool(value: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

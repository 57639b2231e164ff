/**
 * Go's strconv readings the emulator needs below the HTTP layer: the feature-gate flag text
 * (apimachinery/feature-gates.ts) reads its values the way the endpoints read boolean query
 * parameters, so the parser lives here, under both.
 */

/** Go's strconv.ParseBool: true for 1, t, T, TRUE, true, True; false for their opposites; undefined otherwise. */
export function parseGoBool(value: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

/**
 * resourceVersion rules of doc1 "Versioning": a decimal of arbitrary size, first digit 1-9,
 * compared by length first and then lexically. Written by hand because the comparison rule
 * is specific to this API (it is not semver, not a number that fits a double).
 */
const DECIMAL = /^[1-9][0-9]*$/;

export function isDecimalResourceVersion(rv: string): boolean {
  return DECIMAL.test(rv);
}

/** Negative when a < b, 0 when equal, positive when a > b. Both must be decimal versions. */
export function compareResourceVersions(a: string, b: string): number {
  if (!isDecimalResourceVersion(a)) throw new RangeError(`not a decimal resourceVersion: ${JSON.stringify(a)}`);
  if (!isDecimalResourceVersion(b)) throw new RangeError(`not a decimal resourceVersion: ${JSON.stringify(b)}`);
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

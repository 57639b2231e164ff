/**
 * The `?timeout=` of requests that are not long-running (wire-facts §11; apiserver@v0.35.7
 * endpoints/filters/request_deadline.go): read with Go's time.ParseDuration before
 * authentication, an unparsable one is 400 `invalid timeout specified in the request URL - <Go
 * error>`. A valid one only shortens a deadline the emulator's requests never come near, so it
 * is only checked. Watches ignore the parameter (their end is timeoutSeconds').
 */
import { badRequest } from "../apimachinery/api-errors.js";

/** Nanoseconds per unit, as time.ParseDuration's unitMap has them (both micro signs). */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n],
  ["\u03bcs", 1_000n],
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const TWO_63 = 1n << 63n;

/** time's own quote(): `"`-quoted, every byte of a non-ASCII or control character as \xNN. */
function timeQuote(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    if (b >= 0x80 || b < 0x20) out += `\\x${b.toString(16).padStart(2, "0")}`;
    else out += b === 0x22 || b === 0x5c ? `\\${String.fromCharCode(b)}` : String.fromCharCode(b);
  }
  return `${out}"`;
}

const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;

/** time.ParseDuration's error for the value, or undefined when it parses. Works on bytes, as Go does. */
export function goDurationError(value: string): string | undefined {
  const orig = Buffer.from(value, "utf8");
  const invalid = `time: invalid duration ${timeQuote(orig)}`;
  let s = orig;
  let neg = false;
  if (s[0] === 0x2d || s[0] === 0x2b) {
    neg = s[0] === 0x2d;
    s = s.subarray(1);
  }
  if (s.length === 1 && s[0] === 0x30) return undefined;
  if (s.length === 0) return invalid;
  let d = 0n;
  while (s.length > 0) {
    if (!(s[0] === 0x2e || isDigit(s[0]))) return invalid;
    let i = 0;
    let v = 0n;
    for (; isDigit(s[i]); i++) {
      v = v * 10n + BigInt((s[i] ?? 0x30) - 0x30);
      if (v > TWO_63) return invalid;
    }
    const pre = i > 0;
    s = s.subarray(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === 0x2e) {
      s = s.subarray(1);
      let j = 0;
      let overflow = false;
      for (; isDigit(s[j]); j++) {
        if (overflow) continue;
        const y = f * 10n + BigInt((s[j] ?? 0x30) - 0x30);
        if (f > (TWO_63 - 1n) / 10n || y > TWO_63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.subarray(j);
    }
    if (!pre && !post) return invalid;
    let u = 0;
    while (u < s.length && !(s[u] === 0x2e || isDigit(s[u]))) u++;
    if (u === 0) return `time: missing unit in duration ${timeQuote(orig)}`;
    const unitBytes = s.subarray(0, u);
    const unit = UNITS.get(unitBytes.toString("utf8"));
    if (unit === undefined) return `time: unknown unit ${timeQuote(unitBytes)} in duration ${timeQuote(orig)}`;
    s = s.subarray(u);
    if (v > TWO_63 / unit) return invalid;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) return invalid;
    }
    d += v;
    if (d > TWO_63) return invalid;
  }
  if (!neg && d > TWO_63 - 1n) return invalid;
  return undefined;
}

/** Throws the 400 of an unparsable `?timeout=` (empty counts as absent). */
export function checkRequestTimeout(url: URL): void {
  const value = url.searchParams.get("timeout");
  if (value === null || value === "") return;
  const error = goDurationError(value);
  if (error !== undefined) throw badRequest(`invalid timeout specified in the request URL - ${error}`);
}

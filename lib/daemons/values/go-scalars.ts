/** Go integers, floats and booleans, as strconv reads them for pflag's int, float and bool flags. */

import { parseGoBool as goBool } from "../../wire/go-strconv.js";
import { fail, ok, type Parse } from "./parse.js";

/**
 * strconv.ParseInt(s, 0, bits), which pflag uses for int and int32 flags: decimal, `0x` hex,
 * `0o`/leading-0 octal, `0b` binary, underscores between digits only with a base prefix.
 */
export function parseGoInt(s: string, bits: 32 | 64): Parse<bigint> {
  const bad = fail<bigint>(`"${s}" is not an integer`);
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(s);
  if (!m) return bad;
  const [, sign = "", body = ""] = m;
  let digits = body;
  let radix = 10;
  if (/^0[xX]/.test(body)) [radix, digits] = [16, body.slice(2)];
  else if (/^0[oO]/.test(body)) [radix, digits] = [8, body.slice(2)];
  else if (/^0[bB]/.test(body)) [radix, digits] = [2, body.slice(2)];
  else if (body.startsWith("0") && body.length > 1) [radix, digits] = [8, body.slice(1)];
  if (digits.includes("_")) {
    // Go allows an underscore after the base prefix or between digits, never doubled or trailing.
    if (/__|_$/.test(digits)) return bad;
    digits = digits.replace(/_/g, "");
  }
  if (digits === "") return radix === 8 && body === "0" ? ok(0n) : bad;
  let v = 0n;
  for (const ch of digits.toLowerCase()) v = v * BigInt(radix) + BigInt(parseInt(ch, radix));
  if (sign === "-") v = -v;
  const limit = 1n << BigInt(bits - 1);
  if (v < -limit || v >= limit) return fail(`"${s}" is out of range for int${bits} (${-limit} to ${limit - 1n})`);
  return ok(v);
}

/** strconv.ParseFloat(s, 64) for the decimal forms (hex floats and underscores are not used for these flags). */
export function parseGoFloat(s: string): Parse<number> {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return ok(s.startsWith("-") ? -Infinity : Infinity);
  if (/^nan$/i.test(s)) return ok(Number.NaN);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return fail(`"${s}" is not a number`);
  return ok(Number(s));
}

/** strconv.ParseBool: the only spellings pflag accepts for booleans and gate values. */
export function parseGoBool(s: string): Parse<boolean> {
  const value = goBool(s);
  return value === undefined ? fail(`"${s}" is not a boolean (true or false)`) : ok(value);
}

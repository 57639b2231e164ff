/** Go durations (`1m0s`, no spaces, no days), as time.ParseDuration reads and Duration.String writes them. */
import { fail, ok, type Parse } from "./parse.js";

/** Nanoseconds per unit, as time.ParseDuration knows them (both micro signs included). */
const DURATION_UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n],
  ["μs", 1_000n],
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * time.ParseDuration: an optional sign, then one or more `<decimal><unit>` terms (`1h30m`,
 * `1.5s`, `.5ms`); `0` alone needs no unit. Nanoseconds as a bigint, because 8760h in
 * nanoseconds exceeds 2^53 and the multiple-of checks need exact arithmetic.
 */
export function parseDuration(s: string): Parse<bigint> {
  const bad = fail<bigint>(`"${s}" is not a Go duration (forms like 10s, 1m0s, 1h30m, 100ms)`);
  let rest = s;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return ok(0n);
  if (rest === "") return bad;
  let total = 0n;
  const term = /^(\d*)(?:\.(\d*))?([a-zµμ]+)/u;
  while (rest !== "") {
    const m = term.exec(rest);
    if (!m) return bad;
    const [whole, intPart = "", fracPart = "", unitName = ""] = m;
    if (intPart === "" && fracPart === "") return bad;
    const unit = DURATION_UNITS.get(unitName);
    if (unit === undefined) return fail(`"${s}": unknown unit "${unitName}" (Go durations use ns, us, ms, s, m, h)`);
    let ns = BigInt(intPart || "0") * unit;
    if (fracPart !== "") ns += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
    total += ns;
    if (total > INT64_MAX) return fail(`"${s}" overflows a Go duration (about 292 years at most)`);
    rest = rest.slice(whole.length);
  }
  return ok(negative ? -total : total);
}

/** time.Duration.String(): `1m0s`, `8760h0m0s`, `100ms`, `0s`. */
export function formatDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const sign = ns < 0n ? "-" : "";
  let u = ns < 0n ? -ns : ns;
  if (u < 1_000_000_000n) {
    const [unit, size] = u < 1_000n ? ["ns", 1n] : u < 1_000_000n ? ["µs", 1_000n] : ["ms", 1_000_000n];
    return `${sign}${fraction(u, size)}${unit}`;
  }
  const h = u / 3_600_000_000_000n;
  u -= h * 3_600_000_000_000n;
  const m = u / 60_000_000_000n;
  u -= m * 60_000_000_000n;
  const secs = `${fraction(u, 1_000_000_000n)}s`;
  if (h > 0n) return `${sign}${h}h${m}m${secs}`;
  if (m > 0n) return `${sign}${m}m${secs}`;
  return `${sign}${secs}`;
}

function fraction(v: bigint, size: bigint): string {
  const whole = v / size;
  const rem = v % size;
  if (rem === 0n) return `${whole}`;
  const digits = size.toString().length - 1;
  return `${whole}.${rem.toString().padStart(digits, "0").replace(/0+$/, "")}`;
}

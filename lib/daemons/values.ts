/**
 * Parsers for option values as the two daemons read them. The daemons are Go programs using
 * pflag and the cluster's own value types, so the syntax is Go's and the cluster's, not a
 * general one: Go durations (`1m0s`, no spaces, no days), Go integer literals (base prefixes,
 * underscores), resource quantities (`10Mi`, `500m`), strconv.ParseBool spellings, and the
 * cluster's key=value, taint and header formats. No maintained npm package implements these
 * exactly as Go does, hence hand-written here; IP addresses use node:net.
 *
 * Every parser returns a Parse: the value, or one line saying what is wrong.
 */
import { isIP, isIPv4, isIPv6 } from "node:net";

export type Parse<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parse<T> => ({ ok: true, value });
const fail = <T>(error: string): Parse<T> => ({ ok: false, error });

// ── Go durations ────────────────────────────────────────────────────────────────────────

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
  const digits = (size.toString().length - 1);
  return `${whole}.${rem.toString().padStart(digits, "0").replace(/0+$/, "")}`;
}

// ── Go numbers and booleans ─────────────────────────────────────────────────────────────

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
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return ok(true);
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return ok(false);
  return fail(`"${s}" is not a boolean (true or false)`);
}

// ── Resource quantities ─────────────────────────────────────────────────────────────────

const BINARY_SUFFIX: ReadonlyMap<string, bigint> = new Map([
  ["Ki", 1n << 10n],
  ["Mi", 1n << 20n],
  ["Gi", 1n << 30n],
  ["Ti", 1n << 40n],
  ["Pi", 1n << 50n],
  ["Ei", 1n << 60n],
]);
const DECIMAL_EXP: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);

/**
 * A resource quantity (`128974848`, `129e6`, `129M`, `123Mi`, `500m`), as a count of
 * nano-units rounded up, the way the cluster rounds quantities it cannot hold exactly.
 * Exact integers make sums of reservations comparable without floating-point error.
 */
export function parseQuantity(s: string): Parse<bigint> {
  const m = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)$/.exec(s);
  if (!m) return fail(`"${s}" is not a quantity (forms like 100, 500m, 10Mi, 1Gi, 1e3)`);
  const [, sign = "", num = "", suffix = ""] = m;
  const [intPart = "", fracPart = ""] = num.split(".");
  let numerator = BigInt(`${intPart || "0"}${fracPart}`);
  let exp10 = -fracPart.length;
  const binary = BINARY_SUFFIX.get(suffix);
  if (binary !== undefined) numerator *= binary;
  else if (/^[eE]/.test(suffix)) exp10 += Number(suffix.slice(1));
  else exp10 += DECIMAL_EXP.get(suffix) ?? 0;
  exp10 += 9; // to nano-units
  let nano: bigint;
  if (exp10 >= 0) nano = numerator * 10n ** BigInt(exp10);
  else {
    const d = 10n ** BigInt(-exp10);
    nano = (numerator + d - 1n) / d;
  }
  return ok(sign === "-" ? -nano : nano);
}

/** A quantity in nano-units, written back in whole units where it is whole (for messages). */
export function formatNano(nano: bigint): string {
  if (nano % 1_000_000_000n === 0n) {
    const units = nano / 1_000_000_000n;
    for (const [suffix, size] of [...BINARY_SUFFIX].reverse()) if (units !== 0n && units % size === 0n) return `${units / size}${suffix}`;
    return `${units}`;
  }
  return `${nano}n`;
}

// ── Lists and maps ──────────────────────────────────────────────────────────────────────

/**
 * pflag's string slices read their value as one CSV record: commas separate, double quotes
 * may enclose a field that holds commas. An empty value is an empty list.
 */
export function splitCsv(s: string): Parse<string[]> {
  if (s === "") return ok([]);
  const out: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  let fieldStart = true;
  while (i < s.length) {
    const ch = s[i] as string;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') {
        quoted = false;
        i += 1;
        if (i < s.length && s[i] !== ",") return fail(`"${s}": text after a closing quote`);
        continue;
      }
      field += ch;
    } else if (ch === '"' && fieldStart) {
      quoted = true;
    } else if (ch === ",") {
      out.push(field);
      field = "";
      fieldStart = true;
      i += 1;
      continue;
    } else {
      field += ch;
    }
    fieldStart = false;
    i += 1;
  }
  if (quoted) return fail(`"${s}": unterminated quote`);
  out.push(field);
  return ok(out);
}

/**
 * The cluster's map flags (`--node-labels a=b,c=d`): comma-separated pairs split at the first
 * `sep`, key and value trimmed; a pair without `sep` is the error the daemon reports.
 */
export function parsePairs(s: string, sep = "="): Parse<[string, string][]> {
  if (s.trim() === "") return ok([]);
  const out: [string, string][] = [];
  for (const item of s.split(",")) {
    const at = item.indexOf(sep);
    if (at < 0) return fail(`"${item}" is malformed: expected key${sep}value`);
    const key = item.slice(0, at).trim();
    if (key === "") return fail(`"${item}" has an empty key`);
    out.push([key, item.slice(at + sep.length).trim()]);
  }
  return ok(out);
}

/** `--manifest-url-header a:hello,b:again`: name:value pairs (the value may hold colons), names as HTTP tokens. */
export function parseHeaders(s: string): Parse<[string, string][]> {
  const pairs = parsePairs(s, ":");
  if (!pairs.ok) return pairs;
  for (const [name] of pairs.value) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return fail(`"${name}" is not a valid HTTP header name`);
  }
  return pairs;
}

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
    return { ok: false, problem: "component", error: `"${text}": gates are written Name=<bool> here, without a component (${name.slice(colon + 1)}=${valueText})` };
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

/** A whole gate map (`--feature-gates a=true,b=false`): comma-separated entries, blanks ignored. */
export function parseGates(s: string, withComponents: boolean): Parse<GateSetting[]> {
  const out: GateSetting[] = [];
  for (const raw of s.split(",")) {
    const text = raw.trim();
    if (text === "") continue;
    const entry = parseGateEntry(text, withComponents);
    if (!entry.ok) return fail(entry.error);
    out.push(entry.value);
  }
  return ok(out);
}

// ── Cluster names ───────────────────────────────────────────────────────────────────────

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** A label or taint key: `[prefix/]name`, prefix a DNS subdomain of at most 253, name at most 63. */
export function checkQualifiedName(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return `"${key}" has more than one "/"`;
  const name = parts[parts.length - 1] as string;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix === "" || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return `"${key}": prefix "${prefix}" is not a DNS subdomain`;
  }
  if (name === "" || name.length > 63 || !QUALIFIED_NAME_PART.test(name)) {
    return `"${key}": name part must be 1-63 characters, alphanumeric at both ends, with -, _ or . inside`;
  }
  return undefined;
}

export function checkLabelValue(value: string): string | undefined {
  if (value.length > 63 || !LABEL_VALUE.test(value)) return `"${value}" is not a label value (at most 63 characters, alphanumeric at both ends, with -, _ or . inside)`;
  return undefined;
}

export interface Taint {
  key: string;
  value: string;
  effect: string;
}

export const TAINT_EFFECTS: readonly string[] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

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

/** `--reserved-memory 0:memory=1Gi,hugepages-1M=2Gi`, several NUMA nodes separated by `;` or given as repeated options. */
export function parseReservedMemory(v: string): Parse<Map<number, Map<string, bigint>>> {
  const out = new Map<number, Map<string, bigint>>();
  for (const part of v.split(";").map((x) => x.trim()).filter((x) => x !== "")) {
    const m = /^(\d+):(.+)$/.exec(part);
    if (!m) return fail(`"${part}": expected <NUMA node>:<resource>=<quantity>,...`);
    const pairs = parsePairs(m[2] as string);
    if (!pairs.ok) return fail(pairs.error);
    const node = new Map<string, bigint>();
    for (const [res, qty] of pairs.value) {
      if (res !== "memory" && !/^hugepages-/.test(res)) return fail(`"${res}": only memory and hugepages-<size> can be reserved per NUMA node`);
      const q = parseQuantity(qty);
      if (!q.ok) return fail(q.error);
      node.set(res, q.value);
    }
    out.set(Number(m[1]), node);
  }
  return ok(out);
}

// ── Addresses ───────────────────────────────────────────────────────────────────────────

export function parseIp(s: string): Parse<{ address: string; family: 4 | 6 }> {
  const family = isIP(s);
  if (family === 0) return fail(`"${s}" is not an IP address`);
  return ok({ address: s, family: family as 4 | 6 });
}

/** Comma-separated IP addresses. */
export function parseIpList(s: string): Parse<{ address: string; family: 4 | 6 }[]> {
  const out: { address: string; family: 4 | 6 }[] = [];
  for (const item of s.split(",").map((x) => x.trim())) {
    if (item === "") return fail(`"${s}" has an empty entry`);
    const ip = parseIp(item);
    if (!ip.ok) return ip;
    out.push(ip.value);
  }
  return ok(out);
}

export interface Cidr {
  text: string;
  family: 4 | 6;
  prefix: number;
}

/** `10.244.0.0/16`, `fd00::/48`: an address and a prefix length for its family. */
export function parseCidr(s: string): Parse<Cidr> {
  const slash = s.indexOf("/");
  if (slash < 0) return fail(`"${s}" is not a CIDR (address/prefix-length)`);
  const address = s.slice(0, slash);
  const len = s.slice(slash + 1);
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (family === 0) return fail(`"${s}": "${address}" is not an IP address`);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(len) || Number(len) > max) return fail(`"${s}": prefix length must be 0 to ${max}`);
  return ok({ text: s, family, prefix: Number(len) });
}

/** One CIDR, or two of different families (dual-stack). */
export function parseCidrList(s: string): Parse<Cidr[]> {
  const items = s.split(",").map((x) => x.trim());
  const out: Cidr[] = [];
  for (const item of items) {
    const c = parseCidr(item);
    if (!c.ok) return c;
    out.push(c.value);
  }
  if (out.length > 2) return fail(`"${s}": at most two CIDRs (one per family)`);
  if (out.length === 2 && out[0]?.family === out[1]?.family) return fail(`"${s}": a dual-stack pair needs one IPv4 and one IPv6 CIDR`);
  return ok(out);
}

/** A Linux CPU list (`0-3,8,10-11`), as --reserved-cpus takes it. */
export function parseCpuList(s: string): Parse<number[]> {
  const out: number[] = [];
  for (const item of s.split(",").map((x) => x.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!m) return fail(`"${s}" is not a CPU list (forms like 0-3,8)`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo) return fail(`"${item}": range ends before it starts`);
    for (let c = lo; c <= hi; c += 1) out.push(c);
  }
  return ok(out);
}

// ── Versions ────────────────────────────────────────────────────────────────────────────

export interface MajorMinor {
  major: number;
  minor: number;
}

export function parseMajorMinor(s: string): Parse<MajorMinor> {
  const m = /^v?(\d+)\.(\d+)$/.exec(s.trim());
  if (!m) return fail(`"${s}" is not <major>.<minor>`);
  return ok({ major: Number(m[1]), minor: Number(m[2]) });
}

export const compareMajorMinor = (a: MajorMinor, b: MajorMinor): number => a.major - b.major || a.minor - b.minor;
export const formatMajorMinor = (v: MajorMinor): string => `${v.major}.${v.minor}`;

/** `--emulated-version kube=1.34` (component `kube` when left out), comma-separated per component. */
export function parseVersionSelectors(s: string): Parse<{ component: string; version: MajorMinor }[]> {
  const out: { component: string; version: MajorMinor }[] = [];
  for (const raw of s.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    const component = eq < 0 ? "kube" : item.slice(0, eq).trim();
    const v = parseMajorMinor(eq < 0 ? item : item.slice(eq + 1));
    if (!v.ok) return fail(`"${item}": expected component=major.minor (${v.error})`);
    out.push({ component, version: v.value });
  }
  return ok(out);
}

/** `--vmodule pattern=N,...` with N a non-negative verbosity. */
export function parseVmodule(s: string): Parse<[string, number][]> {
  const pairs = parsePairs(s);
  if (!pairs.ok) return fail(`${pairs.error} (expected pattern=N)`);
  const out: [string, number][] = [];
  for (const [pattern, level] of pairs.value) {
    if (!/^\d+$/.test(level)) return fail(`"${pattern}=${level}": level must be a non-negative integer`);
    out.push([pattern, Number(level)]);
  }
  return ok(out);
}

/** `--tls-sni-cert-key certfile,keyfile[:domain,...]`. */
export function parseSniCertKey(s: string): Parse<{ cert: string; key: string; domains: string[] }> {
  const colon = s.indexOf(":");
  const files = colon < 0 ? s : s.slice(0, colon);
  const domains = colon < 0 ? [] : s.slice(colon + 1).split(",").map((d) => d.trim());
  const parts = files.split(",").map((p) => p.trim());
  if (parts.length !== 2 || parts.some((p) => p === "")) return fail(`"${s}": expected certfile,keyfile optionally followed by :domain,...`);
  if (domains.some((d) => d === "")) return fail(`"${s}": empty domain pattern`);
  return ok({ cert: parts[0] as string, key: parts[1] as string, domains });
}

// ── Closest name ────────────────────────────────────────────────────────────────────────

/** Edit distance, for "did you mean": a few dozen lines do not justify a dependency. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const cur = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** The candidate closest to `name`, when it is close enough to be a plausible typo. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestScore) [best, bestScore] = [c, d];
  }
  if (best === undefined) return undefined;
  return bestScore <= Math.max(2, Math.floor(best.length / 3)) || best.startsWith(name) || name.startsWith(best) ? best : undefined;
}

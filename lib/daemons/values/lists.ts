/** The list and map syntaxes of the daemons' flags: pflag's CSV slices, the cluster's key=value maps, headers, vmodule, CPU lists. */
import { fail, ok, type Parse } from "./parse.js";

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

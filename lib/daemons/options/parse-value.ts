/**
 * Whether an option's value can be read as its kind: what the daemon's flag type takes (a Go
 * integer, a duration, a CSV list, key=value pairs...), within the values and bounds the
 * catalog gives the option itself (an enum's values, an integer's range). A real daemon does
 * not start on a value it cannot read; the emulated daemons do the same from this answer.
 * What lies beyond the value's form (label syntax, known controllers, cipher suite names,
 * eviction signals, relations between options) is the checker's.
 */
import type { Daemon, OptionSpec, ValueKind } from "../catalog/index.js";
import { parseCidr, parseCidrList, parseIp, parseIpList } from "../values/addresses.js";
import { parseTaints } from "../values/cluster-names.js";
import { parseDuration } from "../values/durations.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../values/go-scalars.js";
import { parseCpuList, parseHeaders, parsePairs, parseVmodule, splitCsv } from "../values/lists.js";
import type { Parse } from "../values/parse.js";
import { parseQuantity, parseReservedMemory } from "../values/quantities.js";
import { parseSniCertKey } from "../values/tls.js";
import { parseMajorMinor, parseVersionSelectors } from "../values/versions.js";
import { readGateEntries } from "./gate-entries.js";

/** Kinds whose values are exactly what one value parser reads. */
const PARSERS: Partial<Record<ValueKind, (v: string) => Parse<unknown>>> = {
  bool: parseGoBool,
  help: parseGoBool,
  duration: parseDuration,
  quantity: parseQuantity,
  strings: splitCsv,
  cipherSuites: splitCsv,
  ip: parseIp,
  ipList: parseIpList,
  cidr: parseCidr,
  cidrList: parseCidrList,
  keyValues: parsePairs,
  labels: parsePairs,
  resourceList: parsePairs,
  qosReserved: parsePairs,
  signalDurations: parsePairs,
  signalQuantities: parsePairs,
  thresholds: (v) => parsePairs(v, "<"),
  reservedMemory: parseReservedMemory,
  taints: parseTaints,
  headers: parseHeaders,
  versions: parseVersionSelectors,
  majorMinor: parseMajorMinor,
  vmodule: parseVmodule,
  sniCertKey: parseSniCertKey,
  cpuList: parseCpuList,
};

function range(v: number, min: number | undefined, max: number | undefined): string | undefined {
  if (Number.isNaN(v)) return "NaN is not a usable value";
  if (min !== undefined && max !== undefined && (v < min || v > max)) return `must be within ${min} to ${max}`;
  if (min !== undefined && v < min) return `must be at least ${min}`;
  if (max !== undefined && v > max) return `must be at most ${max}`;
  return undefined;
}

/** Why `v` cannot be read as the value of `spec`, or undefined when it can. */
export function parseProblem(daemon: Daemon, spec: OptionSpec, v: string): string | undefined {
  const parser = PARSERS[spec.kind];
  if (parser) {
    const p = parser(v);
    return p.ok ? undefined : p.error;
  }
  switch (spec.kind) {
    case "url": {
      if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) return `"${v}" is not an http or https URL`;
      return undefined;
    }
    case "version":
      if (parseGoBool(v).ok || v === "raw" || /^v\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/.test(v)) return undefined;
      return `"${v}" is not true, false, raw or vX.Y.Z`;
    case "int":
    case "int32": {
      const p = parseGoInt(v, spec.kind === "int32" ? 32 : 64);
      if (!p.ok) return p.error;
      return range(Number(p.value), spec.min, spec.max);
    }
    case "float": {
      const p = parseGoFloat(v);
      if (!p.ok) return p.error;
      return range(p.value, spec.min, spec.max);
    }
    case "enum":
      return spec.values?.includes(v) ? undefined : `"${v}" is not one of ${(spec.values ?? []).map((x) => (x === "" ? '""' : x)).join(", ")}`;
    case "enumList": {
      const p = splitCsv(v);
      if (!p.ok) return p.error;
      const bad = p.value.filter((x) => !spec.values?.includes(x.trim()));
      return bad.length ? `${bad.map((b) => `"${b}"`).join(", ")} not among ${(spec.values ?? []).join(", ")}` : undefined;
    }
    case "ipOrEmpty": {
      const p = parseIp(v);
      return v === "" || p.ok ? undefined : p.error;
    }
    case "gates":
    case "componentGates":
      return readGateEntries(daemon, v).find((e) => e.problem)?.problem?.message;
    case "metricLabels":
      // `<MetricName>,<LabelName>=<value>,<value>...`: the key itself holds a comma, so only the shape is checked.
      return v === "" || v.includes("=") ? undefined : `"${v}" has no "=": expected <MetricName>,<LabelName>=<allowed values>`;
    case "controllers": {
      const p = splitCsv(v);
      if (!p.ok) return p.error;
      const bad = p.value.map((x) => x.trim()).filter((x) => !/^(\*|-?[a-z0-9]+(-[a-z0-9]+)*)$/.test(x));
      return bad.length ? `${bad.map((b) => `"${b}"`).join(", ")}: entries are *, <name> or -<name>` : undefined;
    }
    case "runtimeEndpoint": {
      if (v.startsWith("/") || /^(unix|npipe|tcp):\/\//.test(v)) return undefined;
      return `"${v}" is not a unix://, npipe:// or tcp:// endpoint`;
    }
    default:
      // string, path: any text.
      return undefined;
  }
}

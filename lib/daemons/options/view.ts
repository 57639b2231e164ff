/**
 * What a daemon will run with, option by option: the last occurrence of an option (pflag's
 * rule for single values), or doc3's default. A node agent given --config or --config-dir
 * takes every deprecated flag it is not given from that file, which a command line does not
 * show: there such values are unknown (undefined) to the checker and the probes, while an
 * emulated node agent, which reads no such file, runs with doc3's defaults.
 * The typed readers return undefined for a value that does not parse; refusals() of
 * command-line.ts says whether any does.
 */
import type { CatalogEntry, Daemon } from "../catalog/index.js";
import { parseDuration } from "../values/durations.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../values/go-scalars.js";
import { parsePairs, splitCsv } from "../values/lists.js";
import { type CommandLine, type Occurrence, readCommandLine } from "./command-line.js";

/** What the values a node agent leaves to its --config file read as: unknown, or doc3's defaults. */
export type ConfigFileValues = "unknown" | "doc3-defaults";

export class OptionView {
  /** Whether values not given may come from a --config file the view cannot see. */
  readonly fromConfigFile: boolean;

  constructor(
    readonly line: CommandLine,
    configFileValues: ConfigFileValues = "unknown",
  ) {
    const configFile = line.byName.has("--config") || line.byName.has("--config-dir");
    this.fromConfigFile = configFileValues === "unknown" && line.daemon === "node-agent" && configFile;
  }

  entry(name: string): CatalogEntry {
    const e = this.line.catalog.byName.get(name);
    if (!e) throw new Error(`option view bug: ${name} is not a ${this.line.daemon} option`);
    return e;
  }

  given(name: string): boolean {
    return this.line.byName.has(name);
  }

  occurrences(name: string): readonly Occurrence[] {
    return this.line.byName.get(name) ?? [];
  }

  /** Whether the effective value can be known from the command line. */
  known(name: string): boolean {
    return this.given(name) || !this.fromConfigFile || this.entry(name).spec.notDeprecated === true;
  }

  raw(name: string): string | undefined {
    const occ = this.occurrences(name);
    if (occ.length > 0) return occ[occ.length - 1]?.value;
    return this.known(name) ? this.entry(name).spec.defaultValue : undefined;
  }

  /** Set to a non-empty value (given, or a doc3 default that is not empty). */
  set(name: string): boolean {
    const v = this.raw(name);
    return v !== undefined && v !== "";
  }

  bool(name: string): boolean | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const p = parseGoBool(v);
    return p.ok ? p.value : undefined;
  }

  duration(name: string): bigint | undefined {
    const v = this.raw(name);
    if (v === undefined || v === "") return undefined;
    const p = parseDuration(v);
    return p.ok ? p.value : undefined;
  }

  int(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const p = parseGoInt(v, 64);
    return p.ok ? Number(p.value) : undefined;
  }

  float(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    const p = parseGoFloat(v);
    return p.ok ? p.value : undefined;
  }

  /** A comma list: every occurrence adds to it (pflag slices), the default only when none is given. */
  list(name: string): string[] | undefined {
    const occ = this.occurrences(name);
    const values = occ.length > 0 ? occ.map((o) => o.value) : [this.raw(name)];
    const out: string[] = [];
    for (const v of values) {
      if (v === undefined) return undefined;
      const p = splitCsv(v);
      if (!p.ok) return undefined;
      out.push(...p.value.map((x) => x.trim()));
    }
    return out;
  }

  /** key=value maps: later occurrences and later keys win, as with the cluster's map flags. */
  pairs(name: string, sep = "="): Map<string, string> | undefined {
    if (!this.known(name)) return undefined;
    const occ = this.occurrences(name);
    // doc3 writes these defaults as "(empty)" or "none": no pairs, unless it gives a concrete one.
    const values = occ.length > 0 ? occ.map((o) => o.value) : [this.entry(name).spec.defaultValue ?? ""];
    const out = new Map<string, string>();
    for (const v of values) {
      const p = parsePairs(v, sep);
      if (!p.ok) return undefined;
      for (const [k, v] of p.value) out.set(k, v);
    }
    return out;
  }
}

/** The view of a command line (without its program name). */
export function readOptionView(daemon: Daemon, argv: readonly string[]): OptionView {
  return new OptionView(readCommandLine(daemon, argv));
}

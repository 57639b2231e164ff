/**
 * Reads a daemon's argument list the way Go's pflag does, so the checker sees what the daemon
 * would see: `--name=value` and `--name value`; booleans (and --version, --help) take a value
 * only after `=`, so `--leader-elect false` leaves "false" as a stray argument; short forms
 * `-v 2`, `-v=2`, `-v2`; `_` and `-` are the same in names; `--` ends the options. pflag stops
 * at the first problem; this reader goes on, to report them all.
 */
import { catalogs, type CatalogEntry, type Daemon, type DaemonCatalog } from "./catalog/index.js";
import type { Finding } from "./findings.js";
import { closest } from "./values/closest.js";
import { parseGoBool } from "./values/go-scalars.js";

export interface Occurrence {
  readonly entry: CatalogEntry;
  /** The option as written (`--leader_elect`, `-v`, or doc3's neutral spelling). */
  readonly written: string;
  readonly value: string;
  /** Whether the value was written (`--flag=x`, `--flag x`) rather than implied (`--flag` for booleans). */
  readonly explicit: boolean;
  readonly index: number;
}

export interface CommandLine {
  readonly daemon: Daemon;
  readonly catalog: DaemonCatalog;
  readonly occurrences: readonly Occurrence[];
  /** Occurrences by real long name, in command-line order. */
  readonly byName: ReadonlyMap<string, readonly Occurrence[]>;
  /** Unknown options, missing values, stray arguments. */
  readonly findings: readonly Finding[];
}

const KNOWN = "doc3.options.known-options";
const NEUTRAL = "doc3.options.nodeagent-names";

const takesNoValue = (entry: CatalogEntry): boolean => ["bool", "help", "version"].includes(entry.spec.kind);
const normalize = (name: string): string => name.replace(/_/g, "-");

export function readCommandLine(daemon: Daemon, argv: readonly string[]): CommandLine {
  const catalog = catalogs[daemon];
  const other = catalogs[daemon === "controller-manager" ? "node-agent" : "controller-manager"];
  const occurrences: Occurrence[] = [];
  const findings: Finding[] = [];
  const binary = catalog.binary;
  let lastValueless: Occurrence | undefined;

  const record = (entry: CatalogEntry, written: string, value: string, explicit: boolean, index: number): void => {
    const occ = { entry, written, value, explicit, index };
    occurrences.push(occ);
    lastValueless = takesNoValue(entry) && !explicit ? occ : undefined;
  };

  const stray = (arg: string): void => {
    const hint =
      lastValueless && parseGoBool(arg).ok
        ? `; ${lastValueless.entry.realName} is a boolean and takes its value only after "=": write ${lastValueless.entry.realName}=${arg}`
        : "";
    findings.push({ severity: "error", option: arg, rule: KNOWN, message: `stray argument "${arg}": ${binary} takes no positional arguments${hint}` });
    lastValueless = undefined;
  };

  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "") continue;
    if (arg === "--") {
      for (const rest of argv.slice(i + 1)) if (rest !== "") stray(rest);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      stray(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = normalize(eq < 0 ? arg : arg.slice(0, eq));
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      if (name === "--" || name.startsWith("---")) {
        findings.push({ severity: "error", option: arg, rule: KNOWN, message: `bad flag syntax: ${arg}` });
        continue;
      }
      let entry = catalog.byName.get(name);
      if (!entry) {
        const neutral = catalog.byDoc3Name.get(name);
        if (neutral) {
          findings.push({
            severity: "error",
            option: neutral.realName,
            rule: NEUTRAL,
            message: `${name} is doc3's neutral spelling; ${binary} knows this option only as ${neutral.realName} and refuses to start on ${name}`,
          });
          entry = neutral;
        }
      }
      if (!entry) {
        const elsewhere = other.byName.get(name);
        const guess = closest(name, catalog.byName.keys());
        const why = elsewhere
          ? `${name} is a ${other.daemon === "node-agent" ? "node agent" : "controller manager"} option, not a ${daemon === "node-agent" ? "node agent" : "controller manager"} one`
          : guess
            ? `unknown option ${name}; did you mean ${guess}?`
            : `unknown option ${name}`;
        findings.push({ severity: "error", option: name, rule: KNOWN, message: `${why} (${binary} refuses to start on it)` });
        // Without a definition the value cannot be told from the next option; take a following
        // non-option word as its value, unless the look-alike is a boolean, so that one typo is one finding.
        const like = elsewhere ?? (guess ? catalog.byName.get(guess) : undefined);
        const next = argv[i + 1];
        if (inline === undefined && next !== undefined && !next.startsWith("-") && !(like && takesNoValue(like))) i += 1;
        lastValueless = undefined;
        continue;
      }
      if (inline !== undefined) record(entry, name, inline, true, i);
      else if (takesNoValue(entry)) record(entry, name, "true", false, i);
      else if (i + 1 < argv.length) {
        record(entry, name, argv[i + 1] as string, true, i);
        i += 1;
      } else findings.push({ severity: "error", option: entry.realName, rule: KNOWN, message: `${name} needs a value (${entry.spec.type})` });
      continue;
    }
    // Shorthands: a cluster like -hv2 is read one letter at a time, as pflag does.
    let rest = arg.slice(1);
    while (rest !== "") {
      const letter = rest[0] as string;
      rest = rest.slice(1);
      const entry = catalog.byShort.get(`-${letter}`);
      if (!entry) {
        const long = catalog.byName.get(normalize(`-${arg}`)) ? ` (did you mean -${arg}?)` : "";
        findings.push({ severity: "error", option: arg, rule: KNOWN, message: `unknown shorthand -${letter} in ${arg}${long}` });
        break;
      }
      if (takesNoValue(entry)) {
        if (rest.startsWith("=")) {
          record(entry, `-${letter}`, rest.slice(1), true, i);
          rest = "";
        } else record(entry, `-${letter}`, "true", false, i);
      } else if (rest !== "") {
        record(entry, `-${letter}`, rest.startsWith("=") ? rest.slice(1) : rest, true, i);
        rest = "";
      } else if (i + 1 < argv.length) {
        record(entry, `-${letter}`, argv[i + 1] as string, true, i);
        i += 1;
      } else findings.push({ severity: "error", option: entry.realName, rule: KNOWN, message: `-${letter} needs a value (${entry.spec.type})` });
    }
  }

  const byName = new Map<string, Occurrence[]>();
  for (const occ of occurrences) byName.set(occ.entry.realName, [...(byName.get(occ.entry.realName) ?? []), occ]);
  return { daemon, catalog, occurrences, byName, findings };
}

/** A command line copied from a unit file starts with the program; drop it when it is this daemon's. */
export function withoutProgramName(daemon: Daemon, argv: readonly string[]): readonly string[] {
  const first = argv[0];
  if (first === undefined || first.startsWith("-")) return argv;
  const base = first.split("/").pop();
  return base === catalogs[daemon].binary ? argv.slice(1) : argv;
}

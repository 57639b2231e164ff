/**
 * Reads a daemon's argument list the way Go's pflag does, so the checker and the emulated
 * daemons see what the daemon would see: `--name=value` and `--name value`; booleans (and
 * --version, --help) take a value only after `=`, so `--leader-elect false` leaves "false" as
 * a stray argument; short forms `-v 2`, `-v=2`, `-v2`; `_` and `-` are the same in names; `--`
 * ends the options. Each value is read as its kind (parse-value.ts). pflag stops at the first
 * problem; this reader goes on, to report them all. It says what is wrong, not which doc3
 * rule that breaks: that is the checker's word.
 */
import { type CatalogEntry, catalogs, DAEMON_NAMES, type Daemon, type DaemonCatalog } from "../catalog/index.js";
import { closest } from "../values/closest.js";
import { parseGoBool } from "../values/go-scalars.js";
import { parseProblem } from "./parse-value.js";

export interface Occurrence {
  readonly entry: CatalogEntry;
  /** The option as written (`--leader_elect`, `-v`, or doc3's neutral spelling). */
  readonly written: string;
  readonly value: string;
  /** Whether the value was written (`--flag=x`, `--flag x`) rather than implied (`--flag` for booleans). */
  readonly explicit: boolean;
  /** Position in the argument list. */
  readonly index: number;
  /** Why the value cannot be read as the option's kind; undefined when it can. */
  readonly problem?: string;
}

/**
 * What makes a real daemon's flag parsing fail: an unknown option (doc3's neutral spelling of
 * a real one included), bad flag syntax, a stray argument, a missing value, a value that
 * cannot be read as its kind.
 */
export type OptionProblemKind = "unknown" | "doc3-spelling" | "syntax" | "stray" | "needs-value" | "value";

export interface OptionProblem {
  readonly kind: OptionProblemKind;
  /** The option as a real daemon names it, or the argument as written when it names none. */
  readonly option: string;
  readonly message: string;
  /** Position in the argument list. */
  readonly index: number;
}

export interface CommandLine {
  readonly daemon: Daemon;
  readonly catalog: DaemonCatalog;
  readonly occurrences: readonly Occurrence[];
  /** Occurrences by real long name, in command-line order. */
  readonly byName: ReadonlyMap<string, readonly Occurrence[]>;
  /** Unknown options, missing values, stray arguments; values that do not parse are on their occurrences. */
  readonly problems: readonly OptionProblem[];
}

const takesNoValue = (entry: CatalogEntry): boolean => ["bool", "help", "version"].includes(entry.spec.kind);
const normalize = (name: string): string => name.replace(/_/g, "-");

export function readCommandLine(daemon: Daemon, argv: readonly string[]): CommandLine {
  const catalog = catalogs[daemon];
  const other = catalogs[daemon === "controller-manager" ? "node-agent" : "controller-manager"];
  const occurrences: Occurrence[] = [];
  const problems: OptionProblem[] = [];
  const binary = catalog.binary;
  let lastValueless: Occurrence | undefined;

  const record = (entry: CatalogEntry, written: string, value: string, explicit: boolean, index: number): void => {
    const occ = { entry, written, value, explicit, index, problem: parseProblem(daemon, entry.spec, value) };
    occurrences.push(occ);
    lastValueless = takesNoValue(entry) && !explicit ? occ : undefined;
  };

  const stray = (arg: string, index: number): void => {
    const hint =
      lastValueless && parseGoBool(arg).ok
        ? `; ${lastValueless.entry.realName} is a boolean and takes its value only after "=": write ${lastValueless.entry.realName}=${arg}`
        : "";
    problems.push({ kind: "stray", option: arg, index, message: `stray argument "${arg}": ${binary} takes no positional arguments${hint}` });
    lastValueless = undefined;
  };

  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "") continue;
    if (arg === "--") {
      argv.forEach((rest, j) => {
        if (j > i && rest !== "") stray(rest, j);
      });
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      stray(arg, i);
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = normalize(eq < 0 ? arg : arg.slice(0, eq));
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      if (name === "--" || name.startsWith("---")) {
        problems.push({ kind: "syntax", option: arg, index: i, message: `bad flag syntax: ${arg}` });
        continue;
      }
      let entry = catalog.byName.get(name);
      if (!entry) {
        const neutral = catalog.byDoc3Name.get(name);
        if (neutral) {
          problems.push({
            kind: "doc3-spelling",
            option: neutral.realName,
            index: i,
            message: `${name} is doc3's neutral spelling; ${binary} knows this option only as ${neutral.realName} and refuses to start on ${name}`,
          });
          entry = neutral;
        }
      }
      if (!entry) {
        const elsewhere = other.byName.get(name);
        const guess = closest(name, catalog.byName.keys());
        const why = elsewhere
          ? `${name} is a ${DAEMON_NAMES[other.daemon]} option, not a ${DAEMON_NAMES[daemon]} one`
          : guess
            ? `unknown option ${name}; did you mean ${guess}?`
            : `unknown option ${name}`;
        problems.push({ kind: "unknown", option: name, index: i, message: `${why} (${binary} refuses to start on it)` });
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
      } else problems.push({ kind: "needs-value", option: entry.realName, index: i, message: `${name} needs a value (${entry.spec.type})` });
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
        problems.push({ kind: "unknown", option: arg, index: i, message: `unknown shorthand -${letter} in ${arg}${long}` });
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
      } else problems.push({ kind: "needs-value", option: entry.realName, index: i, message: `-${letter} needs a value (${entry.spec.type})` });
    }
  }

  const byName = new Map<string, Occurrence[]>();
  for (const occ of occurrences) byName.set(occ.entry.realName, [...(byName.get(occ.entry.realName) ?? []), occ]);
  return { daemon, catalog, occurrences, byName, problems };
}

/**
 * Everything on which a real daemon's flag parsing fails, in command-line order: the reader's
 * problems and every value that cannot be read as its kind.
 */
export function refusals(line: CommandLine): OptionProblem[] {
  const values = line.occurrences.flatMap((o): OptionProblem[] =>
    o.problem === undefined ? [] : [{ kind: "value", option: o.entry.realName, index: o.index, message: `${o.written}=${o.value}: ${o.problem}` }],
  );
  return [...line.problems, ...values].sort((a, b) => a.index - b.index);
}

/** A command line copied from a unit file starts with the program; drop it when it is this daemon's. */
export function withoutProgramName(daemon: Daemon, argv: readonly string[]): readonly string[] {
  const first = argv[0];
  if (first === undefined || first.startsWith("-")) return argv;
  const base = first.split("/").pop();
  return base === catalogs[daemon].binary ? argv.slice(1) : argv;
}

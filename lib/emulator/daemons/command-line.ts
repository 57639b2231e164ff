/**
 * An emulated daemon is configured the way a real one is: by its command line, read through
 * the option model (lib/daemons/options), never through the checker that the suites use as
 * their oracle, so that a checker bug can show when the suites run against the emulator.
 * What stops a real daemon's flag parsing (an unknown option, a stray argument, a missing
 * value, a value that cannot be read as its kind) stops the emulated one too, with one line
 * naming the first problem; the option view is then where the emulated options take their
 * values from. What a real daemon refuses only later, when it validates its configuration (a
 * renew deadline not below the lease duration, image GC thresholds in the wrong order), the
 * emulated one runs with: that is for `tollgate flags check` to report.
 */
import { DAEMON_NAMES, type Daemon } from "../../daemons/catalog/index.js";
import { type OptionProblem, readCommandLine, refusals, withoutProgramName } from "../../daemons/options/command-line.js";
import { OptionView } from "../../daemons/options/view.js";

/** A command line a real daemon would not start with. The message is one line: the first problem and how many more. */
export class DaemonCommandLineError extends Error {
  constructor(
    readonly daemon: Daemon,
    readonly problems: readonly OptionProblem[],
  ) {
    const first = problems[0] as OptionProblem;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more error${problems.length > 2 ? "s" : ""})` : "";
    super(`emulated ${DAEMON_NAMES[daemon]} refuses its command line: ${first.option}: ${first.message}${more}`.replace(/\s*\n\s*/g, " "));
    this.name = "DaemonCommandLineError";
  }
}

export interface DaemonCommandLine {
  /** The arguments, without a leading program name. */
  readonly args: readonly string[];
  readonly view: OptionView;
}

/** Reads `argv` as the daemon's command line; throws DaemonCommandLineError where a real daemon's flag parsing fails. */
export function readDaemonCommandLine(daemon: Daemon, argv: readonly string[]): DaemonCommandLine {
  const args = withoutProgramName(daemon, argv);
  const line = readCommandLine(daemon, args);
  const problems = refusals(line);
  if (problems.length > 0) throw new DaemonCommandLineError(daemon, problems);
  // It reads no --config file: what a real node agent would take from one is doc3's default here.
  return { args, view: new OptionView(line, "doc3-defaults") };
}

/** A value an emulated daemon reads: the line has parsed and the option has a doc3 default, so there is one. */
export function present<T>(value: T | undefined, option: string): T {
  if (value === undefined) throw new Error(`emulation bug: ${option} has neither a value nor a doc3 default`);
  return value;
}

/**
 * An emulated daemon is configured the way a real one is: by its command line. The line goes
 * through the same checker as `tollgate flags check`; an error there is what would stop the
 * real daemon, so it stops the emulated one too, with one line naming the finding. What the
 * checker reads (OptionView) is then where the emulated options take their values from.
 */
import type { Daemon } from "../../daemons/catalog/index.js";
import { analyze, checkFlags } from "../../daemons/checker/index.js";
import type { OptionView } from "../../daemons/options/view.js";
import { withoutProgramName } from "../../daemons/options/command-line.js";
import type { Finding } from "../../daemons/checker/findings.js";

const NAME: Record<Daemon, string> = { "controller-manager": "controller manager", "node-agent": "node agent" };

/** A command line the checker finds an error in. The message is one line: the first error and how many more. */
export class DaemonCommandLineError extends Error {
  constructor(
    readonly daemon: Daemon,
    readonly findings: readonly Finding[],
  ) {
    const errors = findings.filter((f) => f.severity === "error");
    const first = errors[0] as Finding;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length > 2 ? "s" : ""})` : "";
    super(`emulated ${NAME[daemon]} refuses its command line: ${first.option}: ${first.message} [${first.rule}]${more}`.replace(/\s*\n\s*/g, " "));
    this.name = "DaemonCommandLineError";
  }
}

export interface CheckedCommandLine {
  /** The arguments, without a leading program name. */
  readonly args: readonly string[];
  /** The checker's findings that did not stop the daemon (warnings and notes). */
  readonly findings: readonly Finding[];
  readonly view: OptionView;
}

/** Checks `argv` as the daemon's command line; throws DaemonCommandLineError on any error finding. */
export function checkCommandLine(daemon: Daemon, argv: readonly string[]): CheckedCommandLine {
  const args = withoutProgramName(daemon, argv);
  const findings = checkFlags(daemon, args);
  if (findings.some((f) => f.severity === "error")) throw new DaemonCommandLineError(daemon, findings);
  return { args, findings, view: analyze(daemon, args).view };
}

/**
 * Property tests of a run share one seed (`tollgate run --seed N`; printed at the start of every
 * run and kept in summary.json), so a failure found once is found again. A failure's first line
 * names the seed and the shrunk counterexample, since that line is what the reports show; the
 * same facts travel as fields (PropertyFailure) into summary.json and the reports.
 */
import fc from "fast-check";
import { inject } from "vitest";
import { PropertyFailure } from "../../lib/runner/evidence.js";

export interface PropertyOptions {
  numRuns: number;
  /** Stop generating (and shrinking) after this long; what was found by then is reported. */
  timeLimitMs?: number;
  /** The seed: the run's (`tollgate run --seed N`) unless given; given only by the helper's own tests. */
  seed?: number;
}

export async function assertProperty<Ts>(property: fc.IRawProperty<Ts>, opts: PropertyOptions): Promise<void> {
  const seed = opts.seed ?? inject("tollgate").seed;
  const details = await fc.check(property, {
    seed,
    numRuns: opts.numRuns,
    ...(opts.timeLimitMs ? { interruptAfterTimeLimit: opts.timeLimitMs, markInterruptAsFailure: false } : {}),
  });
  if (details.failed) throw propertyFailure(details, seed);
}

/** The error for a failed fast-check run under `seed`. */
export function propertyFailure<Ts>(details: fc.RunDetails<Ts>, seed: number): PropertyFailure {
  const counterexample = fc.stringify(details.counterexample);
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const first = `property failed after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s); seed ${seed} (repeat with --seed ${seed}, path ${details.counterexamplePath ?? "?"}): ${cause.split("\n")[0] ?? ""}`;
  return new PropertyFailure(
    `${first}\ncounterexample: ${counterexample}\n${cause}`,
    { seed, ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}), counterexample, runs: details.numRuns, shrinks: details.numShrinks },
    { cause: details.errorInstance },
  );
}

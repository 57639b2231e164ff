/**
 * Property tests of a run share one seed (`tollgate run --seed N`; printed at the start of every
 * run and kept in summary.json), so a failure found once is found again. A failure's first line
 * names the seed and the shrunk counterexample, since that line is what the reports show.
 */
import fc from "fast-check";
import { inject } from "vitest";

export interface PropertyOptions {
  numRuns: number;
  /** Stop generating (and shrinking) after this long; what was found by then is reported. */
  timeLimitMs?: number;
}

export async function assertProperty<Ts>(property: fc.IRawProperty<Ts>, opts: PropertyOptions): Promise<void> {
  const seed = inject("tollgate").seed;
  const details = await fc.check(property, { seed, numRuns: opts.numRuns, ...(opts.timeLimitMs ? { interruptAfterTimeLimit: opts.timeLimitMs, markInterruptAsFailure: false } : {}) });
  if (!details.failed) return;
  const counterexample = fc.stringify(details.counterexample);
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const first = `property failed after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s); seed ${seed} (repeat with --seed ${seed}, path ${details.counterexamplePath ?? "?"}): ${cause.split("\n")[0] ?? ""}`;
  throw new Error(`${first}\ncounterexample: ${counterexample}\n${cause}`, { cause: details.errorInstance });
}

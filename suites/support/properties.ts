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
  const bounded = opts.timeLimitMs ? startingBefore(property, Date.now() + opts.timeLimitMs) : property;
  const details = await fc.check(bounded, { seed, numRuns: opts.numRuns });
  if (details.failed) throw propertyFailure(details, seed);
}

/**
 * The property, with no case (nor shrinking step) started after `deadline`: later ones end the
 * check as interrupted. Not fast-check's interruptAfterTimeLimit, which races the case under way
 * and abandons it — its requests and watches then go on unseen, and a target slow enough that
 * the first case outlasts the limit (a real cluster at a client's 5 requests a second) was
 * reported as a failure with no counterexample. Here every case that starts runs to its end
 * (bounded by its own request timeouts), so the first always does, and a stop is never a verdict.
 */
function startingBefore<Ts>(property: fc.IRawProperty<Ts>, deadline: number): fc.IRawProperty<Ts> {
  const late = (): boolean => Date.now() >= deadline;
  const bounded: fc.IRawProperty<Ts, boolean> = {
    isAsync: () => property.isAsync(),
    generate: (mrng, runId) => property.generate(mrng, runId),
    shrink: (value) => property.shrink(value),
    run: (v) => {
      if (!late()) return property.run(v);
      const stop = new fc.PreconditionFailure(true);
      return property.isAsync() ? Promise.resolve(stop) : stop;
    },
    runBeforeEach: () => property.runBeforeEach(),
    runAfterEach: () => property.runAfterEach(),
  };
  return bounded as fc.IRawProperty<Ts>;
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

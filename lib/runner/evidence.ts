/**
 * What a failed property test carries besides its message: the run's seed, fast-check's path to
 * the counterexample and the counterexample itself, as fields the reports can show and a
 * script can read, not only as text in the message.
 */

export interface PropertyEvidence {
  /** The run's property seed: `tollgate run --seed N` repeats it. */
  seed: number;
  /** fast-check's replay path of the shrunk counterexample. */
  path?: string;
  /** The shrunk counterexample, as fast-check prints it. */
  counterexample: string;
  /** Inputs tried before the failure, and shrink steps after it. */
  runs: number;
  shrinks: number;
}

/** The error assertProperty throws (suites/support/properties.ts); lib/runner/declare.ts copies its evidence into the test's meta. */
export class PropertyFailure extends Error {
  constructor(
    message: string,
    readonly property: PropertyEvidence,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "PropertyFailure";
  }
}

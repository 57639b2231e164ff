/** A failed property names its seed and counterexample in its first line and carries them as fields for the reports. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PropertyFailure } from "../../lib/runner/evidence.js";
import { propertyFailure } from "../../suites/support/properties.js";

describe("property failures", () => {
  it("carry the seed, replay path and shrunk counterexample as fields, and in the message", async () => {
    const details = await fc.check(
      fc.property(fc.integer({ min: 0, max: 1000 }), (n) => {
        if (n >= 10) throw new Error(`expected ${n} to be below 10`);
      }),
      { seed: 1234, numRuns: 200 },
    );
    const e = propertyFailure(details, 1234);
    expect(e).toBeInstanceOf(PropertyFailure);
    expect(e.property).toMatchObject({
      seed: 1234,
      counterexample: "[10]",
      path: details.counterexamplePath,
      runs: details.numRuns,
      shrinks: details.numShrinks,
    });
    expect(e.message.split("\n")[0]).toMatch(
      /^property failed after \d+ run\(s\), shrunk \d+ time\(s\); seed 1234 \(repeat with --seed 1234, path [0-9:]+\): expected 10 to be below 10$/,
    );
    expect(e.message).toContain("\ncounterexample: [10]\n");
  });
});

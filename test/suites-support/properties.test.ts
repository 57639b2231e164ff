/** A failed property names its seed and counterexample in its first line and carries them as fields for the reports. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PropertyFailure } from "../../lib/runner/evidence.js";
import { assertProperty, propertyFailure } from "../../suites/support/properties.js";

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
    expect(e.cause).toBe(details.errorInstance);
  });

  it("assertProperty runs numRuns cases under the seed, and throws the failure", async () => {
    let runs = 0;
    await assertProperty(
      fc.property(fc.integer(), () => {
        runs += 1;
      }),
      { numRuns: 7, seed: 42 },
    );
    expect(runs).toBe(7);
    const failing = fc.property(fc.integer({ min: 0, max: 1000 }), (n) => n < 10);
    const e = await assertProperty(failing, { numRuns: 200, seed: 42 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PropertyFailure);
    expect((e as PropertyFailure).property).toMatchObject({ seed: 42, counterexample: "[10]" });
  });

  it("assertProperty stops at the time limit without failing", async () => {
    let runs = 0;
    const slow = fc.asyncProperty(fc.integer(), async () => {
      runs += 1;
      await new Promise((r) => setTimeout(r, 20));
    });
    const started = Date.now();
    await assertProperty(slow, { numRuns: 1000, timeLimitMs: 200, seed: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(runs).toBeGreaterThan(0);
    expect(runs).toBeLessThan(1000);
  });

  it("assertProperty lets a case that outlasts the limit finish, and does not fail for it (a slow target is not a wrong one)", async () => {
    let finished = 0;
    const slowFirst = fc.asyncProperty(fc.integer(), async () => {
      await new Promise((r) => setTimeout(r, 150));
      finished += 1;
    });
    await assertProperty(slowFirst, { numRuns: 5, timeLimitMs: 50, seed: 3 });
    // The first case ran to its end before the check returned; none started after the limit.
    expect(finished).toBe(1);
  });

  it("assertProperty still fails, with the counterexample shrunk so far, when the limit stops the shrinking", async () => {
    const slowFailing = fc.asyncProperty(fc.integer({ min: 0, max: 1_000_000 }), async (n) => {
      await new Promise((r) => setTimeout(r, 5));
      if (n >= 10) throw new Error(`expected ${n} to be below 10`);
    });
    const e = await assertProperty(slowFailing, { numRuns: 100, timeLimitMs: 60, seed: 9 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PropertyFailure);
    expect(Number(JSON.parse((e as PropertyFailure).property.counterexample)[0])).toBeGreaterThanOrEqual(10);
  });
});

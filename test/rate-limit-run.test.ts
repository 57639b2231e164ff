/**
 * The rate-limit suite through the real CLI against an emulator with an in-flight limit of 2,
 * where a burst meets API Priority and Fairness's 429 (the embedded emulator has no limit, so
 * the check is not applicable there).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, maxRequestsInFlight: 2 });
});
afterAll(async () => {
  await emulator.close();
});

describe("the rate-limit suite against a limited emulator", () => {
  it("passes, with the rate-limit rule checked", { timeout: 120_000 }, async () => {
    const { code, output, summary, status } = await runSuiteViaCli(emulator.url, "suites/rate-limit");
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    expect(status("doc1.limits.rate-limit"), output).toBe("passed");
  });
});

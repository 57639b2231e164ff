/**
 * Two suites that need an emulator started otherwise than the embedded one, through the real CLI
 * in one run (a run costs about 10 s of CPU, nearly all of it fixed):
 * - --thorough: the emulator has no admin endpoint (as a real cluster) and keeps its history
 *   for 3 seconds; the history-expiry suite waits for the target to compact on its own and then
 *   checks the 410 rules, which without --thorough are not applicable.
 * - the rate-limit suite: the emulator has an in-flight limit of 2, where a burst meets API
 *   Priority and Fairness's 429 (the embedded emulator has no limit, so the check is not
 *   applicable there).
 * The limit only makes the history-expiry suite wait for its turn (the client retries a 429),
 * and the short history changes nothing the rate-limit suite looks at.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, retentionMs: 3_000, maxRequestsInFlight: 2 });
});
afterAll(async () => {
  await emulator.close();
});

const RULES = [
  "doc1.list-rv.exact-unavailable-410",
  "doc1.errors.410-expired-continue",
  "doc1.list-rv.continuation-unavailable-410",
  "doc1.watch-events.gone-410",
  "doc1.errors.410-history-gone",
];

describe("--thorough, and the rate-limit suite against a limited emulator", () => {
  it("waits for the target's own compaction and checks the 410 rules; the rate-limit suite passes with its rule checked", { timeout: 150_000 }, async () => {
    const run = await runSuiteViaCli(emulator.url, "suites/history-expiry", ["--suite", "suites/rate-limit", "--thorough", "--thorough-minutes", "1"]);
    expect(run.code, run.output).toBe(0);
    expect(run.summary.totals.tests.failed, run.output).toBe(0);
    expect(run.summary.capabilities["thorough"]).toMatchObject({ available: true });
    for (const id of RULES) expect(run.status(id), `${id}\n${run.output}`).toBe("passed");
    expect(run.output).toMatch(/--thorough: some tests wait up to 1 minutes/);
    expect(run.status("doc1.limits.rate-limit"), run.output).toBe("passed");
  });
});

/**
 * --thorough through the real CLI: against an emulator without the admin endpoint (as a real
 * cluster) whose history is kept for 3 seconds, the history-expiry suite waits for the target to
 * compact on its own and then checks the 410 rules, which without --thorough are not applicable.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, retentionMs: 3_000 });
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

describe("--thorough", () => {
  it("waits for the target's own compaction and checks the 410 rules", { timeout: 150_000 }, async () => {
    const thorough = await runSuiteViaCli(emulator.url, "suites/history-expiry", ["--thorough", "--thorough-minutes", "1"]);
    expect(thorough.code, thorough.output).toBe(0);
    expect(thorough.summary.capabilities["thorough"]).toMatchObject({ available: true });
    for (const id of RULES) expect(thorough.status(id), `${id}\n${thorough.output}`).toBe("passed");
    expect(thorough.output).toMatch(/--thorough: some tests wait up to 1 minutes/);
  });
});

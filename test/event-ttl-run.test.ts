/**
 * The event TTL check (suites/events/ttl) needs the admin clock and permission to advance it,
 * which the embedded run does not give (it would age history under the other suites). This
 * runs that suite alone through the real CLI against a dedicated emulator with the admin
 * endpoint on and TOLLGATE_ALLOW_CLOCK_ADVANCE=1 (the CLI child inherits this process's env).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, admin: true });
});
afterAll(async () => {
  await emulator.close();
});

describe("the event TTL suite against a dedicated emulator", () => {
  it("passes doc2.service.retention-limited when clock advance is allowed", { timeout: 120_000 }, async () => {
    const before = process.env["TOLLGATE_ALLOW_CLOCK_ADVANCE"];
    process.env["TOLLGATE_ALLOW_CLOCK_ADVANCE"] = "1";
    let run: Awaited<ReturnType<typeof runSuiteViaCli>>;
    try {
      run = await runSuiteViaCli(emulator.url, "suites/events/ttl");
    } finally {
      if (before === undefined) delete process.env["TOLLGATE_ALLOW_CLOCK_ADVANCE"];
      else process.env["TOLLGATE_ALLOW_CLOCK_ADVANCE"] = before;
    }
    const { code, output, summary, status } = run;
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    expect(status("doc2.service.retention-limited"), output).toBe("passed");
  });
});

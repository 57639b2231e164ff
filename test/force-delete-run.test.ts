/**
 * The embedded run covers AllowUnsafeMalformedObjectDeletion's 1.35 default (off); this runs the
 * force-delete suite through the real CLI against an emulator with the gate on and its admin
 * endpoint (which can make an object corrupt), where every gated check applies; with
 * authentication on, the auth suite runs too, so the second verb a forced delete needs is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  // Auth on, so the auth suite's forced-delete authorization check applies too.
  emulator = await startEmulator({ port: 0, admin: true, auth: true, featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
});
afterAll(async () => {
  await emulator.close();
});

describe("the force-delete suite with the AllowUnsafeMalformedObjectDeletion gate on", () => {
  it("passes, with every gated rule checked", { timeout: 120_000 }, async () => {
    const { code, output, summary, status } = await runSuiteViaCli(emulator.url, "suites/force-delete", ["--suite", "suites/auth", `--token=${emulator.adminToken ?? ""}`]);
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    // Only the gate-off check does not apply: the gate is on.
    expect(summary.tests.filter((t) => t.state === "not-applicable").map((t) => t.name), output).toEqual([expect.stringMatching(/AllowUnsafeMalformedObjectDeletion off/)]);
    for (const id of [
      "doc1.delete-options.force-needs-gate",
      "doc1.delete-options.force-excludes-others",
      "doc1.deletion.force-corrupt-removes",
      "doc1.deletion.force-normal-first",
      "doc1.deletion.force-skips-finalizers-preconditions",
      "doc1.deletion.force-readable-aborts",
      "doc1.versioning.cap-unsafe-force-delete",
      "doc1.auth.force-delete-verbs",
      "doc1.deletion.force-authz-both-verbs",
    ]) {
      expect(status(id), id).toBe("passed");
    }
  });
});

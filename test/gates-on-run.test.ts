/**
 * The embedded run covers the 1.35 defaults of the alpha gates (off). This runs the suites of
 * both gated features through the real CLI against one emulator with CBORServingAndStorage and
 * AllowUnsafeMalformedObjectDeletion on, its admin endpoint (which can make an object corrupt)
 * and authentication (so the auth suite checks the second verb a forced delete needs): every
 * gated check applies, and the "off" checks do not. The Event round trip runs with them, so
 * Events also go through CBOR bodies, reads and watches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, admin: true, auth: true, featureGates: { CBORServingAndStorage: true, AllowUnsafeMalformedObjectDeletion: true } });
});
afterAll(async () => {
  await emulator.close();
});

describe("the gated suites with the alpha gates on", () => {
  it("pass, with the CBOR and force-delete rules checked and their off checks not applicable", { timeout: 150_000 }, async () => {
    const { code, output, summary, status } = await runSuiteViaCli(emulator.url, "suites/encodings", [
      "--suite",
      "suites/events/round-trip",
      "--suite",
      "suites/force-delete",
      "--suite",
      "suites/auth",
      `--token=${emulator.adminToken ?? ""}`,
    ]);
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    expect(summary.capabilities["cbor"]).toMatchObject({ available: true });
    expect(summary.capabilities["force-delete"]).toMatchObject({ available: true });
    for (const id of [
      "doc1.media.cbor",
      "doc1.media.cbor-seq-watch",
      "doc1.media.apply-patch-cbor",
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
    const roundTrips = summary.tests.filter((t) => t.file.includes("round-trip"));
    expect(
      roundTrips.map((t) => t.state),
      "the Event round trip ran too, its CBOR checks included",
    ).toEqual(["passed", "passed", "passed", "passed"]);
    // Only the gates' off checks do not apply.
    const notApplicable = summary.tests.filter((t) => t.state === "not-applicable").map((t) => t.name);
    expect(notApplicable, output).toHaveLength(2);
    expect(
      notApplicable.find((n) => /AllowUnsafeMalformedObjectDeletion off/.test(n)),
      notApplicable.join("; "),
    ).toBeDefined();
    expect(
      notApplicable.find((n) => /with CBOR off/.test(n)),
      notApplicable.join("; "),
    ).toBeDefined();
    expect(status("doc1.media.cbor-off-406")).toBe("not-applicable");
  });
});

/**
 * issue 4's "with CBOR on and with CBOR off": the embedded run covers the 1.35 default (off);
 * this runs the encodings suite through the real CLI against an emulator with the
 * CBORServingAndStorage gate on, where the CBOR checks apply and the "off" checks do not; the
 * Event round trip runs with it, so Events also go through CBOR bodies, reads and watches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../lib/emulator/index.js";
import { runSuiteViaCli } from "./support/run-suite.js";

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, featureGates: { CBORServingAndStorage: true } });
});
afterAll(async () => {
  await emulator.close();
});

describe("the encodings suite with the CBOR gate on", () => {
  it("passes, with the CBOR rules checked and the CBOR-off rules not applicable", { timeout: 120_000 }, async () => {
    const { code, output, summary, status } = await runSuiteViaCli(emulator.url, "suites/encodings", ["--suite", "suites/events/round-trip"]);
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    for (const id of ["doc1.media.cbor", "doc1.media.cbor-seq-watch", "doc1.media.apply-patch-cbor"]) expect(status(id), id).toBe("passed");
    const roundTrips = summary.tests.filter((t) => t.file.includes("round-trip"));
    expect(roundTrips.map((t) => t.state), "the Event round trip ran too, its CBOR checks included").toEqual(["passed", "passed", "passed", "passed"]);
    expect(status("doc1.media.cbor-off-406")).toBe("not-applicable");
    expect(summary.capabilities["cbor"]).toMatchObject({ available: true });
  });
});

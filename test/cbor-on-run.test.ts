/**
 * issue 4's "with CBOR on and with CBOR off": the embedded run covers the 1.35 default (off);
 * this runs the encodings suite through the real CLI against an emulator with the
 * CBORServingAndStorage gate on, where the CBOR checks apply and the "off" checks do not.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../lib/emulator/index.js";
import type { Summary } from "../lib/report/summary.js";

const BIN = resolve(import.meta.dirname, "../bin/tollgate.js");
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, featureGates: { CBORServingAndStorage: true } });
});
afterAll(async () => {
  await emulator.close();
});

describe("the encodings suite with the CBOR gate on", () => {
  it("passes, with the CBOR rules checked and the CBOR-off rules not applicable", { timeout: 120_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), "tollgate-cbor-"));
    const child = spawn(process.execPath, [BIN, "run", "--target", emulator.url, "--suite", "suites/encodings", "--no-html", "--output", out], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    const status = (id: string): string | undefined => summary.rules.find((r) => r.id === id)?.status;
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    for (const id of ["doc1.media.cbor", "doc1.media.cbor-seq-watch", "doc1.media.apply-patch-cbor"]) expect(status(id), id).toBe("passed");
    expect(status("doc1.media.cbor-off-406")).toBe("skipped");
  });
});

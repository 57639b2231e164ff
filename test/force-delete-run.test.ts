/**
 * The embedded run covers AllowUnsafeMalformedObjectDeletion's 1.35 default (off); this runs the
 * force-delete suite through the real CLI against an emulator with the gate on and its admin
 * endpoint (which can make an object corrupt), where every gated check applies.
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
  emulator = await startEmulator({ port: 0, admin: true, featureGates: { AllowUnsafeMalformedObjectDeletion: true } });
});
afterAll(async () => {
  await emulator.close();
});

describe("the force-delete suite with the AllowUnsafeMalformedObjectDeletion gate on", () => {
  it("passes, with every gated rule checked", { timeout: 120_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), "tollgate-force-"));
    const child = spawn(process.execPath, [BIN, "run", "--target", emulator.url, "--suite", "suites/force-delete", "--no-html", "--output", out], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    const status = (id: string): string | undefined => summary.rules.find((r) => r.id === id)?.status;
    expect(code, output).toBe(0);
    expect(summary.totals.tests.failed, output).toBe(0);
    expect(summary.totals.tests.skipped, output).toBe(0);
    for (const id of [
      "doc1.delete-options.force-needs-gate",
      "doc1.delete-options.force-excludes-others",
      "doc1.deletion.force-corrupt-removes",
      "doc1.deletion.force-normal-first",
      "doc1.deletion.force-skips-finalizers-preconditions",
      "doc1.deletion.force-readable-aborts",
      "doc1.versioning.cap-unsafe-force-delete",
    ]) {
      expect(status(id), id).toBe("passed");
    }
  });
});

/**
 * A sample of the self-test (`npm run selftest` runs every fault): one fault of each mode,
 * through the real CLI, each caught: `tollgate run` exits 1 with the fault's rules failed.
 * The clean emulator passing every suite is the conformance project of npm test itself.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SelftestResult } from "../../lib/faults/selftest.js";
import { tollgate } from "../support/run-suite.js";

const SAMPLE = ["conflict-as-500", "cm-pprof-missing", "event-drops-regarding", "checker-without-agent-options-system-reserved-resources"];

describe("the self-test, a sample", () => {
  it("catches one fault of each mode", { timeout: 180_000 }, async () => {
    const out = join(process.env.TMPDIR ?? "/tmp", `tollgate-selftest-${process.pid}`);
    const { code, stdout, stderr } = await tollgate(["selftest", "--no-clean", "--jobs", "2", "--output", out, ...SAMPLE.flatMap((f) => ["--fault", f])]);
    const result = JSON.parse(readFileSync(join(out, "selftest.json"), "utf8")) as SelftestResult;
    expect(result.faults.map((f) => [f.name, f.caught]).sort(), stdout + stderr).toEqual(SAMPLE.map((n) => [n, true]).sort());
    expect(new Set(result.faults.map((f) => f.mode))).toEqual(new Set(["emulator", "daemons", "wire", "checker"]));
    expect(code, stdout + stderr).toBe(0);
  });
});

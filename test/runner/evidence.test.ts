/** The runner's side of a failure's evidence: what a test body's failure leaves in its task meta. */
import type { TaskMeta, TestContext } from "vitest";
import { describe, expect, it } from "vitest";
import { recordExchange } from "../../lib/harness/exchanges.js";
import { withEvidence } from "../../lib/runner/declare.js";
import { PropertyFailure } from "../../lib/runner/evidence.js";

function fakeContext(): { ctx: Pick<TestContext, "task" | "onTestFailed">; meta: TaskMeta; fail: () => void } {
  const meta: TaskMeta = {};
  const handlers: (() => void)[] = [];
  const ctx = { task: { meta } as unknown as TestContext["task"], onTestFailed: (h: () => void) => void handlers.push(h) } as unknown as Pick<
    TestContext,
    "task" | "onTestFailed"
  >;
  // vitest calls the onTestFailed handlers when the test failed, by a throw or by its timeout.
  return {
    ctx,
    meta,
    fail: () => {
      for (const h of handlers) h();
    },
  };
}

const exchange = (path: string) => recordExchange({ method: "GET", path, status: 200, headers: { "content-type": "application/json" }, text: "{}" });

describe("withEvidence", () => {
  it("a failure carries the exchanges of this test only, and a property's seed and counterexample", async () => {
    const { ctx, meta, fail } = fakeContext();
    exchange("/before-the-test");
    const property = { seed: 1, counterexample: "[0]", runs: 1, shrinks: 0 };
    await expect(
      withEvidence(async () => {
        exchange("/first");
        exchange("/second");
        throw new PropertyFailure("property failed; seed 1", property);
      }, ctx),
    ).rejects.toThrow("property failed; seed 1");
    fail();
    expect(meta.exchanges?.map((e) => e.path)).toEqual(["/first", "/second"]);
    expect(meta.property).toEqual(property);
  });

  it("a passing test leaves no evidence; any other error no property", async () => {
    const passed = fakeContext();
    await withEvidence(() => void exchange("/x"), passed.ctx);
    expect(passed.meta).toEqual({});
    const failed = fakeContext();
    await expect(withEvidence(() => Promise.reject(new Error("expected 1 to be 2")), failed.ctx)).rejects.toThrow();
    failed.fail();
    expect(failed.meta).toEqual({ exchanges: [] });
  });
});

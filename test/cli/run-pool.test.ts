import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { RUN_POOL } from "../../lib/cli/run.js";

describe("tollgate run's worker pool (issue #18)", () => {
  it("reuses each worker thread and its modules across suite files, with two workers more than cores", () => {
    // A new thread per file compiled vitest, undici and lib/ again: half the run's CPU.
    expect(RUN_POOL).toEqual({ isolate: false, maxWorkers: availableParallelism() + 2 });
  });
});

import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { compiledGlobalSetup, RUN_POOL } from "../../lib/cli/run.js";
import { COMPILED, globalSetupFile } from "../../vitest.config.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("tollgate run's worker pool (issue #18)", () => {
  it("reuses each worker thread and its modules across suite files, with two workers more than cores", () => {
    // A new thread per file compiled vitest, undici and lib/ again: half the run's CPU.
    expect(RUN_POOL).toEqual({ isolate: false, maxWorkers: availableParallelism() + 2 });
  });
});

describe("tollgate run's global setup from the compiled CLI (issue #18)", () => {
  it("names the compiled copy beside the compiled CLI, and nothing from the sources", () => {
    expect(compiledGlobalSetup(pathToFileURL(join(ROOT, "dist/lib/cli/run.js")).href)).toBe(join(ROOT, "dist/lib/runner/global-setup.js"));
    // From the sources (tsx) the config keeps its TypeScript setup: dist/ may be stale then.
    expect(compiledGlobalSetup(pathToFileURL(join(ROOT, "lib/cli/run.ts")).href)).toBeUndefined();
  });

  it("is the file vitest.config.ts gives both conformance projects, and Node (not vite) imports it", () => {
    expect(globalSetupFile({})).toBe("lib/runner/global-setup.ts");
    expect(globalSetupFile({ TOLLGATE_GLOBAL_SETUP: "/x/dist/lib/runner/global-setup.js" })).toBe("/x/dist/lib/runner/global-setup.js");
    // vitest externalizes what server.deps.external matches: the project's dist/ only.
    expect(COMPILED.test(join(ROOT, "dist/lib/runner/global-setup.js"))).toBe(true);
    expect(COMPILED.test(join(ROOT, "dist/fixtures/daemons/pki.js"))).toBe(true);
    expect(COMPILED.test(join(ROOT, "lib/runner/global-setup.ts"))).toBe(false);
    expect(COMPILED.test(join(ROOT, "node_modules/vitest/dist/index.js"))).toBe(false);
    expect(COMPILED.test(`/elsewhere${join(ROOT, "dist/lib/x.js")}`)).toBe(false);
  });
});

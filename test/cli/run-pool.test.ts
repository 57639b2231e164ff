import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { compiledGlobalSetup, RUN_POOL } from "../../lib/cli/run.js";
import { COMPILED, COMPILED_LIBRARY, compiledCopy, globalSetupFile, projectPlugins, usesCompiled } from "../../vitest.config.js";

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
    expect(globalSetupFile({}, () => false)).toBe("lib/runner/global-setup.ts");
    expect(globalSetupFile({ TOLLGATE_GLOBAL_SETUP: "/x/dist/lib/runner/global-setup.js" })).toBe("/x/dist/lib/runner/global-setup.js");
    // vitest externalizes what server.deps.external matches: the project's dist/ only.
    expect(COMPILED.test(join(ROOT, "dist/lib/runner/global-setup.js"))).toBe(true);
    expect(COMPILED.test(join(ROOT, "dist/fixtures/daemons/pki.js"))).toBe(true);
    expect(COMPILED.test(join(ROOT, "lib/runner/global-setup.ts"))).toBe(false);
    expect(COMPILED.test(join(ROOT, "node_modules/vitest/dist/index.js"))).toBe(false);
    expect(COMPILED.test(`/elsewhere${join(ROOT, "dist/lib/x.js")}`)).toBe(false);
  });
});

describe("the tests import lib/ and fixtures/ from dist/ where it is current (issue #18)", () => {
  it("maps a module of lib/ or fixtures/ to its compiled copy, and nothing else", () => {
    expect(compiledCopy(join(ROOT, "lib/harness/client.ts"))).toBe(join(ROOT, "dist/lib/harness/client.js"));
    expect(compiledCopy(join(ROOT, "fixtures/daemons/pki.ts"))).toBe(join(ROOT, "dist/fixtures/daemons/pki.js"));
    expect(compiledCopy(join(ROOT, "suites/crud.test.ts"))).toBeUndefined();
    expect(compiledCopy(join(ROOT, "suites/support/conformance.ts"))).toBeUndefined();
    expect(compiledCopy(join(ROOT, "node_modules/x/lib/y.ts"))).toBeUndefined();
    expect(compiledCopy(join(ROOT, "lib/project-root.ts?raw"))).toBeUndefined();
    expect(compiledCopy(`/elsewhere/lib/x.ts`)).toBeUndefined();
  });

  it("in a compiled run, and in npm test while dist/ is current; else (and with TOLLGATE_FROM_SOURCE=1) the sources", () => {
    const run = { TOLLGATE_GLOBAL_SETUP: join(ROOT, "dist/lib/runner/global-setup.js") };
    expect(usesCompiled(run, () => false)).toBe(true);
    expect(usesCompiled({}, () => true)).toBe(true);
    expect(usesCompiled({}, () => false)).toBe(false);
    expect(usesCompiled({ TOLLGATE_FROM_SOURCE: "1" }, () => true)).toBe(false);
    // The global setup follows: compiled from dist/, or the sources through Vite.
    expect(globalSetupFile({}, () => true)).toBe(join(ROOT, "dist/lib/runner/global-setup.js"));
    expect(globalSetupFile({ TOLLGATE_FROM_SOURCE: "1" }, () => true)).toBe("lib/runner/global-setup.ts");
    // Only a project that takes the compiled library lists it: Vite's module cache keys hold the plugins' names.
    expect(projectPlugins(true).map((p) => p.name)).toEqual(["tollgate-module-cache-scope", "tollgate-compiled-library"]);
    expect(projectPlugins(false).map((p) => p.name)).toEqual(["tollgate-module-cache-scope"]);
  });

  it("resolves a relative import as Vite would, then gives the compiled copy; bare and external imports are left alone", async () => {
    type Resolve = (source: string, importer: string | undefined, options: object) => Promise<{ id: string; external?: boolean } | null>;
    const asked: string[] = [];
    const context = (result: { id: string; external?: boolean } | null) => ({
      resolve: (async (source) => {
        asked.push(source);
        return result;
      }) as Resolve,
    });
    const hook = COMPILED_LIBRARY.resolveId as unknown as (this: { resolve: Resolve }, s: string, i: string | undefined, o: object) => Promise<unknown>;
    const suite = join(ROOT, "suites/crud.test.ts");
    expect(await hook.call(context({ id: join(ROOT, "lib/harness/client.ts") }), "../lib/harness/client.js", suite, {})).toBe(
      join(ROOT, "dist/lib/harness/client.js"),
    );
    expect(await hook.call(context({ id: join(ROOT, "suites/support/conformance.ts") }), "./support/conformance.js", suite, {})).toBeNull();
    const external = { id: "node:fs", external: true };
    expect(await hook.call(context(external), "/x/y.js", suite, {})).toBe(external);
    expect(await hook.call(context({ id: join(ROOT, "lib/x.ts") }), "vitest", suite, {})).toBeNull();
    expect(await hook.call(context({ id: join(ROOT, "lib/x.ts") }), "../lib/x.js", undefined, {})).toBeNull();
    expect(asked).toEqual(["../lib/harness/client.js", "./support/conformance.js", "/x/y.js"]);
  });
});

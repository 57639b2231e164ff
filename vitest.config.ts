import { accessSync, constants, mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { compiledIsCurrent } from "./scripts/compiled-is-current.js";

/**
 * The longest files (most drive the real CLI, a child vitest per run), longest first as measured
 * on a quiet 2-core machine: started late, one of them leaves a core idle at the end (the
 * self-test sample, 19 s, used to start after two thirds of the run). Then every other file in
 * vitest's order (longest first by its cache of durations where it has one, else largest first).
 */
const LONGEST_FIRST = [
  "test/cli/stop-run.test.ts",
  "test/emulator/daemons/suite-fails.test.ts",
  "test/release-gate-run.test.ts",
  "test/etcd/replicas-faults.test.ts",
  "test/faults/selftest-sample.test.ts",
  "test/fuzz/fuzz.test.ts",
  "test/cli/credentials-run.test.ts",
  "test/gates-on-run.test.ts",
  "test/thorough-run.test.ts",
  "test/cli/cli.test.ts",
  "test/etcd/replicas-run.test.ts",
  "test/etcd/leader-election.test.ts",
  "suites/bookmarks.test.ts",
  "suites/dry-run.test.ts",
  "test/emulator/hardening-watch.test.ts",
  "test/cli/kubectl-workflows.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = LONGEST_FIRST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    // Stable: files of equal rank (all but the listed) keep vitest's order.
    return sorted
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map(({ f }) => f);
  }
}

interface RunnerModules {
  getModuleById(id: string): { meta?: { code?: unknown } } | undefined;
  getModuleSourceMapById(id: string): unknown;
}

/**
 * vitest 4.1.12's ServerModuleRunner (the main process's, which runs the global setup) reads a
 * module from the disk cache with `readFile(tmp)` and no encoding: its code is a Buffer, and
 * Vite's stack-trace mapping then throws (`code.charCodeAt is not a function`, at the first
 * error whose stack is printed). The module still runs (its code is only ever joined into a
 * string); the mapping gets the code as a string here. False when the runner is not as expected.
 */
function mapWithStringCode(runner: unknown): boolean {
  const modules = (runner as { evaluatedModules?: Partial<RunnerModules> } | undefined)?.evaluatedModules;
  if (typeof modules?.getModuleById !== "function" || typeof modules.getModuleSourceMapById !== "function") return false;
  const { getModuleById, getModuleSourceMapById } = modules as RunnerModules;
  modules.getModuleSourceMapById = function (this: RunnerModules, id: string) {
    const meta = getModuleById.call(this, id)?.meta;
    if (meta && typeof meta.code === "object" && meta.code !== null) meta.code = String(meta.code);
    return getModuleSourceMapById.call(this, id);
  };
  return true;
}

/** The environments whose runner maps stacks with the code as a string (above). */
const MAPPED = new WeakSet<object>();

/**
 * Transformed modules are kept on disk (experimental.fsModuleCache, keyed by each file's content,
 * id and Vite's configuration), so the many `tollgate run`s of one `npm test` and the suites'
 * workers transform lib/ once: the Vite transforms were most of a one-suite run's CPU. The global
 * setup's environment (__vitest__) takes part only where its runner could be mended (above).
 */
const MODULE_CACHE_SCOPE: Plugin = {
  name: "tollgate-module-cache-scope",
  configureVitest({ project, experimental_defineCacheKeyGenerator }) {
    const runner = (project as unknown as { runner?: { environment?: object } }).runner;
    if (runner?.environment && mapWithStringCode(runner)) MAPPED.add(runner.environment);
    experimental_defineCacheKeyGenerator(({ environment }) => (environment.name === "__vitest__" && !MAPPED.has(environment) ? false : undefined));
  },
};

/** In the checkout; where it cannot be written (an installed copy read-only), no disk cache. */
const MODULE_CACHE_DIR = join(import.meta.dirname, ".vitest-cache", "modules");
function writableDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const ROOT = import.meta.dirname;

/** The compiled copy is imported by Node, not inlined by vite (vitest externalizes what this matches). */
export const COMPILED = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/dist/`);

/** The compiled copy of a module of lib/ or fixtures/ (`resolved`: its source's absolute path), else undefined. */
export function compiledCopy(resolved: string, root: string = ROOT): string | undefined {
  const path = relative(root, resolved);
  return /^(lib|fixtures)\/[^?]+\.ts$/.test(path) ? join(root, "dist", path.replace(/\.ts$/, ".js")) : undefined;
}

/**
 * A relative import of lib/ or fixtures/ goes to the compiled copy: Node loads it as it is
 * (COMPILED is external), where Vite would transform it again for each worker. In a fresh clone,
 * as on CI, nothing is in Vite's module cache yet, and npm test's workers and runs each transformed
 * the same modules at once (about 0.7 s of CPU more per run than with the cache warm).
 */
export const COMPILED_LIBRARY: Plugin = {
  name: "tollgate-compiled-library",
  enforce: "pre",
  async resolveId(source, importer, options) {
    if (!importer || !(source.startsWith(".") || source.startsWith("/"))) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    if (!resolved || resolved.external) return resolved;
    return compiledCopy(resolved.id) ?? null;
  },
};

/**
 * Whether the tests take lib/ and fixtures/ from dist/: in a compiled `tollgate run` (it names its
 * compiled global setup, TOLLGATE_GLOBAL_SETUP), and in npm test while dist/ is current, as
 * bin/tollgate.js decides (TOLLGATE_FROM_SOURCE=1 keeps the sources, as there).
 */
export function usesCompiled(env: NodeJS.ProcessEnv = process.env, current = () => compiledIsCurrent(ROOT)): boolean {
  if (env.TOLLGATE_GLOBAL_SETUP !== undefined) return true;
  return env.TOLLGATE_FROM_SOURCE !== "1" && current();
}

/**
 * The conformance projects' global setup. Compiled (lib/cli/run.ts names it, or dist/ is
 * current), Node imports it and its graph (the harness, detection, and in an embedded run the
 * emulator and its daemons) natively, where vite's module runner would fetch, look up in the module
 * cache and evaluate each of about 50–250 modules again (issue #18: about a sixth of an embedded
 * run's CPU), and the CLI and its global setup share one copy of lib/.
 */
export function globalSetupFile(env: NodeJS.ProcessEnv = process.env, current = () => compiledIsCurrent(ROOT)): string {
  return env.TOLLGATE_GLOBAL_SETUP ?? (usesCompiled(env, current) ? join(ROOT, "dist", "lib", "runner", "global-setup.js") : "lib/runner/global-setup.ts");
}

/** A project's plugins: the compiled library only where it is used, so Vite's module cache keys differ between the two ways. */
export function projectPlugins(compiled: boolean): Plugin[] {
  return compiled ? [MODULE_CACHE_SCOPE, COMPILED_LIBRARY] : [MODULE_CACHE_SCOPE];
}
const COMPILED_NOW = usesCompiled();
const GLOBAL_SETUP = globalSetupFile(process.env, () => COMPILED_NOW);
const PLUGINS = projectPlugins(COMPILED_NOW);

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    experimental: { fsModuleCache: writableDir(MODULE_CACHE_DIR), fsModuleCachePath: MODULE_CACHE_DIR },
    // vitest's default leaves one core free; on the 2-core CI machines that means one worker,
    // while most test time is waiting on HTTP and on child runs: with a worker per core the cores
    // were busy about half the time. Two more than cores: with one more, files waiting on child
    // runs and signals still left the cores short (2 cores: 118-125 s against 133-146 s,
    // docs/performance.md); with three more the fuzz file's 4 s answer bound was missed once.
    maxWorkers: availableParallelism() + 2,
    projects: [
      {
        plugins: PLUGINS,
        test: {
          name: "unit",
          server: { deps: { external: [COMPILED] } },
          include: ["test/**/*.test.ts"],
          // A worker evaluates the modules once for all its files instead of once per file: more than
          // half the unit tests' CPU went into re-importing. Unit tests keep no state across files.
          isolate: false,
          testTimeout: 20_000,
        },
      },
      {
        plugins: PLUGINS,
        test: {
          name: "conformance",
          include: ["suites/**/*.test.ts"],
          // Worker threads, reused across files with their modules (as `tollgate run` does, lib/cli/run.ts
          // RUN_POOL): a new thread per file loaded vitest, undici and lib/ again, about half the suites' CPU.
          // A suite keeps its state in its own file and in its namespaces on the target.
          pool: "threads",
          isolate: false,
          exclude: ["suites/exclusive/**"],
          globalSetup: [GLOBAL_SETUP],
          server: { deps: { external: [COMPILED] } },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // The serial phase: tests that change the whole target (compacting its history, moving its
        // clock) run one file at a time after every other suite, so they cannot age anyone's versions.
        // Same global setup: the two projects share one target and one detection (lib/runner/global-setup.ts).
        plugins: PLUGINS,
        test: {
          name: "conformance-exclusive",
          include: ["suites/exclusive/**/*.test.ts"],
          pool: "threads",
          isolate: false,
          globalSetup: [GLOBAL_SETUP],
          server: { deps: { external: [COMPILED] } },
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});

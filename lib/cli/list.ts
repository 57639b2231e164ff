/**
 * `tollgate run --list`: what a run would run, each test with its rule ids and needs, from
 * vitest's collection alone. The global setup provides collect-only settings (no target is
 * resolved or contacted, lib/runner/global-setup.ts); --suite, --focus, --skip and
 * --rerun-failed narrow the list as they would narrow the run.
 */
import { relative } from "node:path";
import { createVitest } from "vitest/node";
import "../report/task-meta.js";
import { ENV } from "../runner/settings.js";
import { UsageError } from "./usage.js";

export interface ListOptions {
  root: string;
  config: string;
  projects: string[];
  suites: string[];
}

/**
 * Collecting runs no test: a file's collection is its imports and its describe/it calls, a few
 * milliseconds once the modules are loaded. One worker thread, which keeps its modules for every
 * file, collects all of them in about the wall time that three did, at about 60 % of the CPU
 * (issue #18: each thread compiled and loaded vitest, undici and lib/ again).
 */
export const LIST_POOL = { isolate: false, maxWorkers: 1 } as const;

export async function listTests(o: ListOptions): Promise<number> {
  process.env[ENV.collectOnly] = "1";
  const vitest = await createVitest("test", { config: o.config, root: o.root, project: o.projects, watch: false, reporters: [], ...LIST_POOL });
  try {
    if (o.suites.length > 0 && (await vitest.getRelevantTestSpecifications(o.suites)).length === 0)
      throw new UsageError(`--suite ${o.suites.join(", ")}: no suite file matches`);
    const { testModules, unhandledErrors } = await vitest.collect(o.suites);
    let broken = 0;
    let count = 0;
    let leftOut = 0;
    const files = new Set<string>();
    const rules = new Set<string>();
    const ordered = [...testModules].sort(
      (a, b) => o.projects.indexOf(a.project.name) - o.projects.indexOf(b.project.name) || a.moduleId.localeCompare(b.moduleId),
    );
    for (const mod of ordered) {
      const file = relative(o.root, mod.moduleId);
      for (const e of mod.errors()) {
        broken += 1;
        console.log(`${file}: cannot be loaded: ${e.message.split("\n")[0]}`);
      }
      const lines: string[] = [];
      for (const test of mod.children.allTests()) {
        const meta = test.meta();
        if (meta.deselected) {
          leftOut += 1;
          continue;
        }
        count += 1;
        for (const id of meta.rules ?? []) rules.add(id);
        const needs = meta.needs?.length ? `  needs: ${meta.needs.join(", ")}` : "";
        lines.push(`  ${test.fullName}\n      rules: ${(meta.rules ?? []).join(", ")}${needs}`);
      }
      if (lines.length === 0) continue;
      files.add(file);
      console.log(`${file}${mod.project.name === "conformance-exclusive" ? "  (serial phase)" : ""}`);
      for (const l of lines) console.log(l);
    }
    for (const e of unhandledErrors) {
      broken += 1;
      console.log(`error: ${(e as { message?: string }).message?.split("\n")[0] ?? String(e)}`);
    }
    console.log(`tollgate: ${count} test(s) in ${files.size} file(s), naming ${rules.size} rule(s)${leftOut ? `; ${leftOut} left out by the selection` : ""}`);
    if (broken > 0) return 1;
    // A selection that takes nothing is a mistake in the command line, as in a run.
    return count === 0 && leftOut > 0 ? 2 : 0;
  } finally {
    await vitest.close();
    delete process.env[ENV.collectOnly];
  }
}

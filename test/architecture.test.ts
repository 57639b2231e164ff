/**
 * The design's boundary: suites and emulator meet only over HTTP. Follows relative imports
 * from every suite file (transitively) and from every emulator file, and fails on a crossing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((e) => {
    const full = join(dir, e);
    return statSync(full).isDirectory() ? tsFiles(full) : full.endsWith(".ts") ? [full] : [];
  });
}

function relativeImports(file: string): string[] {
  const src = readFileSync(file, "utf8");
  const specs = [...src.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1] as string);
  return specs.map((s) => resolve(dirname(file), s.replace(/\.js$/, ".ts")));
}

function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length) {
    const f = stack.pop() as string;
    if (seen.has(f) || !existsSync(f)) continue;
    seen.add(f);
    stack.push(...relativeImports(f));
  }
  return seen;
}

const under = (f: string, dir: string): boolean => !relative(join(ROOT, dir), f).startsWith("..");

describe("architecture", () => {
  it("no suite reaches the emulator through its imports", () => {
    const reached = [...reachable(tsFiles(join(ROOT, "suites")))].filter((f) => under(f, "lib/emulator"));
    expect(reached.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it("the emulator reaches neither the suites, the harness, the fixtures nor the runner", () => {
    const reached = [...reachable(tsFiles(join(ROOT, "lib/emulator")))].filter((f) =>
      ["suites", "lib/harness", "fixtures", "lib/runner", "lib/report"].some((d) => under(f, d)),
    );
    expect(reached.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it("the import scan sees relative imports (so the checks above can fail)", () => {
    const fromHarness = reachable([join(ROOT, "lib/harness/session.ts")]);
    expect(fromHarness.has(join(ROOT, "lib/harness/client.ts"))).toBe(true);
  });
});

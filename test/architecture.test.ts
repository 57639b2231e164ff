/**
 * The design's boundary: suites and emulator meet only over HTTP. Follows relative imports
 * from every suite file (transitively) and from every emulator file, and fails on a crossing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

  it("the emulator reaches neither the suites, the harness, the fixtures, the runner nor the fault catalog", () => {
    // The emulator owns its failpoints (lib/emulator/failpoints.ts); the catalog names them, never the other way.
    const reached = [...reachable(tsFiles(join(ROOT, "lib/emulator")))].filter((f) =>
      ["suites", "lib/harness", "fixtures", "lib/runner", "lib/report", "lib/faults"].some((d) => under(f, d)),
    );
    expect(reached.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it("the import scan sees relative imports (so the checks above can fail)", () => {
    const fromHarness = reachable([join(ROOT, "lib/harness/session.ts")]);
    expect(fromHarness.has(join(ROOT, "lib/harness/client.ts"))).toBe(true);
  });
});

/**
 * No import cycles anywhere in lib/, type-only imports included: a cycle makes modules load in an
 * order nobody chose and ties layers together. Biome's noImportCycles (biome.json) finds them.
 */
describe("no import cycles", () => {
  const BIOME = join(ROOT, "node_modules", ".bin", "biome");
  const cycles = (cwd: string, paths: string[]): string => {
    try {
      execFileSync(BIOME, ["lint", "--only=suspicious/noImportCycles", "--max-diagnostics=50", "--colors=off", ...paths], {
        cwd,
        encoding: "utf8",
        stdio: "pipe",
      });
      return "";
    } catch (e) {
      const { stdout = "", stderr = "" } = e as { stdout?: string; stderr?: string };
      return `${stdout}${stderr}`;
    }
  };

  it("lib/ has none", { timeout: 60_000 }, () => {
    expect(cycles(ROOT, ["lib"])).toBe("");
  });

  it("the check finds a cycle of two type-only imports (so the check above can fail)", { timeout: 60_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-cycle-"));
    try {
      writeFileSync(join(dir, "biome.json"), readFileSync(join(ROOT, "biome.json"), "utf8").replace(/"includes":\s*\[[^\]]*\]/, '"includes": ["**"]'));
      writeFileSync(join(dir, "a.ts"), 'import type { B } from "./b.ts";\nexport interface A { b?: B }\n');
      writeFileSync(join(dir, "b.ts"), 'import type { A } from "./a.ts";\nexport interface B { a?: A }\n');
      expect(cycles(dir, ["."])).toMatch(/noImportCycles/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The flag checker is the daemon suites' oracle; the emulated daemons read their command lines
 * through the option model it shares with them (lib/daemons/options), so that a checker bug
 * shows when the suites run against the emulator instead of being mirrored by it.
 */
describe("the emulated daemons and the flag checker", () => {
  const CHECKER = join("lib", "daemons", "checker");
  /** What the emulator may use of lib/daemons: the option model, the catalogs, the value parsers, and two helpers the probes share. */
  const SHARED = ["options", "catalog", "values", "controllers.ts", "sni.ts"].map((p) => join("lib", "daemons", p));
  const rel = (f: string): string => relative(ROOT, f);
  const reachedUnder = (entries: string[], dir: string): string[] =>
    [...reachable(entries)]
      .filter((f) => under(f, dir))
      .map(rel)
      .sort();
  const emulatorFiles = tsFiles(join(ROOT, "lib/emulator"));

  it("lib/emulator, its daemons included, never reaches the checker through its imports", () => {
    expect(emulatorFiles.some((f) => under(f, "lib/emulator/daemons"))).toBe(true);
    expect(reachedUnder(emulatorFiles, CHECKER)).toEqual([]);
  });

  it("what lib/emulator reaches in lib/daemons is the option model, the catalogs and shared value helpers", () => {
    const reached = reachedUnder(emulatorFiles, join("lib", "daemons"));
    expect(reached).toContain(join("lib", "daemons", "options", "command-line.ts"));
    expect(reached.filter((f) => !SHARED.some((s) => f === s || under(join(ROOT, f), s)))).toEqual([]);
  });

  it("the checker never reaches lib/emulator", () => {
    const checkerFiles = tsFiles(join(ROOT, CHECKER));
    expect(checkerFiles.map(rel)).toContain(join(CHECKER, "index.ts"));
    expect(reachedUnder(checkerFiles, "lib/emulator")).toEqual([]);
  });

  it("the scan sees such crossings (so the checks above can fail)", () => {
    // `tollgate emulator` runs the checker beside the emulator: from there both are reached.
    const cli = [join(ROOT, "lib/cli/emulator.ts")];
    expect(reachedUnder(cli, CHECKER)).toContain(join(CHECKER, "index.ts"));
    expect(reachedUnder(cli, "lib/emulator")).toContain(join("lib", "emulator", "daemons", "command-line.ts"));
    // A type-only import counts: the emulated node agent's view of its options.
    expect(relativeImports(join(ROOT, "lib/emulator/daemons/node-agent.ts"))).toContain(join(ROOT, "lib/daemons/options/view.ts"));
  });
});

/**
 * The verdict contract (suites/README.md): only the runner decides that a test does not apply,
 * from its declared needs; a test body neither skips nor swallows what a watch stream threw, and
 * no check holds whatever the target answers.
 */
describe("verdicts are earned", () => {
  const files = [...tsFiles(join(ROOT, "suites")), ...tsFiles(join(ROOT, "lib"))];
  const source = (f: string): string => readFileSync(f, "utf8");
  const rel = (f: string): string => relative(ROOT, f);

  it("nothing skips a test but the runner's declared-needs path", () => {
    const skipping = files.filter(
      (f) => rel(f) !== join("lib", "runner", "declare.ts") && /\bctx\.skip\(|\.skip\(|\bskipIf\(|\brunIf\(|\btodo\(/.test(source(f)),
    );
    expect(skipping.map(rel)).toEqual([]);
  });

  it("no suite swallows an error with .catch(() => undefined), a watch stream's least of all", () => {
    const swallowing = tsFiles(join(ROOT, "suites")).filter((f) => /\.catch\(\s*\(\)\s*=>\s*(undefined|\{\s*\}|null)\s*\)/.test(source(f)));
    expect(swallowing.map(rel)).toEqual([]);
  });

  it("no always-true predicate in the suites, the daemon probes or the detection", () => {
    const dirs = ["suites", join("lib", "daemons"), join("lib", "runner")].map((d) => join(ROOT, d));
    // `(x) => true` as a predicate, or a probe result that is ok whatever was answered.
    const probeFiles = new Set(["probes.ts", "client-certs.ts", "agent-pods.ts"].map((f) => join(ROOT, "lib", "daemons", f)));
    const found = dirs.flatMap(tsFiles).flatMap((f) =>
      source(f)
        .split("\n")
        .map((line, i) => ({ f, line, i }))
        .filter(({ line }) => /\(\s*[a-zA-Z_]*\s*\)\s*=>\s*true\b/.test(line) || (probeFiles.has(f) && /\bok:\s*true\b/.test(line))),
    );
    expect(found.map(({ f, i, line }) => `${rel(f)}:${i + 1}: ${line.trim()}`)).toEqual([]);
  });
});

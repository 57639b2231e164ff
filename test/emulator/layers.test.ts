/**
 * The emulator's layers (lib/emulator/README.md), checked on the imports: apimachinery sees no
 * layer above it; storage sees neither the registry nor anything above it; the registry sees
 * neither the endpoints nor admission nor auth, types included (auth implements interfaces the
 * registry defines); the filters do not see the endpoints; none of them sees the entry point
 * (index.ts, options.ts); only the endpoints handle the
 * HTTP request and response objects; and a strategy is compared by identity only inside its
 * own resource folder (elsewhere the strategy's facts are read).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const EMULATOR = resolve(import.meta.dirname, "../../lib/emulator");

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const full = join(dir, e);
    return statSync(full).isDirectory() ? tsFiles(full) : full.endsWith(".ts") ? [full] : [];
  });
}

const files = tsFiles(EMULATOR);
const source = (f: string): string => readFileSync(f, "utf8");
const layerOf = (f: string): string => relative(EMULATOR, f).split("/")[0] ?? "";
/** The entry point at the top of lib/emulator: no layer imports it. */
const ENTRY = ["index.ts", "index.js", "options.ts", "options.js"];

/** Every relative import and re-export, `import type` included, as emulator-relative paths. */
function imports(file: string): string[] {
  const specs = [...source(file).matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1] as string);
  return specs.map((s) => relative(EMULATOR, resolve(dirname(file), s)));
}

function crossings(from: string, forbidden: readonly string[]): string[] {
  return files
    .filter((f) => layerOf(f) === from)
    .flatMap((f) =>
      imports(f)
        .filter((i) => forbidden.includes(i.split("/")[0] ?? ""))
        .map((i) => `${relative(EMULATOR, f)} -> ${i}`),
    );
}

describe("emulator layers", () => {
  it("the import scan sees type imports and re-exports", () => {
    const context = files.find((f) => f.endsWith(join("endpoints", "handlers", "context.ts")));
    expect(context && imports(context)).toContain("registry/generic/strategy.js");
  });

  it("apimachinery imports no layer above it", () => {
    expect(crossings("apimachinery", ["storage", "registry", "endpoints", "admission", "auth", "daemons", ...ENTRY])).toEqual([]);
  });

  it("storage imports neither the registry nor anything above it, types included", () => {
    expect(crossings("storage", ["registry", "endpoints", "admission", "auth", "daemons", ...ENTRY])).toEqual([]);
  });

  it("the registry imports neither the endpoints nor admission nor auth", () => {
    expect(crossings("registry", ["endpoints", "admission", "auth", "daemons", ...ENTRY])).toEqual([]);
  });

  it("the filters (admission, auth) do not import the endpoints they wrap", () => {
    expect([...crossings("admission", ["endpoints", "daemons", ...ENTRY]), ...crossings("auth", ["endpoints", "daemons", ...ENTRY])]).toEqual([]);
  });

  it("only the endpoints see the server's IncomingMessage and ServerResponse (the daemons are servers of their own)", () => {
    const http = files.filter(
      (f) => !["endpoints", "daemons"].includes(layerOf(f)) && /import[^;]*\b(?:IncomingMessage|ServerResponse)\b[^;]*from\s+"node:http"/.test(source(f)),
    );
    expect(http.map((f) => relative(EMULATOR, f))).toEqual([]);
  });

  it("a strategy is compared by identity only in its own resource folder", () => {
    const home = new Map<string, string>();
    for (const f of files.filter((f) => layerOf(f) === "registry")) {
      for (const m of source(f).matchAll(/export const (\w+Strategy)\b/g)) home.set(m[1] as string, dirname(f));
    }
    expect(home.has("namespaceStrategy")).toBe(true);
    const found = files.flatMap((f) =>
      [...source(f).matchAll(/(?:[=!]==\s*(\w+Strategy)\b)|(?:\b(\w+Strategy)\s*[=!]==)/g)]
        .map((m) => (m[1] ?? m[2]) as string)
        .filter((name) => home.has(name) && home.get(name) !== dirname(f))
        .map((name) => `${relative(EMULATOR, f)}: ${name}`),
    );
    expect(found).toEqual([]);
  });
});

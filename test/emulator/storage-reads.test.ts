/**
 * The storage layer on its own: it imports nothing above it (not even types), so the registry's
 * strategies reach it only through the narrow StoredType they satisfy.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
const STORAGE = join(ROOT, "lib", "emulator", "storage");
const ABOVE = ["registry", "endpoints", "admission", "auth", "daemons"].map((d) => join(ROOT, "lib", "emulator", d));

describe("storage layer", () => {
  it("imports neither the registry, the endpoints, admission, auth nor the daemons", () => {
    const crossings = readdirSync(STORAGE)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => {
        const source = readFileSync(join(STORAGE, f), "utf8");
        const specs = [...source.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1] as string);
        return specs
          .map((s) => resolve(STORAGE, s))
          .filter((target) => ABOVE.some((dir) => !relative(dir, target).startsWith("..")))
          .map((target) => `${f} -> ${relative(ROOT, target)}`);
      });
    expect(crossings).toEqual([]);
  });
});

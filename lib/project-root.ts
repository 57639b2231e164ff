/**
 * The project's root directory, wherever the running module lives: in the TypeScript sources,
 * or in the compiled copy under dist/ that bin/tollgate.js prefers (one level deeper). Paths
 * to the project's own files (suites, schemas, fixtures, package.json) are taken from here,
 * never from a module's own location.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    // dist/ holds neither: the compiled copy is of lib/ and fixtures/ only.
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "bin", "tollgate.js"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no tollgate project in or above ${from}`);
  }
}

export const PROJECT_ROOT: string = findRoot(dirname(fileURLToPath(import.meta.url)));

export const projectPath = (...parts: string[]): string => join(PROJECT_ROOT, ...parts);

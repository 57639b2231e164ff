// Whether dist/ holds the current lib/ and fixtures/: its stamp (written last by scripts/build.js)
// is newer than every .ts file under them. bin/tollgate.js runs the compiled CLI only then, and
// vitest.config.ts gives the unit tests the compiled modules only then: an edit is never run stale.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** @param {string} root the project's folder */
export function compiledIsCurrent(root) {
  let built;
  try {
    built = statSync(join(root, "dist", ".built")).mtimeMs;
  } catch {
    return false;
  }
  // A walk of its own: Node 20's readdirSync({ recursive }) took 30-40 ms here, this one 5-8.
  /** @param {string} dir */
  const newer = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() ? newer(path) : entry.name.endsWith(".ts") && statSync(path).mtimeMs > built) return true;
    }
    return false;
  };
  return !newer(join(root, "lib")) && !newer(join(root, "fixtures"));
}

// `npm run build` (and npm's prepare step, run by `npm ci` and `npm install`): lib/ and fixtures/
// compiled to dist/, then the stamp bin/tollgate.js compares the sources' times with.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit", cwd: root });
writeFileSync(join(dist, ".built"), `${new Date().toISOString()}\n`);

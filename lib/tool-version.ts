/** tollgate's own version, from package.json, for reports and `--version`. */
import { readFileSync } from "node:fs";
import { projectPath } from "./project-root.js";

const pkg = JSON.parse(readFileSync(projectPath("package.json"), "utf8")) as { version?: string };
export const toolVersion: string = pkg.version ?? "0.0.0";

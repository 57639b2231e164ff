/** tollgate's own version, from package.json, for reports and `--version`. */
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
export const toolVersion: string = pkg.version ?? "0.0.0";

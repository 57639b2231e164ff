/**
 * The kubectl the tests drive: the first on PATH (on these machines gcloud's dispatcher, which
 * runs its bundled kubectl matching the server's version), or undefined, said once per file.
 */
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

export function kubectlOnPath(file: string): string | undefined {
  const found = (process.env["PATH"] ?? "")
    .split(delimiter)
    .map((d) => join(d, "kubectl"))
    .find((p) => existsSync(p));
  if (!found) console.log(`${file}: skipped, no kubectl on PATH`);
  return found;
}

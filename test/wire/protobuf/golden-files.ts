/**
 * Where the upstream golden files are: ../shared/reference/k8s-api-testdata next to the
 * repository. They are read at run time and never copied into the repository; when the
 * folder is absent the golden tests are skipped with a printed reason.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(fileURLToPath(new URL("../../../", import.meta.url)));
export const GOLDEN_ROOT = path.resolve(REPO_ROOT, "../shared/reference/k8s-api-testdata");
export const GOLDEN_AVAILABLE = existsSync(path.join(GOLDEN_ROOT, "v1.35.0"));

export function warnIfMissing(what: string): void {
  if (!GOLDEN_AVAILABLE) console.warn(`${what}: skipped, golden folder ${GOLDEN_ROOT}/v1.35.0 not found`);
}

export interface GoldenCase {
  /** e.g. "v1.35.0/events.k8s.io.v1.Event" */
  readonly name: string;
  readonly version: string;
  /** e.g. "events.k8s.io.v1.Event" */
  readonly type: string;
  readonly jsonPath: string;
  readonly pbPath: string;
}

/** Every <type>.pb with its .json in v1.35.0, v1.34.0 and v1.33.0 (empty when the folder is absent). */
export function goldenCases(): GoldenCase[] {
  if (!GOLDEN_AVAILABLE) return [];
  const cases: GoldenCase[] = [];
  for (const version of ["v1.35.0", "v1.34.0", "v1.33.0"]) {
    const dir = path.join(GOLDEN_ROOT, version);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith(".pb")) continue;
      const type = file.slice(0, -3);
      cases.push({ name: `${version}/${type}`, version, type, pbPath: path.join(dir, file), jsonPath: path.join(dir, `${type}.json`) });
    }
  }
  return cases;
}

export function readPb(c: GoldenCase): Uint8Array {
  return new Uint8Array(readFileSync(c.pbPath));
}

export function readJson(c: GoldenCase): Record<string, unknown> {
  return JSON.parse(readFileSync(c.jsonPath, "utf8")) as Record<string, unknown>;
}

function hex(bytes: Uint8Array, from: number, to: number): string {
  return Array.from(bytes.subarray(Math.max(0, from), Math.min(bytes.length, to)), (b) => b.toString(16).padStart(2, "0")).join(" ");
}

/** null when equal, else a message with the first differing offset and a hex window of both. */
export function byteDifference(actual: Uint8Array, expected: Uint8Array): string | null {
  const n = Math.max(actual.length, expected.length);
  let at = -1;
  for (let i = 0; i < n; i++) {
    if (actual[i] !== expected[i]) {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const from = Math.max(0, at - 16);
  return [
    `bytes differ at offset ${at} (0x${at.toString(16)}); lengths actual ${actual.length}, expected ${expected.length}`,
    `window from offset ${from}:`,
    `  actual:   ${hex(actual, from, at + 16)}`,
    `  expected: ${hex(expected, from, at + 16)}`,
  ].join("\n");
}

/**
 * Which catalog rules the suites name. Read statically from the suite sources (every rule
 * id is a string literal in a `check(...)` call), so coverage is known without running
 * anything against a target. A client duty (`subject: "client"`) also counts as tested when
 * a unit test of tollgate's own client code names it (clientTestsDir, usually test/); other
 * rule ids in unit tests are test data and count for nothing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { Rule } from "./types.js";

const RULE_LITERAL = /["'`](doc[123](?:\.[a-z0-9]+(?:-[a-z0-9]+)*)+)["'`]/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.test\.ts$/.test(entry)) out.push(full);
  }
  return out;
}

export interface Coverage {
  /** rule id → suite files naming it */
  tested: Map<string, string[]>;
  untested: Rule[];
  /** ids named in suites that the catalog does not have */
  unknown: { id: string; file: string }[];
}

export function ruleIdsIn(source: string): string[] {
  return [...source.matchAll(RULE_LITERAL)].map((m) => m[1] as string);
}

export function computeCoverage(rules: readonly Rule[], suitesDir: string, root = process.cwd(), clientTestsDir?: string): Coverage {
  const known = new Set(rules.map((r) => r.id));
  const clientDuties = new Set(rules.filter((r) => r.subject === "client").map((r) => r.id));
  const tested = new Map<string, string[]>();
  const unknown: { id: string; file: string }[] = [];
  const add = (id: string, rel: string): void => void tested.set(id, [...(tested.get(id) ?? []), rel]);
  for (const file of sourceFiles(suitesDir)) {
    const rel = relative(root, file);
    for (const id of new Set(ruleIdsIn(readFileSync(file, "utf8")))) {
      if (!known.has(id)) unknown.push({ id, file: rel });
      else add(id, rel);
    }
  }
  if (clientTestsDir !== undefined) {
    for (const file of sourceFiles(clientTestsDir)) {
      const rel = relative(root, file);
      for (const id of new Set(ruleIdsIn(readFileSync(file, "utf8")))) if (clientDuties.has(id)) add(id, rel);
    }
  }
  return { tested, untested: rules.filter((r) => !tested.has(r.id)), unknown };
}

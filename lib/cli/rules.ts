/** `tollgate rules coverage`: the catalog rules no test declares yet (read from the tests' metadata, lib/spec/coverage.ts). */
import { join } from "node:path";
import { faultCoverage } from "../faults/coverage.js";
import { FAULTS } from "../faults/index.js";
import { PROJECT_ROOT } from "../project-root.js";
import { allRules } from "../spec/catalog.js";
import { computeCoverage } from "../spec/coverage.js";
import { parseOptions, UsageError } from "./usage.js";

const ROOT = PROJECT_ROOT;

export function rulesCommand(argv: string[]): number {
  const [sub, ...rest] = argv;
  if (sub === "faults") return faultsCommand(rest);
  if (sub !== "coverage") throw new UsageError(sub ? `unknown rules command "${sub}"` : "rules needs a command: coverage or faults");
  const { values } = parseOptions({
    args: rest,
    options: { doc: { type: "string" }, json: { type: "boolean", default: false } },
    allowPositionals: false,
  });
  const doc = values.doc as string | undefined;
  if (doc !== undefined && !["doc1", "doc2", "doc3"].includes(doc)) throw new UsageError(`--doc must be doc1, doc2 or doc3, not "${doc}"`);
  const rules = doc ? allRules.filter((r) => r.doc === doc) : allRules;
  const cov = computeCoverage(rules, join(ROOT, "suites"), ROOT, join(ROOT, "test"));
  const unknown = doc ? cov.unknown.filter((u) => u.id.startsWith(`${doc}.`)) : cov.unknown;
  if (values.json) {
    const unobservable = rules.filter((r) => r.unobservable !== undefined).map((r) => r.id);
    console.log(
      JSON.stringify(
        { total: rules.length, tested: cov.tested.size, untested: cov.untested.map((r) => r.id), unobservable, unknown, problems: cov.problems },
        null,
        2,
      ),
    );
  } else {
    let section = "";
    for (const r of cov.untested) {
      const head = `${r.doc} § ${r.section}`;
      if (head !== section) {
        console.log(`\n${head}`);
        section = head;
      }
      console.log(`  ${r.id}  [${r.level}]  ${r.title}`);
    }
    for (const u of unknown) console.log(`unknown rule id ${u.id} named in ${u.file}`);
    for (const p of cov.problems) console.log(`problem: ${p}`);
    const unobservable = rules.filter((r) => r.unobservable !== undefined).length;
    console.log(`\n${cov.untested.length} of ${rules.length} rules untested (${cov.tested.size} tested, ${unobservable} not observable from outside)`);
  }
  return unknown.length > 0 || cov.problems.length > 0 ? 1 : 0;
}

/** `tollgate rules faults`: the fault catalog, and the rules that need a fault and have none (exit 1 then). */
function faultsCommand(argv: string[]): number {
  const { values } = parseOptions({ args: argv, options: { json: { type: "boolean", default: false } }, allowPositionals: false });
  const cov = faultCoverage();
  if (values.json) {
    console.log(
      JSON.stringify(
        {
          faults: FAULTS.map((f) => ({ name: f.name, mode: f.mode, rules: f.rules, models: f.models, ...(f.reference ? { reference: f.reference } : {}) })),
          needed: cov.needed.length,
          covered: cov.needed.length - cov.missing.length,
          missing: cov.missing.map((r) => r.id),
        },
        null,
        2,
      ),
    );
  } else {
    for (const f of FAULTS)
      console.log(`${f.name}  [${f.mode}]  ${f.models}\n    breaks ${f.rules.join(", ")}${f.reference ? `\n    see ${f.reference}` : ""}`);
    for (const r of cov.missing) console.log(`no fault: ${r.id}  [${r.level}]  ${r.title}`);
    console.log(`\n${FAULTS.length} faults; ${cov.needed.length - cov.missing.length} of ${cov.needed.length} rules that need a fault have one`);
  }
  return cov.missing.length > 0 ? 1 : 0;
}

/**
 * `tollgate selftest [--fault NAME]... [--no-clean] [--jobs N] [--output DIR]`: the fault
 * catalog against the suites (lib/faults/selftest.ts). Exit 0 when every fault is caught and
 * the clean emulator passes, 1 otherwise.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { faultByName } from "../faults/index.js";
import { defaultSelftestDir, selftest, selftestTable } from "../faults/selftest.js";
import { parseOptions, UsageError } from "./usage.js";

export async function selftestCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions({
    args: argv,
    options: {
      fault: { type: "string", multiple: true },
      "no-clean": { type: "boolean", default: false },
      jobs: { type: "string" },
      output: { type: "string" },
      table: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  const faults = values.fault ?? [];
  for (const name of faults) if (!faultByName(name)) throw new UsageError(`--fault: no fault "${name}" (tollgate rules faults lists them)`);
  const jobs = values.jobs === undefined ? Math.max(1, availableParallelism()) : Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) throw new UsageError(`--jobs must be a whole number from 1 to 64, not "${values.jobs}"`);
  const outputDir = values.output ? resolve(values.output) : defaultSelftestDir();
  const result = await selftest({ faults, clean: !values["no-clean"], jobs, outputDir, onResult: (line) => console.log(line) });
  if (values.table) console.log(`\n${selftestTable(result)}`);
  const t = result.totals;
  const clean = result.clean ? `; clean emulator: ${result.clean.exit === 0 ? "passed" : `FAILED (exit ${result.clean.exit})`}` : "";
  console.log(
    `\nselftest: ${t.caught} of ${t.faults} faults caught, ${t.missed} missed, ${t.rulesCovered} rules proved able to fail${clean} (${t.seconds.toFixed(0)} s); ${outputDir}/selftest.json`,
  );
  return t.missed === 0 && (result.clean === undefined || result.clean.exit === 0) ? 0 : 1;
}

/**
 * `tollgate report compare|merge`: reports made from finished runs' summary.json files.
 *
 * compare BASE NEW [MORE...]: exit 1 when a rule that passed in BASE is failed or no longer
 * verified in a later run, 0 otherwise. merge DIR...: the shards of one run as one report;
 * exit 0 or 1 as `tollgate run` would have for the whole run. Both: 2 with one line for bad
 * input (a missing file, not a summary, an unknown schemaVersion, shards that do not make a run).
 */
import { cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { newRunId } from "../harness/session.js";
import { comparePage, compareSummaries } from "../report/compare.js";
import { junitXml } from "../report/junit.js";
import { mergeSummaries } from "../report/merge.js";
import { rulesPage } from "../report/rules-page.js";
import { readSummary } from "../report/schema.js";
import { allRules } from "../spec/catalog.js";
import { parseOptions, REPORT_HELP, UsageError } from "./usage.js";

export async function reportCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "compare":
      return compareCommand(rest);
    case "merge":
      return await mergeCommand(rest);
    case "--help":
    case "-h":
      console.log(REPORT_HELP);
      return 0;
    default:
      throw new UsageError(sub ? `unknown report command "${sub}" (compare, merge)` : "report needs a command: compare or merge");
  }
}

function compareCommand(args: string[]): number {
  const { values, positionals } = parseOptions({
    args,
    options: { output: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(REPORT_HELP);
    return 0;
  }
  if (positionals.length < 2) throw new UsageError("report compare needs BASE and NEW: report folders or summary.json files");
  const inputs = positionals.map((label) => ({ label, summary: readSummary(label) }));
  const comparison = compareSummaries(inputs);
  const outDir = resolve(values.output ?? join("reports", `compare-${newRunId()}`));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "compare.json"), `${JSON.stringify(comparison, null, 2)}\n`);
  writeFileSync(join(outDir, "compare.html"), comparePage(comparison));
  const changed = comparison.rules.filter((r) => r.changed).length;
  console.log(
    `tollgate: compared ${inputs.length} runs over ${comparison.rules.length} rules; ${changed} rule(s) differ; ${comparison.regressions.length} regression(s)`,
  );
  for (const r of comparison.regressions)
    console.log(`tollgate: regression: ${r.rule} passed in ${positionals[0]}, ${r.now} in ${r.label}${r.why[0] ? `: ${r.why[0]}` : ""}`);
  console.log(
    comparison.exit.code === 0 ? "tollgate: exit 0: no rule that passed in the base regressed" : `tollgate: exit 1: ${comparison.exit.reasons.join("; ")}`,
  );
  console.log(`tollgate: comparison written to ${outDir}`);
  return comparison.exit.code;
}

async function mergeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    options: { output: { type: "string" }, "no-html": { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(REPORT_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("report merge needs the report folders of a run's shards");
  const inputs = positionals.map((label) => ({ label, summary: readSummary(label) }));
  const merged = mergeSummaries(inputs, allRules);
  const outDir = resolve(values.output ?? join("reports", `merged-${newRunId()}`));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "summary.json"), `${JSON.stringify(merged, null, 2)}\n`);
  writeFileSync(join(outDir, "rules.html"), rulesPage(merged));
  writeFileSync(join(outDir, "junit.xml"), junitXml(merged));
  for (const note of merged.merged?.notes ?? []) console.log(`tollgate: note: ${note}`);
  if (!values["no-html"]) {
    // A shard keeps its allure-results (tollgate run --shard); the Allure report of the whole run is made from all of them.
    const results = positionals.map((p) => join(p, "allure-results"));
    const missing = results.filter((d) => !existsSync(d) || !statSync(d).isDirectory());
    if (missing.length > 0) {
      console.log(`tollgate: no Allure results in ${missing.join(", ")} (a run keeps them with --shard): index.html not written`);
    } else {
      const { writeHtmlReport } = await import("../report/html.js");
      const all = join(outDir, "allure-results");
      rmSync(all, { recursive: true, force: true });
      // Result files are named by uuid, so the shards' results do not collide; the run-wide files are the same in each.
      for (const d of results) cpSync(d, all, { recursive: true });
      writeHtmlReport(all, outDir, `tollgate conformance — ${merged.target.url} (${inputs.length} merged)`);
      rmSync(all, { recursive: true, force: true });
    }
  }
  const { verdictLines } = await import("./run.js");
  for (const line of verdictLines(merged)) console.log(line);
  console.log(`tollgate: merged report of ${inputs.length} run(s) written to ${outDir}`);
  return merged.exit.code;
}

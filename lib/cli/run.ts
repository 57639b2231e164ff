/**
 * `tollgate run`: the conformance suites against a target (or the embedded emulator), with
 * summary.json, junit.xml and a single-file HTML report in one folder per run.
 * Exit codes: 0 no required rule failed, 1 one did (or the run was unsound), 2 bad usage or
 * an unreachable target.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startVitest } from "vitest/node";
import { UnreachableError } from "../harness/client.js";
import { probeTarget } from "../harness/probe.js";
import { newRunId } from "../harness/session.js";
import { resolveTarget, TargetError } from "../harness/target.js";
import RuleAwareAllureReporter from "../report/allure-reporter.js";
import { writeHtmlReport } from "../report/html.js";
import { rulesPage } from "../report/rules-page.js";
import { exitCodeFor, type Summary } from "../report/summary.js";
import SummaryReporter from "../report/summary-reporter.js";
import { ENV } from "../runner/settings.js";
import { parseOptions, UsageError } from "./usage.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions({
    args: argv,
    options: {
      target: { type: "string" },
      kubeconfig: { type: "string" },
      context: { type: "string" },
      token: { type: "string" },
      output: { type: "string" },
      suite: { type: "string", multiple: true },
      "group-domain": { type: "string" },
      vendor: { type: "string" },
      "no-html": { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  const selection = {
    target: values.target as string | undefined,
    kubeconfig: values.kubeconfig as string | undefined,
    context: values.context as string | undefined,
    token: values.token as string | undefined,
  };
  let target;
  try {
    target = resolveTarget(selection);
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message);
    throw e;
  }
  if (target) {
    try {
      await probeTarget(target);
    } catch (e) {
      if (e instanceof UnreachableError) {
        console.error(`tollgate: ${e.message}`);
        return 2;
      }
      throw e;
    }
  }

  const runId = newRunId();
  const outDir = resolve((values.output as string | undefined) ?? join("reports", runId));
  const resultsDir = join(outDir, "allure-results");
  mkdirSync(outDir, { recursive: true });
  rmSync(resultsDir, { recursive: true, force: true });

  const env: Record<string, string | undefined> = {
    [ENV.target]: selection.target,
    [ENV.kubeconfig]: selection.kubeconfig,
    [ENV.context]: selection.context,
    [ENV.token]: selection.token,
    [ENV.runId]: runId,
    [ENV.groupDomain]: values["group-domain"] as string | undefined,
    [ENV.vendor]: values.vendor as string | undefined,
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }

  let summary: Summary | undefined;
  const vitest = await startVitest(
    "test",
    (values.suite as string[] | undefined) ?? [],
    {
      config: join(ROOT, "vitest.config.ts"),
      root: ROOT,
      project: "conformance",
      watch: false,
      passWithNoTests: false,
      reporters: [
        "default",
        new SummaryReporter({ outputDir: outDir, onSummary: (s) => (summary = s) }),
        new RuleAwareAllureReporter({ resultsDir }),
        ["junit", { outputFile: join(outDir, "junit.xml") }],
      ],
    },
  );
  await vitest.close();

  if (!summary) {
    console.error("tollgate: the run did not complete (see the output above); no summary was written");
    return 1;
  }
  const done = summary as Summary;
  writeFileSync(join(outDir, "rules.html"), rulesPage(done));
  if (!values["no-html"] && existsSync(resultsDir)) {
    writeHtmlReport(resultsDir, outDir, `tollgate conformance — ${done.target.url}`);
    rmSync(resultsDir, { recursive: true, force: true });
  }
  const { rules, tests } = done.totals;
  console.log(
    `tollgate: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped tests; rules: ${rules.passed} passed, ${rules.failed} failed (${done.totals.requiredFailed} required), ${rules.skipped} skipped, ${rules.untested} untested`,
  );
  for (const p of done.problems) console.log(`tollgate: problem: ${p}`);
  console.log(`tollgate: report written to ${outDir}`);
  return exitCodeFor(done);
}

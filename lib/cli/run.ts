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
import { ShellSyntaxError, shellWords } from "../daemons/shell-words.js";
import { ENV } from "../runner/settings.js";
import { glueValues, parseOptions, UsageError } from "./usage.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export type RunFlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** A daemon URL flag: http or https, no path beyond "/" (the probes add theirs). */
function daemonUrl(flag: string, raw: unknown, scheme?: "https:"): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new UsageError(`--${flag} must be a URL, not "${String(raw)}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--${flag} must be an http or https URL, not "${String(raw)}"`);
  // The controller manager's secure port and the node agent's main server are HTTPS by doc3; a
  // plain-http URL there is most likely the wrong port, and would fail every probe as "no answer".
  if (scheme && url.protocol !== scheme) throw new UsageError(`--${flag} is an HTTPS server (doc3 "Endpoints"); give an https:// URL, not "${String(raw)}"`);
  if (url.pathname !== "/" || url.search || url.hash) throw new UsageError(`--${flag} takes the server's base URL (scheme, host, port), not "${String(raw)}"`);
  return url.origin;
}

/** The client certificate flags (PEM files) and their environment variables. */
const CERT_FLAGS = [
  ["daemon-client-cert", ENV.daemonClientCert],
  ["daemon-client-key", ENV.daemonClientKey],
  ["daemon-proxy-cert", ENV.daemonProxyCert],
  ["daemon-proxy-key", ENV.daemonProxyKey],
  ["daemon-unlisted-proxy-cert", ENV.daemonUnlistedProxyCert],
  ["daemon-unlisted-proxy-key", ENV.daemonUnlistedProxyKey],
] as const;

/** The daemon flags as the environment variables the global setup reads (lib/runner/settings.ts). */
export function daemonEnvironment(values: RunFlagValues): Record<string, string | undefined> {
  const urls = {
    [ENV.controllerManager]: daemonUrl("controller-manager", values["controller-manager"], "https:"),
    [ENV.nodeAgent]: daemonUrl("node-agent", values["node-agent"], "https:"),
    [ENV.nodeAgentHealthz]: daemonUrl("node-agent-healthz", values["node-agent-healthz"]),
    [ENV.nodeAgentReadOnly]: daemonUrl("node-agent-read-only", values["node-agent-read-only"]),
  };
  const others: Record<string, string | undefined> = {
    [ENV.controllerManagerArgs]: values["controller-manager-args"] as string | undefined,
    [ENV.nodeAgentArgs]: values["node-agent-args"] as string | undefined,
    [ENV.daemonToken]: values["daemon-token"] as string | undefined,
    [ENV.daemonDeniedToken]: values["daemon-denied-token"] as string | undefined,
    [ENV.daemonCa]: values["daemon-ca"] === undefined ? undefined : resolve(values["daemon-ca"] as string),
    [ENV.daemonInsecure]: values["daemon-insecure"] ? "1" : undefined,
    ...Object.fromEntries(CERT_FLAGS.map(([flag, env]) => [env, values[flag] === undefined ? undefined : resolve(values[flag] as string)])),
  };
  const given = Object.entries(others).filter(([, v]) => v !== undefined);
  if (given.length > 0 && Object.values(urls).every((v) => v === undefined)) {
    throw new UsageError("the daemon options need a daemon URL (--controller-manager, --node-agent, --node-agent-healthz or --node-agent-read-only)");
  }
  for (const [flag, env] of [["controller-manager-args", ENV.controllerManagerArgs], ["node-agent-args", ENV.nodeAgentArgs]] as const) {
    const raw = others[env];
    if (raw === undefined) continue;
    try {
      shellWords(raw);
    } catch (e) {
      if (e instanceof ShellSyntaxError) throw new UsageError(`--${flag}: ${e.message}`);
      throw e;
    }
  }
  for (const [flag, env] of CERT_FLAGS) {
    const file = others[env];
    if (file !== undefined && !existsSync(file)) throw new UsageError(`--${flag}: no such file ${file}`);
  }
  for (const [cert, key] of [["daemon-client-cert", "daemon-client-key"], ["daemon-proxy-cert", "daemon-proxy-key"], ["daemon-unlisted-proxy-cert", "daemon-unlisted-proxy-key"]] as const) {
    if ((values[cert] === undefined) !== (values[key] === undefined)) throw new UsageError(`--${cert} and --${key} go together`);
  }
  const ca = others[ENV.daemonCa];
  if (ca !== undefined && !existsSync(ca)) throw new UsageError(`--daemon-ca: no such file ${ca}`);
  if (ca !== undefined && values["daemon-insecure"]) throw new UsageError("--daemon-ca and --daemon-insecure exclude each other");
  return { ...urls, ...others };
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions({
    args: glueValues(argv, ["--controller-manager-args", "--node-agent-args", "--daemon-token", "--daemon-denied-token"]),
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
      // The doc3 daemons (suites/daemons/probes.test.ts); without any, an embedded run emulates them.
      "controller-manager": { type: "string" },
      "node-agent": { type: "string" },
      "node-agent-healthz": { type: "string" },
      "node-agent-read-only": { type: "string" },
      "controller-manager-args": { type: "string" },
      "node-agent-args": { type: "string" },
      "daemon-token": { type: "string" },
      "daemon-denied-token": { type: "string" },
      "daemon-ca": { type: "string" },
      "daemon-insecure": { type: "boolean", default: false },
      "daemon-client-cert": { type: "string" },
      "daemon-client-key": { type: "string" },
      "daemon-proxy-cert": { type: "string" },
      "daemon-proxy-key": { type: "string" },
      "daemon-unlisted-proxy-cert": { type: "string" },
      "daemon-unlisted-proxy-key": { type: "string" },
    },
    allowPositionals: false,
  });
  // Checked before the target is probed, so that a bad daemon flag is a usage error at once.
  const daemonEnv = daemonEnvironment(values);
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
    ...daemonEnv,
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
    `tollgate: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped tests; rules: ${rules.passed} passed, ${rules.failed} failed (${done.totals.requiredFailed} required), ${rules.skipped} skipped, ${rules.untested} untested, ${rules.client} client duties`,
  );
  for (const p of done.problems) console.log(`tollgate: problem: ${p}`);
  console.log(`tollgate: report written to ${outDir}`);
  return exitCodeFor(done);
}

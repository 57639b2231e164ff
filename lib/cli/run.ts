/**
 * `tollgate run`: the conformance suites against a target (or the embedded emulator), with
 * summary.json, junit.xml and a single-file HTML report in one folder per run.
 * Exit codes: 0 no rule failed, 1 a rule failed, a --require profile was not verified, or the
 * run was unsound; 2 bad usage or a target that did not answer; 124 --timeout, 130 SIGINT,
 * 143 SIGTERM (the run stopped, cleaned up and reported what ran; lib/cli/run-control.ts).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Reporter } from "vitest/node";
import { CHECKER_FAULT_ENV } from "../daemons/checker/fault.js";
import { ShellSyntaxError, shellWords } from "../daemons/shell-words.js";
import type { Fault } from "../faults/index.js";
import { UnreachableError } from "../harness/client.js";
import { CredentialError } from "../harness/credentials/errors.js";
import { probeTarget } from "../harness/probe.js";
import { confirmReplicas, ReplicaError } from "../harness/replicas.js";
import { newRunId } from "../harness/session.js";
import { replicaTarget, replicaUrls, resolveTarget, type Target, TargetError } from "../harness/target.js";
import { PROJECT_ROOT } from "../project-root.js";
import { rulesPage } from "../report/rules-page.js";
import { STOP_EXIT_CODES, type Summary } from "../report/summary.js";
import { getCleanupOutcome, getRunStop, getSetupFailure, resetRunExtras } from "../runner/run-state.js";
import { declaredGatesFromEnv, ENV, SettingsError, seedFromEnv, thoroughFromEnv } from "../runner/settings.js";
import { isProfile, PROFILE_NAMES } from "../spec/profiles.js";
import { RunControl } from "./run-control.js";
import { loadEnvironment, type RunFlagValues, runBounds, selectionEnvironment, selectionFrom } from "./run-flags.js";
import { glueValues, parseOptions, UsageError } from "./usage.js";

const ROOT = PROJECT_ROOT;

/**
 * How the suites' files share vitest's worker threads (issue #18). With isolation each file got a
 * new thread that compiled and loaded vitest, undici, fast-check and lib/ again: about half the
 * run's CPU. A suite keeps its state in its own file (re-run for each file) and in the target
 * (its namespaces); what lib/ keeps per worker (the load limiter, the target's health) is meant
 * per worker. Most test time is waiting (watch windows, bookmarks, the emulator's answers), so
 * two workers more than cores keep them busy (4 on 2 cores: about a quarter less wall than 3).
 */
export const RUN_POOL = { isolate: false, maxWorkers: availableParallelism() + 2 } as const;

/**
 * The global setup for vitest.config.ts: from the compiled CLI, its compiled copy beside this
 * module (dist/lib/runner/), which Node imports with the modules this process already loaded;
 * from the sources, the config's own (the TypeScript, through vite's module runner).
 */
export function compiledGlobalSetup(moduleUrl: string = import.meta.url): string | undefined {
  return moduleUrl.endsWith(".js") ? fileURLToPath(new URL("../runner/global-setup.js", moduleUrl)) : undefined;
}

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
  for (const [flag, env] of [
    ["controller-manager-args", ENV.controllerManagerArgs],
    ["node-agent-args", ENV.nodeAgentArgs],
  ] as const) {
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
  for (const [cert, key] of [
    ["daemon-client-cert", "daemon-client-key"],
    ["daemon-proxy-cert", "daemon-proxy-key"],
    ["daemon-unlisted-proxy-cert", "daemon-unlisted-proxy-key"],
  ] as const) {
    if ((values[cert] === undefined) !== (values[key] === undefined)) throw new UsageError(`--${cert} and --${key} go together`);
  }
  const ca = others[ENV.daemonCa];
  if (ca !== undefined && !existsSync(ca)) throw new UsageError(`--daemon-ca: no such file ${ca}`);
  if (ca !== undefined && values["daemon-insecure"]) throw new UsageError("--daemon-ca and --daemon-insecure exclude each other");
  return { ...urls, ...others };
}

/**
 * `--fault NAME`: faults of the catalog as the environment the global setup and the checker read.
 * A fault of the emulator's state or of its daemons needs the embedded emulator; a wire fault
 * (a proxy) and a checker fault apply to any target.
 */
export async function faultEnvironment(values: RunFlagValues): Promise<Record<string, string | undefined>> {
  const names = (values.fault as string[] | undefined) ?? [];
  if (names.length === 0) return { [ENV.faults]: undefined, [CHECKER_FAULT_ENV]: undefined };
  // The catalog (about 130 ms of loading) only for a self-test.
  const [{ faultByName }, { faultCommandLines }] = await Promise.all([import("../faults/index.js"), import("../faults/check.js")]);
  const external = values.target !== undefined || values.kubeconfig !== undefined || values["in-cluster"] === true;
  const daemonsGiven = ["controller-manager", "node-agent", "node-agent-healthz", "node-agent-read-only"].some((f) => values[f] !== undefined);
  const faults: Fault[] = [];
  for (const name of names) {
    const f = faultByName(name);
    if (!f) throw new UsageError(`--fault: no fault "${name}" (tollgate rules faults lists them)`);
    if (f.mode === "emulator" && external)
      throw new UsageError(
        `--fault ${name} breaks the emulator's state: it applies to the embedded emulator only (drop --target), or start one with tollgate emulator --fault ${name}`,
      );
    if (f.mode === "daemons" && (external || daemonsGiven))
      throw new UsageError(`--fault ${name} breaks the emulated daemons: it applies to the embedded run only (no --target, no daemon URLs)`);
    faults.push(f);
  }
  try {
    faultCommandLines(faults);
  } catch (e) {
    throw new UsageError(`--fault: ${(e as Error).message}`);
  }
  const blind = faults.flatMap((f) => (f.mode === "checker" ? f.rules : []));
  return { [ENV.faults]: faults.map((f) => f.name).join(","), [CHECKER_FAULT_ENV]: blind.length > 0 ? blind.join(",") : undefined };
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions({
    args: glueValues(argv, ["--controller-manager-args", "--node-agent-args", "--daemon-token", "--daemon-denied-token"]),
    options: {
      target: { type: "string" },
      kubeconfig: { type: "string" },
      context: { type: "string" },
      token: { type: "string" },
      "in-cluster": { type: "boolean", default: false },
      // Other API servers of the target's cluster, for the multi-replica suites (suites/replicas.test.ts).
      replica: { type: "string", multiple: true },
      output: { type: "string" },
      suite: { type: "string", multiple: true },
      "group-domain": { type: "string" },
      vendor: { type: "string" },
      "no-html": { type: "boolean", default: false },
      // How verdicts are made: declared gates, profiles that must be verified, the property seed, waiting for slow rules.
      "feature-gates": { type: "string" },
      require: { type: "string", multiple: true },
      seed: { type: "string" },
      thorough: { type: "boolean", default: false },
      "thorough-minutes": { type: "string" },
      // What runs: --list shows it without running; --focus/--skip/--rerun-failed choose tests (lib/runner/selection.ts).
      list: { type: "boolean", default: false },
      focus: { type: "string", multiple: true },
      skip: { type: "string", multiple: true },
      "rerun-failed": { type: "string" },
      // Load manners (lib/harness/load.ts) and bounds of the whole run (lib/cli/run-control.ts).
      qps: { type: "string" },
      burst: { type: "string" },
      "max-inflight": { type: "string" },
      "request-timeout": { type: "string" },
      timeout: { type: "string" },
      "unavailable-after": { type: "string" },
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
      // One part of a run spread over machines; `tollgate report merge` joins the parts.
      shard: { type: "string" },
      // Self-test: a fault of lib/faults/ applied to the target (wire faults through a proxy, others inside the embedded emulator).
      fault: { type: "string", multiple: true },
    },
    allowPositionals: false,
  });
  const shard = shardOption(values.shard as string | undefined);
  const faultEnv = await faultEnvironment(values);
  // Checked before the target is probed, so that a bad daemon flag is a usage error at once.
  const daemonEnv = daemonEnvironment(values);
  const verdictEnv = verdictEnvironment(values);
  const loadEnv = loadEnvironment(values);
  const bounds = runBounds(values);
  const chosen = selectionFrom(values);
  const suites = (values.suite as string[] | undefined) ?? [];
  if (chosen?.rerun && chosen.rerun.tests.length === 0 && chosen.rerun.rules.length === 0) {
    console.log(`tollgate: nothing failed in ${chosen.rerun.from}: nothing to run again`);
    return 0;
  }
  setEnvironment({ [ENV.globalSetup]: compiledGlobalSetup() });
  if (values.list) {
    setEnvironment({
      ...selectionEnvironment(chosen),
      [ENV.groupDomain]: values["group-domain"] as string | undefined,
      [ENV.vendor]: values.vendor as string | undefined,
    });
    const { listTests } = await import("./list.js");
    return listTests({ root: ROOT, config: join(ROOT, "vitest.config.ts"), projects: ["conformance", "conformance-exclusive"], suites });
  }
  const selection = {
    target: values.target as string | undefined,
    kubeconfig: values.kubeconfig as string | undefined,
    context: values.context as string | undefined,
    token: values.token as string | undefined,
    inCluster: values["in-cluster"] === true,
  };
  let target: Target | undefined;
  let replicas: Target[] = [];
  const replicaFlags = replicaUrls((values.replica as string[] | undefined) ?? []);
  try {
    target = resolveTarget(selection);
    if (replicaFlags.length > 0 && !target)
      throw new TargetError("--replica names other API servers of the target's cluster: it goes with --target, --kubeconfig or --in-cluster");
    replicas = target ? replicaFlags.map((u) => replicaTarget(target as Target, u)) : [];
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message);
    throw e;
  }
  if (target) {
    try {
      await probeTarget(target);
      // A replica of another cluster is one line here, not a run whose multi-replica tests do not apply.
      if (replicas.length > 0) await confirmReplicas(target, replicas);
    } catch (e) {
      if (e instanceof UnreachableError || e instanceof CredentialError || e instanceof ReplicaError) {
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

  setEnvironment({
    [ENV.target]: selection.target,
    [ENV.kubeconfig]: selection.kubeconfig,
    [ENV.context]: selection.context,
    [ENV.token]: selection.token,
    [ENV.inCluster]: selection.inCluster ? "1" : undefined,
    [ENV.replicas]: replicas.length > 0 ? replicas.map((r) => r.url).join(",") : undefined,
    [ENV.runId]: runId,
    [ENV.groupDomain]: values["group-domain"] as string | undefined,
    [ENV.vendor]: values.vendor as string | undefined,
    ...daemonEnv,
    ...verdictEnv,
    ...loadEnv,
    ...selectionEnvironment(chosen),
    ...faultEnv,
    // This process handles SIGINT and SIGTERM for the run (lib/cli/run-control.ts); workers leave them to it.
    [ENV.cli]: "1",
  });

  // On a terminal one progress line replaces vitest's per-file lines; a log keeps them, with a progress line now and then.
  const tty = process.stdout.isTTY === true;
  let status: () => string | undefined = () => undefined;
  // vitest, its reporters and Allure load only once a run is certain: a mistake in the flags is answered at once.
  // The Allure results only feed index.html (and a shard's merge): without either, Allure is not loaded.
  const allure = !values["no-html"] || shard !== undefined;
  const [{ createVitest }, { default: ProgressReporter }, { default: SummaryReporter }, allureModule] = await Promise.all([
    import("vitest/node"),
    import("../report/progress-reporter.js"),
    import("../report/summary-reporter.js"),
    allure ? import("../report/allure-reporter.js") : undefined,
  ]);
  const progress = new ProgressReporter({ tty, status: () => status() });
  const control = new RunControl({
    say: (line) => {
      progress.clear();
      console.error(line);
    },
    cleanupHint: () => (target ? `tollgate cleanup --target ${target.url} --run-id ${runId}` : undefined),
    // A stopped run waits for running tests to end and each suite's cleanup (a hook has 30 s), then the run's own cleanup.
    graceMs: Math.max(60_000, 4 * Number(loadEnv[ENV.requestTimeoutMs] ?? 20_000)),
  });
  resetRunExtras();
  let summary: Summary | undefined;
  const reporters: Reporter[] = [
    progress,
    control.reporter(),
    new SummaryReporter({ outputDir: outDir, shard, onSummary: (s) => (summary = s) }),
    ...(allureModule ? [new allureModule.default({ resultsDir })] : []),
  ];
  const before = RunControl.listenersNow();
  const vitest = await createVitest("test", {
    config: join(ROOT, "vitest.config.ts"),
    root: ROOT,
    // The second project is the serial phase: tests that change the whole target run after all others.
    project: ["conformance", "conformance-exclusive"],
    watch: false,
    ...RUN_POOL,
    passWithNoTests: false,
    ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
    reporters: [...(tty ? [] : ["default" as const]), ...reporters, ["junit", { outputFile: join(outDir, "junit.xml") }]],
  });
  control.attach(vitest, before);
  if (suites.length > 0 && (await vitest.getRelevantTestSpecifications(suites)).length === 0) {
    await vitest.close();
    control.dispose();
    throw new UsageError(`--suite ${suites.join(", ")}: no suite file matches`);
  }
  if (bounds.timeoutMs !== undefined) control.startTimeout(bounds.timeoutMs, String(values.timeout));
  if (target) status = control.watchTarget(target, bounds.unavailableAfterMs);
  try {
    await vitest.start(suites);
  } catch (e) {
    // vitest prints why it could not run (no test file matches --suite, a broken config); the summary decides below.
    if (!(e instanceof Error && e.name === "FilesNotFoundError")) console.error(`tollgate: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  } finally {
    await vitest.close();
    control.dispose();
  }

  const stop = getRunStop();
  const setupFailure = getSetupFailure();
  if (!summary) {
    if (setupFailure) {
      console.error(`tollgate: ${setupFailure}`);
      return 2;
    }
    console.error("tollgate: the run did not complete (see the output above); no summary was written");
    return stop ? STOP_EXIT_CODES[stop.reason] : 1;
  }
  const done = summary as Summary;
  const cleanup = getCleanupOutcome();
  if (cleanup) {
    // The run's own cleanup comes after the summary was written (vitest's global teardown); add it.
    done.cleanup = {
      removed: cleanup.result?.removed.length ?? 0,
      deleting: cleanup.result?.deleting.length ?? 0,
      failed: cleanup.result?.failed.map((f) => `${f.leftover.resource}/${f.leftover.name}: ${f.message}`) ?? [],
      ...(cleanup.error ? { error: cleanup.error } : {}),
    };
    writeFileSync(join(outDir, "summary.json"), `${JSON.stringify(done, null, 2)}\n`);
  }
  writeFileSync(join(outDir, "rules.html"), rulesPage(done));
  if (!values["no-html"] && existsSync(resultsDir)) {
    const { writeHtmlReport } = await import("../report/html.js");
    writeHtmlReport(resultsDir, outDir, `tollgate conformance — ${done.target.url}`);
    // A shard keeps its Allure results: `report merge` makes the whole run's report from them.
    if (!shard) rmSync(resultsDir, { recursive: true, force: true });
  }
  for (const line of verdictLines(done)) console.log(line);
  if (done.cleanup && (stop || done.cleanup.removed > 0 || done.cleanup.error || done.cleanup.failed.length > 0)) console.log(cleanupLine(done, target?.url));
  console.log(`tollgate: report written to ${outDir}`);
  return done.exit.code;
}

/**
 * `--shard I/N`: vitest's file sharding over both projects (every shard detects the target's
 * capabilities itself, in its global setup).
 */
function shardOption(raw: string | undefined): { index: number; count: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(raw);
  if (!m || Number(m[1]) > Number(m[2])) throw new UsageError(`--shard takes I/N with 1 <= I <= N, not "${raw}"`);
  return { index: Number(m[1]), count: Number(m[2]) };
}

function setEnvironment(env: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

/** What the end of the run removed of what it created, or how to remove it later. */
function cleanupLine(s: Summary, url: string | undefined): string {
  const c = s.cleanup;
  if (!c) return "";
  const later = `tollgate cleanup ${url ? `--target ${url} ` : ""}--run-id ${s.runId}`;
  if (c.error) return `tollgate: cleanup: nothing removed (${c.error}); once the target answers: ${later}`;
  const parts = [`removed ${c.removed} object(s) the run had left (labelled tollgate.dev/run-id=${s.runId})`];
  if (c.deleting) parts.push(`${c.deleting} already being deleted`);
  if (c.failed.length) parts.push(`${c.failed.length} could not be removed (${c.failed[0]}); ${later}`);
  return `tollgate: cleanup: ${parts.join("; ")}`;
}

/** The closing lines: totals, one line per profile, the exit code's reasons. */
export function verdictLines(s: Summary): string[] {
  const { rules, tests } = s.totals;
  const undecided = tests["target-unavailable"] ? `, ${tests["target-unavailable"]} target unavailable` : "";
  const skipped = [s.totals.leftOut ? `${s.totals.leftOut} left out by the selection` : "", s.totals.notRun ? `${s.totals.notRun} not run` : ""]
    .filter(Boolean)
    .join(", ");
  const lines = [
    `tollgate: tests: ${tests.passed} passed, ${tests.failed} failed${undecided}, ${tests["not-applicable"]} not applicable${skipped ? ` (${skipped})` : ""}; rules: ${rules.passed} passed, ${rules.failed} failed (${s.totals.requiredFailed} required)${rules["target-unavailable"] ? `, ${rules["target-unavailable"]} target unavailable` : ""}, ${rules["not-applicable"]} not applicable, ${rules["not-observable"]} not observable, ${rules.untested} untested, ${rules.client} client duties`,
  ];
  for (const p of s.profiles) {
    const r = p.rules;
    lines.push(
      `tollgate: profile ${p.name.padEnd(14)} ${p.verdict.padEnd(12)} ${r.passed} passed, ${r.failed} failed, ${p.notVerified.length} not verified, ${r["not-observable"]} not observable${p.required ? " (required)" : ""}`,
    );
  }
  if (s.shard)
    lines.push(
      `tollgate: shard ${s.shard.index} of ${s.shard.count}: the other shards' rules show as untested here; tollgate report merge gives the whole run's verdict (and decides --require)`,
    );
  for (const p of s.problems) lines.push(`tollgate: problem: ${p}`);
  // A terminal shows no vitest failure output (the progress line replaces it): name the failed tests.
  const failed = s.tests.filter((x) => x.state === "failed");
  for (const t of failed.slice(0, 20)) lines.push(`tollgate: failed: ${t.name} (${t.file}): ${t.errors[0] ?? "failed"}`);
  if (failed.length > 20) lines.push(`tollgate: failed: … and ${failed.length - 20} more (summary.json, index.html)`);
  if (s.target.problem)
    lines.push(`tollgate: target: ${s.target.problem.message}${s.target.problem.tests ? ` (${s.target.problem.tests} test(s) undecided)` : ""}`);
  lines.push(s.exit.code === 0 ? "tollgate: exit 0: no rule failed" : `tollgate: exit ${s.exit.code}: ${s.exit.reasons.join("; ")}`);
  if (s.seed !== undefined && s.exit.code === 1) lines.push(`tollgate: to repeat the run's property tests: --seed ${s.seed}`);
  return lines;
}

/** The verdict flags as the environment variables the global setup and the summary read. */
export function verdictEnvironment(values: RunFlagValues): Record<string, string | undefined> {
  const gates = values["feature-gates"] as string | undefined;
  if (gates !== undefined) {
    try {
      declaredGatesFromEnv({ [ENV.featureGates]: gates });
    } catch (e) {
      if (e instanceof SettingsError) throw new UsageError(e.message);
      throw e;
    }
  }
  const required = ((values.require as string[] | undefined) ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const p of required) if (!isProfile(p)) throw new UsageError(`--require: no profile "${p}" (profiles: ${PROFILE_NAMES.join(", ")})`);
  const seed = values.seed as string | undefined;
  if (seed !== undefined) {
    try {
      seedFromEnv({ [ENV.seed]: seed });
    } catch (e) {
      if (e instanceof SettingsError) throw new UsageError(`--seed: ${e.message}`);
      throw e;
    }
  }
  const minutes = values["thorough-minutes"] as string | undefined;
  if (minutes !== undefined && !values.thorough) throw new UsageError("--thorough-minutes goes with --thorough");
  const thorough = values.thorough ? (minutes ?? String(DEFAULT_THOROUGH_MINUTES)) : undefined;
  if (thorough !== undefined) {
    try {
      thoroughFromEnv({ [ENV.thoroughMinutes]: thorough });
    } catch (e) {
      if (e instanceof SettingsError) throw new UsageError(`--thorough-minutes: ${e.message}`);
      throw e;
    }
  }
  return {
    [ENV.featureGates]: gates,
    [ENV.require]: required.length ? required.join(",") : undefined,
    [ENV.seed]: seed,
    [ENV.thoroughMinutes]: thorough,
  };
}

/**
 * kube-apiserver compacts its storage every 5 minutes (--etcd-compaction-interval), each time up
 * to the revision it saw at the previous round, so a version is gone 5 to 10 minutes after it was
 * written; 11 minutes leaves a margin.
 */
const DEFAULT_THOROUGH_MINUTES = 11;

/**
 * The runner's half of a test declaration: given what a test needs and what the target was
 * detected to offer (provided by the global setup), register the test to run, or register it
 * as not applicable with the reasons, or leave it out when the run's selection (--focus, --skip,
 * --rerun-failed) does not take it. This is the only place where a conformance test is skipped;
 * a test body never decides that it does not apply.
 *
 * A test that fails while the target does not answer (a request refused, reset or timed out,
 * or one still unanswered when the test ran out of time) ends as "target unavailable": the
 * target's health is not its conformance.
 */
import { inject, it, type TestContext, TestRunner } from "vitest";
import { clearExchanges, snapshotExchanges } from "../harness/exchanges.js";
import "../report/task-meta.js";
import { UnreachableError } from "../harness/client.js";
import { targetTroubleSince } from "../harness/health.js";
import { configureLoad, diffCounters, loadCounters } from "../harness/load.js";
import { probeTarget } from "../harness/probe.js";
import type { Target } from "../harness/target.js";
import type { RuleId } from "../spec/catalog.js";
import { isNeed, type Need, unmetNeedDetails, unmetNeeds } from "./capabilities.js";
import { PropertyFailure } from "./evidence.js";
import { selects } from "./selection.js";
import type { ProvidedSettings } from "./settings.js";
import "./settings.js";

export interface TestDeclaration {
  /** What the test checks, as a sentence. */
  title: string;
  /** The catalog rules it examines: at least one, each checked by the test's assertions. */
  rules: readonly [RuleId, ...RuleId[]];
  /** What the target must offer (or, with `!`, must not) for the test to apply. */
  needs?: readonly Need[];
  /** Milliseconds before the test counts as hung (vitest's testTimeout otherwise). */
  timeout?: number;
}

/** A request unanswered this long when a test failed is the target's silence, not the test's doing. */
const STALLED_MS = 5_000;

/**
 * How long the look at a failed test's target may take (at most the request timeout). A slow
 * answer still proves the target there, and the failure stands: with 2 s, a loaded machine's
 * target answered late and a real failure turned "target unavailable". A target that stays
 * silent is what --unavailable-after stops the whole run for.
 */
const PROBE_MS = 10_000;

/**
 * Why a test that failed may owe it to the target rather than to a wrong answer: a request of the
 * test met no answer, or else the target does not answer now (a watch that went quiet because
 * the target stalled throws nothing of its own). Undefined when the target is fine.
 */
export async function targetTrouble(since: number, target: Target, requestTimeoutMs: number): Promise<string | undefined> {
  const seen = targetTroubleSince(since, STALLED_MS);
  if (seen !== undefined) return seen;
  try {
    await probeTarget(target, requestTimeoutMs > 0 ? Math.min(PROBE_MS, requestTimeoutMs) : PROBE_MS);
    return undefined;
  } catch (e) {
    if (e instanceof UnreachableError) return e.message;
    throw e;
  }
}

/**
 * Time a test may spend waiting on tollgate's own manners (the rate limit, an in-flight slot, a
 * 429's Retry-After) on top of its timeout: under kubectl's 5 requests a second a property test
 * of 250 requests waits most of a minute for tokens alone.
 */
const OWN_WAIT_ALLOWANCE_MS = 30 * 60_000;

/** Milliseconds spent waiting on tollgate's own manners since `before`. */
function ownWaitSince(before: ReturnType<typeof loadCounters>): number {
  const d = diffCounters(loadCounters(), before);
  return d.throttledMs + d.queuedMs + d.retryAfterMs;
}

/**
 * Runs `fn` against a timeout that counts the target's time only: what the test spent waiting on
 * tollgate's own manners is added to it. vitest's timeout, set that much higher, stays a backstop.
 */
async function withTargetTimeout(fn: () => Promise<void> | void, timeoutMs: number, before: ReturnType<typeof loadCounters>): Promise<void> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    const check = (): void => {
      const own = ownWaitSince(before);
      const left = timeoutMs + own - (Date.now() - started);
      if (left <= 0)
        reject(
          new Error(
            `Test timed out in ${timeoutMs}ms${own >= 1000 ? ` (not counting ${Math.round(own / 1000)} s it waited on tollgate's own rate limit)` : ""}.`,
          ),
        );
      else timer = setTimeout(check, Math.min(left, 1_000));
    };
    timer = setTimeout(check, Math.min(timeoutMs, 1_000));
  });
  try {
    await Promise.race([fn(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

const WORKER = Symbol.for("tollgate.worker-ready");
const SILENT_FILES = Symbol.for("tollgate.silent-files");

/** Test files whose setup met no answer from the target, with what went unanswered. */
function silentFiles(): Map<string, string> {
  const g = globalThis as { [SILENT_FILES]?: Map<string, string> };
  g[SILENT_FILES] ??= new Map();
  return g[SILENT_FILES];
}

/**
 * A file's setup (its namespace) met no answer from the target: its tests end as "target
 * unavailable" when their turn comes, instead of the whole file failing as if it were broken.
 */
export function fileSetupUnanswered(file: string, reason: string): void {
  silentFiles().set(file, reason);
}

/** The file being collected (for hooks that need to say which file they belong to). */
export function currentFile(): string {
  return TestRunner.getCurrentSuite().file?.filepath ?? "";
}

/** Once per worker process: the run's load manners, and SIGINT left to `tollgate run`. */
function prepareWorker(provided: ProvidedSettings): void {
  const g = globalThis as { [WORKER]?: boolean };
  if (g[WORKER]) return;
  g[WORKER] = true;
  configureLoad(provided.load);
  // Ctrl-C reaches every process of the terminal's group; `tollgate run` stops the run itself,
  // letting running tests and their cleanup end, so a worker must not die of it mid-request.
  if (provided.cliSignals) process.on("SIGINT", () => undefined);
}

/** The test's full name as vitest and summary.json give it ("describe > title"), and its file. */
function identity(title: string): { name: string; file: string } {
  const collector = TestRunner.getCurrentSuite();
  const parent = collector.suite?.fullTestName;
  return { name: parent ? `${parent} > ${title}` : title, file: collector.file?.filepath ?? "" };
}

/**
 * Declares one test under the suite contract (suites/README.md). The body gets no test context:
 * it has no way to skip itself.
 */
export function declareTest(decl: TestDeclaration, fn: () => Promise<void> | void): void {
  if (decl.rules.length === 0) throw new Error(`test "${decl.title}" names no rule`);
  const needs = [...(decl.needs ?? [])];
  for (const n of needs) if (!isNeed(n)) throw new Error(`test "${decl.title}" needs ${JSON.stringify(n)}, which is no capability`);
  const provided = inject("tollgate");
  if (!provided) throw new Error("no run settings: run the conformance suites with `tollgate run` or `vitest --project conformance`");
  prepareWorker(provided);
  const meta = { rules: [...decl.rules], needs };
  if (provided.selection && !selects(provided.selection, { ...identity(decl.title), rules: decl.rules })) {
    // Left out by the run's selection: registered as skipped so its file's hooks do not run for it, and in no verdict.
    it.skip(decl.title, { meta: { ...meta, deselected: true } }, () => undefined);
    return;
  }
  const unmet = unmetNeeds(needs, provided.capabilities);
  if (unmet.length > 0) {
    // Registered as skipped, so its hooks (a file's setup) do not run for it; the reason travels in meta.
    it.skip(decl.title, { meta: { ...meta, notApplicable: unmet.join("; "), unmet: unmetNeedDetails(needs, provided.capabilities) } }, () => undefined);
    return;
  }
  // Without a rate limit nothing is owed to tollgate's own waiting, and vitest's timeout is the test's.
  const budget = decl.timeout ?? provided.testTimeoutMs;
  const throttled = provided.load.qps > 0 && budget !== undefined;
  it(decl.title, { meta, timeout: throttled ? budget + OWN_WAIT_ALLOWANCE_MS : decl.timeout }, async (ctx) => {
    const started = Date.now();
    const before = loadCounters();
    ctx.onTestFinished(() => {
      ctx.task.meta.load = diffCounters(loadCounters(), before);
    });
    const unanswered = silentFiles().get(ctx.task.file.filepath);
    if (unanswered !== undefined) {
      ctx.task.meta.targetUnavailable = unanswered;
      ctx.skip(`target unavailable: ${unanswered}`);
    }
    ctx.onTestFailed(async () => {
      // A run without a target (the mutation runs, test/mutation/global-setup.ts) has no trouble to blame.
      if (provided.targetless) return;
      const why = await targetTrouble(started, provided.target, provided.load.requestTimeoutMs);
      if (why === undefined) return;
      ctx.task.meta.targetUnavailable = why;
      // A skip with the reason: vitest counts it as neither passed nor failed, the summary as "target unavailable".
      ctx.skip(`target unavailable: ${why}`);
    });
    await withEvidence(() => (throttled ? withTargetTimeout(fn, budget, before) : fn()), ctx);
  });
}

/**
 * Runs a test body so that its failure carries evidence in the task meta: the exchanges of this
 * test only (not of the file's setup or an earlier test), taken when it fails, by a throw or by
 * its timeout; and a failed property's seed and counterexample.
 */
export async function withEvidence(fn: () => Promise<void> | void, ctx: Pick<TestContext, "task" | "onTestFailed">): Promise<void> {
  clearExchanges();
  ctx.onTestFailed(() => {
    ctx.task.meta.exchanges = snapshotExchanges();
  });
  try {
    await fn();
  } catch (e) {
    if (e instanceof PropertyFailure) ctx.task.meta.property = e.property;
    throw e;
  }
}

/** The run's capabilities as the global setup detected them (for the few tests that adapt their waiting to them). */
export function runCapabilities(): ReturnType<typeof inject<"tollgate">>["capabilities"] {
  return inject("tollgate").capabilities;
}

/**
 * The runner's half of a test declaration: given what a test needs and what the target was
 * detected to offer (provided by the global setup), register the test to run, or register it
 * as not applicable with the reasons. This is the only place where a conformance test is
 * skipped; a test body never decides that it does not apply.
 */
import { inject, it, type TestContext } from "vitest";
import { clearExchanges, snapshotExchanges } from "../harness/exchanges.js";
import "../report/task-meta.js";
import type { RuleId } from "../spec/catalog.js";
import { isNeed, unmetNeedDetails, unmetNeeds, type Need } from "./capabilities.js";
import { PropertyFailure } from "./evidence.js";
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
  const unmet = unmetNeeds(needs, provided.capabilities);
  const meta = { rules: [...decl.rules], needs };
  if (unmet.length > 0) {
    // Registered as skipped, so its hooks (a file's setup) do not run for it; the reason travels in meta.
    it.skip(decl.title, { meta: { ...meta, notApplicable: unmet.join("; "), unmet: unmetNeedDetails(needs, provided.capabilities) } }, () => undefined);
    return;
  }
  it(decl.title, { meta, timeout: decl.timeout }, (ctx) => withEvidence(fn, ctx));
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

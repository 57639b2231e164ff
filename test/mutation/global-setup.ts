/**
 * Global setup of the mutation runs (vitest.mutation.config.ts): suites/daemons/flags.test.ts
 * declares its tests through the suite contract (suites/support/conformance.ts), which reads
 * the run's settings with `inject("tollgate")`. Its tests need no target, so none is started,
 * detected or contacted: the settings are those of a run that offers every capability, with a
 * fixed seed, marked targetless.
 *
 * Targetless matters: a test that fails while the target does not answer ends as "target
 * unavailable" (lib/runner/declare.ts), a skip, and a mutant whose test is skipped survives
 * instead of being killed. A loopback stub as the target would not be enough: on a loaded machine
 * its answer to the 2-second probe after a failure can come late, and the failure would be a skip.
 */
import type { TestProject } from "vitest/node";
import { DEFAULT_LOAD } from "../../lib/harness/load.js";
import { defaultSpecSettings } from "../../lib/harness/target.js";
import { CAPABILITY_NAMES, type Capabilities } from "../../lib/runner/capabilities.js";
import type { ProvidedSettings } from "../../lib/runner/settings.js";

export function setup(project: TestProject): void {
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((n) => [n, { available: true, evidence: "mutation run (no target)" }])) as Capabilities;
  const settings: ProvidedSettings = {
    target: { url: "(not contacted)", credentials: {}, source: "mutation run" },
    runId: "mutation",
    spec: { ...defaultSpecSettings },
    capabilities,
    seed: 1,
    thorough: { enabled: false, minutes: 0 },
    bookmarkWaitMs: 0,
    load: { ...DEFAULT_LOAD, qps: 0 },
    collectOnly: false,
    cliSignals: false,
    testTimeoutMs: project.config.testTimeout,
    targetless: true,
  };
  project.provide("tollgate", settings);
}

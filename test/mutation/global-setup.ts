/**
 * Global setup of the mutation runs (vitest.mutation.config.ts): suites/daemons/flags.test.ts
 * declares its tests through the suite contract (suites/support/conformance.ts), which reads
 * the run's settings with `inject("tollgate")`. Its tests need no target, so none is started or
 * detected: the settings are those of a run that offers every capability, with a fixed seed.
 *
 * The target is a stub on loopback that answers every request with 404. It must answer: a test
 * that fails while the target is silent ends as "target unavailable" (lib/runner/declare.ts),
 * a skip, and a mutant whose test is skipped would survive instead of being killed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { DEFAULT_LOAD } from "../../lib/harness/load.js";
import { defaultSpecSettings } from "../../lib/harness/target.js";
import { CAPABILITY_NAMES, type Capabilities } from "../../lib/runner/capabilities.js";
import type { ProvidedSettings } from "../../lib/runner/settings.js";

let server: Server | undefined;

export async function setup(project: TestProject): Promise<void> {
  const stub = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "application/json" }).end('{"kind":"Status","status":"Failure","code":404}');
  });
  server = stub;
  await new Promise<void>((done) => stub.listen(0, "127.0.0.1", done));
  const { port } = stub.address() as AddressInfo;
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((n) => [n, { available: true, evidence: "mutation run (no target)" }])) as Capabilities;
  const settings: ProvidedSettings = {
    target: { url: `http://127.0.0.1:${port}`, credentials: {}, source: "mutation run stub" },
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
  };
  project.provide("tollgate", settings);
}

export async function teardown(): Promise<void> {
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
}

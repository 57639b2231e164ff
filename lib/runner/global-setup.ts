/**
 * vitest global setup of the conformance project: resolve the target from the environment,
 * or start the embedded emulator on a free port when none is given; afterwards remove any
 * namespace of this run that a suite left behind.
 */
import type { TestProject } from "vitest/node";
import { startEmulator, type RunningEmulator } from "../emulator/index.js";
import { deleteRunNamespaces, type RunSettings } from "../harness/session.js";
import { probeTarget } from "../harness/probe.js";
import { resolveTarget } from "../harness/target.js";
import { setRunState } from "./run-state.js";
import { ENV, runIdFromEnv, specSettingsFromEnv } from "./settings.js";

let emulator: RunningEmulator | undefined;
let settings: RunSettings | undefined;

export async function setup(project: TestProject): Promise<void> {
  const env = process.env;
  let target = resolveTarget({
    target: env[ENV.target],
    kubeconfig: env[ENV.kubeconfig],
    context: env[ENV.context],
    token: env[ENV.token],
  });
  if (!target) {
    // The admin endpoint lets the 410 suites compact history instead of waiting 5 minutes, and a
    // 1 s bookmark interval lets the bookmark suites see one; without them those checks skip.
    emulator = await startEmulator({ host: "127.0.0.1", port: 0, admin: true, bookmarkIntervalMs: 1000 });
    target = { url: emulator.url, credentials: {}, source: "embedded emulator" };
  }
  settings = { target, runId: runIdFromEnv(env), spec: specSettingsFromEnv(env) };
  const info = await probeTarget(target);
  setRunState({ settings, serverVersion: info.version });
  project.provide("tollgate", settings);
}

export async function teardown(): Promise<void> {
  try {
    if (settings) await deleteRunNamespaces(settings).catch(() => 0);
  } finally {
    await emulator?.close();
  }
}

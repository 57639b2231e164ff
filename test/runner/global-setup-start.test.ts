import { afterEach, describe, expect, it } from "vitest";
import { setup, teardown } from "../../lib/runner/global-setup.js";
import { ENV } from "../../lib/runner/settings.js";

const servers = (): number => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;

const saved = { ...process.env };
afterEach(async () => {
  // The setup's state is process-wide: a failed one must not stay for the next file of this worker.
  await teardown();
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

describe("the embedded run's start", () => {
  it("the emulator and the emulated daemons start at once; when the daemons cannot start, the emulator is closed again", async () => {
    for (const k of [ENV.target, ENV.kubeconfig, ENV.inCluster, ENV.collectOnly]) delete process.env[k];
    // Two daemon faults with different command lines: the daemons refuse to start (one run starts one pair).
    process.env[ENV.faults] = "cm-tokens-without-authn-file,agent-always-allow-refuses-configz";
    process.env[ENV.runId] = "start-test";
    const before = servers();
    const project = { vitest: { config: { maxWorkers: 1 } }, config: { maxWorkers: 1, testTimeout: 30_000 }, provide: () => undefined };
    await expect(setup(project as unknown as Parameters<typeof setup>[0])).rejects.toThrow(
      "faults cm-tokens-without-authn-file and agent-always-allow-refuses-configz start the daemons with different command lines",
    );
    // No emulator is left to keep the process alive (a closed server's handle goes a moment later).
    for (let waited = 0; servers() > before && waited < 3_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(servers()).toBe(before);
  });
});

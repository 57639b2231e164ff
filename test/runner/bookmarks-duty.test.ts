/**
 * doc1: clients must not rely on bookmarks arriving at any interval, or at all. tollgate is a
 * client: it asks the target whether periodic bookmarks come before any test relies on one, and
 * a target that sends none is a target without the capability (its bookmark tests do not
 * apply), never a failure.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { detectApi } from "../../lib/runner/detect.js";
import { clientDuty } from "../support/client-duty.js";

let quiet: RunningEmulator;
beforeAll(async () => {
  // 0: the emulator sends no periodic bookmark at all.
  quiet = await startEmulator({ port: 0, bookmarkIntervalMs: 0 });
});
afterAll(async () => {
  await quiet.close();
});

clientDuty(
  {
    title: "a target that never sends a bookmark is one without the bookmarks capability, and no violation",
    rules: ["doc1.watch-events.bookmarks-not-guaranteed"],
  },
  async () => {
    const d = await detectApi(
      { target: { url: quiet.url, credentials: {}, source: "test" }, runId: "bookmarks-duty", spec: { groupDomain: "k8s.io", vendor: "kubernetes" } },
      { bookmarkProbeMs: 1_200, burst: 16 },
    );
    expect(d.capabilities.bookmarks.available).toBe(false);
    expect(d.capabilities.bookmarks.evidence).toMatch(/no BOOKMARK within 1200 ms/);
    expect(d.bookmarkWaitMs).toBe(0);
    expect(d.violations).toEqual([]);
  },
);

/**
 * Progress notifications on EtcdStore's watch (storage/etcd/etcd-store.ts, as kube-apiserver's
 * cacher asks for them): a watch on a prefix nothing writes to still learns etcd's revision after
 * writes elsewhere, without an event.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdStore } from "../../lib/emulator/storage/etcd/etcd-store.js";
import type { ChangeEvent } from "../../lib/emulator/storage/store.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { skipReason } from "./support.js";

describe.skipIf(skipReason("progress-notify"))("progress notifications", () => {
  let etcd: EtcdServer;
  let store: EtcdStore;

  beforeAll(async () => {
    etcd = await startEtcd({ extraArgs: ["--experimental-watch-progress-notify-interval=100ms"] });
    store = new EtcdStore({ endpoints: [etcd.url] });
  }, 30_000);
  afterAll(async () => {
    store?.close();
    await etcd?.dispose();
  });

  it("tell an idle watch etcd's revision, with no event", async () => {
    const events: ChangeEvent[] = [];
    const progress: number[] = [];
    const cancel = await store.watch(
      "/idle/",
      await store.revision(),
      (e) => events.push(e),
      undefined,
      (rev) => progress.push(rev),
    );
    try {
      const { revision } = await store.put("/elsewhere/k", "v");
      for (const deadline = Date.now() + 3000; !progress.some((r) => r >= revision) && Date.now() < deadline; )
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(progress.filter((r) => r >= revision).length).toBeGreaterThan(0);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(events).toEqual([]);
    } finally {
      cancel();
    }
  });
});

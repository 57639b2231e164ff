/**
 * kube-apiserver's compactor across replicas (storage/etcd/etcd-kv.ts; k8s.io/apiserver
 * pkg/storage/etcd3/compact.go): three emulators on one etcd, each running the compactor, compact
 * once per interval between them — the Txn on compact_rev_key's version lets one win each round —
 * and every replica answers 410 below etcd's compact revision.
 */
import { Etcd3 } from "etcd3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { COMPACT_REV_KEY } from "../../lib/emulator/storage/etcd/etcd-kv.js";
import { EtcdStore } from "../../lib/emulator/storage/etcd/etcd-store.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client, configMapBody } from "../emulator/support.js";
import { skipReason } from "./support.js";

const CM = "/api/v1/namespaces/default/configmaps";
const INTERVAL_MS = 250;

describe.skipIf(skipReason("compactor"))("the compactor on several replicas", () => {
  let etcd: EtcdServer;
  const replicas: RunningEmulator[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
    for (let i = 0; i < 3; i++)
      replicas.push(
        await startEmulator({ etcdServers: [etcd.url], namespaceContent: false, etcdCompactionIntervalMs: INTERVAL_MS, etcdRequestTimeoutMs: 1500 }),
      );
  }, 30_000);
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await etcd?.dispose();
  });

  it("compacts once per interval between three replicas, and every replica answers 410 below etcd's compact revision", async () => {
    const raw = new Etcd3({ hosts: [etcd.url] });
    const store = new EtcdStore({ endpoints: [etcd.url] });
    // Every put of compact_rev_key is one replica's winning round: [its value, when].
    const rounds: Array<[number, number]> = [];
    const watcher = await raw.watch().key(COMPACT_REV_KEY).create();
    watcher.on("put", (kv) => rounds.push([Number(kv.value.toString()), Date.now()]));
    try {
      const began = Date.now();
      const call = client(replicas[0]?.url ?? "");
      let first = "";
      // Writes go on while the compactor runs, so each round has history to drop.
      for (let i = 0; rounds.filter(([v]) => v > 0).length < 6 && Date.now() - began < 8000; i++) {
        const r = await call("POST", CM, configMapBody(`c-${i}`, { i: String(i) }));
        expect(r.status).toBe(201);
        first ||= r.json.metadata.resourceVersion;
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      const elapsed = Date.now() - began;
      const compactions = rounds.filter(([v]) => v > 0);
      expect(compactions.length).toBeGreaterThanOrEqual(6);
      // One round per interval between the three (a little slack for timer drift); uncoordinated they made three.
      expect(rounds.length).toBeLessThanOrEqual(Math.ceil(elapsed / INTERVAL_MS) + 2);
      const values = compactions.map(([v]) => v);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      // etcd was compacted to one of the revisions the winners recorded.
      const compacted = await store.compactRevision();
      expect(rounds.map(([v]) => v)).toContain(compacted);
      expect(compacted).toBeGreaterThan(Number(first));
      for (const r of replicas) {
        const c = client(r.url);
        const old = await c("GET", `${CM}?resourceVersion=${first}&resourceVersionMatch=Exact`);
        expect([old.status, old.json.reason]).toEqual([410, "Expired"]);
        const w = await c("GET", `${CM}?watch=1&resourceVersion=${first}`);
        const event = JSON.parse(w.text.split("\n")[0] ?? "{}");
        expect([event.type, event.object?.code, event.object?.reason]).toEqual(["ERROR", 410, "Expired"]);
      }
    } finally {
      await watcher.cancel();
      raw.close();
      store.close();
    }
  }, 20_000);
});

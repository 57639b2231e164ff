/**
 * Event time-to-live with leader election (storage/event-ttl.ts): of two emulators on one etcd,
 * only the Lease holder deletes expired events — the other's clock moved past the TTL deletes
 * nothing, the leader's does, and both serve the result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client } from "../emulator/support.js";
import { skipReason } from "./support.js";

const LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager";
const EVENTS = "/api/v1/namespaces/default/events";
const OPTIONS: EmulatorOptions = {
  admin: true,
  namespaceContent: false,
  etcdRequestTimeoutMs: 1500,
  leaderElectLeaseDurationMs: 2000,
  leaderElectRenewDeadlineMs: 1500,
  leaderElectRetryPeriodMs: 250,
};

describe.skipIf(skipReason("event-ttl-leader"))("event TTL on the leader only", () => {
  let etcd: EtcdServer;
  const replicas: RunningEmulator[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
    for (let i = 0; i < 2; i++) replicas.push(await startEmulator({ etcdServers: [etcd.url], ...OPTIONS }));
  }, 30_000);
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await etcd?.dispose();
  });

  it("deletes an expired event when the leader's clock passes the TTL, not the follower's", async () => {
    const call = client(replicas[0]?.url ?? "");
    let holderIdentity: string | undefined;
    for (const deadline = Date.now() + 8000; !holderIdentity && Date.now() < deadline; ) {
      holderIdentity = (await call("GET", LEASE)).json?.spec?.holderIdentity;
      if (!holderIdentity) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const leader = replicas.find((r) => r.leaderIdentity === holderIdentity);
    const follower = replicas.find((r) => r !== leader);
    if (!leader || !follower) throw new Error(`no replica holds the Lease (holder ${holderIdentity})`);
    const [onLeader, onFollower] = [client(leader.url), client(follower.url)];

    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "ttl-leader" },
      involvedObject: { kind: "ConfigMap", namespace: "default", name: "x" },
      reason: "Tested",
      message: "expires after --event-ttl",
      type: "Normal",
    };
    const created = await onFollower("POST", EVENTS, event);
    expect(created.status, created.text).toBe(201);

    // Two hours on the follower's clock (TTL one hour): it does not sweep.
    expect((await onFollower("POST", "/tollgate/admin/clock", { advanceSeconds: 7200 })).status).toBe(200);
    for (const c of [onFollower, onLeader]) {
      const kept = await c("GET", `${EVENTS}/ttl-leader`);
      expect([kept.status, kept.json.message]).toEqual([200, "expires after --event-ttl"]);
    }

    // Two hours on the leader's: it deletes the event, and both replicas serve its absence.
    expect((await onLeader("POST", "/tollgate/admin/clock", { advanceSeconds: 7200 })).status).toBe(200);
    for (const c of [onLeader, onFollower]) {
      const gone = await c("GET", `${EVENTS}/ttl-leader`);
      expect([gone.status, gone.json.reason]).toEqual([404, "NotFound"]);
    }
  }, 20_000);
});

/**
 * Event time-to-live with leader election (storage/event-ttl.ts): a replica that does not hold
 * the Lease leaves expired events to the holder's timer — here the Lease is held by a server
 * outside the test, so nobody sweeps on a timer and a short-lived event outlives its TTL — while
 * an admin clock advance on that replica sweeps at once (the admin asked it for the jump's
 * effects), and every replica serves the result.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client } from "../emulator/support.js";
import { skipReason } from "./support.js";

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const EVENTS = "/api/v1/namespaces/default/events";
const TTL_MS = 300;
const ELSEWHERE = "elsewhere_0f1e2d3c";

describe.skipIf(skipReason("event-ttl-leader"))("event TTL on the leader only", () => {
  let etcd: EtcdServer;
  let setup: RunningEmulator;
  let follower: RunningEmulator;

  beforeAll(async () => {
    etcd = await startEtcd();
    // The Lease held for an hour by a controller manager that is not in this test.
    setup = await startEmulator({ etcdServers: [etcd.url], admin: true, namespaceContent: false, leaderElect: false });
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
    const lease = await client(setup.url)("POST", LEASES, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "kube-controller-manager", namespace: "kube-system" },
      spec: { holderIdentity: ELSEWHERE, leaseDurationSeconds: 3600, acquireTime: now, renewTime: now, leaseTransitions: 0 },
    });
    expect(lease.status, lease.text).toBe(201);
    follower = await startEmulator({ etcdServers: [etcd.url], admin: true, namespaceContent: false, eventTtlMs: TTL_MS });
  }, 30_000);
  afterAll(async () => {
    await Promise.all([setup?.close(), follower?.close()]);
    await etcd?.dispose();
  });

  it("leaves expired events to the Lease holder's timer, and sweeps when its own clock is moved", async () => {
    const [onFollower, onSetup] = [client(follower.url), client(setup.url)];
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

    // Four TTLs later (its timer checks every TTL/4), the event is still there: only the holder sweeps on a timer.
    await new Promise((resolve) => setTimeout(resolve, 4 * TTL_MS));
    expect((await onFollower("GET", `${LEASES}/kube-controller-manager`)).json.spec.holderIdentity).toBe(ELSEWHERE);
    const kept = await onFollower("GET", `${EVENTS}/ttl-leader`);
    expect([kept.status, kept.json.message]).toEqual([200, "expires after --event-ttl"]);

    // The admin moves this replica's clock: it sweeps now, leader or not, and every replica serves the absence.
    expect((await onFollower("POST", "/tollgate/admin/clock", { advanceSeconds: 1 })).status).toBe(200);
    for (const c of [onFollower, onSetup]) {
      const gone = await c("GET", `${EVENTS}/ttl-leader`);
      expect([gone.status, gone.json.reason]).toEqual([404, "NotFound"]);
    }
  }, 20_000);
});

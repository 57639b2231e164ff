/**
 * Event leases (storage/etcd/event-leases.ts, wire-facts §21): on etcd every event is written
 * with a shared lease of --event-ttl plus 5 % (at most 60 s), reused for up to 1,000 objects
 * while it outlives the next write's TTL by no more than that; other objects carry none. etcd
 * deletes an event when its lease runs out, even with no emulator running.
 */
import { Etcd3 } from "etcd3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../lib/emulator/index.js";
import { EventLeases } from "../../lib/emulator/storage/etcd/event-leases.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client } from "../emulator/support.js";
import { skipReason } from "./support.js";

describe("the lease an event write carries", () => {
  const fake = () => {
    const grants: number[] = [];
    let clock = 1_000_000;
    const leases = new EventLeases(
      3600,
      async (ttl) => {
        grants.push(ttl);
        return String(grants.length);
      },
      () => clock,
    );
    return { grants, leases, advance: (s: number) => (clock += s * 1000) };
  };

  it("is granted for the TTL plus 5 % (at most 60 s) and reused while it outlives the TTL by no more than that", async () => {
    const { grants, leases, advance } = fake();
    expect(await leases.forWrite()).toBe("1");
    advance(59);
    expect(await leases.forWrite()).toBe("1");
    // 61 s on, the lease (3,660 s from the first write) no longer outlives a new 3,600 s TTL.
    advance(2);
    expect(await leases.forWrite()).toBe("2");
    expect(grants).toEqual([3660, 3660]);
    // 5 % of a short TTL: 100 s → 5 s more.
    const short: number[] = [];
    await new EventLeases(100, async (ttl) => String(short.push(ttl))).forWrite();
    expect(short).toEqual([105]);
  });

  it("is shared by at most 1,000 objects, and writes during a grant share that grant", async () => {
    const { grants, leases } = fake();
    const ids = await Promise.all(Array.from({ length: 1001 }, () => leases.forWrite()));
    expect(ids.filter((id) => id === "1")).toHaveLength(1000);
    expect(ids[1000]).toBe("2");
    expect(grants).toHaveLength(2);
  });
});

describe.skipIf(skipReason("event-leases"))("event leases in etcd", () => {
  let etcd: EtcdServer;
  let raw: Etcd3;

  beforeAll(async () => {
    etcd = await startEtcd();
    raw = new Etcd3({ hosts: etcd.url });
  }, 30_000);
  afterAll(async () => {
    raw?.close();
    await etcd?.dispose();
  });

  const event = (name: string) => ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "ConfigMap", namespace: "default", name: "x" },
    reason: "Tested",
    message: "leased",
    type: "Normal",
  });

  it("writes both event APIs' events with one lease of the TTL plus its extra, and other objects with none", async () => {
    const emu = await startEmulator({ etcdServers: [etcd.url], namespaceContent: false });
    try {
      const call = client(emu.url);
      expect((await call("POST", "/api/v1/namespaces/default/events", event("core"))).status).toBe(201);
      const modern = {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "modern" },
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "example.com/test",
        reportingInstance: "test-1",
        action: "Testing",
        reason: "Tested",
        regarding: { kind: "ConfigMap", namespace: "default", name: "x" },
        type: "Normal",
      };
      const created = await call("POST", "/apis/events.k8s.io/v1/namespaces/default/events", modern);
      expect(created.status, created.text).toBe(201);
      expect((await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "unleased" } })).status).toBe(201);

      const lease = async (key: string) => (await raw.get(key).exec()).kvs[0]?.lease;
      const [core, events, cm] = await Promise.all([
        lease("/registry/events/default/core"),
        lease("/registry/events/default/modern"),
        lease("/registry/configmaps/default/unleased"),
      ]);
      expect(core).not.toBe("0");
      expect(events).toBe(core);
      expect(cm).toBe("0");
      // The default --event-ttl of one hour, plus 60 s (5 % would be 180 s).
      const granted = await raw.leaseClient.leaseTimeToLive({ ID: core as string, keys: true });
      expect(Number(granted.grantedTTL)).toBe(3660);
      expect(granted.keys.map((k) => k.toString()).sort()).toEqual(["/registry/events/default/core", "/registry/events/default/modern"]);
    } finally {
      await emu.close();
    }
  });

  it("leaves expiry to etcd: an event outlives no emulator", async () => {
    const emu = await startEmulator({ etcdServers: [etcd.url], etcdPrefix: "/short", namespaceContent: false, eventTtlMs: 1000 });
    expect((await client(emu.url)("POST", "/api/v1/namespaces/default/events", event("brief"))).status).toBe(201);
    await emu.close();
    const key = "/short/events/default/brief";
    expect(await raw.get(key).string()).not.toBeNull();
    let left: string | null = "";
    for (const deadline = Date.now() + 5000; left !== null && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await raw.get(key).string();
    }
    expect(left).toBeNull();
  });
});

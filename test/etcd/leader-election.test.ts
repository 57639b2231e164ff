/**
 * Leader-elected controllers on etcd (registry/coordination/leader-elector.ts): of two emulators
 * on one etcd exactly one holds the kube-system/kube-controller-manager Lease, served through
 * the API with client-go's fields; only the holder runs the namespace controllers (a namespace
 * deleted through the other is emptied and removed by the holder, and nothing cleans it while
 * nobody leads); the leader closed, and another killed with SIGKILL, the survivor takes the
 * Lease within the lease duration and finishes a namespace deleted during the failover. In
 * memory no Lease is written unless --leader-elect asks for one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { hostname } from "node:os";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEmulatorCommand } from "../../lib/cli/emulator.js";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client } from "../emulator/support.js";
import { skipReason } from "./support.js";

const LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager";
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
/** Short timings, as the flags would give them: a lease of 2 s, renewed every 250 ms. */
const TIMING: EmulatorOptions = {
  leaderElectLeaseDurationMs: 2000,
  leaderElectRenewDeadlineMs: 1500,
  leaderElectRetryPeriodMs: 250,
  namespaceCleanupDelayMs: 0,
};

/**
 * A takeover within the lease duration (2 s) plus client-go's jittered retry (1.2 × 250 ms), with
 * 1.2 s for a loaded machine's scheduling (0.5 s failed once under a load of 10 on two cores);
 * waiting out a second lease duration would still fail it.
 */
const TAKEOVER_BOUND_MS = 2000 + 250 * 2.2 + 1200;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An emulator in its own process, to be killed with SIGKILL: its URL and identity. */
async function startChild(etcdUrl: string): Promise<{ child: ChildProcess; url: string; identity: string }> {
  const script = `import("./lib/emulator/index.ts").then(async (m) => { const e = await m.startEmulator(${JSON.stringify({ etcdServers: [etcdUrl], ...TIMING })}); console.log(JSON.stringify({ url: e.url, identity: e.leaderIdentity })); })`;
  const child = spawn(process.execPath, ["--import", "tsx", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`child emulator exited (${code})`)));
  });
  return { child, ...(JSON.parse(line) as { url: string; identity: string }) };
}

describe.skipIf(skipReason("leader-election"))("leader-elected controllers on etcd", () => {
  let etcd: EtcdServer;
  const running: RunningEmulator[] = [];
  let killed: ChildProcess | undefined;
  const start = async () => {
    const e = await startEmulator({ etcdServers: [etcd.url], etcdRequestTimeoutMs: 1500, ...TIMING });
    running.push(e);
    return e;
  };
  const holder = async (url: string) => {
    const r = await client(url)("GET", LEASE);
    return r.status === 200 ? (r.json.spec.holderIdentity as string) : undefined;
  };
  /** The namespace deleted through `via` once it is gone (404), with when that was seen. */
  const deleteNamespace = async (via: string, name: string) => {
    const call = client(via);
    expect((await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } })).status).toBe(201);
    expect((await call("POST", `/api/v1/namespaces/${name}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inside" } })).status).toBe(
      201,
    );
    const deleted = await call("DELETE", `/api/v1/namespaces/${name}`);
    expect(deleted.json.status.phase).toBe("Terminating");
  };
  /** true once `by` holds the Lease; meanwhile the namespace's content must stay while `dead` holds it. */
  const takenOver = async (by: RunningEmulator, namespace: string, dead: string) => {
    const inside = await client(by.url)("GET", `/api/v1/namespaces/${namespace}/configmaps/inside`);
    const now = await holder(by.url);
    if (now === by.leaderIdentity) return true;
    expect(now).toBe(dead);
    expect(inside.status).toBe(200);
    return undefined;
  };
  const gone = (via: string, name: string, timeoutMs: number) =>
    until(`namespace ${name} removed`, async () => ((await client(via)("GET", `/api/v1/namespaces/${name}`)).status === 404 ? true : undefined), timeoutMs);

  beforeAll(async () => {
    etcd = await startEtcd();
    await start();
    await start();
  }, 30_000);
  afterAll(async () => {
    killed?.kill("SIGKILL");
    for (const e of running) await e.close();
    await etcd?.dispose();
  });

  it("takes the flags with the controller manager's names and defaults", () => {
    const cmd = parseEmulatorCommand([
      "--etcd-servers",
      "http://127.0.0.1:2379",
      "--leader-elect-lease-duration",
      "2s",
      "--leader-elect-renew-deadline=1500ms",
      "--leader-elect-retry-period",
      "250ms",
      "--leader-elect-resource-name",
      "mine",
    ]);
    expect(cmd.api).toMatchObject({
      leaderElectLeaseDurationMs: 2000,
      leaderElectRenewDeadlineMs: 1500,
      leaderElectRetryPeriodMs: 250,
      leaderElectResourceName: "mine",
    });
    // The defaults (15s, 10s, 2s) pass client-go's checks; 2s of retry against a renew deadline of 1.5s does not.
    expect(() => parseEmulatorCommand(["--etcd-servers", "http://127.0.0.1:2379", "--leader-elect-renew-deadline=1500ms"])).toThrow(
      "leader election: renewDeadline must be greater than retryPeriod*JitterFactor",
    );
    expect(parseEmulatorCommand(["--leader-elect"]).api.leaderElect).toBe(true);
    expect(parseEmulatorCommand(["--leader-elect=false"]).api.leaderElect).toBe(false);
    expect(parseEmulatorCommand([]).api.leaderElect).toBeUndefined();
    expect(() => parseEmulatorCommand(["--etcd-servers", "http://127.0.0.1:2379", "--leader-elect-renew-deadline", "20s"])).toThrow(
      "leader election: leaseDuration must be greater than renewDeadline",
    );
    expect(() => parseEmulatorCommand(["--leader-elect-retry-period", "2"])).toThrow(
      '--leader-elect-retry-period must be a Go duration from 1ms (e.g. 15s, 500ms), not "2"',
    );
  });

  it("has exactly one holder of the Lease, served through the API with client-go's fields, renewed", async () => {
    const [a, b] = running as [RunningEmulator, RunningEmulator];
    const ids = [a.leaderIdentity, b.leaderIdentity];
    for (const id of ids)
      expect(id).toMatch(new RegExp(`^${hostname().replace(/[.]/g, "\\.")}_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`));
    const first = await until("a holder", () => holder(b.url), 5000);
    expect(ids).toContain(first);
    const lease = (await client(a.url)("GET", LEASE)).json;
    expect(lease.metadata.managedFields[0]).toMatchObject({ manager: "kube-controller-manager", operation: "Update", apiVersion: "coordination.k8s.io/v1" });
    expect(Object.keys(lease.spec)).toEqual(["holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime", "leaseTransitions"]);
    expect(lease.spec).toMatchObject({ leaseDurationSeconds: 2, leaseTransitions: 0 });
    expect(lease.spec.acquireTime).toMatch(MICRO_TIME);
    expect(lease.spec.renewTime).toMatch(MICRO_TIME);
    // Renewed by the same holder: renewTime moves, acquireTime and the transitions stay.
    const renewed = await until(
      "a renewal",
      async () => {
        const l = (await client(b.url)("GET", LEASE)).json;
        return l.spec.renewTime !== lease.spec.renewTime ? l : undefined;
      },
      3000,
    );
    expect(renewed.spec).toMatchObject({ holderIdentity: first, acquireTime: lease.spec.acquireTime, leaseTransitions: 0 });
    expect(Number(renewed.metadata.resourceVersion)).toBeGreaterThan(Number(lease.metadata.resourceVersion));
  });

  it("runs the namespace controllers on the leader: a namespace deleted through the other replica is emptied and removed", async () => {
    const leaderId = await holder(running[0]!.url);
    const follower = running.find((e) => e.leaderIdentity !== leaderId)!;
    await deleteNamespace(follower.url, "via-follower");
    await gone(follower.url, "via-follower", 5000);
    // The namespace content controller ran too (on the leader): created, then deleted with it.
    expect((await client(follower.url)("GET", "/api/v1/namespaces/via-follower/configmaps/inside")).status).toBe(404);
  });

  it("moves the Lease when the leader is closed, and again when one is killed; namespaces deleted meanwhile are still cleaned up", async () => {
    const leaderId = await holder(running[0]!.url);
    const leader = running.find((e) => e.leaderIdentity === leaderId)!;
    const survivor = running.find((e) => e.leaderIdentity !== leaderId)!;
    const before = (await client(survivor.url)("GET", LEASE)).json.spec;
    await leader.close();
    running.splice(running.indexOf(leader), 1);
    const closedAt = Date.now();
    // Deleted while nobody leads: its content stays until the survivor takes the Lease (the
    // content read first: gone while the closed one still held the Lease would be a controller
    // running on a replica that does not lead).
    await deleteNamespace(survivor.url, "during-close");
    await until("the survivor holding the Lease", () => takenOver(survivor, "during-close", leaderId!), 4000);
    // Within the lease duration after it was last renewed, plus a retry period with its jitter.
    expect(Date.now() - closedAt).toBeLessThan(TAKEOVER_BOUND_MS);
    const after = (await client(survivor.url)("GET", LEASE)).json.spec;
    expect(after.leaseTransitions).toBe(before.leaseTransitions + 1);
    expect(after.acquireTime).not.toBe(before.acquireTime);
    await gone(survivor.url, "during-close", 3000);

    // A replica in its own process takes over from the survivor, then is killed with SIGKILL.
    const child = await startChild(etcd.url);
    killed = child.child;
    await survivor.close();
    running.splice(running.indexOf(survivor), 1);
    await until("the child holding the Lease", async () => ((await holder(child.url)) === child.identity ? true : undefined), 4000);
    const next = await start();
    child.child.kill("SIGKILL");
    const killedAt = Date.now();
    await deleteNamespace(next.url, "during-kill");
    await until("the new replica holding the Lease", () => takenOver(next, "during-kill", child.identity), 4000);
    expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_BOUND_MS);
    expect((await client(next.url)("GET", LEASE)).json.spec.leaseTransitions).toBe(after.leaseTransitions + 2);
    await gone(next.url, "during-kill", 3000);
  }, 20_000);
});

describe("leader election in memory", () => {
  it("writes no Lease by default (the one emulator always runs the controllers), and holds one when asked", async () => {
    const plain = await startEmulator({ namespaceCleanupDelayMs: 0 });
    const elected = await startEmulator({ leaderElect: true, ...TIMING, leaderElectResourceName: "emulated" });
    try {
      expect(plain.leaderIdentity).toBeUndefined();
      const none = await client(plain.url)("GET", LEASE);
      expect(none.status).toBe(404);
      expect(none.json.message).toBe('leases.coordination.k8s.io "kube-controller-manager" not found');
      const lease = await until(
        "the Lease",
        async () => {
          const r = await client(elected.url)("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/emulated");
          return r.status === 200 ? r.json : undefined;
        },
        3000,
      );
      expect(lease.spec).toMatchObject({ holderIdentity: elected.leaderIdentity, leaseDurationSeconds: 2, leaseTransitions: 0 });
      // Leading, it runs the namespace controller.
      const call = client(elected.url);
      await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "mem" } });
      await call("DELETE", "/api/v1/namespaces/mem");
      await until("namespace mem removed", async () => ((await call("GET", "/api/v1/namespaces/mem")).status === 404 ? true : undefined), 3000);
    } finally {
      await plain.close();
      await elected.close();
    }
  });
});

/**
 * The emulator on etcd over HTTP (storage/etcd/etcd-kv.ts): CRUD, a list at a resourceVersion and
 * a watch from one; an emulator started again on the same etcd keeps every object and
 * resourceVersion; two emulators on one etcd see each other's writes, in the same order with the
 * same resourceVersions; a compaction through one answers 410 on both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEmulatorCommand } from "../../lib/cli/emulator.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client, configMapBody, openWatch } from "../emulator/support.js";
import { skipReason } from "./support.js";

const CM = "/api/v1/namespaces/default/configmaps";

describe.skipIf(skipReason("emulator-on-etcd"))("the emulator on etcd", () => {
  let etcd: EtcdServer;
  let a: RunningEmulator;
  let b: RunningEmulator;
  const start = () => startEmulator({ etcdServers: [etcd.url], admin: true, namespaceContent: false, etcdRequestTimeoutMs: 1500 });

  beforeAll(async () => {
    etcd = await startEtcd();
    // One after the other: the second finds the default policy and namespaces the first wrote.
    a = await start();
    b = await start();
  }, 30_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await etcd?.dispose();
  });

  it("creates, reads, updates, lists at a resourceVersion and watches from one", async () => {
    const call = client(a.url);
    const created = await call("POST", CM, configMapBody("crud", { v: "1" }));
    expect(created.status).toBe(201);
    const rv1 = created.json.metadata.resourceVersion as string;
    const got = await call("GET", `${CM}/crud`);
    expect(got.json.data).toEqual({ v: "1" });
    expect(got.json.metadata.resourceVersion).toBe(rv1);
    const updated = await call("PUT", `${CM}/crud`, { ...got.json, data: { v: "2" } });
    expect(updated.status).toBe(200);
    const rv2 = updated.json.metadata.resourceVersion as string;
    expect(Number(rv2)).toBeGreaterThan(Number(rv1));
    // A stale update is a conflict, with the real server's text.
    const stale = await call("PUT", `${CM}/crud`, { ...got.json, data: { v: "3" } });
    expect(stale.status).toBe(409);
    expect(stale.json.message).toContain("the object has been modified");
    // The list at rv1 holds the first value; the current list the second.
    const old = await call("GET", `${CM}?resourceVersion=${rv1}&resourceVersionMatch=Exact`);
    expect(old.json.items.find((i: any) => i.metadata.name === "crud").data).toEqual({ v: "1" });
    expect(old.json.metadata.resourceVersion).toBe(rv1);
    const now = await call("GET", CM);
    expect(now.json.items.find((i: any) => i.metadata.name === "crud").data).toEqual({ v: "2" });
    // A watch from rv1 replays the update, then sees the delete.
    const w = await openWatch(a.url, `${CM}?watch=1&resourceVersion=${rv1}`);
    const first = await w.take(1, 3000);
    expect(first.map((e) => [e.type, e.object.metadata.resourceVersion, e.object.data])).toEqual([["MODIFIED", rv2, { v: "2" }]]);
    const deleted = await call("DELETE", `${CM}/crud`);
    expect(deleted.status).toBe(200);
    const [gone] = await w.take(1, 3000);
    w.close();
    expect(gone?.type).toBe("DELETED");
    expect(Number(gone?.object.metadata.resourceVersion)).toBeGreaterThan(Number(rv2));
    expect((await call("GET", `${CM}/crud`)).status).toBe(404);
  });

  it("serves one cluster from two emulators: a write through one is seen by a watch and a consistent list on the other, same order and resourceVersions", async () => {
    const [ca, cb] = [client(a.url), client(b.url)];
    const listed = await cb("GET", CM);
    const w = await openWatch(b.url, `${CM}?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    const written: string[] = [];
    for (const [i, call] of [ca, cb, ca].entries()) {
      const r = await call("POST", CM, configMapBody(`two-${i}`, { i: String(i) }));
      expect(r.status).toBe(201);
      written.push(r.json.metadata.resourceVersion);
    }
    const onB = await cb("GET", CM);
    const onA = await ca("GET", CM);
    const two = (list: any) =>
      list.json.items.filter((i: any) => i.metadata.name.startsWith("two-")).map((i: any) => [i.metadata.name, i.metadata.resourceVersion]);
    expect(two(onB)).toEqual(written.map((rv, i) => [`two-${i}`, rv]));
    expect(two(onA)).toEqual(two(onB));
    const events = await w.take(3, 3000);
    w.close();
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual(written.map((rv, i) => ["ADDED", `two-${i}`, rv]));
  });

  it("continues a list with the other emulator's continue token: the token is the real server's, aged by etcd's compaction", async () => {
    const [ca, cb] = [client(a.url), client(b.url)];
    for (const i of [0, 1, 2]) expect((await ca("POST", CM, configMapBody(`page-${i}`, { i: String(i) }))).status).toBe(201);
    const first = await ca("GET", `${CM}?limit=1`);
    const token = first.json.metadata.continue as string;
    // Exactly the three fields a real server writes (wire-facts §9): no issue stamp another replica could not check.
    expect(Object.keys(JSON.parse(Buffer.from(token, "base64url").toString("utf8")))).toEqual(["v", "rv", "start"]);
    const rest = await cb("GET", `${CM}?limit=500&continue=${token}`);
    expect(rest.status).toBe(200);
    expect(rest.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
    const names = [...first.json.items, ...rest.json.items].map((i: any) => i.metadata.name);
    expect(names).toEqual(
      (await ca("GET", `${CM}?resourceVersion=${first.json.metadata.resourceVersion}&resourceVersionMatch=Exact`)).json.items.map((i: any) => i.metadata.name),
    );
  });

  it("starts several emulators at once on an empty etcd: each seeds what the others have not, none fails on what another made", async () => {
    const prefix = `/fresh-${Date.now()}`;
    const many = await Promise.all([0, 1, 2].map(() => startEmulator({ etcdServers: [etcd.url], etcdPrefix: prefix, namespaceContent: false })));
    try {
      const names = await Promise.all(many.map(async (e) => (await client(e.url)("GET", "/api/v1/namespaces")).json.items.map((i: any) => i.metadata.name)));
      for (const n of names) expect(n).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    } finally {
      await Promise.all(many.map((e) => e.close()));
    }
  });

  it("keeps every object and resourceVersion when an emulator is started again on the same etcd", async () => {
    const call = client(a.url);
    const r = await call("POST", CM, configMapBody("kept", { k: "v" }));
    const before = await call("GET", CM);
    await a.close();
    a = await start();
    const again = client(a.url);
    const kept = await again("GET", `${CM}/kept`);
    expect(kept.json.metadata.resourceVersion).toBe(r.json.metadata.resourceVersion);
    expect(kept.json.metadata.uid).toBe(r.json.metadata.uid);
    const after = await again("GET", CM);
    const names = (l: any) => l.json.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]);
    expect(names(after)).toEqual(names(before));
    // The default policy was there: not written again.
    const role = await again("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin");
    expect(Number(role.json.metadata.resourceVersion)).toBeLessThan(Number(r.json.metadata.resourceVersion));
  });

  it("answers 410 on both emulators after a compaction through one", async () => {
    const [ca, cb] = [client(a.url), client(b.url)];
    const r1 = await ca("POST", CM, configMapBody("old", {}));
    const rv = r1.json.metadata.resourceVersion as string;
    await ca("POST", CM, configMapBody("newer", {}));
    const compacted = await ca("POST", "/tollgate/admin/compact", {});
    expect(compacted.status).toBe(200);
    const at = Number(compacted.json.compactedRevision);
    expect(at).toBeGreaterThan(Number(rv));
    for (const call of [ca, cb]) {
      const old = await call("GET", `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(old.status).toBe(410);
      expect(old.json.reason).toBe("Expired");
      const w = await call("GET", `${CM}?watch=1&resourceVersion=${rv}`);
      expect(w.status).toBe(200);
      expect(w.json?.type ?? JSON.parse(w.text.split("\n")[0] ?? "{}").type).toBe("ERROR");
      expect(w.text).toContain('"code":410');
    }
  });

  it("compacts every --etcd-compaction-interval to the revision seen one interval earlier, and other emulators follow", async () => {
    const c = await startEmulator({ etcdServers: [etcd.url], namespaceContent: false, etcdCompactionIntervalMs: 150 });
    try {
      const r = await client(c.url)("POST", CM, configMapBody("compacted-by-interval", {}));
      const rv = r.json.metadata.resourceVersion as string;
      // b never compacts itself: it learns of c's compactions through compact_rev_key.
      const cb = client(b.url);
      let old = await cb("GET", `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      for (const deadline = Date.now() + 5000; old.status === 200 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        old = await cb("GET", `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      }
      expect(old.status).toBe(410);
      expect(old.json.reason).toBe("Expired");
    } finally {
      await c.close();
    }
  });

  it("takes --etcd-servers, --etcd-prefix, --etcd-compaction-interval and the check timeouts as kube-apiserver names them", () => {
    const { api } = parseEmulatorCommand([
      "--etcd-servers",
      "http://127.0.0.1:2379,https://10.0.0.1:2379",
      "--etcd-prefix",
      "/k8s",
      "--etcd-compaction-interval",
      "0",
      "--etcd-healthcheck-timeout",
      "1.5",
      "--etcd-readycheck-timeout",
      "3",
    ]);
    expect([api.etcdServers, api.etcdPrefix, api.etcdCompactionIntervalMs, api.etcdHealthcheckTimeoutMs, api.etcdReadycheckTimeoutMs]).toEqual([
      ["http://127.0.0.1:2379", "https://10.0.0.1:2379"],
      "/k8s",
      0,
      1500,
      3000,
    ]);
    expect(() => parseEmulatorCommand(["--etcd-servers", "http://127.0.0.1:2379", "--etcd-readycheck-timeout", "soon"])).toThrow(
      "--etcd-readycheck-timeout must be a number of seconds from 0.001 to",
    );
    expect(() => parseEmulatorCommand(["--etcd-servers", "127.0.0.1:2379"])).toThrow(
      '--etcd-servers takes scheme://host:port URLs, comma-separated, not "127.0.0.1:2379"',
    );
    expect(() => parseEmulatorCommand(["--etcd-prefix", "/k8s"])).toThrow(
      "--etcd-prefix, --etcd-compaction-interval and the etcd check timeouts go with --etcd-servers",
    );
  });

  // Last: it stops etcd.
  it("answers a bare 504 Timeout Status while etcd is down, and carries on after it is back, open watches included", async () => {
    const [ca, cb] = [client(a.url), client(b.url)];
    const listed = await cb("GET", CM);
    const w = await openWatch(b.url, `${CM}?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    await etcd.stop();
    const down = await ca("GET", `${CM}/anything`);
    expect(down.status).toBe(504);
    expect(down.json).toEqual({
      metadata: {},
      status: "Failure",
      message: "Timeout: request did not complete within the allotted timeout",
      reason: "Timeout",
      details: {},
      code: 504,
    });
    expect((await ca("POST", CM, configMapBody("while-down", {}))).status).toBe(504);
    await etcd.restart();
    // The first calls after the restart may still find etcd electing itself.
    let created = await ca("POST", CM, configMapBody("after", {}));
    for (let i = 0; created.status !== 201 && i < 20; i++) created = await ca("POST", CM, configMapBody("after", {}));
    expect(created.status).toBe(201);
    const [event] = await w.take(1, 5000);
    w.close();
    expect([event?.type, event?.object.metadata.name, event?.object.metadata.resourceVersion]).toEqual([
      "ADDED",
      "after",
      created.json.metadata.resourceVersion,
    ]);
    expect((await cb("GET", `${CM}/while-down`)).status).toBe(404);
  }, 20_000);
});

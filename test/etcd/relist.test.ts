/**
 * A replica cut off from etcd while another one compacts past it (storage/etcd/etcd-kv.ts
 * relist): once it reaches etcd again its watch cannot resume, so it re-lists as kube-apiserver's
 * cacher re-initializes — it serves the new state, its open watches end (the stream closes with no
 * ERROR event), a watch from an old resourceVersion is 410, and it follows etcd again. Replica B
 * reaches etcd through a TCP proxy the test can cut: a partition, with no hook in the emulator.
 * And a replica started after a revision serves exact and continued lists at it from etcd (the
 * cacher's delegation), while a watch from it is 410.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client, configMapBody, openWatch } from "../emulator/support.js";
import { skipReason } from "./support.js";

const CM = "/api/v1/namespaces/default/configmaps";

/** A TCP proxy to etcd; cut() drops every connection and refuses new ones until heal(). */
async function partitionableProxy(target: URL): Promise<{ url: string; cut(): void; heal(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((inbound) => {
    if (cut) return void inbound.destroy();
    const outbound = connect(Number(target.port), target.hostname);
    for (const [s, other] of [
      [inbound, outbound],
      [outbound, inbound],
    ] as const) {
      sockets.add(s);
      s.on("error", () => other.destroy());
      s.on("close", () => {
        sockets.delete(s);
        other.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    heal: () => {
      cut = false;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(skipReason("relist"))("a replica whose etcd watch cannot resume after a compaction", () => {
  let etcd: EtcdServer;
  let proxy: Awaited<ReturnType<typeof partitionableProxy>>;
  let a: RunningEmulator;
  let b: RunningEmulator;

  beforeAll(async () => {
    etcd = await startEtcd();
    proxy = await partitionableProxy(new URL(etcd.url));
    a = await startEmulator({ etcdServers: [etcd.url], admin: true, namespaceContent: false, etcdRequestTimeoutMs: 1500 });
    b = await startEmulator({ etcdServers: [proxy.url], namespaceContent: false, etcdRequestTimeoutMs: 1500 });
  }, 30_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await proxy?.close();
    await etcd?.dispose();
  });

  it("re-lists at etcd's revision: serves the new state, ends its watches, answers 410 below it, and follows etcd again", async () => {
    const [ca, cb] = [client(a.url), client(b.url)];
    for (const name of ["kept", "changed", "gone"]) expect((await ca("POST", CM, configMapBody(name, { v: "1" }))).status).toBe(201);
    const before = await cb("GET", CM);
    const rv = before.json.metadata.resourceVersion as string;
    const open = await openWatch(b.url, `${CM}?watch=1&resourceVersion=${rv}`);

    proxy.cut();
    const changed = await ca("GET", `${CM}/changed`);
    expect((await ca("PUT", `${CM}/changed`, { ...changed.json, data: { v: "2" } })).status).toBe(200);
    expect((await ca("DELETE", `${CM}/gone`)).status).toBe(200);
    expect((await ca("POST", CM, configMapBody("added", { v: "1" }))).status).toBe(201);
    const compacted = await ca("POST", "/tollgate/admin/compact", {});
    const compactRv = Number(compacted.json.compactedRevision);
    expect(compactRv).toBeGreaterThan(Number(rv));
    proxy.heal();

    // B comes back on its own, within a bound (no stall), with A's state and resourceVersions.
    const view = (list: any) => list.json.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion, i.data]);
    const onA = view(await ca("GET", CM));
    let onB = await cb("GET", CM);
    for (const deadline = Date.now() + 8000; (onB.status !== 200 || JSON.stringify(view(onB)) !== JSON.stringify(onA)) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      onB = await cb("GET", CM);
    }
    expect(view(onB)).toEqual(onA);
    expect(onA.map(([name]: string[]) => name)).toEqual(["added", "changed", "kept"]);

    // The watch open across the cut ended, with no event (the cacher closes its watchers' streams).
    const ended = await Promise.race([open.ended.then(() => "ended"), new Promise((resolve) => setTimeout(() => resolve("open"), 3000))]);
    expect(ended).toBe("ended");
    expect(await open.take(10, 100)).toEqual([]);

    // A watch from before the re-list: 410, the real server's text.
    const old = await cb("GET", `${CM}?watch=1&resourceVersion=${rv}`);
    const error = JSON.parse(old.text.split("\n")[0] ?? "{}");
    expect([error.type, error.object?.code, error.object?.reason]).toEqual(["ERROR", 410, "Expired"]);
    expect(error.object?.message).toMatch(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));

    // And B follows etcd again: a watch from its list sees a write through A.
    const w = await openWatch(b.url, `${CM}?watch=1&resourceVersion=${onB.json.metadata.resourceVersion}`);
    const later = await ca("POST", CM, configMapBody("later", {}));
    const [event] = await w.take(1, 5000);
    w.close();
    expect([event?.type, event?.object.metadata.name, event?.object.metadata.resourceVersion]).toEqual(["ADDED", "later", later.json.metadata.resourceVersion]);
  }, 25_000);

  it("reads a revision from before a replica's start in etcd (exact list, limit and continue), and answers a watch from it 410", async () => {
    const ca = client(a.url);
    for (const name of ["p-1", "p-2", "p-3"]) expect((await ca("POST", CM, configMapBody(name, { at: "then" }))).status).toBe(201);
    const then = await ca("GET", CM);
    const rv = then.json.metadata.resourceVersion as string;
    expect((await ca("DELETE", `${CM}/p-2`)).status).toBe(200);
    expect((await ca("POST", CM, configMapBody("p-4", {}))).status).toBe(201);
    const c = await startEmulator({ etcdServers: [etcd.url], namespaceContent: false, etcdRequestTimeoutMs: 1500 });
    try {
      const cc = client(c.url);
      const view = (items: any[]) => items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion, i.data]);
      const exact = await cc("GET", `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(200);
      expect(exact.json.metadata.resourceVersion).toBe(rv);
      expect(view(exact.json.items)).toEqual(view(then.json.items));
      expect(view(exact.json.items).map(([name]) => name)).toEqual(expect.arrayContaining(["p-1", "p-2", "p-3"]));
      // Pages of 2 at that revision, through the continue token.
      const pages: any[] = [];
      let page = await cc("GET", `${CM}?limit=2&resourceVersion=${rv}`);
      for (let i = 0; i < 10; i++) {
        expect(page.status).toBe(200);
        pages.push(...page.json.items);
        if (!page.json.metadata.continue) break;
        page = await cc("GET", `${CM}?limit=2&continue=${encodeURIComponent(page.json.metadata.continue)}`);
      }
      expect(view(pages)).toEqual(view(then.json.items));
      // A watch from it: below the new replica's window.
      const w = await cc("GET", `${CM}?watch=1&resourceVersion=${rv}`);
      const error = JSON.parse(w.text.split("\n")[0] ?? "{}");
      expect([error.type, error.object?.code, error.object?.reason]).toEqual(["ERROR", 410, "Expired"]);
      expect(error.object?.message).toMatch(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
    } finally {
      await c.close();
    }
  }, 20_000);
});

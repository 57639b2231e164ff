/**
 * The etcd adapter against a real etcd, by scenario: the compaction boundary, a watch from a
 * compacted revision, CAS conflicts with MemoryStore's texts, two clients racing and watching each
 * other (as two emulator replicas on one etcd will), a list past grpc's 4 MiB default,
 * and etcd stopped (calls fail with EtcdUnavailable within the bound, then recover on restart).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdStore, EtcdUnavailable } from "../../lib/emulator/storage/etcd/etcd-store.js";
import { type ChangeEvent, StoreError } from "../../lib/emulator/storage/store.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { skipReason, waitForEvents } from "./support.js";

const TIMEOUT_MS = 1500;

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a failure");
}

/** Waits until the kernel shows the process stopped: a SIGSTOP takes effect a moment after kill() returns (seen: a read served in between). */
async function stopped(pid: number): Promise<void> {
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    // /proc/<pid>/stat: "pid (comm) state ..."; T is stopped.
    if (/\) T /.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`etcd (pid ${pid}) did not stop`);
}

/** The call's result once it succeeds, retried for up to 5 s (a member coming back may refuse a moment). */
async function eventually<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe.skipIf(skipReason("etcd-store-scenarios"))("EtcdStore on a real etcd", () => {
  let etcd: EtcdServer;
  let store: EtcdStore;

  beforeAll(async () => {
    etcd = await startEtcd();
    store = new EtcdStore({ endpoints: etcd.url, requestTimeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    store?.close();
    await etcd?.dispose();
  });

  it("reads at the compact revision and fails one before it, with MemoryStore's texts; another client finds the compact revision", async () => {
    const a = await store.put("/c/a", '{"v":1}');
    const b = await store.put("/c/a", '{"v":2}');
    await store.put("/c/b", '{"v":3}');
    await store.compact(b.revision);
    expect(await store.compactRevision()).toBe(b.revision);
    const at = await store.range("/c/", { revision: b.revision });
    expect(at.kvs.map((kv) => [kv.key, kv.value, kv.modRevision])).toEqual([["/c/a", '{"v":2}', b.revision]]);
    expect(at.revision).toBe(b.revision);
    const err = await failure(store.range("/c/", { revision: a.revision }));
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ code: "Compacted", message: `required revision ${a.revision} has been compacted (${b.revision})` });
    // A client that did not compact learns the revision from etcd (a search over reads).
    const other = new EtcdStore({ endpoints: etcd.url, requestTimeoutMs: TIMEOUT_MS });
    try {
      expect(await other.compactRevision()).toBe(b.revision);
      // Compacting at or below it again is a no-op, as MemoryStore's.
      await other.compact(a.revision);
      expect(await other.compactRevision()).toBe(b.revision);
    } finally {
      other.close();
    }
    const future = await failure(store.range("/c/", { revision: (await store.revision()) + 5 }));
    expect(future).toMatchObject({
      code: "FutureRevision",
      message: `revision ${(await store.revision()) + 5} is in the future (current ${await store.revision()})`,
    });
  });

  it("a watch from a compacted revision fails Compacted with the compact revision; from the compact revision it replays what followed", async () => {
    const first = await store.put("/w/x", "1");
    const second = await store.put("/w/x", "2");
    const third = await store.put("/w/y", "3");
    await store.delete("/w/x");
    await store.compact(second.revision);
    const err = await failure(store.watch("/w/", first.revision, () => {}));
    expect(err).toMatchObject({ code: "Compacted", message: `required revision ${first.revision} has been compacted (${second.revision})` });
    const events: ChangeEvent[] = [];
    const cancel = await store.watch("/w/", second.revision, (e) => events.push(e));
    await waitForEvents(events, 2);
    cancel();
    expect(events.map((e) => [e.type, e.key, e.revision, e.kv?.value, e.prevKv?.value])).toEqual([
      ["put", "/w/y", third.revision, "3", undefined],
      ["delete", "/w/x", third.revision + 1, undefined, "2"],
    ]);
  });

  it("CAS: must-not-exist, a stale modRevision and deletes fail with MemoryStore's codes and texts; a matching one applies", async () => {
    const created = await store.put("/cas/k", "a", { expectModRevision: 0 });
    expect(created.kv).toEqual({ key: "/cas/k", value: "a", createRevision: created.revision, modRevision: created.revision });
    expect(created.prevKv).toBeUndefined();
    expect(await failure(store.put("/cas/k", "b", { expectModRevision: 0 }))).toMatchObject({
      code: "KeyExists",
      message: "key exists: /cas/k",
      key: "/cas/k",
    });
    expect(await failure(store.put("/cas/k", "b", { expectModRevision: created.revision - 1 }))).toMatchObject({
      code: "Conflict",
      message: `modRevision of /cas/k is ${created.revision}, expected ${created.revision - 1}`,
    });
    expect(await failure(store.put("/cas/none", "b", { expectModRevision: 3 }))).toMatchObject({
      code: "Conflict",
      message: "modRevision of /cas/none is none, expected 3",
    });
    const updated = await store.put("/cas/k", "b", { expectModRevision: created.revision });
    expect(updated.kv).toEqual({ key: "/cas/k", value: "b", createRevision: created.revision, modRevision: updated.revision });
    expect(updated.prevKv?.value).toBe("a");
    expect(await failure(store.delete("/cas/k", { expectModRevision: created.revision }))).toMatchObject({ code: "Conflict" });
    expect(await failure(store.delete("/cas/none"))).toMatchObject({ code: "KeyNotFound", message: "key not found: /cas/none" });
    expect(await failure(store.delete("/cas/none", { expectModRevision: 5 }))).toMatchObject({ code: "KeyNotFound" });
    const deleted = await store.delete("/cas/k", { expectModRevision: updated.revision });
    expect(deleted.prevKv).toEqual(updated.kv);
    expect(await store.get("/cas/k")).toBeUndefined();
    expect(await failure(store.put("/cas/big", "x".repeat(1.5 * 1024 * 1024)))).toMatchObject({
      code: "RequestTooLarge",
      message: "etcdserver: request is too large",
    });
  });

  it("two clients (as two replicas): racing CAS writes with one expectation apply once; a watch on one sees the other's writes in order with their revisions", async () => {
    const other = new EtcdStore({ endpoints: etcd.url, requestTimeoutMs: TIMEOUT_MS });
    try {
      const base = await store.put("/two/k", "0");
      const seen: ChangeEvent[] = [];
      const cancel = await other.watch("/two/", base.revision, (e) => seen.push(e));
      const racers = await Promise.allSettled([store, other, store, other].map((s, i) => s.put("/two/k", `w${i}`, { expectModRevision: base.revision })));
      const won = racers.filter((r) => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      expect(racers.filter((r) => r.status === "rejected").map((r) => (r.reason as StoreError).code)).toEqual(["Conflict", "Conflict", "Conflict"]);
      const writes = [won[0]?.status === "fulfilled" ? won[0].value.revision : 0];
      for (const v of ["a", "b"]) writes.push((await store.put(`/two/${v}`, v)).revision);
      await waitForEvents(seen, 3);
      cancel();
      expect(seen.map((e) => e.revision)).toEqual(writes);
      expect(seen.map((e) => e.key)).toEqual(["/two/k", "/two/a", "/two/b"]);
      expect((await other.range("/two/")).kvs).toEqual((await store.range("/two/")).kvs);
    } finally {
      other.close();
    }
  });

  it("lists more than grpc's 4 MiB default receive size in one range, in key order with count and more", async () => {
    const value = JSON.stringify({ data: "x".repeat(1_100_000) });
    for (const name of ["d", "a", "c", "b"]) await store.put(`/big/${name}`, value);
    const all = await store.range("/big/");
    expect(all.kvs.map((kv) => kv.key)).toEqual(["/big/a", "/big/b", "/big/c", "/big/d"]);
    expect(all.kvs.every((kv) => kv.value === value)).toBe(true);
    const page = await store.range("/big/", { startKey: "/big/b", limit: 2 });
    expect([page.kvs.map((kv) => kv.key), page.more, page.count]).toEqual([["/big/b", "/big/c"], true, 3]);
  });

  it("etcd stopped: calls fail with EtcdUnavailable within the bound, a live watch ends with it; after a restart the data is there and calls work", async () => {
    const before = await store.put("/down/k", "v");
    const ended: Error[] = [];
    await store.watch(
      "/down/",
      before.revision,
      () => {},
      (e) => ended.push(e),
    );
    await etcd.stop();
    for (const call of [() => store.get("/down/k"), () => store.put("/down/k", "w"), () => store.range("/down/"), () => store.watch("/down/", 0, () => {})]) {
      const started = Date.now();
      const err = await failure(call());
      expect(err).toBeInstanceOf(EtcdUnavailable);
      expect(err.message).toContain(`etcd at ${etcd.url}`);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
    }
    expect(ended.map((e) => e.name)).toEqual(["EtcdUnavailable"]);
    await etcd.restart();
    // The client reconnects on its own; the bound covers grpc's reconnect.
    expect(await eventually(() => store.get("/down/k"))).toEqual(before.kv);
    const after = await store.put("/down/k", "w", { expectModRevision: before.revision });
    expect(after.revision).toBeGreaterThan(before.revision);
  });

  it("etcd hung (SIGSTOP): a read and a watch's creation fail as timed out within the bound instead of waiting, then work once it runs again", async () => {
    const pid = etcd.pid;
    if (pid === undefined) throw new Error("etcd is not running");
    const quick = new EtcdStore({ endpoints: etcd.url, requestTimeoutMs: 400 });
    try {
      await quick.put("/hung/k", "h");
      process.kill(pid, "SIGSTOP");
      await stopped(pid);
      try {
        for (const call of [() => quick.get("/hung/k"), () => quick.watch("/hung/", 0, () => {})]) {
          const started = Date.now();
          const err = await failure(call());
          expect(err).toBeInstanceOf(EtcdUnavailable);
          expect((err as EtcdUnavailable).timedOut).toBe(true);
          expect(Date.now() - started).toBeLessThan(400 + 1500);
        }
      } finally {
        process.kill(pid, "SIGCONT");
      }
      expect((await eventually(() => quick.get("/hung/k")))?.value).toBe("h");
    } finally {
      quick.close();
    }
  });
});

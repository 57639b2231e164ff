/** The MVCC store: one revision counter, ordered ranges, history, watches and compaction. */
import { describe, expect, it } from "vitest";
import { type ChangeEvent, MemoryStore, StoreError } from "../../lib/emulator/storage/store.js";

describe("MemoryStore", () => {
  it("bumps one revision for every write of every key and keeps create/mod revisions", () => {
    const s = new MemoryStore();
    const start = s.revision;
    const a = s.put("/r/a/x", "1");
    const b = s.put("/r/b/y", "2");
    const a2 = s.put("/r/a/x", "3");
    expect([a.revision, b.revision, a2.revision]).toEqual([start + 1, start + 2, start + 3]);
    expect(s.get("/r/a/x")).toEqual({ key: "/r/a/x", value: "3", createRevision: start + 1, modRevision: start + 3 });
    const d = s.delete("/r/b/y");
    expect(d.revision).toBe(start + 4);
    expect(d.prevKv?.value).toBe("2");
    expect(s.get("/r/b/y")).toBeUndefined();
  });

  it("ranges a prefix in key order, from a start key, with a limit", () => {
    const s = new MemoryStore();
    for (const k of ["/r/ns2/a", "/r/ns1/b", "/r/ns1/a", "/q/x", "/r/ns10/a"]) s.put(k, k);
    expect(s.range("/r/").kvs.map((kv) => kv.key)).toEqual(["/r/ns1/a", "/r/ns1/b", "/r/ns10/a", "/r/ns2/a"]);
    expect(s.range("/r/ns1/").kvs.map((kv) => kv.key)).toEqual(["/r/ns1/a", "/r/ns1/b"]);
    const page = s.range("/r/", { startKey: "/r/ns1/a\u0000", limit: 2 });
    expect(page.kvs.map((kv) => kv.key)).toEqual(["/r/ns1/b", "/r/ns10/a"]);
    expect(page.more).toBe(true);
    expect(page.count).toBe(3);
  });

  it("enforces expected mod revisions", () => {
    const s = new MemoryStore();
    const { revision } = s.put("/k", "v", { expectModRevision: 0 });
    expect(() => s.put("/k", "v", { expectModRevision: 0 })).toThrow(StoreError);
    expect(() => s.put("/k", "w", { expectModRevision: revision + 1 })).toThrow(/modRevision/);
    expect(s.put("/k", "w", { expectModRevision: revision }).revision).toBe(revision + 1);
    expect(() => s.delete("/missing")).toThrow(StoreError);
  });

  it("reads past revisions by undoing later history", () => {
    const s = new MemoryStore();
    s.put("/r/a", "a1");
    const rev = s.put("/r/b", "b1").revision;
    s.put("/r/a", "a2");
    s.delete("/r/b");
    s.put("/r/c", "c1");
    const then = s.range("/r/", { revision: rev });
    expect(then.revision).toBe(rev);
    expect(then.kvs.map((kv) => `${kv.key}=${kv.value}@${kv.modRevision}`)).toEqual([`/r/a=a1@${rev - 1}`, `/r/b=b1@${rev}`]);
  });

  it("replays history after a revision, then streams live changes, until cancelled", () => {
    const s = new MemoryStore();
    const from = s.put("/r/a", "1").revision;
    s.put("/other", "x");
    s.put("/r/a", "2");
    const seen: ChangeEvent[] = [];
    const cancel = s.watch("/r/", from, (e) => seen.push(e));
    expect(seen.map((e) => [e.type, e.kv?.value])).toEqual([["put", "2"]]);
    s.delete("/r/a");
    expect(seen.at(-1)).toMatchObject({ type: "delete", prevKv: { value: "2" } });
    expect(s.watcherCount).toBe(1);
    cancel();
    expect(s.watcherCount).toBe(0);
    s.put("/r/b", "3");
    expect(seen).toHaveLength(2);
  });

  it("compacts history: older reads and watches fail with Compacted", () => {
    const s = new MemoryStore();
    const r1 = s.put("/r/a", "1").revision;
    const r2 = s.put("/r/a", "2").revision;
    s.compact(r2);
    expect(s.compactRevision).toBe(r2);
    expect(() => s.watch("/r/", r1, () => {})).toThrow(expect.objectContaining({ code: "Compacted" }));
    expect(() => s.range("/r/", { revision: r1 })).toThrow(expect.objectContaining({ code: "Compacted" }));
    expect(() => s.watch("/r/", r2, () => {})).not.toThrow();
  });

  it("drops history older than the retention window", () => {
    let now = 1_000;
    const s = new MemoryStore({ retentionMs: 100, now: () => now });
    const first = s.put("/r/a", "1").revision;
    now += 500;
    const second = s.put("/r/a", "2").revision;
    expect(s.compactRevision).toBe(first);
    expect(() => s.watch("/r/", first - 1, () => {})).toThrow(StoreError);
    const seen: string[] = [];
    s.watch("/r/", first, (e) => seen.push(e.kv?.value ?? ""));
    expect(seen).toEqual(["2"]);
    expect(second).toBe(first + 1);
  });

  it("a mirror takes an event's previous value from its own entries when etcd left prev_kv out (a compaction passed it)", () => {
    const mirror = new MemoryStore();
    const at = 0;
    const v1 = { key: "/r/a", value: "one", createRevision: 2, modRevision: 2 };
    mirror.applyChange({ type: "put", key: "/r/a", revision: 2, kv: v1, at });
    const seen: ChangeEvent[] = [];
    mirror.watch("/r/", 2, (e) => seen.push(e));
    const v2 = { key: "/r/a", value: "two", createRevision: 2, modRevision: 3 };
    mirror.applyChange({ type: "put", key: "/r/a", revision: 3, kv: v2, at });
    mirror.applyChange({ type: "delete", key: "/r/a", revision: 4, at });
    // An update (not a create) and a delete that carry what they replaced, as the mirror held it.
    expect(seen.map((e) => [e.type, e.revision, e.prevKv])).toEqual([
      ["put", 3, v1],
      ["delete", 4, v2],
    ]);
    // A create has no previous value, with or without prev_kv.
    mirror.applyChange({ type: "put", key: "/r/b", revision: 5, kv: { key: "/r/b", value: "b", createRevision: 5, modRevision: 5 }, at });
    expect(seen[2]?.prevKv).toBeUndefined();
  });
});

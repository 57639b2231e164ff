/**
 * The storage failpoints (lib/emulator/storage/failpoint-kv.ts) on the in-memory store:
 * consistent-reads-lag answers ranges without a revision as of READ_LAG_MS earlier (gets and
 * ranges at a revision stay exact); resource-versions-offset shifts every revision by
 * REVISION_OFFSET both ways, so one server alone stays consistent (CAS, ranges at a revision,
 * watches from a revision all take its own numbers).
 */
import { describe, expect, it } from "vitest";
import { FAILPOINT_NAMES, type FailpointName } from "../../lib/emulator/failpoints.js";
import { READ_LAG_MS, REVISION_OFFSET, withStoreFailpoints } from "../../lib/emulator/storage/failpoint-kv.js";
import { MemoryKeyValueStore } from "../../lib/emulator/storage/kv.js";
import type { ChangeEvent } from "../../lib/emulator/storage/store.js";

const on = (...names: FailpointName[]) => new Set(names.filter((n) => FAILPOINT_NAMES.includes(n)));

describe("storage failpoints", () => {
  it("none on: the store itself", () => {
    const inner = new MemoryKeyValueStore();
    expect(withStoreFailpoints(inner, new Set())).toBe(inner);
  });

  it("consistent-reads-lag: a range without a revision sees the state of READ_LAG_MS ago; gets and ranges at a revision do not lag", async () => {
    let now = 1_000;
    const inner = new MemoryKeyValueStore();
    await inner.put("/registry/a/x", "old");
    const s = withStoreFailpoints(inner, on("consistent-reads-lag"), () => now);
    const first = await inner.put("/registry/a/y", "1");
    now += 10;
    const names = async () => (await s.range("/registry/a/")).kvs.map((kv) => `${kv.key}=${kv.value}`);
    // Until READ_LAG_MS have passed, the state the store started with.
    expect(await names()).toEqual(["/registry/a/x=old"]);
    expect((await s.get("/registry/a/y"))?.value).toBe("1");
    expect((await s.range("/registry/a/", { revision: first.revision })).kvs).toHaveLength(2);
    now += READ_LAG_MS;
    expect(await names()).toEqual(["/registry/a/x=old", "/registry/a/y=1"]);
    await inner.put("/registry/a/z", "2");
    now += 1;
    expect(await names()).toEqual(["/registry/a/x=old", "/registry/a/y=1"]);
    now += READ_LAG_MS;
    expect(await names()).toEqual(["/registry/a/x=old", "/registry/a/y=1", "/registry/a/z=2"]);
  });

  it("resource-versions-offset: every revision shifted, and taken back shifted, so the server agrees with itself", async () => {
    const inner = new MemoryKeyValueStore();
    const s = withStoreFailpoints(inner, on("resource-versions-offset"));
    const seen: ChangeEvent[] = [];
    const start = s.revision;
    expect(start).toBe(inner.revision + REVISION_OFFSET);
    const stop = s.watch("/registry/a/", start, (e) => seen.push(e));
    const made = await s.put("/registry/a/x", "1", { expectModRevision: 0 });
    expect(made.revision).toBe(inner.revision + REVISION_OFFSET);
    expect(made.kv.modRevision).toBe(made.revision);
    const changed = await s.put("/registry/a/x", "2", { expectModRevision: made.kv.modRevision });
    await expect(s.put("/registry/a/x", "3", { expectModRevision: made.kv.modRevision })).rejects.toMatchObject({ code: "Conflict" });
    expect((await s.range("/registry/a/", { revision: made.revision })).kvs.map((kv) => [kv.value, kv.modRevision])).toEqual([["1", made.revision]]);
    expect((await s.get("/registry/a/x"))?.modRevision).toBe(changed.revision);
    expect(await s.currentRevision()).toBe(changed.revision);
    await new Promise((r) => setTimeout(r, 0));
    stop();
    expect(seen.map((e) => [e.type, e.revision, e.kv?.value])).toEqual([
      ["put", made.revision, "1"],
      ["put", changed.revision, "2"],
    ]);
  });
});

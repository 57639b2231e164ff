/**
 * The storage layer's read rules (reads.ts) on their own: they throw plain typed errors, which
 * the endpoints map to a Status. That storage imports nothing above it is checked in
 * test/emulator/layers.test.ts.
 */
import { describe, expect, it } from "vitest";
import { ContinueTokenSigner } from "../../lib/emulator/storage/continue-token.js";
import { MemoryKeyValueStore } from "../../lib/emulator/storage/kv.js";
import { ObjectStorage, type StoredType } from "../../lib/emulator/storage/object-storage.js";
import {
  ContinueExpired,
  ContinueWithResourceVersion,
  InvalidContinue,
  ResourceVersionTooLarge,
  ResourceVersionTooOld,
} from "../../lib/emulator/storage/read-errors.js";
import { type ContinueTokens, type ListPage, type ListRead, mustHaveReached, readList, replayChanges, startWatch } from "../../lib/emulator/storage/reads.js";
import { type KeyValue, MemoryStore } from "../../lib/emulator/storage/store.js";

const things: StoredType = { storagePrefix: "/registry/things", namespaced: true };

/** A store with five objects in namespace "a" (a-0 … a-4) and one in "b", on a clock the test moves. */
function fixture(): { storage: ObjectStorage; memory: MemoryStore; clock: { ms: number }; tokens: ContinueTokens; revisions: number[] } {
  const clock = { ms: 1_000_000 };
  // Written through the synchronous store under the async seam: the type has no storage view, so
  // its entries are the encoded objects at their keys, what ObjectStorage.put writes.
  const memory = new MemoryStore({ now: () => clock.ms, retentionMs: 60_000 });
  const storage = new ObjectStorage(new MemoryKeyValueStore(memory));
  const revisions: number[] = [];
  for (const [ns, name] of [
    ["a", "a-0"],
    ["a", "a-1"],
    ["a", "a-2"],
    ["a", "a-3"],
    ["a", "a-4"],
    ["b", "b-0"],
  ] as const) {
    const object = { kind: "Thing", apiVersion: "v1", metadata: { name, namespace: ns, labels: { even: String(Number(name.slice(2)) % 2 === 0) } } };
    revisions.push(memory.put(storage.key(things, ns, name), storage.encode(object)).revision);
  }
  return { storage, memory, clock, tokens: { signer: new ContinueTokenSigner(), lifetimeMs: 5_000, now: () => clock.ms }, revisions };
}

function list(f: ReturnType<typeof fixture>, read: Partial<ListRead>): Promise<ListPage> {
  return readList(f.storage, {
    type: things,
    namespace: "a",
    resourceVersion: "",
    resourceVersionMatch: "",
    limit: 0,
    continueToken: "",
    continueTokens: f.tokens,
    ...read,
  });
}

const names = (page: ListPage): string[] => page.kvs.map((kv) => kv.key.slice(kv.key.lastIndexOf("/") + 1));

async function thrown(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  throw new Error("nothing was thrown");
}

describe("storage reads", () => {
  it("pages a collection with signed continue tokens at the first page's revision", async () => {
    const f = fixture();
    const first = await list(f, { limit: 2 });
    expect(names(first)).toEqual(["a-0", "a-1"]);
    expect(first.remainingItemCount).toBe(3);
    await f.storage.delete(things, f.storage.key(things, "a", "a-2"));
    const second = await list(f, { limit: 2, continueToken: first.continueToken });
    // The snapshot of the first page: a-2, deleted since, is still there.
    expect([names(second), second.revision]).toEqual([["a-2", "a-3"], first.revision]);
    const last = await list(f, { limit: 2, continueToken: second.continueToken });
    expect([names(last), last.continueToken, last.remainingItemCount]).toEqual([["a-4"], undefined, undefined]);
  });

  it("fills a page with the entries select() keeps, and then cannot tell what remains", async () => {
    const f = fixture();
    const even = (kv: KeyValue): boolean => kv.value.includes('"even":"true"');
    const page = await list(f, { limit: 2, select: even });
    expect([names(page), page.remainingItemCount]).toEqual([["a-0", "a-2"], undefined]);
    const rest = await list(f, { limit: 2, select: even, continueToken: page.continueToken });
    expect([names(rest), rest.continueToken]).toEqual([["a-4"], undefined]);
  });

  it("reads at an exact revision, and throws ResourceVersionTooOld once it is compacted", async () => {
    const f = fixture();
    const at = f.revisions[2] as number;
    expect(names(await list(f, { resourceVersion: String(at), resourceVersionMatch: "Exact" }))).toEqual(["a-0", "a-1", "a-2"]);
    // A first page with a limit is an exact read too; without either, the current state.
    expect(names(await list(f, { resourceVersion: String(at), limit: 10 }))).toEqual(["a-0", "a-1", "a-2"]);
    expect(names(await list(f, { resourceVersion: String(at) }))).toHaveLength(5);
    await f.storage.store.compact(f.revisions[3] as number);
    const e = await thrown(() => list(f, { resourceVersion: String(at), resourceVersionMatch: "Exact" }));
    expect(e).toBeInstanceOf(ResourceVersionTooOld);
    expect(e).toMatchObject({ rv: at, oldest: f.revisions[3] });
  });

  it("throws ResourceVersionTooLarge for a revision the store has not reached, in lists and through mustHaveReached", async () => {
    const f = fixture();
    const current = f.storage.store.revision;
    for (const read of [{}, { resourceVersionMatch: "Exact" }, { resourceVersionMatch: "NotOlderThan" }]) {
      const e = await thrown(() => list(f, { resourceVersion: String(current + 1), ...read }));
      expect(e).toBeInstanceOf(ResourceVersionTooLarge);
      expect(e).toMatchObject({ rv: current + 1, current });
    }
    await expect(mustHaveReached(f.storage, current)).resolves.toBeUndefined();
    await expect(mustHaveReached(f.storage, undefined)).resolves.toBeUndefined();
    expect(await thrown(() => mustHaveReached(f.storage, current + 5))).toMatchObject({ rv: current + 5, current });
  });

  it("throws ContinueExpired, with a token for the rest at the latest state, for a compacted or aged token", async () => {
    const f = fixture();
    const first = await list(f, { limit: 2 });
    f.clock.ms += 5_001;
    const aged = await thrown(() => list(f, { limit: 2, continueToken: first.continueToken }));
    expect(aged).toBeInstanceOf(ContinueExpired);
    const { rv, restart } = aged as ContinueExpired;
    expect(rv).toBe(first.revision);
    const rest = await list(f, { limit: 2, continueToken: restart });
    expect([names(rest), rest.revision]).toEqual([["a-2", "a-3"], f.storage.store.revision]);

    const fresh = fixture();
    const page = await list(fresh, { limit: 2 });
    await fresh.storage.put(things, fresh.storage.key(things, "a", "a-5"), "{}");
    await fresh.storage.store.compact(fresh.storage.store.revision);
    expect(await thrown(() => list(fresh, { continueToken: page.continueToken }))).toBeInstanceOf(ContinueExpired);
  });

  it("throws InvalidContinue for a token that does not decode, and ContinueWithResourceVersion next to a version", async () => {
    const f = fixture();
    const bad = await thrown(() => list(f, { continueToken: "garbage!" }));
    expect(bad).toBeInstanceOf(InvalidContinue);
    expect((bad as Error).message).toMatch(/^continue key is not valid: illegal base64 data/);
    const token = (await list(f, { limit: 1 })).continueToken;
    expect(await thrown(() => list(f, { continueToken: token, resourceVersion: "3" }))).toMatchObject({ rv: "3" });
    expect(await thrown(() => list(f, { continueToken: token, resourceVersion: "3" }))).toBeInstanceOf(ContinueWithResourceVersion);
  });

  it("starts a watch with the current state, or after the version given, or after the current revision", async () => {
    const f = fixture();
    const current = f.storage.store.revision;
    const base = { type: things, namespace: "a" };
    const initial = await startWatch(f.storage, { ...base, resourceVersion: undefined, sendInitialEvents: undefined });
    expect([initial.initial?.length, initial.from]).toEqual([5, current]);
    expect(await startWatch(f.storage, { ...base, resourceVersion: 3, sendInitialEvents: undefined })).toEqual({ from: 3 });
    expect((await startWatch(f.storage, { ...base, resourceVersion: 3, sendInitialEvents: true })).initial).toHaveLength(5);
    expect(await startWatch(f.storage, { ...base, resourceVersion: undefined, sendInitialEvents: false })).toEqual({ from: current });
    // A version not reached yet is no error for a watch: its changes are still to come.
    expect(await startWatch(f.storage, { ...base, resourceVersion: current + 10, sendInitialEvents: undefined })).toEqual({ from: current + 10 });
  });

  it("replays the history after a revision, and throws ResourceVersionTooOld once it is compacted", async () => {
    const f = fixture();
    const seen: number[] = [];
    replayChanges(f.storage, things, "a", f.revisions[2] as number, (change) => seen.push(change.revision));
    expect(seen).toEqual(f.revisions.slice(3, 5));
    await f.storage.store.compact(f.revisions[4] as number);
    const e = await thrown(() => replayChanges(f.storage, things, undefined, f.revisions[1] as number, () => {}));
    expect(e).toBeInstanceOf(ResourceVersionTooOld);
    expect(e).toMatchObject({ rv: f.revisions[1], oldest: f.revisions[4] });
    // What the endpoints map: plain facts, no Status.
    expect(e).not.toHaveProperty("status");
  });
});

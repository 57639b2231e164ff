/** Watch fan-out: many watchers, bursts of writes, shared encodings, batched output, order kept. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchGroupStats } from "../../lib/emulator/endpoints/handlers/watch-groups.js";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, configMapBody, openWatch, sleep, uniq, type WatchReader } from "./support.js";

let emu: { url: string; server: EmulatorServer };
let call: ReturnType<typeof client>;
let ns: string;
const cms = (n: string): string => `/api/v1/namespaces/${n}/configmaps`;
const storeListeners = (): number => emu.server.parts.storage.store.watcherCount;

beforeAll(async () => {
  // Exact lists and streams of this file's own writes: without the namespace controllers' content.
  const server = createEmulatorServer(resolveSettings({ namespaceContent: false }));
  emu = { server, url: await server.listen("127.0.0.1", 0) };
  call = client(emu.url);
  ns = uniq("fanout");
  await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
});
afterAll(async () => {
  await emu.server.close();
});

describe("watch fan-out", () => {
  it("delivers a burst of concurrent writes to every watcher once, in resourceVersion order, selectors applied", async () => {
    const rv = (await call("GET", cms(ns))).json.metadata.resourceVersion as string;
    const plain: WatchReader[] = [];
    for (let i = 0; i < 20; i++) plain.push(await openWatch(emu.url, `${cms(ns)}?watch=true&resourceVersion=${rv}`));
    const selected = await openWatch(emu.url, `${cms(ns)}?watch=true&resourceVersion=${rv}&labelSelector=parity%3Deven`);
    const count = 60;
    // All at once: several writes land in one event-loop turn and go out in one write per watcher.
    const created = await Promise.all(
      Array.from({ length: count }, (_, i) => call("POST", cms(ns), configMapBody(`b-${i}`, { i: String(i) }, { parity: i % 2 ? "odd" : "even" }))),
    );
    expect(created.every((r) => r.status === 201)).toBe(true);
    const order = created.map((r) => Number(r.json.metadata.resourceVersion)).sort((a, b) => a - b);

    const texts = new Set<string>();
    for (const w of plain) {
      const events = await w.take(count, 5_000);
      w.close();
      expect(events.map((e) => e.type)).toEqual(Array(count).fill("ADDED"));
      expect(events.map((e) => Number(e.object.metadata.resourceVersion))).toEqual(order);
      texts.add(JSON.stringify(events));
    }
    // Every watcher saw the very same events.
    expect(texts.size).toBe(1);

    const even = await selected.take(count / 2, 5_000);
    expect(await selected.next(200)).toBeUndefined();
    selected.close();
    expect(even).toHaveLength(count / 2);
    expect(even.every((e) => e.object.metadata.labels.parity === "even")).toBe(true);
  });

  it("reports a change leaving and entering a selection as DELETED and ADDED while plain watchers see MODIFIED", async () => {
    const created = (await call("POST", cms(ns), configMapBody("mover", {}, { parity: "odd" }))).json;
    const rv = created.metadata.resourceVersion as string;
    const plain = await openWatch(emu.url, `${cms(ns)}?watch=true&resourceVersion=${rv}`);
    const odd = await openWatch(emu.url, `${cms(ns)}?watch=true&resourceVersion=${rv}&labelSelector=parity%3Dodd`);
    const even = await openWatch(emu.url, `${cms(ns)}?watch=true&resourceVersion=${rv}&labelSelector=parity%3Deven`);
    await call("PUT", `${cms(ns)}/mover`, { ...created, metadata: { ...created.metadata, labels: { parity: "even" } } });
    expect((await plain.next())?.type).toBe("MODIFIED");
    const left = await odd.next();
    expect(left?.type).toBe("DELETED");
    expect(left?.object.metadata.labels.parity).toBe("odd");
    expect((await even.next())?.type).toBe("ADDED");
    for (const w of [plain, odd, even]) w.close();
  });

  it("shares one store listener per collection and format, and the streams joining it late miss nothing", async () => {
    const target = uniq("grp");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    const before = storeListeners();
    const groupsBefore = watchGroupStats.groups;
    const rv0 = (await call("GET", cms(target))).json.metadata.resourceVersion as string;
    const early = await openWatch(emu.url, `${cms(target)}?watch=true&resourceVersion=${rv0}`);
    const first = (await call("POST", cms(target), configMapBody("g-0", {}))).json;
    // Joins with a replay of g-0 from the history, then the shared live fan-out.
    const late = await openWatch(emu.url, `${cms(target)}?watch=true&resourceVersion=${rv0}`);
    const fromList = await openWatch(emu.url, `${cms(target)}?watch=true`);
    const table = await openWatch(emu.url, `${cms(target)}?watch=true&resourceVersion=${first.metadata.resourceVersion}`, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    const selected = await openWatch(emu.url, `${cms(target)}?watch=true&resourceVersion=${rv0}&labelSelector=x%3Dy`);
    // JSON streams share one group; the Table format has its own; the selector stream its own.
    expect(storeListeners() - before).toBe(3);
    expect(watchGroupStats.groups - groupsBefore).toBe(3);

    for (let i = 1; i <= 3; i++) await call("POST", cms(target), configMapBody(`g-${i}`, {}));
    const names = async (w: WatchReader, n: number): Promise<string[]> => (await w.take(n, 5_000)).map((e) => e.object.metadata.name as string);
    expect(await names(early, 4)).toEqual(["g-0", "g-1", "g-2", "g-3"]);
    expect(await names(late, 4)).toEqual(["g-0", "g-1", "g-2", "g-3"]);
    expect(await names(fromList, 4)).toEqual(["g-0", "g-1", "g-2", "g-3"]);
    for (const w of [early, late, fromList]) expect(await w.next(100)).toBeUndefined();
    // A Table stream in a shared group still gets column definitions with its first event only.
    const rows = await table.take(3, 5_000);
    expect(rows.map((e) => (e.object["columnDefinitions"] as unknown[] | null)?.length ?? 0).map((n) => n > 0)).toEqual([true, false, false]);
    expect(await selected.next(100)).toBeUndefined();

    for (const w of [early, late, fromList, table, selected]) w.close();
    for (let i = 0; i < 50 && storeListeners() > before; i++) await sleep(20);
    expect(storeListeners()).toBe(before);
    expect(watchGroupStats.groups).toBe(groupsBefore);
  });
});

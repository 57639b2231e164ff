/** Watch fan-out: many watchers, bursts of writes, shared encodings, batched output, order kept. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, openWatch, uniq, type WatchReader } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
const cms = (n: string): string => `/api/v1/namespaces/${n}/configmaps`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  ns = uniq("fanout");
  await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
});
afterAll(async () => {
  await emu.close();
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
});

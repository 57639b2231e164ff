/**
 * Periodic bookmarks as the watch cache sends them (wire-facts §12): one every interval, one about
 * 2 s before the watch's deadline, none after; none for a type watched straight from etcd (Events).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextBookmarkAt } from "../../lib/emulator/endpoints/handlers/watch.js";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, openWatch, uniq } from "./support.js";

/** A server with the real interval (a minute) and one with a 1 s interval. */
let slow: EmulatorServer;
let fast: EmulatorServer;
let slowUrl: string;
let fastUrl: string;
const ns = uniq("bmk");

beforeAll(async () => {
  // No kube-root-ca.crt appearing in the watched namespace: these watches expect only bookmarks.
  slow = createEmulatorServer(resolveSettings({ namespaceContent: false }));
  fast = createEmulatorServer(resolveSettings({ bookmarkIntervalMs: 1_000, namespaceContent: false }));
  slowUrl = await slow.listen("127.0.0.1", 0);
  fastUrl = await fast.listen("127.0.0.1", 0);
  for (const url of [slowUrl, fastUrl]) await client(url)("POST", "/api/v1/namespaces", { metadata: { name: ns } });
});
afterAll(async () => {
  await Promise.all([slow.close(), fast.close()]);
});

/** Every event of a watch until the server ends it, with its arrival time in ms after the request. */
async function record(url: string, path: string): Promise<{ type: string; at: number; object: any }[]> {
  const start = performance.now();
  const w = await openWatch(url, path);
  expect(w.status).toBe(200);
  const out: { type: string; at: number; object: any }[] = [];
  for (let ev = await w.next(10_000); ev; ev = await w.next(10_000)) out.push({ type: ev.type, at: performance.now() - start, object: ev.object });
  out.push({ type: "END", at: performance.now() - start, object: undefined });
  return out;
}

// The watches only wait for their deadlines (4-5 s each): they wait together.
describe("bookmarks before the deadline", () => {
  it("computes the next due time as the cacher does", () => {
    expect(nextBookmarkAt(0, 600_000, 60_000)).toBe(60_000);
    expect(nextBookmarkAt(0, 5_000, 60_000)).toBe(3_000);
    expect(nextBookmarkAt(3_000, 5_000, 60_000)).toBeUndefined();
    expect(nextBookmarkAt(0, 2_000, 60_000)).toBeUndefined();
    expect(nextBookmarkAt(1_000, 4_000, 1_000)).toBe(2_000);
  });

  it.concurrent("sends one bookmark about 2 s before timeoutSeconds, none after, with the real minute interval", async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=`;
    const list = await client(slowUrl)("GET", `/api/v1/namespaces/${ns}/configmaps`);
    const events = await record(slowUrl, path + list.json.metadata.resourceVersion);
    expect(events.map((e) => e.type)).toEqual(["BOOKMARK", "END"]);
    const [bookmark, end] = events as [(typeof events)[0], (typeof events)[0]];
    expect(bookmark.at).toBeGreaterThan(1_800);
    expect(bookmark.at).toBeLessThan(3_000);
    expect(end.at - bookmark.at).toBeGreaterThan(1_500);
    expect(bookmark.object).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: list.json.metadata.resourceVersion } });
  });

  it.concurrent("with a 1 s interval: one a second, the last about 2 s before the end", async () => {
    const events = await record(fastUrl, `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=1`);
    const types = events.map((e) => e.type);
    expect(types.slice(-4)).toEqual(["BOOKMARK", "BOOKMARK", "BOOKMARK", "END"]);
    const bookmarks = events.filter((e) => e.type === "BOOKMARK");
    expect(bookmarks).toHaveLength(3);
    const end = events.at(-1)?.at ?? 0;
    expect(end - (bookmarks.at(-1)?.at ?? 0)).toBeGreaterThan(1_500);
  });

  it.concurrent("sends none for a watch of 2 s or less, and none to Events, which have no watch cache", async () => {
    const shortWatch = record(fastUrl, `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=1`);
    const coreEvents = record(fastUrl, `/api/v1/namespaces/${ns}/events?watch=true&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=1`);
    const events = await record(
      fastUrl,
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?watch=true&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=1`,
    );
    const short = await shortWatch;
    expect(short.map((e) => e.type).filter((t) => t === "BOOKMARK")).toEqual([]);
    expect(events.map((e) => e.type).filter((t) => t === "BOOKMARK")).toEqual([]);
    expect((await coreEvents).map((e) => e.type).filter((t) => t === "BOOKMARK")).toEqual([]);
  });
});

/** Watch streams: framing, event order, starting versions, selectors, bookmarks, ends and leaks. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, configMapBody, eventBody, openWatch, sleep, uniq } from "./support.js";

let emu: EmulatorServer;
let url: string;
let call: ReturnType<typeof client>;
let ns: string;
const cms = (n: string): string => `/api/v1/namespaces/${n}/configmaps`;
const watchers = (): number => emu.parts.storage.store.watcherCount;

beforeAll(async () => {
  // Exact lists and streams of this file's own writes: without the namespace controllers' content.
  emu = createEmulatorServer(resolveSettings({ bookmarkIntervalMs: 50, namespaceContent: false }));
  url = await emu.listen("127.0.0.1", 0);
  call = client(url);
  ns = uniq("watch");
  await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
});
afterAll(async () => {
  await emu.close();
});

describe("watch", () => {
  it("answers 200 chunked JSON at once and reports ADDED, MODIFIED, DELETED in order", async () => {
    const target = uniq("w");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    const list = await call("GET", cms(target));
    const w = await openWatch(url, `${cms(target)}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    expect(w.status).toBe(200);
    expect(w.headers["content-type"]).toBe("application/json");
    expect(w.headers["transfer-encoding"]).toBe("chunked");

    const created = (await call("POST", cms(target), configMapBody("x", { k: "1" }))).json;
    const updated = (await call("PUT", `${cms(target)}/x`, { ...created, data: { k: "2" } })).json;
    await call("DELETE", `${cms(target)}/x`);
    const events = await w.take(3);
    w.close();
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(events[0]?.object).toEqual(created);
    expect(events[1]?.object).toEqual(updated);
    const deleted = events[2]?.object;
    expect(deleted.data).toEqual({ k: "2" });
    expect(Number(deleted.metadata.resourceVersion)).toBeGreaterThan(Number(updated.metadata.resourceVersion));
  });

  it("starts with synthetic ADDED events for the current state when resourceVersion is unset or 0", async () => {
    const target = uniq("w");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    for (const n of ["b", "a"]) await call("POST", cms(target), configMapBody(n));
    for (const rv of ["", "&resourceVersion=0"]) {
      const w = await openWatch(url, `${cms(target)}?watch=1${rv}`);
      const initial = await w.take(2);
      expect(initial.map((e) => [e.type, e.object.metadata.name])).toEqual([
        ["ADDED", "a"],
        ["ADDED", "b"],
      ]);
      await call("POST", cms(target), configMapBody(`c${rv.length}`));
      expect((await w.next())?.type).toBe("ADDED");
      w.close();
    }
  });

  it("from a specific resourceVersion replays only later changes", async () => {
    const target = uniq("w");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    await call("POST", cms(target), configMapBody("before"));
    const mark = (await call("GET", cms(target))).json.metadata.resourceVersion;
    await call("POST", cms(target), configMapBody("after"));
    const w = await openWatch(url, `${cms(target)}?watch=true&resourceVersion=${mark}`);
    const first = await w.next();
    expect(first?.type).toBe("ADDED");
    expect(first?.object.metadata.name).toBe("after");
    expect(await w.next(150)).toBeUndefined();
    w.close();
  });

  it("watches one object through the /watch/ prefix, and across namespaces for events; watch on an object's path is a plain GET", async () => {
    const name = uniq("ev");
    // As on a real server: GET of one object reads GetOptions only, so `watch` is ignored.
    expect((await call("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events/${name}?watch=true`)).status).toBe(404);
    const all = await openWatch(url, "/apis/events.k8s.io/v1/events?watch=true&resourceVersion=1");
    const one = await openWatch(url, `/apis/events.k8s.io/v1/watch/namespaces/${ns}/events/${name}`);
    await call("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventBody(ns, uniq("ev")));
    await call("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventBody(ns, name));
    const single = await one.next();
    expect(single?.object.metadata.name).toBe(name);
    expect((await all.take(2)).map((e) => e.object.kind)).toEqual(["Event", "Event"]);
    all.close();
    one.close();
  });

  it("turns leaving and entering a label selection into DELETED and ADDED", async () => {
    const target = uniq("w");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    const w = await openWatch(url, `${cms(target)}?watch=true&labelSelector=app%3Dweb`);
    const created = (await call("POST", cms(target), configMapBody("s", {}, { app: "web" }))).json;
    const moved = (await call("PUT", `${cms(target)}/s`, { ...created, metadata: { ...created.metadata, labels: { app: "db" } } })).json;
    await call("POST", cms(target), configMapBody("other", {}, { app: "db" }));
    const back = (await call("PUT", `${cms(target)}/s`, { ...moved, metadata: { ...moved.metadata, labels: { app: "web" } } })).json;
    const events = await w.take(3);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "DELETED", "ADDED"]);
    expect(events[1]?.object.metadata.labels).toEqual({ app: "web" });
    expect(events[1]?.object.metadata.resourceVersion).toBe(moved.metadata.resourceVersion);
    expect(events[2]?.object).toEqual(back);
    expect(await w.next(100)).toBeUndefined();
    w.close();
  });

  it("sends BOOKMARKs only when asked, with the watched kind and the current version", async () => {
    const quiet = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=1000000`);
    // Periodic bookmarks come from the watch cache, so a Lease watch (Events have none, wire-facts §12).
    const asked = await openWatch(url, `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases?watch=true&allowWatchBookmarks=true&resourceVersion=1`);
    await sleep(200);
    expect(await quiet.next(50)).toBeUndefined();
    let bookmark = await asked.next();
    while (bookmark && bookmark.type !== "BOOKMARK") bookmark = await asked.next();
    expect(bookmark?.object).toEqual({
      kind: "Lease",
      apiVersion: "coordination.k8s.io/v1",
      metadata: { resourceVersion: String(emu.parts.storage.store.revision) },
      spec: {},
    });
    expect(Object.keys(bookmark?.object.metadata ?? {})).toEqual(["resourceVersion"]);
    quiet.close();
    asked.close();
  });

  it("streams the initial state then an annotated BOOKMARK with sendInitialEvents", async () => {
    const target = uniq("w");
    await call("POST", "/api/v1/namespaces", { metadata: { name: target } });
    await call("POST", cms(target), configMapBody("only"));
    const w = await openWatch(url, `${cms(target)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const [added, end] = await w.take(2);
    expect([added?.type, added?.object.metadata.name]).toEqual(["ADDED", "only"]);
    expect(end?.type).toBe("BOOKMARK");
    expect(end?.object.metadata).toEqual({ resourceVersion: expect.stringMatching(/^\d+$/), annotations: { "k8s.io/initial-events-end": "true" } });
    w.close();
    const bad = await call("GET", `${cms(target)}?watch=true&sendInitialEvents=true`);
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes[0].field).toBe("resourceVersionMatch");
  });

  it("ends after timeoutSeconds", async () => {
    const w = await openWatch(url, `${cms(ns)}?watch=true&timeoutSeconds=1`);
    const started = Date.now();
    await w.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("drops the store listener when the client goes away", async () => {
    const before = watchers();
    const w = await openWatch(url, `${cms(ns)}?watch=true`);
    expect(watchers()).toBe(before + 1);
    w.close();
    for (let i = 0; i < 50 && watchers() > before; i++) await sleep(10);
    expect(watchers()).toBe(before);
    expect(emu.parts.watches.size).toBe(0);
  });

  it("500 (storage's bare error, wire-facts §11) before streaming for a malformed resourceVersion", async () => {
    const r = await call("GET", `${cms(ns)}?watch=true&resourceVersion=abc`);
    expect([r.status, r.json.reason]).toEqual([500, undefined]);
  });
});

describe("watch history", () => {
  it("a version older than the retained history is one ERROR 410 event, then the end", async () => {
    const short = createEmulatorServer(resolveSettings({ retentionMs: 20, namespaceContent: false }));
    const base = await short.listen("127.0.0.1", 0);
    try {
      const c = client(base);
      const old = (await c("POST", cms("default"), configMapBody("a"))).json.metadata.resourceVersion;
      await sleep(40);
      await c("POST", cms("default"), configMapBody("b"));
      const cmWatch = await openWatch(base, `${cms("default")}?watch=true&resourceVersion=${Number(old) - 1}`);
      const err = await cmWatch.next();
      expect(err?.type).toBe("ERROR");
      expect(err?.object).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
      expect(err?.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
      await cmWatch.ended;
      const evWatch = await openWatch(base, `/apis/events.k8s.io/v1/events?watch=true&resourceVersion=1`);
      expect((await evWatch.next())?.object.message).toBe("The resourceVersion for the provided watch is too old.");
      await evWatch.ended;
    } finally {
      await short.close();
    }
  });
});

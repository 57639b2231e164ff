/**
 * Event time-to-live (wire-facts §7 "TTL"): events are deleted a configurable time after their
 * last write, on the emulator clock (so the admin clock advance expires them at once) and on a
 * real-time check; watchers of both groups see DELETED with a new resourceVersion.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { DEFAULT_EVENT_TTL_MS, EventTtl } from "../../lib/emulator/storage/event-ttl.js";
import { MemoryKeyValueStore } from "../../lib/emulator/storage/kv.js";
import { MemoryStore } from "../../lib/emulator/storage/store.js";
import { client, configMapBody, eventBody, openWatch, sleep, uniq } from "./support.js";

const NS = "default";
const EV = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;
const CORE_EV = `/api/v1/namespaces/${NS}/events`;
const CM = `/api/v1/namespaces/${NS}/configmaps`;

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

async function emulator(options: EmulatorOptions = {}): Promise<{ url: string; call: ReturnType<typeof client>; advance: (seconds: number) => Promise<void> }> {
  const emu = await startEmulator({ port: 0, admin: true, ...options });
  started.push(emu);
  const call = client(emu.url);
  return {
    url: emu.url,
    call,
    advance: async (seconds) => {
      expect((await call("POST", "/tollgate/admin/clock", { advanceSeconds: seconds })).status).toBe(200);
    },
  };
}

describe("the eventTtlMs option", () => {
  it("defaults to the real one hour", () => {
    expect(DEFAULT_EVENT_TTL_MS).toBe(3_600_000);
    expect(resolveSettings({}).eventTtlMs).toBe(3_600_000);
    expect(resolveSettings({ eventTtlMs: 5_000 }).eventTtlMs).toBe(5_000);
    expect(resolveSettings({ eventTtlMs: -1 }).eventTtlMs).toBe(3_600_000);
  });

  it("by default an event outlives 59 minutes and not 61", async () => {
    const { call, advance } = await emulator();
    const name = uniq("ev");
    expect((await call("POST", EV, eventBody(NS, name))).status).toBe(201);
    await advance(59 * 60);
    expect((await call("GET", `${EV}/${name}`)).status).toBe(200);
    await advance(2 * 60);
    expect((await call("GET", `${EV}/${name}`)).status).toBe(404);
  });
});

describe("expiry on the clock advance", () => {
  it("deletes the event as the advance returns; both groups' watchers see DELETED with a new resourceVersion", async () => {
    const { url, call, advance } = await emulator({ eventTtlMs: 60_000 });
    const name = uniq("ev");
    const created = await call("POST", CORE_EV, { metadata: { name }, involvedObject: { kind: "Pod", namespace: NS, name: "p" }, reason: "R" });
    expect(created.status).toBe(201);
    const rv = Number(created.json.metadata.resourceVersion);
    const cm = await call("POST", CM, configMapBody(uniq("cm")));
    const eventsWatch = await openWatch(url, `${EV}?watch=true&resourceVersion=${rv}`);
    const coreWatch = await openWatch(url, `${CORE_EV}?watch=true&resourceVersion=${rv}`);
    try {
      await advance(59);
      expect((await call("GET", `${EV}/${name}`)).status).toBe(200);
      await advance(2);
      expect((await call("GET", `${EV}/${name}`)).status).toBe(404);
      expect((await call("GET", `${CORE_EV}/${name}`)).status).toBe(404);
      const a = await eventsWatch.next();
      const b = await coreWatch.next();
      expect(a?.type).toBe("DELETED");
      expect(a?.object).toMatchObject({ apiVersion: "events.k8s.io/v1", metadata: { name } });
      expect(b?.type).toBe("DELETED");
      expect(b?.object).toMatchObject({ apiVersion: "v1", metadata: { name } });
      const deletedRv = Number(a?.object.metadata.resourceVersion);
      expect(deletedRv).toBeGreaterThan(Number(cm.json.metadata.resourceVersion));
      expect(b?.object.metadata.resourceVersion).toBe(String(deletedRv));
      // Other types are untouched.
      expect((await call("GET", `${CM}/${cm.json.metadata.name}`)).status).toBe(200);
    } finally {
      eventsWatch.close();
      coreWatch.close();
    }
  });

  it("counts from the last write: an update starts a new lifetime", async () => {
    const { call, advance } = await emulator({ eventTtlMs: 60_000 });
    const name = uniq("ev");
    const created = (await call("POST", EV, eventBody(NS, name))).json;
    await advance(40);
    const updated = await call("PUT", `${EV}/${name}`, { ...created, metadata: { ...created.metadata, labels: { touched: "yes" } } });
    expect(updated.status, updated.text).toBe(200);
    await advance(40);
    expect((await call("GET", `${EV}/${name}`)).status).toBe(200);
    await advance(30);
    expect((await call("GET", `${EV}/${name}`)).status).toBe(404);
  });

  it("0 means events never expire", async () => {
    const { call, advance } = await emulator({ eventTtlMs: 0 });
    const name = uniq("ev");
    expect((await call("POST", EV, eventBody(NS, name))).status).toBe(201);
    await advance(365 * 24 * 3600);
    expect((await call("GET", `${EV}/${name}`)).status).toBe(200);
  });
});

describe("expiry in real time", () => {
  it("a short TTL passes by itself, without any clock advance", async () => {
    const { call } = await emulator({ eventTtlMs: 200 });
    const name = uniq("ev");
    expect((await call("POST", EV, eventBody(NS, name))).status).toBe(201);
    let status = 200;
    for (let i = 0; i < 60 && status === 200; i++) {
      await sleep(50);
      status = (await call("GET", `${EV}/${name}`)).status;
    }
    expect(status).toBe(404);
  });
});

describe("EventTtl", () => {
  it("tracks writes under its prefix, deletes on sweep, and does nothing once stopped", async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    const ttl = new EventTtl(new MemoryKeyValueStore(store), "/registry/events/", () => now, 1_000);
    await ttl.start();
    store.put("/registry/events/ns/a", "{}");
    store.put("/registry/configmaps/ns/c", "{}");
    now += 500;
    store.put("/registry/events/ns/b", "{}");
    now += 600;
    expect(await ttl.sweep()).toBe(1);
    expect(store.get("/registry/events/ns/a")).toBeUndefined();
    expect(store.get("/registry/events/ns/b")).toBeDefined();
    // The clock-advance path (the admin endpoint calls sweep after moving the clock).
    now += 1_000;
    expect(await ttl.sweep()).toBe(1);
    expect(store.get("/registry/events/ns/b")).toBeUndefined();
    expect(store.get("/registry/configmaps/ns/c")).toBeDefined();
    store.put("/registry/events/ns/d", "{}");
    ttl.stop();
    now += 10_000;
    expect(await ttl.sweep()).toBe(0);
    expect(store.get("/registry/events/ns/d")).toBeDefined();
  });

  it("a write racing the expiry wins", async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    const ttl = new EventTtl(new MemoryKeyValueStore(store), "/registry/events/", () => now, 100);
    await ttl.start();
    store.put("/registry/events/ns/a", "{}");
    now = 150;
    store.put("/registry/events/ns/a", '{"v":2}');
    expect(await ttl.sweep()).toBe(0);
    expect(store.get("/registry/events/ns/a")?.value).toBe('{"v":2}');
    ttl.stop();
  });
});

/**
 * core v1 Events (wire-facts §7 "shared storage"): a second view of the events.k8s.io/v1 objects
 * with the field mapping, read and written through either group (get, list, watch), the legacy
 * validation only, core field selectors, the Table and protobuf forms.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { coreEventOf, eventsEventOf } from "../../lib/emulator/registry/events/core-view.js";
import { decodeObject } from "../../lib/wire/protobuf/index.js";
import { client, eventBody, openWatch, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
const core = (namespace: string): string => `/api/v1/namespaces/${namespace}/events`;
const evs = (namespace: string): string => `/apis/events.k8s.io/v1/namespaces/${namespace}/events`;
const names = (r: Reply): string[] => r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);

/** A legacy core event (no eventTime), as kubelets write them. */
function legacyCoreEvent(namespace: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace },
    involvedObject: { kind: "Pod", namespace, name: "web-0", uid: "u-1", apiVersion: "v1" },
    reason: "Started",
    message: "Started container web",
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: "2024-05-01T10:00:00Z",
    lastTimestamp: "2024-05-01T10:05:00Z",
    count: 3,
    type: "Normal",
    ...extra,
  };
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  ns = uniq("evcore");
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

describe("the field mapping", () => {
  it("maps each renamed field both ways and keeps the others", () => {
    const stored = {
      kind: "Event",
      apiVersion: "events.k8s.io/v1",
      metadata: { name: "a", namespace: "n" },
      eventTime: "2024-05-01T10:00:00.123456Z",
      series: { count: 2, lastObservedTime: "2024-05-01T10:01:00.000000Z" },
      reportingController: "tollgate.dev/c",
      reportingInstance: "i",
      action: "A",
      reason: "R",
      regarding: { kind: "Pod", name: "p" },
      related: { kind: "Node", name: "n1" },
      note: "N",
      type: "Normal",
      deprecatedSource: { component: "c", host: "h" },
      deprecatedFirstTimestamp: "2024-05-01T10:00:00Z",
      deprecatedLastTimestamp: "2024-05-01T10:05:00Z",
      deprecatedCount: 4,
    };
    const c = coreEventOf(stored);
    expect(c).toEqual({
      kind: "Event",
      apiVersion: "v1",
      metadata: { name: "a", namespace: "n" },
      involvedObject: { kind: "Pod", name: "p" },
      reason: "R",
      message: "N",
      source: { component: "c", host: "h" },
      firstTimestamp: "2024-05-01T10:00:00Z",
      lastTimestamp: "2024-05-01T10:05:00Z",
      count: 4,
      type: "Normal",
      eventTime: "2024-05-01T10:00:00.123456Z",
      series: { count: 2, lastObservedTime: "2024-05-01T10:01:00.000000Z" },
      action: "A",
      related: { kind: "Node", name: "n1" },
      reportingComponent: "tollgate.dev/c",
      reportingInstance: "i",
    });
    // Go struct order of api/core/v1 Event.
    expect(Object.keys(c)).toEqual([
      "kind",
      "apiVersion",
      "metadata",
      "involvedObject",
      "reason",
      "message",
      "source",
      "firstTimestamp",
      "lastTimestamp",
      "count",
      "type",
      "eventTime",
      "series",
      "action",
      "related",
      "reportingComponent",
      "reportingInstance",
    ]);
    expect(eventsEventOf(c)).toEqual(stored);
  });
});

describe("one storage, two groups", () => {
  it("a legacy core event with a 64 kB message is accepted and reads back whole through events.k8s.io as note", async () => {
    const name = uniq("big");
    const message = "m".repeat(64 * 1024);
    const created = await call("POST", core(ns), legacyCoreEvent(ns, name, { message }));
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expect(created.json.message).toBe(message);
    const viaEvents = await call("GET", `${evs(ns)}/${name}`);
    expect(viaEvents.status).toBe(200);
    expect(viaEvents.json.note).toBe(message);
    expect(viaEvents.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    expect(viaEvents.json.metadata.uid).toBe(created.json.metadata.uid);
    expect(viaEvents.json).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      eventTime: null,
      regarding: { kind: "Pod", namespace: ns, name: "web-0", uid: "u-1", apiVersion: "v1" },
      deprecatedSource: { component: "kubelet", host: "node-1" },
      deprecatedFirstTimestamp: "2024-05-01T10:00:00Z",
      deprecatedLastTimestamp: "2024-05-01T10:05:00Z",
      deprecatedCount: 3,
    });
  });

  it("writes the core JSON: reportingComponent and reportingInstance always, zero times as null", async () => {
    const name = uniq("shape");
    const created = await call("POST", core(ns), { metadata: { name }, involvedObject: { kind: "Pod", namespace: ns, name: "p" }, reason: "R", message: "hi" });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.json)).toEqual([
      "kind",
      "apiVersion",
      "metadata",
      "involvedObject",
      "reason",
      "message",
      "source",
      "firstTimestamp",
      "lastTimestamp",
      "eventTime",
      "reportingComponent",
      "reportingInstance",
    ]);
    expect(created.json).toMatchObject({
      kind: "Event",
      apiVersion: "v1",
      source: {},
      firstTimestamp: null,
      eventTime: null,
      reportingComponent: "",
      reportingInstance: "",
    });
    expect((await call("GET", `${core(ns)}/${name}`)).text).toBe(created.text);
  });

  it("an events.k8s.io event reads back through core v1 with the core names", async () => {
    const name = uniq("new");
    const created = await call("POST", evs(ns), eventBody(ns, name, { note: "hello core" }));
    expect(created.status).toBe(201);
    const got = await call("GET", `${core(ns)}/${name}`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      kind: "Event",
      apiVersion: "v1",
      metadata: { name, resourceVersion: created.json.metadata.resourceVersion, uid: created.json.metadata.uid },
      involvedObject: { kind: "ConfigMap", namespace: ns, name: "subject", apiVersion: "v1" },
      message: "hello core",
      reportingComponent: "tollgate.dev/test",
      reportingInstance: "test-1",
      action: "Check",
      eventTime: created.json.eventTime,
    });
    expect(got.json.regarding).toBeUndefined();
    expect(got.json.note).toBeUndefined();
  });

  it("lists the same objects in both groups, as EventList v1 in one namespace and across all", async () => {
    const a = uniq("la");
    const b = uniq("lb");
    expect((await call("POST", core(ns), legacyCoreEvent(ns, a))).status).toBe(201);
    expect((await call("POST", evs(ns), eventBody(ns, b))).status).toBe(201);
    const viaCore = await call("GET", core(ns));
    const viaEvents = await call("GET", evs(ns));
    expect(viaCore.json).toMatchObject({ kind: "EventList", apiVersion: "v1" });
    expect(names(viaCore)).toEqual(names(viaEvents));
    expect(names(viaCore)).toEqual(expect.arrayContaining([a, b]));
    expect(viaCore.json.items[0].kind).toBeUndefined();
    const all = await call("GET", "/api/v1/events");
    expect(all.status).toBe(200);
    expect(all.json.kind).toBe("EventList");
    expect(names(all)).toEqual(expect.arrayContaining([a, b]));
    // Paging tokens are relative to the list's prefix, so the two groups page alike.
    const page = await call("GET", `${core(ns)}?limit=1`);
    expect(page.json.metadata.continue).toBeTruthy();
    const rest = await call("GET", `${evs(ns)}?limit=100&continue=${encodeURIComponent(page.json.metadata.continue)}`);
    expect(rest.status).toBe(200);
    expect([...names(page), ...names(rest)]).toEqual(names(viaEvents));
  });

  it("watchers of each group see writes made through the other, in their own form", async () => {
    const name = uniq("w");
    const coreWatch = await openWatch(emu.url, `${core(ns)}?watch=true&resourceVersion=0&fieldSelector=metadata.name=${name}`);
    const eventsWatch = await openWatch(emu.url, `${evs(ns)}?watch=true&resourceVersion=0&fieldSelector=metadata.name=${name}`);
    try {
      const created = await call("POST", evs(ns), eventBody(ns, name));
      expect(created.status).toBe(201);
      const added = await coreWatch.next();
      expect(added?.type).toBe("ADDED");
      expect(added?.object).toMatchObject({
        kind: "Event",
        apiVersion: "v1",
        involvedObject: { name: "subject" },
        metadata: { resourceVersion: created.json.metadata.resourceVersion },
      });
      expect((await eventsWatch.next())?.type).toBe("ADDED");

      // An update through core v1 (legacy rules only: the message may change there).
      const current = (await call("GET", `${core(ns)}/${name}`)).json;
      const updated = await call("PUT", `${core(ns)}/${name}`, { ...current, message: "changed through core" });
      expect(updated.status, updated.text).toBe(200);
      const modified = await eventsWatch.next();
      expect(modified?.type).toBe("MODIFIED");
      expect(modified?.object).toMatchObject({
        apiVersion: "events.k8s.io/v1",
        note: "changed through core",
        metadata: { resourceVersion: updated.json.metadata.resourceVersion },
      });
      expect((await coreWatch.next())?.type).toBe("MODIFIED");

      const deleted = await call("DELETE", `${core(ns)}/${name}`);
      expect(deleted.status).toBe(200);
      expect(deleted.json).toMatchObject({ status: "Success", details: { name, kind: "events" } });
      expect(deleted.json.details.group).toBeUndefined();
      const gone = await eventsWatch.next();
      expect(gone?.type).toBe("DELETED");
      expect(gone?.object).toMatchObject({ apiVersion: "events.k8s.io/v1", metadata: { name } });
      expect((await coreWatch.next())?.type).toBe("DELETED");
      expect((await call("GET", `${evs(ns)}/${name}`)).status).toBe(404);
    } finally {
      coreWatch.close();
      eventsWatch.close();
    }
  });

  it("names the core resource in NotFound and the version mismatch of a body from the other group", async () => {
    const missing = await call("GET", `${core(ns)}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('events "nope" not found');
    const wrongGroup = await call("POST", core(ns), eventBody(ns, uniq("g")));
    expect(wrongGroup.status).toBe(400);
    expect(wrongGroup.json.message).toBe("the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)");
  });

  it("creates on PUT to a missing name and allows an update without resourceVersion", async () => {
    const name = uniq("put");
    const created = await call("PUT", `${core(ns)}/${name}`, legacyCoreEvent(ns, name));
    expect(created.status, created.text).toBe(201);
    const { resourceVersion: _rv, ...meta } = created.json.metadata;
    const relabelled = await call("PUT", `${core(ns)}/${name}`, { ...created.json, metadata: { ...meta, labels: { a: "b" } } });
    expect(relabelled.status, relabelled.text).toBe(200);
    expect((await call("GET", `${evs(ns)}/${name}`)).json.metadata.labels).toEqual({ a: "b" });
  });
});

describe("core v1 validation: the legacy rules only", () => {
  it("accepts what events.k8s.io/v1 would refuse: no eventTime, no action, a long message, an upper-case name", async () => {
    const name = `Upper.${uniq("case")}`;
    const r = await call("POST", core(ns), legacyCoreEvent(ns, name, { message: "x".repeat(5000) }));
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    const strict = await call("POST", evs(ns), { ...eventBody(ns, uniq("s")), note: "x".repeat(5000) });
    expect(strict.status).toBe(422);
  });

  it("L1/L2: without eventTime the involved object's namespace must match", async () => {
    const name = uniq("l2");
    const r = await call("POST", core(ns), legacyCoreEvent(ns, name, { involvedObject: { kind: "Pod", namespace: "elsewhere", name: "p" } }));
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`Event "${name}" is invalid: involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace`);
    expect(r.json.details).toEqual({
      name,
      kind: "Event",
      causes: [{ reason: "FieldValueInvalid", message: 'Invalid value: "elsewhere": does not match event.namespace', field: "involvedObject.namespace" }],
    });
  });

  it("L4: with eventTime set the reporting controller is required, under its core name", async () => {
    const name = uniq("l4");
    const r = await call("POST", core(ns), {
      metadata: { name },
      involvedObject: { kind: "Pod", namespace: ns, name: "p" },
      eventTime: "2024-05-01T10:00:00.000000Z",
      reportingInstance: "i",
      action: "A",
      reason: "R",
    });
    expect(r.status).toBe(422);
    const fields = r.json.details.causes.map((c: { field: string }) => c.field);
    expect(fields[0]).toBe("reportingComponent");
    expect(fields).not.toContain("reportingController");
    expect(r.json.message).toContain("reportingComponent: Required value");
  });

  it("the generic name check: a name that is not a path segment", async () => {
    const r = await call("POST", core(ns), legacyCoreEvent(ns, "a%b"));
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`Event "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`);
  });

  it("update: ObjectMeta rules apply, the events.k8s.io immutables do not", async () => {
    const name = uniq("upd");
    const created = (await call("POST", core(ns), legacyCoreEvent(ns, name))).json;
    const changed = await call("PUT", `${core(ns)}/${name}`, { ...created, reason: "Other", count: 9, lastTimestamp: "2024-05-01T11:00:00Z" });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ reason: "Other", count: 9 });
    const badLabel = await call("PUT", `${core(ns)}/${name}`, { ...changed.json, metadata: { ...changed.json.metadata, labels: { "a b": "c" } } });
    expect(badLabel.status).toBe(422);
    expect(badLabel.json.details.causes[0].field).toBe("metadata.labels");
  });
});

describe("field selectors on core events", () => {
  it("selects by the core labels and refuses the events.k8s.io ones", async () => {
    const sel = uniq("sel");
    const a = uniq("fa");
    expect(
      (await call("POST", core(ns), legacyCoreEvent(ns, a, { involvedObject: { kind: "Pod", namespace: ns, name: sel, fieldPath: "spec.containers{web}" } })))
        .status,
    ).toBe(201);
    const b = uniq("fb");
    expect(
      (await call("POST", evs(ns), eventBody(ns, b, { regarding: { kind: "Pod", namespace: ns, name: sel }, reportingController: "tollgate.dev/sel" }))).status,
    ).toBe(201);
    const q = async (selector: string): Promise<Reply> => call("GET", `${core(ns)}?fieldSelector=${encodeURIComponent(selector)}`);
    expect(names(await q(`involvedObject.name=${sel}`)).sort()).toEqual([a, b].sort());
    expect(names(await q(`involvedObject.name=${sel},involvedObject.fieldPath=spec.containers{web}`))).toEqual([a]);
    expect(names(await q(`involvedObject.name=${sel},reportingComponent=tollgate.dev/sel`))).toEqual([b]);
    // source: the source component, else the reporting controller.
    expect(names(await q(`involvedObject.name=${sel},source=kubelet`))).toEqual([a]);
    expect(names(await q(`involvedObject.name=${sel},source=tollgate.dev/sel`))).toEqual([b]);
    expect(names(await q(`involvedObject.name=${sel},type=Normal,reason=Started`))).toEqual([a]);
    expect(names(await q(`metadata.name=${b}`))).toEqual([b]);
    for (const label of ["regarding.name", "reportingController", "note"]) {
      const r = await q(`${label}=x`);
      expect(r.status, label).toBe(400);
      expect(r.json.message).toBe(`field label not supported: ${label}`);
    }
  });
});

describe("representations", () => {
  it("a Table of core events has the same ten columns and reads the core fields", async () => {
    const name = uniq("tbl");
    expect((await call("POST", core(ns), legacyCoreEvent(ns, name, { message: "  spaced  " }))).status).toBe(201);
    const table = await call("GET", `${core(ns)}/${name}`, undefined, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    expect(table.status).toBe(200);
    const viaEvents = await call("GET", `${evs(ns)}/${name}`, undefined, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    expect(table.json.columnDefinitions).toEqual(viaEvents.json.columnDefinitions);
    expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "Subobject",
      "Source",
      "Message",
      "First Seen",
      "Count",
      "Name",
    ]);
    const cells = table.json.rows[0].cells;
    expect(cells.slice(1, 7)).toEqual(["Normal", "Started", "pod/web-0", "", "kubelet, node-1", "spaced"]);
    expect(cells[8]).toBe(3);
    expect(cells[9]).toBe(name);
    expect(table.json.rows[0].cells).toEqual(viaEvents.json.rows[0].cells);
  });

  it("serves core events and event lists as protobuf", async () => {
    const name = uniq("pb");
    expect((await call("POST", core(ns), legacyCoreEvent(ns, name))).status).toBe(201);
    const one = await request(`${emu.url}${core(ns)}/${name}`, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(one.statusCode).toBe(200);
    expect(one.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    const decoded = decodeObject(new Uint8Array(await one.body.arrayBuffer())) as Record<string, unknown>;
    expect(decoded).toMatchObject({ kind: "Event", apiVersion: "v1", message: "Started container web", involvedObject: { name: "web-0" }, count: 3 });
    const list = await request(`${emu.url}${core(ns)}`, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(list.statusCode).toBe(200);
    const decodedList = decodeObject(new Uint8Array(await list.body.arrayBuffer())) as {
      kind: string;
      apiVersion: string;
      items: Array<{ metadata: { name: string } }>;
    };
    expect(decodedList.kind).toBe("EventList");
    expect(decodedList.apiVersion).toBe("v1");
    expect(decodedList.items.map((i) => i.metadata.name)).toContain(name);
  });
});

describe("namespace deletion", () => {
  it("removes the events once, whichever group they were written through", async () => {
    const doomed = uniq("doomed");
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: doomed } })).status).toBe(201);
    expect((await call("POST", core(doomed), legacyCoreEvent(doomed, "a"))).status).toBe(201);
    expect((await call("POST", evs(doomed), eventBody(doomed, "b"))).status).toBe(201);
    expect((await call("DELETE", `/api/v1/namespaces/${doomed}`)).status).toBe(200);
    for (let i = 0; i < 100 && (await call("GET", `/api/v1/namespaces/${doomed}`)).status !== 404; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await call("GET", `/api/v1/namespaces/${doomed}`)).status).toBe(404);
    expect(names(await call("GET", core(doomed)))).toEqual([]);
    expect(names(await call("GET", evs(doomed)))).toEqual([]);
  });
});

/**
 * events.k8s.io/v1 update rules (wire-facts §7 "Strict rules on update"): legacy rules, ObjectMeta
 * update rules, the series rules only when the series changed, and the immutable fields with
 * their internal paths and Go-printed values. Only the series and metadata may change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goTimeString } from "../../lib/emulator/apimachinery/go-printed.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, eventBody, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const NS = "default";
const EV = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;
const EVENT_TIME = "2024-05-01T10:00:00.123456Z";

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

async function created(extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const name = uniq("upd");
  const r = await call("POST", EV, eventBody(NS, name, { eventTime: EVENT_TIME, ...extra }));
  expect(r.status, r.text).toBe(201);
  return r.json;
}

const put = (o: Record<string, any>): Promise<Reply> => call("PUT", `${EV}/${o.metadata.name}`, o);

function expectImmutable(r: Reply, name: string, field: string, printed: string): void {
  expect(r.status, r.text).toBe(422);
  expect(r.json.message).toBe(`Event "${name}" is invalid: ${field}: Invalid value: ${printed}: field is immutable`);
  expect(r.json.details.kind).toBe("Event");
  expect(r.json.details.group).toBeUndefined();
  expect(r.json.details.causes[0]).toEqual({ reason: "FieldValueInvalid", message: `Invalid value: ${printed}: field is immutable`, field });
}

describe("what may change", () => {
  it("labels, annotations and the series", async () => {
    const e = await created();
    const r = await put({
      ...e,
      metadata: { ...e.metadata, labels: { a: "b" }, annotations: { note: "x" } },
      series: { count: 2, lastObservedTime: "2024-05-01T10:01:00.000000Z" },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.series).toEqual({ count: 2, lastObservedTime: "2024-05-01T10:01:00.000000Z" });
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThan(Number(e.metadata.resourceVersion));
  });

  it("an eventTime written differently but meaning the same microsecond is no change", async () => {
    const e = await created();
    const r = await put({ ...e, eventTime: "2024-05-01T12:00:00.123456+02:00", metadata: { ...e.metadata, labels: { same: "time" } } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.eventTime).toBe(EVENT_TIME);
  });
});

describe("immutable fields", () => {
  it("strings print quoted, under their internal paths", async () => {
    for (const [key, path, value] of [
      ["reason", "reason", "Other"],
      ["note", "message", "another note"],
      ["type", "type", "Warning"],
      ["action", "action", "Other"],
      ["reportingController", "reportingController", "tollgate.dev/other"],
      ["reportingInstance", "reportingInstance", "other-1"],
    ] as const) {
      const e = await created();
      expectImmutable(await put({ ...e, [key]: value }), e.metadata.name, path, JSON.stringify(value));
    }
  });

  it("reason is checked twice upstream: one message line, two causes", async () => {
    const e = await created();
    const r = await put({ ...e, reason: "Other" });
    expect(r.json.details.causes.map((c: { field: string }) => c.field)).toEqual(["reason", "reason"]);
  });

  it("regarding and related print as Go structs (involvedObject, related)", async () => {
    const e = await created();
    const regarding = { kind: "Pod", namespace: NS, name: "p", uid: "u", apiVersion: "v1", resourceVersion: "7", fieldPath: "spec" };
    expectImmutable(
      await put({ ...e, regarding }),
      e.metadata.name,
      "involvedObject",
      `core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"p", UID:"u", APIVersion:"v1", ResourceVersion:"7", FieldPath:"spec"}`,
    );
    const withRelated = await created({ related: { kind: "Node", name: "n1" } });
    expectImmutable(
      await put({ ...withRelated, related: { kind: "Node", name: "n2" } }),
      withRelated.metadata.name,
      "related",
      `core.ObjectReference{Kind:"Node", Namespace:"", Name:"n2", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}`,
    );
    // Removing it: a nil pointer prints as the quoted string "null".
    const { related: _related, ...withoutRelated } = withRelated;
    expectImmutable(await put(withoutRelated), withRelated.metadata.name, "related", '"null"');
  });

  it("eventTime prints as Go's time.Time.String(), and only a change beyond the microsecond counts", async () => {
    const e = await created();
    expectImmutable(await put({ ...e, eventTime: "2024-05-01T10:00:00.123457Z" }), e.metadata.name, "eventTime", "2024-05-01 10:00:00.123457 +0000 UTC");
    expectImmutable(await put({ ...e, eventTime: "2024-05-01T10:00:01.000000Z" }), e.metadata.name, "eventTime", "2024-05-01 10:00:01 +0000 UTC");
  });

  it("the deprecated fields: source, firstTimestamp, lastTimestamp, count", async () => {
    const e = await created();
    expectImmutable(
      await put({ ...e, deprecatedSource: { component: "c", host: "h" } }),
      e.metadata.name,
      "source",
      `core.EventSource{Component:"c", Host:"h"}`,
    );
    expectImmutable(await put({ ...e, deprecatedFirstTimestamp: "2024-05-01T10:00:00Z" }), e.metadata.name, "firstTimestamp", "2024-05-01 10:00:00 +0000 UTC");
    expectImmutable(await put({ ...e, deprecatedLastTimestamp: "2024-05-01T10:00:05Z" }), e.metadata.name, "lastTimestamp", "2024-05-01 10:00:05 +0000 UTC");
    expectImmutable(await put({ ...e, deprecatedCount: 5 }), e.metadata.name, "count", "5");
  });

  it("several changes: one message in the upstream order, repeats dropped", async () => {
    const e = await created();
    const r = await put({ ...e, reason: "Other", note: "n2", type: "Warning", action: "Act" });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `Event "${e.metadata.name}" is invalid: [reason: Invalid value: "Other": field is immutable, message: Invalid value: "n2": field is immutable, type: Invalid value: "Warning": field is immutable, action: Invalid value: "Act": field is immutable]`,
    );
    expect(r.json.details.causes.map((c: { field: string }) => c.field)).toEqual(["reason", "message", "reason", "type", "action"]);
  });
});

describe("the other update rules", () => {
  it("series rules apply when the series changed", async () => {
    const e = await created();
    const r = await put({ ...e, series: { count: 1 } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `Event "${e.metadata.name}" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]`,
    );
  });

  it("legacy rules still apply (after the ObjectMeta rules)", async () => {
    const e = await created();
    const r = await put({ ...e, metadata: { ...e.metadata, labels: { "bad key!": "v" } }, reason: "" });
    expect(r.status).toBe(422);
    const fields = r.json.details.causes.map((c: { field: string }) => c.field);
    expect(fields[0]).toBe("metadata.labels");
    expect(fields).toContain("reason");
  });

  it("ObjectMeta: no new finalizer on a terminating event", async () => {
    const e = await created({ metadata: { name: uniq("fin"), namespace: NS, finalizers: ["tollgate.dev/hold"] } });
    expect((await call("DELETE", `${EV}/${e.metadata.name}`)).status).toBe(200);
    const marked = (await call("GET", `${EV}/${e.metadata.name}`)).json;
    expect(marked.metadata.deletionTimestamp).toBeTruthy();
    const r = await put({ ...marked, metadata: { ...marked.metadata, finalizers: ["tollgate.dev/hold", "tollgate.dev/more"] } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `Event "${e.metadata.name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"tollgate.dev/more"}`,
    );
    expect((await put({ ...marked, metadata: { ...marked.metadata, finalizers: [] } })).status).toBe(200);
    expect((await call("GET", `${EV}/${e.metadata.name}`)).status).toBe(404);
  });
});

describe("goTimeString", () => {
  it("writes time.Time.String() in UTC, trailing fraction zeros dropped", () => {
    expect(goTimeString("2024-05-01T10:00:00.123400Z")).toBe("2024-05-01 10:00:00.1234 +0000 UTC");
    expect(goTimeString("2024-05-01T10:00:00.000000Z")).toBe("2024-05-01 10:00:00 +0000 UTC");
    expect(goTimeString("2024-05-01T10:00:00Z")).toBe("2024-05-01 10:00:00 +0000 UTC");
    expect(goTimeString(null)).toBe("0001-01-01 00:00:00 +0000 UTC");
  });
});

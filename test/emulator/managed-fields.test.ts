/**
 * metadata.managedFields recorded by POST and PUT (the real create and update handlers' field
 * manager), their options' validation, and how they meet server-side apply.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, eventBody, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
const cm = (name = ""): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ""}`;
const APPLY = "application/apply-patch+yaml";
const MERGE = "application/merge-patch+json";
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const KUBECTL_UA = "kubectl/v1.35.0 (linux/amd64) kubernetes/66452049";

type Entry = { manager?: string; operation: string; apiVersion: string; time: string; fieldsType: string; fieldsV1: unknown };

const entries = (r: Reply): Entry[] => r.json.metadata.managedFields ?? [];
const fieldsByManager = (r: Reply): Record<string, unknown> => Object.fromEntries(entries(r).map((e) => [e.manager ?? "", e.fieldsV1]));

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return call("POST", path, body, { headers });
}
function put(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return call("PUT", path, body, { headers });
}
function patch(path: string, contentType: string, body: unknown): Promise<Reply> {
  return call("PATCH", path, undefined, { raw: JSON.stringify(body), headers: { "content-type": contentType } });
}

/** A ConfigMap created by `manager` (fieldManager), returned as created. */
async function created(manager: string, data: Record<string, string>, labels?: Record<string, string>): Promise<Reply> {
  const r = await post(`${cm()}?fieldManager=${manager}`, configMapBody(uniq("cm"), data, labels));
  expect(r.status).toBe(201);
  return r;
}

/** The object as a client would PUT it back after a GET, changed by `edit`. */
function edited(r: Reply, edit: (o: any) => void): any {
  const o = structuredClone(r.json);
  edit(o);
  return o;
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  ns = uniq("mf");
  expect((await post("/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

describe("POST records the creator's fields", () => {
  it("one Update entry under the fieldManager, owning what the body sets and no identity fields", async () => {
    const name = uniq("cm");
    const body = {
      ...configMapBody(name, { a: "1" }, { l: "x" }),
      metadata: { name, namespace: ns, uid: "client-uid", labels: { l: "x" }, annotations: { n: "y" } },
    };
    const r = await post(`${cm()}?fieldManager=creator`, body);
    expect(r.status).toBe(201);
    const [entry, ...rest] = entries(r);
    expect(rest).toEqual([]);
    expect(Object.keys(entry ?? {})).toEqual(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]);
    expect(entry).toMatchObject({ manager: "creator", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1" });
    expect(entry?.time).toMatch(TIME);
    expect(JSON.stringify(entry?.fieldsV1)).toBe('{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:annotations":{".":{},"f:n":{}},"f:labels":{".":{},"f:l":{}}}}');
    expect((await call("GET", cm(name))).json.metadata.managedFields).toEqual(r.json.metadata.managedFields);
  });

  it("owns generateName, but not the system fields a create wipes", async () => {
    const r = await post(`${cm()}?fieldManager=gen`, {
      metadata: { generateName: "mf-", deletionTimestamp: "2020-01-01T00:00:00Z", deletionGracePeriodSeconds: 5 },
      data: { a: "1" },
    });
    expect(r.status).toBe(201);
    expect(fieldsByManager(r)).toEqual({ gen: { "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:generateName": {} } } });
  });

  it("names the manager after the User-Agent's program when there is no fieldManager", async () => {
    let r = await post(cm(), configMapBody(uniq("cm"), { a: "1" }), { "user-agent": KUBECTL_UA });
    expect(entries(r).map((e) => e.manager)).toEqual(["kubectl"]);
    r = await post(`${cm()}?fieldManager=`, configMapBody(uniq("cm"), { a: "1" }), { "user-agent": "my-tool" });
    expect(entries(r).map((e) => e.manager)).toEqual(["my-tool"]);
    r = await post(cm(), configMapBody(uniq("cm"), { a: "1" }), { "user-agent": `${"x".repeat(200)}/1.0` });
    expect(entries(r)[0]?.manager).toBe("x".repeat(128));
    // Without either, the entry has no manager at all.
    r = await post(cm(), configMapBody(uniq("cm"), { a: "1" }));
    expect(Object.keys(entries(r)[0] ?? {})).toEqual(["operation", "apiVersion", "time", "fieldsType", "fieldsV1"]);
  });

  it("answers a dry run with the entry and stores nothing", async () => {
    const name = uniq("cm");
    const r = await post(`${cm()}?fieldManager=dry&dryRun=All`, configMapBody(name, { a: "1" }));
    expect(r.status).toBe(201);
    expect(fieldsByManager(r)).toEqual({ dry: { "f:data": { ".": {}, "f:a": {} } } });
    expect((await call("GET", cm(name))).status).toBe(404);
  });

  it("gives a namespace's creator its name label, never its status; the startup namespaces are kube-apiserver's", async () => {
    const name = uniq("ns");
    const r = await post("/api/v1/namespaces?fieldManager=creator", {
      metadata: { name },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Terminating" },
    });
    expect(r.status).toBe(201);
    expect(fieldsByManager(r)).toEqual({
      creator: { "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } }, "f:spec": { "f:finalizers": {} } },
    });
    const generated = await post("/api/v1/namespaces?fieldManager=creator", { metadata: { generateName: "mf-" } });
    expect(fieldsByManager(generated)).toEqual({ creator: { "f:metadata": { "f:generateName": {} } } });
    const def = await call("GET", "/api/v1/namespaces/default");
    // The entry's time and creationTimestamp are two readings of the clock (as in kube-apiserver):
    // equal, or a second apart when the seeding crossed a second.
    const created = Date.parse(def.json.metadata.creationTimestamp);
    const stamped = Date.parse(String(entries(def)[0]?.time));
    expect(Math.abs(stamped - created), `${entries(def)[0]?.time} against ${def.json.metadata.creationTimestamp}`).toBeLessThanOrEqual(1000);
    expect(entries(def)).toEqual([
      {
        manager: "kube-apiserver",
        operation: "Update",
        apiVersion: "v1",
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
        fieldsType: "FieldsV1",
        fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } } },
      },
    ]);
  });

  it("records events under their own group-version", async () => {
    const r = await post(`/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldManager=recorder`, eventBody(ns, uniq("ev")));
    expect(r.status).toBe(201);
    expect(entries(r)[0]).toMatchObject({ manager: "recorder", operation: "Update", apiVersion: "events.k8s.io/v1" });
    expect(Object.keys(entries(r)[0]?.fieldsV1 as object)).toEqual([
      "f:action",
      "f:eventTime",
      "f:note",
      "f:reason",
      "f:regarding",
      "f:reportingController",
      "f:reportingInstance",
      "f:type",
    ]);
  });
});

describe("CreateOptions and UpdateOptions", () => {
  it("refuses a fieldManager over 128 bytes or with unprintable characters (422), before reading the body", async () => {
    const name = uniq("cm");
    const long = "m".repeat(129);
    let r = await post(`${cm()}?fieldManager=${long}`, configMapBody(name, { a: "1" }));
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes',
      reason: "Invalid",
      details: {
        group: "meta.k8s.io",
        kind: "CreateOptions",
        causes: [{ reason: "FieldValueTooLong", message: "Too long: must have at most 128 bytes", field: "fieldManager" }],
      },
      code: 422,
    });
    expect((await call("GET", cm(name))).status).toBe(404);
    expect((await post(`${cm()}?fieldManager=${"m".repeat(128)}`, configMapBody(name, { a: "1" }))).status).toBe(201);

    r = await call("POST", `${cm()}?fieldManager=a%09b&dryRun=Some`, undefined, { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1), dryRun: Unsupported value: ["Some"]: supported values: "All"]',
    );

    r = await put(`${cm(name)}?fieldManager=${long}&fieldValidation=Loud`, (await call("GET", cm(name))).json);
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: must have at most 128 bytes, fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"]',
    );
    expect(r.json.details).toMatchObject({ group: "meta.k8s.io", kind: "UpdateOptions" });
  });
});

describe("PUT updates ownership", () => {
  it("merges into the writer's own entry, takes changed fields from others, and keeps entries the body leaves out", async () => {
    const c = await created("creator", { a: "1", b: "2" });
    const name = c.json.metadata.name;
    // The body carries no managedFields: the stored ones are kept.
    let r = await put(`${cm(name)}?fieldManager=editor`, { ...configMapBody(name, { a: "changed", b: "2", c: "3" }), metadata: { name } });
    expect(r.status).toBe(200);
    expect(fieldsByManager(r)).toEqual({
      creator: { "f:data": { ".": {}, "f:b": {} } },
      editor: { "f:data": { "f:a": {}, "f:c": {} } },
    });
    expect(entries(r).map((e) => e.manager)).toEqual(["creator", "editor"]);
    const first = entries(r)[1];

    // Same manager, operation and apiVersion: one entry, the fields united.
    r = await put(
      `${cm(name)}?fieldManager=editor`,
      edited(r, (o) => (o.data.d = "4")),
    );
    expect(r.status).toBe(200);
    expect(fieldsByManager(r)).toEqual({
      creator: { "f:data": { ".": {}, "f:b": {} } },
      editor: { "f:data": { "f:a": {}, "f:c": {}, "f:d": {} } },
    });
    expect(entries(r)[1]?.time).toMatch(TIME);
    expect(Date.parse(entries(r)[1]?.time ?? "")).toBeGreaterThanOrEqual(Date.parse(first?.time ?? ""));

    // Removing a field takes it from everyone.
    r = await put(
      `${cm(name)}?fieldManager=editor`,
      edited(r, (o) => delete o.data.b),
    );
    // The creator keeps the map itself: a member without children is written as {}.
    expect(fieldsByManager(r)).toEqual({ creator: { "f:data": {} }, editor: { "f:data": { "f:a": {}, "f:c": {}, "f:d": {} } } });
  });

  it("writes nothing for an unchanged object, managedFields included", async () => {
    const c = await created("creator", { a: "1" });
    const r = await put(`${cm(c.json.metadata.name)}?fieldManager=other`, c.json);
    expect(r.status).toBe(200);
    expect(r.json.metadata.resourceVersion).toBe(c.json.metadata.resourceVersion);
    expect(r.json.metadata.managedFields).toEqual(c.json.metadata.managedFields);
  });

  it("records under the User-Agent's program, also in a dry run that stores nothing", async () => {
    const c = await created("creator", { a: "1" });
    const name = c.json.metadata.name;
    const r = await put(
      `${cm(name)}?dryRun=All`,
      edited(c, (o) => (o.data.a = "2")),
      { "user-agent": KUBECTL_UA },
    );
    expect(r.status).toBe(200);
    expect(fieldsByManager(r)).toEqual({ creator: { "f:data": {} }, kubectl: { "f:data": { "f:a": {} } } });
    expect((await call("GET", cm(name))).json.metadata.managedFields).toEqual(c.json.metadata.managedFields);
  });

  it("resets ownership for managedFields [] or [{}], and an untracked object stays untracked until an apply", async () => {
    for (const reset of [[], [{}]]) {
      const c = await created("creator", { a: "1" });
      const name = c.json.metadata.name;
      let r = await put(
        `${cm(name)}?fieldManager=editor`,
        edited(c, (o) => {
          o.metadata.managedFields = reset;
          o.data.b = "2";
        }),
      );
      expect(r.status, JSON.stringify(reset)).toBe(200);
      expect(r.json.data).toEqual({ a: "1", b: "2" });
      expect(r.json.metadata.managedFields, JSON.stringify(reset)).toBeUndefined();
      r = await put(
        `${cm(name)}?fieldManager=editor`,
        edited(r, (o) => (o.data.c = "3")),
      );
      expect(r.json.metadata.managedFields).toBeUndefined();
      r = await patch(`${cm(name)}?fieldManager=tool`, APPLY, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { d: "4" } });
      expect(r.status).toBe(200);
      expect(fieldsByManager(r)).toEqual({
        tool: { "f:data": { "f:d": {} } },
        "before-first-apply": { "f:data": { ".": {}, "f:a": {}, "f:b": {}, "f:c": {} } },
      });
    }
  });

  it("reads a reset [] from a YAML body too", async () => {
    const c = await created("creator", { a: "1" });
    const name = c.json.metadata.name;
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  managedFields: []\ndata:\n  a: "1"\n`;
    const r = await call("PUT", cm(name), undefined, { raw: yaml, headers: { "content-type": "application/yaml" } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.managedFields).toBeUndefined();
  });

  it("stores managedFields a client sends, after taking the fields the write changes", async () => {
    const c = await created("creator", { a: "1" });
    const name = c.json.metadata.name;
    const custom = {
      manager: "custom",
      operation: "Update",
      apiVersion: "v1",
      time: "2020-01-01T00:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { ".": {}, "f:a": {}, "f:b": {} } },
    };
    const r = await put(
      `${cm(name)}?fieldManager=editor`,
      edited(c, (o) => {
        o.metadata.managedFields = [custom];
        o.data.b = "2";
      }),
    );
    expect(r.status).toBe(200);
    expect(entries(r)).toEqual([
      { ...custom, fieldsV1: { "f:data": { ".": {}, "f:a": {} } } },
      { manager: "editor", operation: "Update", apiVersion: "v1", time: entries(r)[1]?.time, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:b": {} } } },
    ]);
    // A list that cannot be read (no fieldsType) leaves the stored entries in place.
    const bad = { ...custom, fieldsType: "" };
    const kept = await put(
      `${cm(name)}?fieldManager=editor`,
      edited(r, (o) => {
        o.metadata.managedFields = [bad];
        o.data.c = "3";
      }),
    );
    expect(kept.status).toBe(200);
    expect(fieldsByManager(kept)).toEqual({ custom: { "f:data": { ".": {}, "f:a": {} } }, editor: { "f:data": { "f:b": {}, "f:c": {} } } });
  });

  it("records a create through PUT (events) as a create", async () => {
    const name = uniq("ev");
    const r = await put(`/apis/events.k8s.io/v1/namespaces/${ns}/events/${name}?fieldManager=recorder`, eventBody(ns, name));
    expect(r.status).toBe(201);
    expect(entries(r).map((e) => [e.manager, e.operation, e.apiVersion])).toEqual([["recorder", "Update", "events.k8s.io/v1"]]);
  });

  it("never gives a namespace's status to the writer", async () => {
    const name = uniq("ns");
    const c = await post("/api/v1/namespaces?fieldManager=creator", { metadata: { name } });
    const r = await put(
      `/api/v1/namespaces/${name}?fieldManager=editor`,
      edited(c, (o) => {
        o.status = { phase: "Terminating" };
        o.metadata.labels.x = "1";
      }),
    );
    expect(r.status).toBe(200);
    expect(fieldsByManager(r)).toEqual({
      creator: { "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } } },
      editor: { "f:metadata": { "f:labels": { "f:x": {} } } },
    });
  });
});

describe("POST and PUT meet server-side apply", () => {
  it("an apply of another value for a created field conflicts with the creator (409), unless forced", async () => {
    const c = await created("kubectl-create", { a: "1", b: "2" });
    const name = c.json.metadata.name;
    const config = (data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });
    const r = await patch(`${cm(name)}?fieldManager=tool&force=false`, APPLY, config({ a: "x" }));
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a',
      reason: "Conflict",
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "kubectl-create" using v1', field: ".data.a" }] },
      code: 409,
    });
    const two = await patch(`${cm(name)}?fieldManager=tool`, APPLY, config({ a: "x", b: "y" }));
    expect(two.json.message).toBe('Apply failed with 2 conflicts: conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b');
    // The same value is shared ownership, not a conflict.
    const same = await patch(`${cm(name)}?fieldManager=tool`, APPLY, config({ a: "1" }));
    expect(same.status).toBe(200);
    expect(fieldsByManager(same)).toEqual({ tool: { "f:data": { "f:a": {} } }, "kubectl-create": { "f:data": { ".": {}, "f:a": {}, "f:b": {} } } });
    const forced = await patch(`${cm(name)}?fieldManager=tool&force=true`, APPLY, config({ a: "x" }));
    expect(forced.status).toBe(200);
    expect(fieldsByManager(forced)).toEqual({ tool: { "f:data": { "f:a": {} } }, "kubectl-create": { "f:data": { ".": {}, "f:b": {} } } });
  });

  it("a PUT takes an applied field without conflict, and the applier's next apply conflicts with it", async () => {
    const name = uniq("cm");
    const config = (data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });
    const applied = await patch(`${cm(name)}?fieldManager=tool`, APPLY, config({ a: "1", b: "2", c: "3" }));
    expect(applied.status).toBe(201);
    const r = await put(
      cm(name),
      edited(applied, (o) => {
        o.data.a = "changed";
        delete o.data.b;
      }),
      { "user-agent": KUBECTL_UA },
    );
    expect(r.status).toBe(200);
    expect(fieldsByManager(r)).toEqual({ tool: { "f:data": { "f:c": {} } }, kubectl: { "f:data": { "f:a": {} } } });
    expect(entries(r).map((e) => e.operation)).toEqual(["Apply", "Update"]);

    const again = await patch(`${cm(name)}?fieldManager=tool`, APPLY, config({ a: "1", b: "2", c: "3" }));
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.a');
    // The field the PUT removed is free again: applying it is no conflict.
    const freed = await patch(`${cm(name)}?fieldManager=tool`, APPLY, config({ b: "2", c: "3" }));
    expect(freed.status).toBe(200);
    expect(freed.json.data).toEqual({ a: "changed", b: "2", c: "3" });
    expect(fieldsByManager(freed)).toEqual({ tool: { "f:data": { "f:b": {}, "f:c": {} } }, kubectl: { "f:data": { "f:a": {} } } });
  });

  it("a merge patch after a PUT reset stays untracked", async () => {
    const c = await created("creator", { a: "1" });
    const name = c.json.metadata.name;
    await put(
      cm(name),
      edited(c, (o) => (o.metadata.managedFields = [])),
    );
    const r = await patch(`${cm(name)}?fieldManager=editor`, MERGE, { data: { b: "2" } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.managedFields).toBeUndefined();
  });
});

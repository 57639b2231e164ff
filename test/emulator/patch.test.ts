/** PATCH over HTTP: the four patch types, field ownership, and the real server's errors. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { encodeCbor } from "../../lib/wire/cbor.js";
import { client, configMapBody, eventBody, openWatch, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
const cm = (name = ""): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ""}`;
const ev = (name = ""): string => `/apis/events.k8s.io/v1/namespaces/${ns}/events${name ? `/${name}` : ""}`;

const JSON_PATCH = "application/json-patch+json";
const MERGE = "application/merge-patch+json";
const SMP = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function patch(path: string, contentType: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  return call("PATCH", path, undefined, { raw, headers: { "content-type": contentType, ...headers } });
}

async function newConfigMap(data: Record<string, string> = { a: "1" }, labels?: Record<string, string>): Promise<Reply> {
  const created = await call("POST", cm(), configMapBody(uniq("cm"), data, labels));
  expect(created.status).toBe(201);
  return created;
}

const applyConfig = (name: string, data: Record<string, string>, labels?: Record<string, string>): Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: labels ? { name, labels } : { name },
  data,
});

beforeAll(async () => {
  // Watches here expect this file's writes only: no namespace content arriving after a create.
  emu = await startEmulator({ port: 0, namespaceContent: false });
  call = client(emu.url);
  ns = uniq("patch");
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

describe("application/json-patch+json", () => {
  it("applies every RFC 6902 operation in order", async () => {
    const { json: before } = await newConfigMap({ a: "1", b: "2" });
    const name = before.metadata.name;
    const r = await patch(cm(name), JSON_PATCH, [
      { op: "test", path: "/data/a", value: "1" },
      { op: "add", path: "/data/c", value: "3" },
      { op: "replace", path: "/data/a", value: "10" },
      { op: "remove", path: "/data/b" },
      { op: "copy", from: "/data/c", path: "/data/d" },
      { op: "move", from: "/data/c", path: "/data/e" },
      { op: "add", path: "/metadata/labels", value: { tier: "web" } },
    ]);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: "10", d: "3", e: "3" });
    expect(r.json.metadata.labels).toEqual({ tier: "web" });
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
  });

  it("fails the whole patch on a failed test operation and changes nothing", async () => {
    const { json: before } = await newConfigMap({ a: "1" });
    const name = before.metadata.name;
    const r = await patch(cm(name), JSON_PATCH, [
      { op: "replace", path: "/data/a", value: "changed" },
      { op: "test", path: "/data/a", value: "1" },
    ]);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server rejected our request due to an error in our request",
      reason: "Invalid",
      details: { causes: [{ reason: "UnexpectedServerResponse", message: "testing value /data/a failed: test failed" }] },
      code: 422,
    });
    const after = await call("GET", cm(name));
    expect(after.text).toBe((await call("GET", cm(name))).text);
    expect(after.json.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.json.data).toEqual({ a: "1" });
  });

  it("words operation failures as evanphx/json-patch does", async () => {
    const { json } = await newConfigMap({ a: "1" });
    const cases: [unknown[], string][] = [
      [[{ op: "remove", path: "/data/missing" }], "error in remove for path: '/data/missing': Unable to remove nonexistent key: missing: missing value"],
      [[{ op: "add", path: "/nope/x", value: 1 }], 'add operation does not apply: doc is missing path: "/nope/x": missing value'],
      [[{ op: "move", from: "/data/zz", path: "/data/y" }], "move operation does not apply: doc is missing from path: /data/zz: missing value"],
      [[{ op: "frobnicate", path: "/data/a" }], "Unexpected kind: frobnicate"],
    ];
    for (const [ops, message] of cases) {
      const r = await patch(cm(json.metadata.name), JSON_PATCH, ops);
      expect(r.status).toBe(422);
      expect(r.json.details.causes).toEqual([{ reason: "UnexpectedServerResponse", message }]);
    }
  });

  it("lets replace add a missing object member (evanphx v4)", async () => {
    const { json } = await newConfigMap({ a: "1" });
    const r = await patch(cm(json.metadata.name), JSON_PATCH, [{ op: "replace", path: "/data/new", value: "x" }]);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: "1", new: "x" });
  });

  it("refuses a body that is not an array with 400", async () => {
    const { json } = await newConfigMap();
    let r = await patch(cm(json.metadata.name), JSON_PATCH, { op: "add" });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      reason: "BadRequest",
      message: "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
    });
    r = await patch(`${cm(json.metadata.name)}?fieldValidation=Ignore`, JSON_PATCH, { op: "add" });
    expect(r.json.message).toBe("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    r = await patch(cm(json.metadata.name), JSON_PATCH, "[{");
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^error decoding patch: /);
  });

  it("answers 422 naming the patched document when the result is not a ConfigMap", async () => {
    const { json } = await newConfigMap();
    const r = await patch(cm(json.metadata.name), JSON_PATCH, [{ op: "replace", path: "/data", value: { a: 1 } }]);
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/,
    );
    expect(r.json.details.causes[0]).toMatchObject({ reason: "FieldValueInvalid", field: "patch" });
  });
});

describe("application/merge-patch+json", () => {
  it("merges maps and deletes members set to null", async () => {
    const { json } = await newConfigMap({ a: "1", b: "2" }, { keep: "yes", drop: "yes" });
    const r = await patch(cm(json.metadata.name), MERGE, { metadata: { labels: { drop: null, added: "1" } }, data: { b: null, c: "3" } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.labels).toEqual({ keep: "yes", added: "1" });
    expect(r.json.data).toEqual({ a: "1", c: "3" });
  });

  it("reports unknown fields per fieldValidation", async () => {
    const { json } = await newConfigMap();
    const path = cm(json.metadata.name);
    let r = await patch(path, MERGE, { bogus: 1, data: { w: "1" } });
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
    expect(r.json.bogus).toBeUndefined();
    r = await patch(`${path}?fieldValidation=Ignore`, MERGE, { bogus: 1 });
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBeUndefined();
    r = await patch(`${path}?fieldValidation=Strict`, MERGE, { bogus: 1 });
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "bogus"$/);
  });

  it("refuses a non-object patch with 400", async () => {
    const { json } = await newConfigMap();
    let r = await patch(cm(json.metadata.name), MERGE, [1]);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}");
    r = await patch(cm(json.metadata.name), MERGE, "null");
    expect(r.json.message).toBe("Invalid JSON Patch");
  });

  it("404s for a missing object, including events (no create through a merge patch)", async () => {
    const r = await patch(cm("missing"), MERGE, { data: { a: "1" } });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ reason: "NotFound", message: 'configmaps "missing" not found' });
    const e = await patch(ev("missing"), MERGE, { note: "x" });
    expect(e.status).toBe(404);
    expect(e.json.message).toBe('events.events.k8s.io "missing" not found');
  });

  it("treats a resourceVersion in the patch as a precondition (409)", async () => {
    const { json } = await newConfigMap();
    const stale = String(Number(json.metadata.resourceVersion) - 1);
    const r = await patch(cm(json.metadata.name), MERGE, { metadata: { resourceVersion: stale }, data: { a: "2" } });
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(
      `Operation cannot be fulfilled on configmaps "${json.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
    );
    const ok = await patch(cm(json.metadata.name), MERGE, { metadata: { resourceVersion: json.metadata.resourceVersion }, data: { a: "2" } });
    expect(ok.status).toBe(200);
  });

  it("runs update validation (422) and refuses a new name (400)", async () => {
    const { json } = await newConfigMap();
    const bad = await patch(cm(json.metadata.name), MERGE, { metadata: { labels: { x: "not valid!" } } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toMatch(new RegExp(`^ConfigMap "${json.metadata.name}" is invalid: metadata.labels: Invalid value: "not valid!"`));
    const renamed = await patch(cm(json.metadata.name), MERGE, { metadata: { name: "other" } });
    expect(renamed.status).toBe(400);
    expect(renamed.json.message).toBe(`the name of the object (other) does not match the name on the URL (${json.metadata.name})`);
    const moved = await patch(cm(json.metadata.name), MERGE, { metadata: { namespace: "elsewhere" } });
    expect(moved.status).toBe(400);
    expect(moved.json.message).toBe("the namespace of the provided object does not match the namespace sent on the request");
  });

  it("stores nothing under dryRun=All and still answers the patched object", async () => {
    const { json } = await newConfigMap({ a: "1" });
    const r = await patch(`${cm(json.metadata.name)}?dryRun=All`, MERGE, { data: { a: "2" } });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: "2" });
    const after = await call("GET", cm(json.metadata.name));
    expect(after.json.data).toEqual({ a: "1" });
    expect(after.json.metadata.resourceVersion).toBe(json.metadata.resourceVersion);
  });

  it("patches a namespace's labels and leaves its status alone", async () => {
    const name = uniq("pns");
    await call("POST", "/api/v1/namespaces", { metadata: { name } });
    const r = await patch(`/api/v1/namespaces/${name}`, MERGE, { metadata: { labels: { team: "a" } }, status: { phase: "Terminating" } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.labels).toEqual({ team: "a", "kubernetes.io/metadata.name": name });
    expect(r.json.status).toEqual({ phase: "Active" });
  });

  it("is seen by a watch as MODIFIED", async () => {
    const { json } = await newConfigMap();
    const w = await openWatch(emu.url, `${cm()}?watch=true&resourceVersion=${json.metadata.resourceVersion}`);
    const r = await patch(cm(json.metadata.name), MERGE, { data: { a: "watched" } });
    const event = await w.next();
    w.close();
    expect(event?.type).toBe("MODIFIED");
    expect(event?.object).toEqual(r.json);
  });
});

describe("application/strategic-merge-patch+json", () => {
  it("merges finalizers as a set and removes with $deleteFromPrimitiveList", async () => {
    const { json } = await newConfigMap();
    const path = cm(json.metadata.name);
    let r = await patch(path, SMP, { metadata: { finalizers: ["example.com/a", "example.com/b"] } });
    expect(r.json.metadata.finalizers).toEqual(["example.com/a", "example.com/b"]);
    r = await patch(path, SMP, { metadata: { finalizers: ["example.com/b", "example.com/c"] } });
    expect(r.json.metadata.finalizers).toEqual(["example.com/a", "example.com/b", "example.com/c"]);
    r = await patch(path, SMP, { metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/a", "example.com/c"] } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(["example.com/b"]);
    r = await patch(path, SMP, { metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/b"] } });
    expect(r.json.metadata.finalizers).toBeUndefined();
  });

  it("merges ownerReferences by uid and deletes one with $patch: delete", async () => {
    const { json } = await newConfigMap();
    const path = cm(json.metadata.name);
    const ref = (uid: string, name: string) => ({ apiVersion: "v1", kind: "ConfigMap", name, uid });
    await patch(path, SMP, { metadata: { ownerReferences: [ref("u1", "one"), ref("u2", "two")] } });
    let r = await patch(path, SMP, { metadata: { ownerReferences: [{ uid: "u1", name: "renamed" }] } });
    expect(r.json.metadata.ownerReferences).toEqual([ref("u1", "renamed"), ref("u2", "two")]);
    r = await patch(path, SMP, { metadata: { ownerReferences: [{ $patch: "delete", uid: "u1" }] } });
    expect(r.json.metadata.ownerReferences).toEqual([ref("u2", "two")]);
  });

  it("honours $patch: replace and $patch: delete on maps, and refuses other directives", async () => {
    const { json } = await newConfigMap({ a: "1", b: "2" }, { x: "1", y: "2" });
    const path = cm(json.metadata.name);
    let r = await patch(path, SMP, { data: { $patch: "replace", c: "3" } });
    expect(r.json.data).toEqual({ c: "3" });
    r = await patch(path, SMP, { metadata: { labels: { $patch: "delete" } } });
    expect(r.json.metadata.labels).toBeUndefined();
    r = await patch(path, SMP, { data: { $patch: "merge" } });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("unknown patch type: merge in map: map[$patch:merge]");
  });

  it("deletes keys set to null and warns about unknown fields", async () => {
    const { json } = await newConfigMap({ a: "1", b: "2" });
    const r = await patch(cm(json.metadata.name), SMP, { data: { a: null }, extra: true });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ b: "2" });
    expect(r.headers.warning).toBe('299 - "unknown field \\"extra\\""');
  });
});

describe("application/apply-patch+yaml (server-side apply)", () => {
  it("creates a missing object (201) with one Apply entry in managedFields", async () => {
    const name = uniq("ssa");
    const r = await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { key: "v" }, { x: "1" }));
    expect(r.status).toBe(201);
    const [entry, ...others] = r.json.metadata.managedFields;
    expect(others).toEqual([]);
    expect(Object.keys(entry)).toEqual(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]);
    expect(entry).toMatchObject({ manager: "tool", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1" });
    expect(entry.time).toMatch(TIME);
    expect(entry.fieldsV1).toEqual({ "f:data": { "f:key": {} }, "f:metadata": { "f:labels": { "f:x": {} } } });
    expect(JSON.stringify(entry.fieldsV1)).toBe('{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:x":{}}}}');
  });

  it("accepts a YAML body and updates an existing object (200)", async () => {
    const name = uniq("ssa");
    await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { key: "v" }));
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  key: w\n`;
    const r = await patch(`${cm(name)}?fieldManager=tool`, APPLY, yaml);
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ key: "w" });
  });

  it("writes nothing when the same configuration is applied again", async () => {
    const name = uniq("ssa");
    const first = await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { key: "v" }));
    const again = await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { key: "v" }));
    expect(again.status).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe(first.json.metadata.resourceVersion);
  });

  it("removes fields the manager applied before and now omits", async () => {
    const name = uniq("ssa");
    await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { keep: "1", drop: "2" }, { gone: "x" }));
    const r = await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { keep: "1" }));
    expect(r.json.data).toEqual({ keep: "1" });
    expect(r.json.metadata.labels).toBeUndefined();
    expect(r.json.metadata.managedFields[0].fieldsV1).toEqual({ "f:data": { "f:keep": {} } });
  });

  it("keeps an omitted field that another applier also owns", async () => {
    const name = uniq("ssa");
    await patch(`${cm(name)}?fieldManager=a`, APPLY, applyConfig(name, { shared: "1", mine: "a" }));
    await patch(`${cm(name)}?fieldManager=b`, APPLY, applyConfig(name, { shared: "1" }));
    const r = await patch(`${cm(name)}?fieldManager=a`, APPLY, applyConfig(name, { mine: "a" }));
    expect(r.json.data).toEqual({ shared: "1", mine: "a" });
  });

  it("answers 409 with one cause per conflicting field, and force takes ownership", async () => {
    const name = uniq("ssa");
    await patch(`${cm(name)}?fieldManager=owner`, APPLY, applyConfig(name, { a: "1", b: "2" }));
    const one = await patch(`${cm(name)}?fieldManager=other`, APPLY, applyConfig(name, { a: "changed" }));
    expect(one.status).toBe(409);
    expect(one.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "owner": .data.a',
      reason: "Conflict",
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "owner"', field: ".data.a" }] },
      code: 409,
    });
    const two = await patch(`${cm(name)}?fieldManager=other&force=false`, APPLY, applyConfig(name, { a: "x", b: "y" }));
    expect(two.status).toBe(409);
    expect(two.json.message).toBe('Apply failed with 2 conflicts: conflicts with "owner":\n- .data.a\n- .data.b');
    expect(two.json.details.causes.map((c: { field: string }) => c.field)).toEqual([".data.a", ".data.b"]);

    const forced = await patch(`${cm(name)}?fieldManager=other&force=true`, APPLY, applyConfig(name, { a: "x" }));
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ a: "x", b: "2" });
    const byManager = Object.fromEntries(forced.json.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]));
    expect(byManager).toEqual({ owner: { "f:data": { "f:b": {} } }, other: { "f:data": { "f:a": {} } } });
  });

  it("names Update managers with their apiVersion in conflicts", async () => {
    const { json } = await newConfigMap({ a: "1" });
    const name = json.metadata.name;
    await patch(cm(name), MERGE, { data: { a: "2" } }, { "user-agent": "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07" });
    const r = await patch(`${cm(name)}?fieldManager=kubectl`, APPLY, applyConfig(name, { a: "3" }));
    expect(r.status).toBe(409);
    expect(r.json.message).toBe('Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.a');
  });

  it("names the creator of a field in the conflict of a later apply", async () => {
    const name = uniq("cm");
    expect((await call("POST", `${cm()}?fieldManager=kubectl-create`, configMapBody(name, { a: "1" }))).status).toBe(201);
    const r = await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { a: "2" }));
    expect(r.status).toBe(409);
    expect(r.json.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a');
  });

  it("gives fields present before any ownership to before-first-apply", async () => {
    const { json } = await newConfigMap({ a: "1" });
    // A reset leaves the object untracked until the next apply.
    expect((await patch(cm(json.metadata.name), MERGE, { metadata: { managedFields: [{}] } })).json.metadata.managedFields).toBeUndefined();
    const r = await patch(`${cm(json.metadata.name)}?fieldManager=tool`, APPLY, applyConfig(json.metadata.name, { a: "2" }));
    expect(r.status).toBe(409);
    expect(r.json.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  });

  it("requires a fieldManager, and refuses force outside apply (422 PatchOptions)", async () => {
    const name = uniq("ssa");
    const missing = await patch(cm(name), APPLY, applyConfig(name, {}));
    expect(missing.status).toBe(422);
    expect(missing.json).toMatchObject({
      reason: "Invalid",
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      details: { group: "meta.k8s.io", kind: "PatchOptions", causes: [{ reason: "FieldValueRequired", field: "fieldManager" }] },
    });
    const { json } = await newConfigMap();
    const force = await patch(`${cm(json.metadata.name)}?force=true`, MERGE, {});
    expect(force.status).toBe(422);
    expect(force.json.message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it("refuses configurations of another type, with managedFields, or with unknown fields (400)", async () => {
    const name = uniq("ssa");
    const path = `${cm(name)}?fieldManager=tool`;
    let r = await patch(path, APPLY, { ...applyConfig(name, {}), kind: "Secret" });
    expect(r.json).toMatchObject({ code: 400, message: "invalid object type: /v1, Kind=Secret" });
    r = await patch(path, APPLY, { ...applyConfig(name, {}), apiVersion: undefined });
    expect(r.json.message).toBe("invalid object type: /, Kind=ConfigMap");
    r = await patch(path, APPLY, { ...applyConfig(name, {}), metadata: { name, managedFields: [] } });
    expect(r.json).toMatchObject({ code: 400, message: "metadata.managedFields must be nil" });
    r = await patch(path, APPLY, { ...applyConfig(name, {}), spec: { x: 1 } });
    expect(r.json).toMatchObject({
      code: 400,
      message: `failed to create typed patch object (/${name}; /v1, Kind=ConfigMap): .spec: field not declared in schema`,
    });
    expect((await call("GET", cm(name))).status).toBe(404);
  });

  it("creates nothing under dryRun=All but answers 201", async () => {
    const name = uniq("ssa");
    const r = await patch(`${cm(name)}?fieldManager=tool&dryRun=All`, APPLY, applyConfig(name, { a: "1" }));
    expect(r.status).toBe(201);
    expect(r.json.data).toEqual({ a: "1" });
    expect((await call("GET", cm(name))).status).toBe(404);
  });

  it("creates events and namespaces, seen by a watch as ADDED", async () => {
    const list = await call("GET", ev());
    const w = await openWatch(emu.url, `${ev()}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    const name = uniq("ev");
    const r = await patch(`${ev(name)}?fieldManager=reporter`, APPLY, eventBody(ns, name));
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields[0]).toMatchObject({ manager: "reporter", operation: "Apply", apiVersion: "events.k8s.io/v1" });
    expect(r.json.metadata.managedFields[0].fieldsV1["f:regarding"]).toEqual({});
    const event = await w.next();
    w.close();
    expect(event?.type).toBe("ADDED");
    expect(event?.object).toEqual(r.json);

    const nsName = uniq("ans");
    const created = await patch(`/api/v1/namespaces/${nsName}?fieldManager=tool`, APPLY, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: nsName, labels: { a: "b" } },
      status: { phase: "Terminating" },
    });
    expect(created.status).toBe(201);
    expect(created.json.status).toEqual({ phase: "Active" });
    expect(created.json.metadata.managedFields[0].fieldsV1).toEqual({ "f:metadata": { "f:labels": { "f:a": {} } } });
  });

  it("admits an apply-create only into an existing namespace", async () => {
    const r = await patch(`/api/v1/namespaces/${uniq("nope")}/configmaps/x?fieldManager=tool`, APPLY, applyConfig("x", {}));
    expect(r.status).toBe(404);
    expect(r.json.details.kind).toBe("namespaces");
  });
});

describe("managedFields from non-apply writes", () => {
  it("records the changed fields under the User-Agent's program name or the fieldManager", async () => {
    const name = uniq("cm");
    expect((await call("POST", `${cm()}?fieldManager=creator`, configMapBody(name, { a: "1" }))).status).toBe(201);
    const path = cm(name);
    let r = await patch(
      path,
      MERGE,
      { data: { b: "2" }, metadata: { labels: { l: "1" } } },
      { "user-agent": "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07" },
    );
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: "creator",
        operation: "Update",
        apiVersion: "v1",
        time: r.json.metadata.managedFields[0].time,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
      },
      {
        manager: "kubectl",
        operation: "Update",
        apiVersion: "v1",
        time: r.json.metadata.managedFields[1].time,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:b": {} }, "f:metadata": { "f:labels": { ".": {}, "f:l": {} } } },
      },
    ]);
    r = await patch(`${path}?fieldManager=editor`, JSON_PATCH, [{ op: "replace", path: "/data/b", value: "3" }]);
    const byManager = Object.fromEntries(r.json.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]));
    expect(byManager).toEqual({
      creator: { "f:data": { ".": {}, "f:a": {} } },
      kubectl: { "f:metadata": { "f:labels": { ".": {}, "f:l": {} } } },
      editor: { "f:data": { "f:b": {} } },
    });
  });

  it("resets ownership when the patch sets managedFields to an empty list", async () => {
    const name = uniq("ssa");
    await patch(`${cm(name)}?fieldManager=tool`, APPLY, applyConfig(name, { a: "1" }));
    const r = await patch(cm(name), MERGE, { metadata: { managedFields: [] } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.managedFields).toBeUndefined();
  });
});

describe("patch media types", () => {
  it("answers 415 with the real list for an unknown patch type, before reading the body", async () => {
    const { json } = await newConfigMap();
    for (const ct of ["application/json", "text/plain", "application/merge-patch+json ; charset=utf-8"]) {
      const r = await patch(cm(json.metadata.name), ct, "not even json");
      expect(r.status, ct).toBe(415);
      expect(r.json).toMatchObject({
        reason: "UnsupportedMediaType",
        message:
          "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
      });
    }
    const withCharset = await patch(cm(json.metadata.name), "application/merge-patch+json; charset=utf-8", { data: { z: "1" } });
    expect(withCharset.status).toBe(200);
  });

  it("405s a PATCH of a collection", async () => {
    expect((await patch(cm(), MERGE, {})).status).toBe(405);
  });

  it("serves application/apply-patch+cbor with the CBOR gate on", async () => {
    const on = await startEmulator({ port: 0, featureGates: { CBORServingAndStorage: true } });
    try {
      const onCall = client(on.url);
      const name = uniq("cbor");
      const body = Buffer.from(encodeCbor(applyConfig(name, { a: "1" })));
      const r = await onCall("PATCH", `/api/v1/namespaces/default/configmaps/${name}?fieldManager=tool`, undefined, {
        raw: body,
        headers: { "content-type": "application/apply-patch+cbor" },
      });
      expect(r.status).toBe(201);
      expect(r.json.data).toEqual({ a: "1" });
      const bad = await onCall("PATCH", `/api/v1/namespaces/default/configmaps/${name}`, undefined, { raw: "{}", headers: { "content-type": "text/plain" } });
      expect(bad.json.message).toMatch(/application\/apply-patch\+yaml, application\/apply-patch\+cbor$/);
    } finally {
      await on.close();
    }
  });
});

/** Create, get, update and delete over HTTP, with the exact error bodies of a real server. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, eventBody, type Reply, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const NS = "default";
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const EV = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

const rv = (r: Reply): number => Number(r.json.metadata.resourceVersion);

describe("create and get", () => {
  it("creates a ConfigMap with server-set fields and reads it back byte for byte", async () => {
    const name = uniq("cm");
    const created = await call("POST", CM, { ...configMapBody(name, { k: "v" }), metadata: { name, uid: "client", resourceVersion: "" } });
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toBe("application/json");
    expect(created.text.endsWith("}\n")).toBe(true);
    expect(Object.keys(created.json)).toEqual(["kind", "apiVersion", "metadata", "data"]);
    const meta = created.json.metadata;
    expect(Object.keys(meta)).toEqual(["name", "namespace", "uid", "resourceVersion", "creationTimestamp", "managedFields"]);
    expect(meta.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // The create's ownership: no fieldManager and no User-Agent make a manager without a name.
    expect(meta.managedFields).toEqual([
      { operation: "Update", apiVersion: "v1", time: meta.managedFields[0].time, fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {}, "f:k": {} } } },
    ]);
    expect(meta.managedFields[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const got = await call("GET", `${CM}/${name}`);
    expect(got.status).toBe(200);
    expect(got.text).toBe(created.text);
  });

  it("creates an Event and writes the always-present zero fields", async () => {
    const name = uniq("ev");
    const created = await call("POST", EV, eventBody(NS, name));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: "Event", apiVersion: "events.k8s.io/v1", deprecatedSource: {}, deprecatedFirstTimestamp: null });
    expect(Object.keys(created.json)).toEqual([
      "kind",
      "apiVersion",
      "metadata",
      "eventTime",
      "reportingController",
      "reportingInstance",
      "action",
      "reason",
      "regarding",
      "note",
      "type",
      "deprecatedSource",
      "deprecatedFirstTimestamp",
      "deprecatedLastTimestamp",
    ]);
    expect((await call("GET", `${EV}/${name}`)).json).toEqual(created.json);
  });

  it("creates a Namespace with the kubernetes finalizer, phase Active and the name label", async () => {
    const name = uniq("ns");
    const created = await call("POST", "/api/v1/namespaces", { metadata: { name } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      kind: "Namespace",
      apiVersion: "v1",
      metadata: { name, labels: { "kubernetes.io/metadata.name": name } },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    });
    expect(created.json.metadata.namespace).toBeUndefined();
  });

  it("defaults missing kind, apiVersion and namespace", async () => {
    const name = uniq("cm");
    const created = await call("POST", CM, { metadata: { name } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { namespace: NS } });
  });

  it("generates names from generateName with five suffix characters", async () => {
    const created = await call("POST", CM, { metadata: { generateName: "gen-" } });
    expect(created.status).toBe(201);
    expect(created.json.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(created.json.metadata.generateName).toBe("gen-");
  });

  it("gives resourceVersions that increase across all types", async () => {
    const a = await call("POST", CM, configMapBody(uniq("cm")));
    const b = await call("POST", EV, eventBody(NS, uniq("ev")));
    const c = await call("POST", "/api/v1/namespaces", { metadata: { name: uniq("ns") } });
    expect(rv(a)).toBeLessThan(rv(b));
    expect(rv(b)).toBeLessThan(rv(c));
  });
});

describe("create errors", () => {
  it("409 AlreadyExists names the qualified resource", async () => {
    const name = uniq("dup");
    await call("POST", EV, eventBody(NS, name));
    const again = await call("POST", EV, eventBody(NS, name));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `events.events.k8s.io "${name}" already exists`,
      reason: "AlreadyExists",
      details: { name, group: "events.k8s.io", kind: "events" },
      code: 409,
    });
    const cm = uniq("dup");
    await call("POST", CM, configMapBody(cm));
    expect((await call("POST", CM, configMapBody(cm))).json).toMatchObject({
      message: `configmaps "${cm}" already exists`,
      details: { name: cm, kind: "configmaps" },
    });
  });

  it("422 for a name that is not a DNS subdomain, with the cause", async () => {
    const r = await call("POST", CM, configMapBody("Bad_Name"));
    expect(r.status).toBe(422);
    const detail =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${detail}`,
      reason: "Invalid",
      details: {
        name: "Bad_Name",
        kind: "ConfigMap",
        causes: [{ reason: "FieldValueInvalid", message: `Invalid value: "Bad_Name": ${detail}`, field: "metadata.name" }],
      },
      code: 422,
    });
  });

  it("422 for a namespace name with a dot (DNS label) and for a missing name", async () => {
    const dotted = await call("POST", "/api/v1/namespaces", { metadata: { name: "a.b" } });
    expect(dotted.status).toBe(422);
    expect(dotted.json.message).toMatch(/^Namespace "a\.b" is invalid: metadata\.name: Invalid value: "a\.b": a lowercase RFC 1123 label/);
    const missing = await call("POST", CM, { metadata: {} });
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    expect(missing.json.details).toEqual({
      kind: "ConfigMap",
      causes: [{ reason: "FieldValueRequired", message: "Required value: name or generateName is required", field: "metadata.name" }],
    });
  });

  it("422 for Events without eventTime, using the internal kind and no group", async () => {
    const name = uniq("ev");
    const body = eventBody(NS, name);
    delete body["eventTime"];
    const r = await call("POST", EV, body);
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`Event "${name}" is invalid: eventTime: Required value`);
    expect(r.json.details).toEqual({ name, kind: "Event", causes: [{ reason: "FieldValueRequired", message: "Required value", field: "eventTime" }] });
  });

  it("422 lists several Event errors in brackets", async () => {
    const name = uniq("ev");
    const r = await call("POST", EV, eventBody(NS, name, { reportingInstance: "", action: "", type: "Info" }));
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `Event "${name}" is invalid: [reportingInstance: Required value, action: Required value, type: Invalid value: "": has invalid value: Info]`,
    );
  });

  it("400 for an eventTime without exactly six fractional digits", async () => {
    const r = await call("POST", EV, eventBody(NS, uniq("ev"), { eventTime: "2024-01-01T00:00:00.123Z" }));
    expect(r.status).toBe(400);
    expect(r.json.reason).toBe("BadRequest");
    expect(r.json.message).toMatch(/^Event in version "v1" cannot be handled as a Event: parsing time/);
  });

  it("422 for invalid ConfigMap keys", async () => {
    const r = await call("POST", CM, configMapBody(uniq("cm"), { "bad key": "v" }));
    expect(r.status).toBe(422);
    expect(r.json.details.causes[0]).toMatchObject({ field: "data[bad key]", reason: "FieldValueInvalid" });
  });

  it("400 for malformed JSON, a non-object body, wrong field types, a wrong kind or apiVersion", async () => {
    const malformed = await call("POST", CM, undefined, { raw: '{"metadata":' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toMatch(
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: unexpected end of JSON input/,
    );
    expect((await call("POST", CM, undefined, { raw: "[1,2]" })).status).toBe(400);
    expect((await call("POST", CM, undefined, { raw: "42" })).status).toBe(400);
    const typed = await call("POST", CM, { metadata: { name: uniq("cm") }, data: { k: 1 } });
    expect(typed.status).toBe(400);
    expect(typed.json.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    const kind = await call("POST", CM, { kind: "Secret", apiVersion: "v1", metadata: { name: uniq("cm") } });
    expect(kind.status).toBe(400);
    expect(kind.json.message).toMatch(/^Secret in version "v1" cannot be handled as a ConfigMap/);
    const version = await call("POST", EV, { ...eventBody(NS, uniq("ev")), apiVersion: "v1" });
    expect(version.status).toBe(400);
    expect(version.json.message).toBe("the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)");
  });

  it("400 when the body namespace differs from the URL", async () => {
    const r = await call("POST", CM, { metadata: { name: uniq("cm"), namespace: "kube-system" } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: "BadRequest", message: "the namespace of the provided object does not match the namespace sent on the request" });
  });

  it("404 for content in a namespace that does not exist", async () => {
    const r = await call("POST", "/api/v1/namespaces/nowhere/configmaps", configMapBody("x"));
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ message: 'namespaces "nowhere" not found', details: { name: "nowhere", kind: "namespaces" } });
  });

  it("refuses a create that carries a resourceVersion with 400 (a real server says 500; bad input never gets one here)", async () => {
    const r = await call("POST", CM, { metadata: { name: uniq("cm"), resourceVersion: "5" } });
    expect(r.status).toBe(400);
    expect(r.json.reason).toBe("BadRequest");
    expect(r.json.message).toBe("resourceVersion should not be set on objects to be created");
  });

  it("warns about unknown fields, and refuses them under fieldValidation=Strict", async () => {
    const warn = await call("POST", CM, { metadata: { name: uniq("cm") }, extra: 1 });
    expect(warn.status).toBe(201);
    expect(warn.headers["warning"]).toBe('299 - "unknown field \\"extra\\""');
    expect(warn.json.extra).toBeUndefined();
    const strict = await call("POST", `${CM}?fieldValidation=Strict`, { metadata: { name: uniq("cm") }, extra: 1 });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra"');
  });
});

describe("data keys that are names of Object.prototype members", () => {
  // Found by the encodings property: a key "valueOf" was taken for a binaryData duplicate.
  it("are ordinary keys, not duplicates of binaryData", async () => {
    const r = await call("POST", CM, configMapBody(uniq("proto"), { valueOf: "1", constructor: "2", toString: "3", __proto__x: "4" }));
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json.data).sort()).toEqual(["__proto__x", "constructor", "toString", "valueOf"]);
  });
});

describe("get", () => {
  it("404 NotFound names the qualified resource", async () => {
    const r = await call("GET", `${EV}/missing-one`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'events.events.k8s.io "missing-one" not found',
      reason: "NotFound",
      details: { name: "missing-one", group: "events.k8s.io", kind: "events" },
      code: 404,
    });
    expect((await call("GET", `${CM}/missing-one`)).json).toMatchObject({ message: 'configmaps "missing-one" not found', details: { kind: "configmaps" } });
  });
});

describe("update", () => {
  it("replaces, keeps uid and creationTimestamp, and bumps resourceVersion", async () => {
    const name = uniq("cm");
    const created = (await call("POST", CM, configMapBody(name, { k: "v" }))).json;
    const updated = await call("PUT", `${CM}/${name}`, {
      ...created,
      data: { k: "v2" },
      metadata: { ...created.metadata, uid: undefined, creationTimestamp: "2000-01-01T00:00:00Z" },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ k: "v2" });
    expect(updated.json.metadata.uid).toBe(created.metadata.uid);
    expect(updated.json.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
    expect(rv(updated)).toBeGreaterThan(Number(created.metadata.resourceVersion));
  });

  it("keeps the resourceVersion when nothing changed", async () => {
    const name = uniq("cm");
    const created = (await call("POST", CM, configMapBody(name, { b: "2", a: "1" }))).json;
    const same = await call("PUT", `${CM}/${name}`, { data: { a: "1", b: "2" }, metadata: { name } });
    expect(same.status).toBe(200);
    expect(same.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it("409 Conflict on a stale resourceVersion", async () => {
    const name = uniq("ev");
    const created = (await call("POST", EV, eventBody(NS, name))).json;
    await call("PUT", `${EV}/${name}`, { ...created, metadata: { ...created.metadata, labels: { a: "b" } } });
    const stale = await call("PUT", `${EV}/${name}`, { ...created, metadata: { ...created.metadata, labels: { a: "c" } } });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Operation cannot be fulfilled on events.events.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      reason: "Conflict",
      details: { name, group: "events.k8s.io", kind: "events" },
      code: 409,
    });
  });

  it("400 when the body names another object", async () => {
    const r = await call("PUT", `${CM}/one`, { metadata: { name: "two" } });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("the name of the object (two) does not match the name on the URL (one)");
  });

  it("creates a missing Event (201) but not a missing ConfigMap or Namespace (404)", async () => {
    const name = uniq("ev");
    expect((await call("PUT", `${EV}/${name}`, eventBody(NS, name))).status).toBe(201);
    const cm = uniq("cm");
    const r = await call("PUT", `${CM}/${cm}`, configMapBody(cm));
    expect(r.status).toBe(404);
    expect(r.json.message).toBe(`configmaps "${cm}" not found`);
    const ns = uniq("ns");
    expect((await call("PUT", `/api/v1/namespaces/${ns}`, { metadata: { name: ns } })).status).toBe(404);
  });

  it("refuses a different uid and changes to an immutable ConfigMap", async () => {
    const name = uniq("cm");
    const created = (await call("POST", CM, { ...configMapBody(name, { k: "v" }), immutable: true })).json;
    const uid = await call("PUT", `${CM}/${name}`, { ...created, metadata: { ...created.metadata, uid: "other" } });
    expect(uid.status).toBe(422);
    expect(uid.json.message).toContain('metadata.uid: Invalid value: "other": field is immutable');
    const data = await call("PUT", `${CM}/${name}`, { ...created, data: { k: "changed" } });
    expect(data.status).toBe(422);
    expect(data.json.message).toContain("data: Forbidden: field is immutable when `immutable` is set");
  });
});

describe("delete", () => {
  it("answers a removal with a Success Status (no code) and then 404", async () => {
    const name = uniq("ev");
    const created = (await call("POST", EV, eventBody(NS, name))).json;
    const r = await call("DELETE", `${EV}/${name}`, { propagationPolicy: "Background" });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name, group: "events.k8s.io", kind: "events", uid: created.metadata.uid },
    });
    expect((await call("GET", `${EV}/${name}`)).status).toBe(404);
    expect((await call("DELETE", `${EV}/${name}`)).status).toBe(404);
    const cm = uniq("cm");
    await call("POST", CM, configMapBody(cm));
    expect((await call("DELETE", `${CM}/${cm}`)).json.details).toMatchObject({ name: cm, kind: "configmaps" });
  });

  it("409 when a precondition does not match", async () => {
    const name = uniq("cm");
    const created = (await call("POST", CM, configMapBody(name))).json;
    const uid = await call("DELETE", `${CM}/${name}`, { preconditions: { uid: "nope" } });
    expect(uid.status).toBe(409);
    expect(uid.json.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "${name}": the UID in the precondition (nope) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const version = await call("DELETE", `${CM}/${name}`, { preconditions: { resourceVersion: "1" } });
    expect(version.status).toBe(409);
    expect(version.json.message).toContain(
      `the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.metadata.resourceVersion}). The object might have been modified`,
    );
    const ok = await call("DELETE", `${CM}/${name}`, { preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
  });

  it("422 for an unknown propagationPolicy", async () => {
    const name = uniq("cm");
    await call("POST", CM, configMapBody(name));
    const r = await call("DELETE", `${CM}/${name}?propagationPolicy=Sometimes`);
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
  });

  it("keeps an object with finalizers, marked for deletion, until they are removed", async () => {
    const name = uniq("cm");
    await call("POST", CM, { metadata: { name, finalizers: ["example.com/hold"] } });
    const r = await call("DELETE", `${CM}/${name}`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.deletionTimestamp).toBeTruthy();
    const held = (await call("GET", `${CM}/${name}`)).json;
    const released = await call("PUT", `${CM}/${name}`, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(released.status).toBe(200);
    expect((await call("GET", `${CM}/${name}`)).status).toBe(404);
  });

  it("does nothing on dryRun=All", async () => {
    const name = uniq("cm");
    await call("POST", CM, configMapBody(name));
    expect((await call("DELETE", `${CM}/${name}?dryRun=All`)).status).toBe(200);
    expect((await call("GET", `${CM}/${name}`)).status).toBe(200);
    const dry = await call("POST", `${CM}?dryRun=All`, configMapBody(uniq("cm")));
    expect(dry.status).toBe(201);
    expect((await call("GET", `${CM}/${dry.json.metadata.name}`)).status).toBe(404);
  });
});

/** The patch building blocks without HTTP: field sets, strategic merge, ownership, options. */
import { describe, expect, it } from "vitest";
import { StatusError } from "../../lib/emulator/apimachinery/api-errors.js";
import type { JsonObject } from "../../lib/emulator/apimachinery/json.js";
import { FieldSet, pathString } from "../../lib/emulator/apimachinery/managed-fields/field-set.js";
import { applyConfiguration, type FieldManagerContext, managedFieldsAfterUpdate } from "../../lib/emulator/apimachinery/managed-fields/managed-fields.js";
import { managerFromUserAgent } from "../../lib/emulator/apimachinery/managed-fields/manager-name.js";
import { schemaOf } from "../../lib/emulator/apimachinery/managed-fields/schema.js";
import { applyJsonPatch } from "../../lib/emulator/endpoints/patch/json-patch.js";
import { applyMergePatch } from "../../lib/emulator/endpoints/patch/merge-patch.js";
import { patchOptionsOf } from "../../lib/emulator/endpoints/patch/options.js";
import { applyStrategicMergePatch } from "../../lib/emulator/endpoints/patch/strategic-merge.js";
import { managedFieldsAfterWrite, writeManager } from "../../lib/emulator/registry/generic/ownership.js";
import { configMapStrategy, namespaceStrategy } from "../../lib/emulator/registry/index.js";

const CM_SCHEMA = schemaOf(configMapStrategy.shape);
const NS_SCHEMA = schemaOf(namespaceStrategy.shape);
const buf = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const ctx = (now = "2025-01-01T00:00:00Z"): FieldManagerContext => ({ schema: CM_SCHEMA, apiVersion: "v1", now, ignored: [] });

function statusOf(fn: () => unknown): { code: number; message: string | undefined } {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, message: e.status.message };
    throw e;
  }
  throw new Error("expected an StatusError");
}

const cmObject = (extra: JsonObject = {}): JsonObject => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name: "c", namespace: "ns", uid: "u", resourceVersion: "5" },
  ...extra,
});

describe("FieldSet", () => {
  it("reads and writes FieldsV1, with '.' for members that have children, in element order", () => {
    const v1 = {
      "f:metadata": { "f:labels": { ".": {}, "f:b": {}, "f:a": {} }, "f:finalizers": { 'v:"x"': {} } },
      "f:data": { "f:k": {} },
      "f:list": { 'k:{"uid":"1"}': { ".": {}, "f:name": {} } },
    };
    const set = FieldSet.fromFieldsV1(v1);
    expect(JSON.stringify(set.toFieldsV1())).toBe(
      '{"f:data":{"f:k":{}},"f:list":{"k:{\\"uid\\":\\"1\\"}":{".":{},"f:name":{}}},"f:metadata":{"f:finalizers":{"v:\\"x\\"":{}},"f:labels":{".":{},"f:a":{},"f:b":{}}}}',
    );
    expect(set.has(["f:metadata", "f:labels"])).toBe(true);
    expect(set.has(["f:metadata"])).toBe(false);
    expect(() => FieldSet.fromFieldsV1({ "x:y": {} })).toThrow();
  });

  it("prints paths as conflicts name them", () => {
    expect(pathString(["f:metadata", "f:labels", "f:app.kubernetes.io/name"])).toBe(".metadata.labels.app.kubernetes.io/name");
    expect(pathString(["f:metadata", "f:finalizers", 'v:"a/b"'])).toBe('.metadata.finalizers[="a/b"]');
    expect(pathString(["f:metadata", "f:ownerReferences", 'k:{"uid":"u1"}', "f:name"])).toBe('.metadata.ownerReferences[uid="u1"].name');
  });

  it("does set algebra on exact paths", () => {
    const a = FieldSet.of([["f:a"], ["f:b", "f:c"]]);
    const b = FieldSet.of([["f:b", "f:c"], ["f:d"]]);
    expect(a.union(b).paths()).toEqual([["f:a"], ["f:b", "f:c"], ["f:d"]]);
    expect(a.difference(b).paths()).toEqual([["f:a"]]);
    expect(a.intersection(b).paths()).toEqual([["f:b", "f:c"]]);
    expect(a.hasBelow(["f:b"])).toBe(true);
    expect(a.withoutPrefixes([["f:b"]]).paths()).toEqual([["f:a"]]);
  });
});

describe("strategic merge patch", () => {
  const smp = (doc: JsonObject, patch: unknown, schema = CM_SCHEMA) => applyStrategicMergePatch(doc, buf(patch), "Warn", schema).patched as JsonObject;
  const finalizersAfter = (live: string[], patch: JsonObject): unknown =>
    (smp(cmObject({ metadata: { name: "c", finalizers: live } }), { metadata: patch })["metadata"] as JsonObject)["finalizers"];

  it("orders merged primitive lists as upstream: new items first, live order kept", () => {
    expect(finalizersAfter(["a", "b"], { finalizers: ["c"] })).toEqual(["c", "a", "b"]);
    expect(finalizersAfter(["a", "b"], { finalizers: ["b", "c"] })).toEqual(["a", "b", "c"]);
    expect(finalizersAfter(["a", "b", "a"], { finalizers: ["a"] })).toEqual(["a", "b"]);
    // Deletions run first, then the merge against what is left.
    expect(finalizersAfter(["a", "b"], { "$deleteFromPrimitiveList/finalizers": ["a"], finalizers: ["a", "c"] })).toEqual(["a", "c", "b"]);
  });

  it("deletes from primitive lists and keeps upstream's quirk on a missing list", () => {
    expect(finalizersAfter(["a", "b", "c"], { "$deleteFromPrimitiveList/finalizers": ["b", "z"] })).toEqual(["a", "c"]);
    const doc = smp(cmObject(), { metadata: { "$deleteFromPrimitiveList/finalizers": ["x"] } });
    expect((doc["metadata"] as JsonObject)["finalizers"]).toEqual(["x"]);
  });

  it("replaces atomic lists and merges keyed ones", () => {
    const ns = {
      kind: "Namespace",
      apiVersion: "v1",
      metadata: { name: "n" },
      spec: { finalizers: ["kubernetes", "x/y"] },
      status: {
        conditions: [
          { type: "A", status: "True" },
          { type: "B", status: "False" },
        ],
      },
    };
    const out = smp(ns, { spec: { finalizers: ["z/z"] }, status: { conditions: [{ type: "B", status: "True" }] } }, NS_SCHEMA);
    expect(out["spec"]).toEqual({ finalizers: ["z/z"] });
    expect(out["status"]).toEqual({
      conditions: [
        { type: "A", status: "True" },
        { type: "B", status: "True" },
      ],
    });
    const replaced = smp(ns, { status: { conditions: [{ $patch: "replace" }, { type: "C", status: "True" }] } }, NS_SCHEMA);
    expect(replaced["status"]).toEqual({ conditions: [{ type: "C", status: "True" }] });
  });

  it("applies $setElementOrder and $retainKeys", () => {
    const ordered = finalizersAfter(["a", "b"], { "$setElementOrder/finalizers": ["b", "c", "a"], finalizers: ["c"] });
    expect(ordered).toEqual(["b", "c", "a"]);
    const retained = smp(cmObject({ data: { a: "1", b: "2", c: "3" } }), { data: { $retainKeys: ["a", "c"], c: "4" } });
    expect(retained["data"]).toEqual({ a: "1", c: "4" });
    expect(statusOf(() => smp(cmObject({ data: { a: "1" } }), { data: { $retainKeys: ["a"], b: "1" } }))).toEqual({
      code: 400,
      message: "invalid patch format of retainKeys",
    });
  });

  it("refuses keyed items without their merge key and bodies that are not objects", () => {
    const doc = cmObject({ metadata: { name: "c", ownerReferences: [{ uid: "1", name: "a", kind: "K", apiVersion: "v1" }] } });
    expect(() => smp(doc, { metadata: { ownerReferences: [{ name: "no-uid" }] } })).toThrow("map: map[name:no-uid] does not contain declared merge key: uid");
    expect(statusOf(() => applyStrategicMergePatch(cmObject(), buf([1]), "Warn", CM_SCHEMA))).toEqual({
      code: 400,
      message: "json: cannot unmarshal array into Go value of type map[string]interface {}",
    });
  });

  it("reports repeated keys in the patch as strict errors", () => {
    const r = applyStrategicMergePatch(cmObject(), Buffer.from('{"data":{"a":"1","a":"2"}}'), "Warn", CM_SCHEMA);
    expect(r.strictErrors).toEqual(['duplicate field "data.a"']);
    expect((r.patched as JsonObject)["data"]).toEqual({ a: "2" });
  });
});

describe("JSON and merge patches", () => {
  it("leaves the input untouched and reports unknown operation keys under Warn", () => {
    const doc = cmObject({ data: { a: "1" } });
    const r = applyJsonPatch(doc, buf([{ op: "add", path: "/data/b", value: "2", extra: 1 }]), "Warn");
    expect((r.patched as JsonObject)["data"]).toEqual({ a: "1", b: "2" });
    expect(r.strictErrors).toEqual(['json patch unknown field "[0].extra"']);
    expect(doc["data"]).toEqual({ a: "1" });
  });

  it("answers 413 beyond 10000 operations", () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: "test", path: "/kind", value: "ConfigMap" }));
    expect(statusOf(() => applyJsonPatch(cmObject(), buf(ops), "Warn"))).toEqual({
      code: 413,
      message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    });
  });

  it("merges per RFC 7386 without touching the input", () => {
    const doc = cmObject({ data: { a: "1", b: "2" } });
    const r = applyMergePatch(doc, buf({ data: { a: null, c: { d: null, e: 1 } } }), "Warn");
    expect((r.patched as JsonObject)["data"]).toEqual({ b: "2", c: { e: 1 } });
    expect(doc["data"]).toEqual({ a: "1", b: "2" });
  });
});

describe("managed fields", () => {
  it("gives an update's manager the added and changed fields, '.' for new maps, and takes them from others", () => {
    const live = cmObject({ data: { a: "1" } });
    (live["metadata"] as JsonObject)["managedFields"] = [
      {
        manager: "creator",
        operation: "Update",
        apiVersion: "v1",
        time: "2024-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
      },
    ];
    const next = cmObject({ data: { a: "2", b: "3" }, metadata: { name: "c", namespace: "ns", uid: "u", resourceVersion: "5", labels: { l: "x" } } });
    const out = managedFieldsAfterUpdate(ctx(), live, next, "editor");
    expect(out).toEqual([
      // The creator keeps the data map itself, no longer its changed key.
      { manager: "creator", operation: "Update", apiVersion: "v1", time: "2024-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:data": {} } },
      {
        manager: "editor",
        operation: "Update",
        apiVersion: "v1",
        time: "2025-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {}, "f:b": {} }, "f:metadata": { "f:labels": { ".": {}, "f:l": {} } } },
      },
    ]);
  });

  it("records a create for POST as the real create handler does", () => {
    const next = cmObject({ data: { a: "1" }, metadata: { name: "c", namespace: "ns", labels: { l: "x" } } });
    const manager = writeManager(null, "kubectl-create/v1.32.4");
    expect(manager).toBe("kubectl-create");
    expect(managedFieldsAfterWrite(configMapStrategy, undefined, next, manager, new Date(Date.UTC(2025, 0, 1)))).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2025-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:labels": { ".": {}, "f:l": {} } } },
      },
    ]);
  });

  it("does not start tracking on an update of an existing object nobody tracks, only on a create", () => {
    const untracked = cmObject({ data: { a: "1" } });
    const next = cmObject({ data: { a: "2" } });
    expect(managedFieldsAfterUpdate(ctx(), untracked, next, "editor")).toBeUndefined();
    const reset = { ...next, metadata: { ...(next["metadata"] as JsonObject), managedFields: [{}] } };
    expect(managedFieldsAfterUpdate(ctx(), untracked, reset, "editor")).toBeUndefined();
    expect(managedFieldsAfterWrite(configMapStrategy, undefined, next, "creator", new Date(Date.UTC(2025, 0, 1)))).toHaveLength(1);
  });

  it("leaves managedFields alone when an update changes nothing", () => {
    const live = cmObject({ data: { a: "1" } });
    expect(managedFieldsAfterUpdate(ctx(), live, structuredClone(live), "editor")).toBeUndefined();
  });

  it("sorts Apply entries first, then by time and manager", () => {
    const empty = cmObject();
    const first = applyConfiguration(
      ctx("2025-01-01T00:00:01Z"),
      empty,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { z: "1" } },
      "zeta",
      false,
      empty,
      false,
    );
    const withManaged = { ...first.object, metadata: { ...(first.object["metadata"] as JsonObject), managedFields: first.managedFields ?? [] } };
    const upd = managedFieldsAfterUpdate(ctx("2025-01-01T00:00:00Z"), withManaged, { ...withManaged, data: { z: "1", y: "2" } }, "alpha");
    expect((upd ?? []).map((e) => (e as JsonObject)["manager"])).toEqual(["zeta", "alpha"]);
  });

  it("lists conflicts by manager in the 409 message", () => {
    const live = cmObject({ data: { a: "1", b: "2" } });
    (live["metadata"] as JsonObject)["managedFields"] = [
      { manager: "m2", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:b": {} } } },
      { manager: "m1", operation: "Update", apiVersion: "v1", time: "2024-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } },
    ];
    const config = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "x", b: "y" } };
    const r = statusOf(() => applyConfiguration(ctx(), live, config, "me", false, cmObject(), true));
    expect(r).toEqual({ code: 409, message: 'Apply failed with 2 conflicts: conflicts with "m1" using v1:\n- .data.a\nconflicts with "m2":\n- .data.b' });
    const forced = applyConfiguration(ctx(), live, config, "me", true, cmObject(), true);
    expect((forced.managedFields ?? []).map((e) => (e as JsonObject)["manager"])).toEqual(["me"]);
  });

  it("never owns a namespace's status", () => {
    const nsCtx: FieldManagerContext = { schema: NS_SCHEMA, apiVersion: "v1", now: "2025-01-01T00:00:00Z", ignored: [["f:status"]] };
    const empty = { kind: "Namespace", apiVersion: "v1", metadata: {}, spec: {}, status: {} };
    const r = applyConfiguration(
      nsCtx,
      empty,
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "n" }, status: { phase: "X" } },
      "m",
      false,
      empty,
      false,
    );
    expect(r.managedFields).toBeUndefined();
  });
});

describe("PatchOptions", () => {
  const url = (q: string): URL => new URL(`http://x/api/v1/namespaces/a/configmaps/b?${q}`);
  it("collects every problem into one 422", () => {
    expect(statusOf(() => patchOptionsOf(url("force=false&dryRun=Some&fieldValidation=Loud"), "merge"))).toEqual({
      code: 422,
      message:
        'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, dryRun: Unsupported value: ["Some"]: supported values: "All", fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"]',
    });
    expect(statusOf(() => patchOptionsOf(url(`fieldManager=${"m".repeat(129)}`), "apply-yaml")).message).toMatch(/fieldManager: Too long/);
    expect(statusOf(() => patchOptionsOf(url("fieldManager=a%01b"), "json")).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\x01b": invalid character U+0001 (at position 1)',
    );
  });

  it("reads force as the server converts query booleans", () => {
    expect(patchOptionsOf(url("fieldManager=m&force=false"), "apply-yaml").force).toBe(false);
    expect(patchOptionsOf(url("fieldManager=m&force=0"), "apply-yaml").force).toBe(false);
    expect(patchOptionsOf(url("fieldManager=m&force"), "apply-yaml").force).toBe(true);
    expect(patchOptionsOf(url("fieldManager=m"), "apply-yaml").force).toBeUndefined();
    expect(patchOptionsOf(url(""), "merge")).toEqual({ dryRun: false, force: undefined, fieldManager: "", fieldValidation: "Warn" });
  });

  it("names a manager after the User-Agent's program", () => {
    expect(managerFromUserAgent("kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07")).toBe("kubectl");
    expect(managerFromUserAgent("node-fetch")).toBe("node-fetch");
    expect(managerFromUserAgent("undici")).toBe("undici");
    expect(managerFromUserAgent(undefined)).toBe("");
    expect(managerFromUserAgent(`${"x".repeat(200)}/1`)).toHaveLength(128);
  });
});

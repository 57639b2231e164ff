/**
 * CustomResourceDefinitions and the custom resources they define, over HTTP: the CRD's
 * validation, status and table; discovery; CRUD, watch, validation, pruning, field
 * validation, tables and patch types of the instances; and the deletion of a CRD.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, openWatch, type Reply, uniq, until } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const TABLE = { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" };

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

const WIDGET_SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 1, maximum: 10 },
        color: { type: "string", enum: ["red", "green"] },
        tags: { type: "array", items: { type: "string" } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
    status: { type: "object", properties: { phase: { type: "string" } } },
  },
};

interface CrdOptions {
  scope?: "Namespaced" | "Cluster";
  columns?: unknown[];
  versions?: unknown[];
  subresources?: unknown;
}

function crdBody(group: string, plural: string, kind: string, o: CrdOptions = {}): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, kind },
      scope: o.scope ?? "Namespaced",
      versions: o.versions ?? [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: WIDGET_SCHEMA },
          ...(o.columns ? { additionalPrinterColumns: o.columns } : {}),
          ...(o.subresources ? { subresources: o.subresources } : {}),
        },
      ],
    },
  };
}

/** Creates a CRD with a fresh group and returns the path of its namespaced collection in "default". */
async function defineWidgets(o: CrdOptions = {}): Promise<{ group: string; base: string; name: string; kind: string }> {
  const group = `${uniq("w")}.example.com`;
  const created = await call("POST", CRDS, crdBody(group, "widgets", "Widget", o));
  expect(created.status, created.text).toBe(201);
  const base = o.scope === "Cluster" ? `/apis/${group}/v1/widgets` : `/apis/${group}/v1/namespaces/default/widgets`;
  return { group, base, name: `widgets.${group}`, kind: "Widget" };
}

const widget = (group: string, name: string, spec: unknown = { size: 3 }, version = "v1"): Record<string, unknown> => ({
  apiVersion: `${group}/${version}`,
  kind: "Widget",
  metadata: { name },
  spec,
});

const causes = (r: Reply): string[] => (r.json.details?.causes ?? []).map((c: { field: string; reason: string }) => `${c.reason} ${c.field}`);

describe("the CustomResourceDefinition resource", () => {
  it("is listed in discovery as a cluster-scoped apiextensions.k8s.io/v1 resource", async () => {
    const groups = await call("GET", "/apis");
    expect(groups.json.groups.map((g: { name: string }) => g.name)).toContain("apiextensions.k8s.io");
    const list = await call("GET", "/apis/apiextensions.k8s.io/v1");
    const crd = list.json.resources.find((r: { name: string }) => r.name === "customresourcedefinitions");
    expect(crd).toMatchObject({ kind: "CustomResourceDefinition", namespaced: false, singularName: "customresourcedefinition", shortNames: ["crd", "crds"] });
    expect(crd.storageVersionHash).toBe("M5uH+AlWATY=");
    const status = list.json.resources.find((r: { name: string }) => r.name === "customresourcedefinitions/status");
    expect(status).toEqual({
      name: "customresourcedefinitions/status",
      singularName: "",
      namespaced: false,
      kind: "CustomResourceDefinition",
      verbs: ["get", "patch", "update"],
    });
  });

  it("defaults singular and listKind, starts storedVersions, and becomes Established", async () => {
    const group = `${uniq("d")}.example.com`;
    const created = await call("POST", CRDS, crdBody(group, "gadgets", "Gadget"));
    expect(created.status).toBe(201);
    expect(created.json.spec.names).toEqual({ plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" });
    expect(created.json.spec.conversion).toEqual({ strategy: "None" });
    expect(created.json.status.storedVersions).toEqual(["v1"]);
    expect(created.json.metadata.generation).toBe(1);
    const got = await call("GET", `${CRDS}/gadgets.${group}`);
    const conditions = got.json.status.conditions.map((c: { type: string; status: string; reason: string }) => `${c.type}=${c.status}/${c.reason}`);
    expect(conditions).toEqual(["NamesAccepted=True/NoConflicts", "Established=True/InitialNamesAccepted"]);
    expect(got.json.status.acceptedNames).toEqual(created.json.spec.names);
  });

  it("refuses invalid definitions with 422 and the real field paths", async () => {
    const group = `${uniq("bad")}.example.com`;
    const wrongName = crdBody(group, "things", "Thing");
    (wrongName["metadata"] as Record<string, unknown>)["name"] = `other.${group}`;
    const r1 = await call("POST", CRDS, wrongName);
    expect(r1.status).toBe(422);
    expect(r1.json.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "other.${group}" is invalid: metadata.name: Invalid value: "other.${group}": must be spec.names.plural+"."+spec.group`,
    );

    const noDot = crdBody("nodot", "things", "Thing");
    const r2 = await call("POST", CRDS, noDot);
    expect(r2.status).toBe(422);
    expect(r2.json.message).toContain('spec.group: Invalid value: "nodot": should be a domain with at least one dot');

    const twoStorage = crdBody(group, "things", "Thing", {
      versions: [
        { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
        { name: "v2", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
      ],
    });
    const r3 = await call("POST", CRDS, twoStorage);
    expect(r3.status).toBe(422);
    expect(r3.json.message).toContain("must have exactly one version marked as storage version");

    const noSchema = crdBody(group, "things", "Thing", { versions: [{ name: "v1", served: true, storage: true }] });
    const r4 = await call("POST", CRDS, noSchema);
    expect(r4.json.message).toContain("spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required");

    const untyped = crdBody(group, "things", "Thing", {
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: {} } } } }],
    });
    const r5 = await call("POST", CRDS, untyped);
    expect(r5.json.message).toContain(
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
    );

    const body = crdBody(group, "things", "");
    ((body["spec"] as Record<string, unknown>)["scope"] as unknown) = "Galaxy";
    const r6 = await call("POST", CRDS, body);
    expect(causes(r6)).toEqual(expect.arrayContaining(["FieldValueNotSupported spec.scope", "FieldValueRequired spec.names.kind"]));
    expect(r6.json.details).toMatchObject({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" });
  });

  it("has the default table columns Name and Created At (kubectl get crd shows NAME, CREATED AT)", async () => {
    const { name } = await defineWidgets();
    const table = await call("GET", `${CRDS}/${name}`, undefined, { headers: TABLE });
    expect(table.json.columnDefinitions.map((c: { name: string; type: string; format: string }) => [c.name, c.type, c.format])).toEqual([
      ["Name", "string", "name"],
      ["Created At", "date", ""],
    ]);
    expect(table.json.rows[0].cells[0]).toBe(name);
    expect(table.json.rows[0].cells[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe("changing a CustomResourceDefinition", () => {
  it("updates with optimistic concurrency, ignores status changes, bumps generation and serves a new version", async () => {
    const { group, name } = await defineWidgets();
    const current = (await call("GET", `${CRDS}/${name}`)).json;
    const noRv = await call("PUT", `${CRDS}/${name}`, { ...current, metadata: { name } });
    expect(noRv.status).toBe(422);
    const v2 = { name: "v2", served: true, storage: false, schema: { openAPIV3Schema: WIDGET_SCHEMA } };
    const next = { ...current, spec: { ...current.spec, versions: [...current.spec.versions, v2] }, status: { storedVersions: ["zz"] } };
    const updated = await call("PUT", `${CRDS}/${name}`, next);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.metadata.generation).toBe(2);
    expect(updated.json.status.storedVersions).toEqual(["v1"]);
    expect((await call("PUT", `${CRDS}/${name}`, next)).status).toBe(409);
    expect((await call("GET", `/apis/${group}`)).json.preferredVersion.version).toBe("v2");
    expect((await call("POST", `/apis/${group}/v2/namespaces/default/widgets`, widget(group, "in-v2", { size: 1 }, "v2"))).status).toBe(201);
    const asV1 = await call("GET", `/apis/${group}/v1/namespaces/default/widgets/in-v2`);
    expect(asV1.json.apiVersion).toBe(`${group}/v1`);
  });

  it("takes merge, json and apply patches, and refuses a patch that breaks validation", async () => {
    const { group, name } = await defineWidgets();
    const merge = await call(
      "PATCH",
      `${CRDS}/${name}`,
      { spec: { names: { shortNames: ["wd"] } } },
      { headers: { "content-type": "application/merge-patch+json" } },
    );
    expect(merge.status, merge.text).toBe(200);
    expect(merge.json.spec.names.shortNames).toEqual(["wd"]);
    const list = await call("GET", `/apis/${group}/v1`);
    expect(list.json.resources[0].shortNames).toEqual(["wd"]);
    const json = await call("PATCH", `${CRDS}/${name}`, [{ op: "replace", path: "/spec/scope", value: "Cluster" }], {
      headers: { "content-type": "application/json-patch+json" },
    });
    expect(json.status).toBe(422);
    expect(json.json.message).toContain('spec.scope: Invalid value: "Cluster": field is immutable');
    const applied = await call(
      "PATCH",
      `${CRDS}/${name}?fieldManager=tester&force=true`,
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name, labels: { a: "b" } },
      },
      { headers: { "content-type": "application/apply-patch+yaml" } },
    );
    expect(applied.status, applied.text).toBe(200);
    expect(applied.json.metadata.labels).toEqual({ a: "b" });
  });

  it("watches definitions as they are created, established and changed", async () => {
    const list = await call("GET", CRDS);
    const w = await openWatch(emu.url, `${CRDS}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    const { name } = await defineWidgets();
    const [added, established] = await w.take(2, 2000);
    w.close();
    expect(added?.type).toBe("ADDED");
    expect(added?.object.metadata.name).toBe(name);
    expect(established?.type).toBe("MODIFIED");
    expect(established?.object.status.conditions.map((c: { type: string }) => c.type)).toContain("Established");
  });
});

describe("custom resources", () => {
  it("are in discovery with the definition's names, verbs and storage version hash", async () => {
    const { group } = await defineWidgets();
    const groups = await call("GET", "/apis");
    const entry = groups.json.groups.find((g: { name: string }) => g.name === group);
    expect(entry).toEqual({
      name: group,
      versions: [{ groupVersion: `${group}/v1`, version: "v1" }],
      preferredVersion: { groupVersion: `${group}/v1`, version: "v1" },
    });
    expect((await call("GET", `/apis/${group}`)).json.kind).toBe("APIGroup");
    const list = await call("GET", `/apis/${group}/v1`);
    expect(list.json.resources).toEqual([
      {
        name: "widgets",
        singularName: "widget",
        namespaced: true,
        kind: "Widget",
        verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        storageVersionHash: expect.any(String),
      },
    ]);
  });

  it("are created, read, listed, updated and deleted, with generation and resourceVersion", async () => {
    const { group, base } = await defineWidgets();
    const created = await call("POST", base, widget(group, "a"));
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.json)).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    expect(created.json.metadata).toMatchObject({ name: "a", namespace: "default", generation: 1 });
    expect((await call("POST", base, widget(group, "a"))).json.message).toBe(`widgets.${group} "a" already exists`);
    const got = await call("GET", `${base}/a`);
    expect(got.text).toBe(created.text);
    const list = await call("GET", base);
    expect(list.json).toMatchObject({ apiVersion: `${group}/v1`, kind: "WidgetList" });
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["a"]);
    // An unstructured list keeps each item whole, kind and apiVersion included (a built-in list's items have none).
    expect(list.json.items[0]).toEqual(created.json);
    const yamlList = await call("GET", base, undefined, { headers: { accept: "application/yaml" } });
    expect(yamlList.text).toContain(`items:\n- apiVersion: ${group}/v1\n  kind: Widget\n`);
    const updated = await call("PUT", `${base}/a`, { ...created.json, spec: { size: 4 } });
    expect(updated.status).toBe(200);
    expect(updated.json.metadata.generation).toBe(2);
    const stale = await call("PUT", `${base}/a`, { ...created.json, spec: { size: 5 } });
    expect(stale.status).toBe(409);
    const noRv = await call("PUT", `${base}/a`, widget(group, "a", { size: 5 }));
    expect(noRv.status).toBe(422);
    const deleted = await call("DELETE", `${base}/a`);
    expect(deleted.status).toBe(200);
    expect((await call("GET", `${base}/a`)).json.message).toBe(`widgets.${group} "a" not found`);
  });

  it("validate against the schema with 422 and the real texts", async () => {
    const { group, base } = await defineWidgets();
    const r = await call("POST", base, widget(group, "bad", { size: "big", color: "blue" }));
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `Widget.${group} "bad" is invalid: [spec.color: Unsupported value: "blue": supported values: "red", "green", spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"]`,
    );
    expect(r.json.details).toMatchObject({ name: "bad", group, kind: "Widget" });
    const missing = await call("POST", base, widget(group, "bad", {}));
    expect(missing.json.message).toBe(`Widget.${group} "bad" is invalid: spec.size: Required value`);
    const tooBig = await call("POST", base, widget(group, "bad", { size: 11 }));
    expect(tooBig.json.message).toContain("spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10");
    const tags = await call("POST", base, widget(group, "bad", { size: 1, tags: ["a", 2] }));
    expect(tags.json.message).toContain('spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"');
  });

  it("prune unknown fields (warned by default, 400 with Strict, silent with Ignore) but keep preserved ones", async () => {
    const { group, base } = await defineWidgets();
    const body = { ...widget(group, "p1", { size: 2, extra: 1, free: { any: { thing: true } } }), top: "x" };
    const warned = await call("POST", base, body);
    expect(warned.status).toBe(201);
    expect(warned.json.spec).toEqual({ free: { any: { thing: true } }, size: 2 });
    expect(warned.json.top).toBeUndefined();
    expect(warned.headers["warning"]).toEqual(['299 - "unknown field \\"spec.extra\\""', '299 - "unknown field \\"top\\""']);

    const strict = await call("POST", `${base}?fieldValidation=Strict`, { ...body, metadata: { name: "p2" } });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.extra", unknown field "top"',
    );

    const ignored = await call("POST", `${base}?fieldValidation=Ignore`, { ...body, metadata: { name: "p3" } });
    expect(ignored.status).toBe(201);
    expect(ignored.headers["warning"]).toBeUndefined();
    expect(ignored.json.spec.extra).toBeUndefined();

    const dup = await call("POST", `${base}?fieldValidation=Strict`, undefined, {
      raw: `{"apiVersion":"${group}/v1","kind":"Widget","metadata":{"name":"p4"},"spec":{"size":1,"size":2}}`,
    });
    expect(dup.status).toBe(400);
    expect(dup.json.message).toContain('duplicate field "spec.size"');
  });

  it("need kind and apiVersion in the body, and take any served version", async () => {
    const group = `${uniq("mv")}.example.com`;
    const schema = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
    const created = await call(
      "POST",
      CRDS,
      crdBody(group, "widgets", "Widget", {
        scope: "Cluster",
        versions: [
          { name: "v1beta1", served: true, storage: false, schema },
          { name: "v1", served: true, storage: true, schema },
        ],
      }),
    );
    expect(created.status).toBe(201);
    const preferred = (await call("GET", `/apis/${group}`)).json.preferredVersion.version;
    expect(preferred).toBe("v1");
    const base = `/apis/${group}/v1/widgets`;
    const noKind = await call("POST", base, { apiVersion: `${group}/v1`, metadata: { name: "k" } });
    expect(noKind.status).toBe(400);
    expect(noKind.json.message).toMatch(/^the object provided is unrecognized \(must be of type Widget\): Object 'Kind' is missing in/);
    const viaBeta = await call("POST", base, { ...widget(group, "b", { anything: 1 }, "v1beta1"), extra: true });
    expect(viaBeta.status).toBe(201);
    expect(viaBeta.json.apiVersion).toBe(`${group}/v1`);
    expect(viaBeta.json.extra).toBe(true);
    expect(viaBeta.headers["warning"]).toBeUndefined();
    const strict = await call("POST", `${base}?fieldValidation=Strict`, { ...widget(group, "c", { deep: { er: 1 } }), more: [1] });
    expect(strict.status).toBe(201);
    expect(strict.json).toMatchObject({ spec: { deep: { er: 1 } }, more: [1] });
    const asBeta = await call("GET", `/apis/${group}/v1beta1/widgets/b`);
    expect(asBeta.json.apiVersion).toBe(`${group}/v1beta1`);
    expect(asBeta.json.metadata.resourceVersion).toBe(viaBeta.json.metadata.resourceVersion);
  });

  it("refuse strategic merge patch with 415 and take json, merge and apply patches", async () => {
    const { group, base } = await defineWidgets();
    await call("POST", base, widget(group, "pt", { size: 1 }));
    const smp = await call("PATCH", `${base}/pt`, { spec: { size: 2 } }, { headers: { "content-type": "application/strategic-merge-patch+json" } });
    expect(smp.status).toBe(415);
    expect(smp.json.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    const merge = await call("PATCH", `${base}/pt`, { spec: { color: "red" } }, { headers: { "content-type": "application/merge-patch+json" } });
    expect(merge.status).toBe(200);
    expect(merge.json.spec).toEqual({ color: "red", size: 1 });
    const json = await call("PATCH", `${base}/pt`, [{ op: "replace", path: "/spec/size", value: 7 }], {
      headers: { "content-type": "application/json-patch+json" },
    });
    expect(json.json.spec.size).toBe(7);
    const badMerge = await call("PATCH", `${base}/pt`, { spec: { size: 0 } }, { headers: { "content-type": "application/merge-patch+json" } });
    expect(badMerge.status).toBe(422);
    const applied = await call("PATCH", `${base}/ap?fieldManager=m`, widget(group, "ap", { size: 5 }), {
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(applied.status, applied.text).toBe(201);
    expect(applied.json.metadata.managedFields[0]).toMatchObject({ manager: "m", operation: "Apply", apiVersion: `${group}/v1` });
    const unknown = await call("PATCH", `${base}/ap?fieldManager=m&fieldValidation=Strict`, widget(group, "ap", { size: 5, nope: 1 }), {
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain(".spec.nope: field not declared in schema");
  });

  it("refuse protobuf with 406 (the Status itself in protobuf), and serve JSON and YAML", async () => {
    const { group, base } = await defineWidgets();
    await call("POST", base, widget(group, "pb"));
    const one = await call("GET", `${base}/pb`, undefined, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(one.status).toBe(406);
    expect(one.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    expect(one.text).toContain(
      "object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message",
    );
    const list = await call("GET", base, undefined, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(list.status).toBe(406);
    expect(list.text).toContain("*unstructured.UnstructuredList");
    const fallback = await call("GET", `${base}/pb`, undefined, { headers: { accept: "application/vnd.kubernetes.protobuf, application/json" } });
    expect(fallback.status).toBe(406);
    const yaml = await call("GET", `${base}/pb`, undefined, { headers: { accept: "application/yaml" } });
    expect(yaml.status).toBe(200);
    expect(yaml.text).toContain("kind: Widget");
  });

  it("have the default table Name and Age, or the additionalPrinterColumns", async () => {
    const plain = await defineWidgets();
    await call("POST", plain.base, widget(plain.group, "t1"));
    const t1 = await call("GET", plain.base, undefined, { headers: TABLE });
    expect(t1.json.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual(["Name:string", "Age:date"]);
    expect(t1.json.rows[0].cells).toEqual(["t1", expect.stringMatching(/^\d+s$/)]);

    const columns = [
      { name: "Size", type: "integer", jsonPath: ".spec.size" },
      { name: "Color", type: "string", jsonPath: ".spec.color", description: "the color", priority: 1 },
    ];
    const custom = await defineWidgets({ columns });
    await call("POST", custom.base, widget(custom.group, "t2", { size: 4 }));
    const t2 = await call("GET", `${custom.base}/t2`, undefined, { headers: TABLE });
    expect(t2.json.columnDefinitions).toEqual([
      expect.objectContaining({ name: "Name", type: "string", format: "name" }),
      { name: "Size", type: "integer", format: "", description: "Custom resource definition column (in JSONPath format): .spec.size", priority: 0 },
      { name: "Color", type: "string", format: "", description: "the color", priority: 1 },
    ]);
    expect(t2.json.rows[0].cells).toEqual(["t2", 4, null]);
  });

  it("are watched, with field selectors on metadata.name only", async () => {
    const { group, base } = await defineWidgets();
    const w = await openWatch(emu.url, `${base}?watch=true&fieldSelector=metadata.name%3Dw1`);
    await call("POST", base, widget(group, "w2"));
    await call("POST", base, widget(group, "w1"));
    const ev = await w.next(10_000);
    expect(ev?.type).toBe("ADDED");
    expect(ev?.object.metadata.name).toBe("w1");
    w.close();
    const bad = await call("GET", `${base}?fieldSelector=spec.size%3D1`);
    expect(bad.status).toBe(400);
  });

  it("list in chunks, delete collections, and go with their namespace", async () => {
    const { group, base } = await defineWidgets();
    await call("POST", "/api/v1/namespaces", { metadata: { name: "crd-ns" } });
    const nsBase = base.replace("/namespaces/default/", "/namespaces/crd-ns/");
    for (const n of ["c1", "c2", "c3"]) await call("POST", base, widget(group, n));
    await call("POST", nsBase, widget(group, "n1"));
    const page = await call("GET", `${base}?limit=2`);
    expect(page.json.items.length).toBe(2);
    expect(page.json.metadata.remainingItemCount).toBe(1);
    const rest = await call("GET", `${base}?limit=2&continue=${page.json.metadata.continue}`);
    expect(rest.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["c3"]);
    const all = await call("GET", `/apis/${group}/v1/widgets`);
    expect(all.json.items.length).toBe(4);
    expect((await call("DELETE", base)).status).toBe(200);
    expect((await call("GET", base)).json.items).toEqual([]);
    await call("DELETE", "/api/v1/namespaces/crd-ns");
    for (let i = 0; i < 50 && (await call("GET", "/api/v1/namespaces/crd-ns")).status === 200; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await call("GET", `/apis/${group}/v1/widgets`)).json.items).toEqual([]);
  });

  it("send bookmarks on watches that ask for them", async () => {
    const { group, base } = await defineWidgets();
    const w = await openWatch(emu.url, `${base}?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    await call("POST", base, widget(group, "bm"));
    const events = await w.take(1, 2000);
    w.close();
    expect(events[0]?.type).toBe("BOOKMARK");
    expect(events[0]?.object).toMatchObject({ apiVersion: `${group}/v1`, kind: "Widget", metadata: { annotations: { "k8s.io/initial-events-end": "true" } } });
  });

  it("keep status out of the main resource when the status subresource is on", async () => {
    const { group, base } = await defineWidgets({ subresources: { status: {} } });
    const created = await call("POST", base, { ...widget(group, "s"), status: { phase: "Ready" } });
    expect(created.json.status).toBeUndefined();
    const updated = await call("PUT", `${base}/s`, { ...created.json, status: { phase: "Ready" } });
    expect(updated.json.status).toBeUndefined();
    expect(updated.json.metadata.generation).toBe(1);

    const viaStatus = await call("PUT", `${base}/s/status`, { ...updated.json, spec: { size: 9 }, status: { phase: "Ready" } });
    expect(viaStatus.status, viaStatus.text).toBe(200);
    expect(viaStatus.json.status).toEqual({ phase: "Ready" });
    expect(viaStatus.json.spec).toEqual({ size: 3 });
    expect(viaStatus.json.metadata.generation).toBe(1);
    const patched = await call("PATCH", `${base}/s/status`, { status: { phase: 7 } }, { headers: { "content-type": "application/merge-patch+json" } });
    expect(patched.status).toBe(422);
    expect(patched.json.message).toContain('status.phase: Invalid value: "integer": status.phase in body must be of type string: "integer"');
    expect((await call("GET", `${base}/s/status`)).json.status).toEqual({ phase: "Ready" });
    expect((await call("DELETE", `${base}/s/status`)).status).toBe(405);
    expect((await call("GET", `${base}/s/scale`)).status).toBe(404);
    const list = await call("GET", `/apis/${group}/v1`);
    expect(list.json.resources.map((r: { name: string; verbs: string[] }) => `${r.name} ${r.verbs.join(",")}`)).toEqual([
      "widgets delete,deletecollection,get,list,patch,create,update,watch",
      "widgets/status get,patch,update",
    ]);
  });

  it("have no status subresource unless the definition asks for it", async () => {
    const { group, base } = await defineWidgets();
    await call("POST", base, { ...widget(group, "ns"), status: { phase: "Up" } });
    expect((await call("GET", `${base}/ns`)).json.status).toEqual({ phase: "Up" });
    expect((await call("GET", `${base}/ns/status`)).status).toBe(404);
  });
});

describe("a definition for a built-in resource's path", () => {
  it("leaves the built-in type serving that path, also after the definition is deleted", async () => {
    const body = crdBody("events.k8s.io", "events", "Event");
    const created = await call("POST", CRDS, body);
    expect(created.status, created.text).toBe(201);
    await new Promise((r) => setTimeout(r, 20));
    const events = () => call("GET", "/apis/events.k8s.io/v1").then((r) => r.json.resources.find((x: { name: string }) => x.name === "events"));
    expect(await events()).toMatchObject({ shortNames: ["ev"], storageVersionHash: "r2yiGXH7wu8=" });
    expect((await call("DELETE", `${CRDS}/events.events.k8s.io`)).status).toBe(200);
    await until("the definition gone", async () => (await call("GET", `${CRDS}/events.events.k8s.io`)).status === 404);
    expect(await events()).toMatchObject({ shortNames: ["ev"], storageVersionHash: "r2yiGXH7wu8=" });
    expect((await call("GET", "/apis/events.k8s.io/v1/namespaces/default/events")).status).toBe(200);
  });
});

describe("deleting a CustomResourceDefinition", () => {
  it("adds the cleanup finalizer, deletes the instances, then stops serving the type", async () => {
    const { group, base, name } = await defineWidgets();
    await call("POST", base, widget(group, "x1"));
    await call("POST", base, { ...widget(group, "x2"), metadata: { name: "x2", finalizers: ["example.com/hold"] } });
    const deleted = await call("DELETE", `${CRDS}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.metadata.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    expect(deleted.json.metadata.deletionTimestamp).toBeDefined();
    expect(deleted.json.status.conditions.find((c: { type: string }) => c.type === "Terminating")).toMatchObject({
      status: "True",
      reason: "InstanceDeletionInProgress",
    });
    // x2 is held by its own finalizer, so the definition waits; x1 is gone; no new instances.
    await until("x1 deleted by the cleanup", async () => (await call("GET", `${base}/x1`)).status === 404);
    await until("x2 marked for deletion", async () => (await call("GET", `${base}/x2`)).json.metadata.deletionTimestamp !== undefined);
    const refused = await call("POST", base, widget(group, "x3"));
    expect(refused.status).toBe(405);
    expect(refused.json.message).toBe("create not allowed while custom resource definition is terminating");
    expect((await call("GET", `${CRDS}/${name}`)).status).toBe(200);

    await call("PATCH", `${base}/x2`, { metadata: { finalizers: null } }, { headers: { "content-type": "application/merge-patch+json" } });
    await until("the definition gone", async () => (await call("GET", `${CRDS}/${name}`)).status === 404);
    const gone = await until("the type no longer served", async () => {
      const r = await call("GET", base);
      return r.status === 404 ? r : undefined;
    });
    expect(gone.json.message).toBe("the server could not find the requested resource");
    const groups = await call("GET", "/apis");
    expect(groups.json.groups.map((g: { name: string }) => g.name)).not.toContain(group);
  });
});

/**
 * Subresources: a namespace's `status` (get, update, patch) and `finalize` (update only), the
 * 404 and 405 answers around them, discovery entries, and the encodings and options they share
 * with the main resource.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { decodeObject, encodeObject } from "../../lib/wire/protobuf/index.js";
import { fromYaml, toYaml } from "../../lib/wire/yaml.js";
import { client, sleep, uniq, until } from "./support.js";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const POM = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const PB = "application/vnd.kubernetes.protobuf";
const METHOD_NOT_ALLOWED = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server does not allow this method on the requested resource",
  reason: "MethodNotAllowed",
  details: {},
  code: 405,
};
const PATH_NOT_FOUND = { reason: "NotFound", message: "the server could not find the requested resource", code: 404 };

let emu: RunningEmulator;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, namespaceCleanupDelayMs: 20 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

async function newNamespace(prefix: string): Promise<any> {
  const name = uniq(prefix);
  const r = await call("POST", "/api/v1/namespaces", { metadata: { name } });
  expect(r.status).toBe(201);
  return r.json;
}

const merge = { headers: { "content-type": "application/merge-patch+json" } };

describe("discovery", () => {
  it("lists namespaces/finalize and namespaces/status after namespaces, with their own verbs", async () => {
    const r = await call("GET", "/api/v1");
    const names: string[] = r.json.resources.map((x: { name: string }) => x.name);
    const at = names.indexOf("namespaces");
    expect(names.slice(at, at + 3)).toEqual(["namespaces", "namespaces/finalize", "namespaces/status"]);
    expect(r.json.resources[at + 1]).toEqual({ name: "namespaces/finalize", singularName: "", namespaced: false, kind: "Namespace", verbs: ["update"] });
    expect(r.json.resources[at + 2]).toEqual({
      name: "namespaces/status",
      singularName: "",
      namespaced: false,
      kind: "Namespace",
      verbs: ["get", "patch", "update"],
    });
    const events = await call("GET", "/apis/events.k8s.io/v1");
    expect(events.json.resources.map((x: { name: string }) => x.name)).toEqual(["events"]);
  });
});

describe("paths and methods", () => {
  it("answer 405 for a method the subresource has no verb for", async () => {
    const ns = (await newNamespace("m")).metadata.name;
    for (const [method, sub] of [
      ["GET", "finalize"],
      ["PATCH", "finalize"],
      ["DELETE", "finalize"],
      ["POST", "finalize"],
      ["DELETE", "status"],
      ["POST", "status"],
    ] as const) {
      const r = await call(method, `/api/v1/namespaces/${ns}/${sub}`, method === "GET" || method === "DELETE" ? undefined : {}, merge);
      expect(r.status, `${method} ${sub}`).toBe(405);
      expect(r.json, `${method} ${sub}`).toEqual(METHOD_NOT_ALLOWED);
    }
    // 405 comes before the object is looked up.
    expect((await call("GET", "/api/v1/namespaces/no-such-ns/finalize")).status).toBe(405);
  });

  it("answer 404 for unknown subresources, subresources of other types, and watches of subresources", async () => {
    const ns = (await newNamespace("p")).metadata.name;
    await call("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "cm" } });
    for (const path of [
      `/api/v1/namespaces/${ns}/scale`,
      `/api/v1/namespaces/${ns}/configmaps/cm/status`,
      `/api/v1/configmaps/cm`,
      `/api/v1/configmaps/cm/status`,
      `/api/v1/watch/namespaces/${ns}/status`,
      `/api/v1/namespaces/${ns}/status/extra`,
    ]) {
      const r = await call("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.json, path).toMatchObject(PATH_NOT_FOUND);
    }
    // On a collection the segment is a name: the namespace "status", which does not exist.
    const named = await call("GET", "/api/v1/namespaces/status");
    expect(named.json).toMatchObject({ reason: "NotFound", message: 'namespaces "status" not found' });
  });

  it("read the namespace through status, in every encoding and as a Table; a watch parameter is not read", async () => {
    const created = await newNamespace("g");
    const ns = created.metadata.name;
    const main = await call("GET", `/api/v1/namespaces/${ns}`);
    const viaStatus = await call("GET", `/api/v1/namespaces/${ns}/status`);
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.json).toEqual(main.json);
    expect((await call("GET", `/api/v1/namespaces/${ns}/status?watch=true`)).json).toEqual(main.json);

    const table = await call("GET", `/api/v1/namespaces/${ns}/status`, undefined, { headers: { accept: TABLE } });
    expect(table.json.kind).toBe("Table");
    expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Status", "Age"]);
    const pom = await call("GET", `/api/v1/namespaces/${ns}/status`, undefined, { headers: { accept: POM } });
    expect(pom.json).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: { name: ns } });
    const yaml = await call("GET", `/api/v1/namespaces/${ns}/status`, undefined, { headers: { accept: "application/yaml" } });
    expect(fromYaml(yaml.text)).toEqual(main.json);
    const pb = await request(`${emu.url}/api/v1/namespaces/${ns}/status`, { headers: { accept: PB } });
    expect(pb.headers["content-type"]).toBe(PB);
    expect(decodeObject(new Uint8Array(await pb.body.arrayBuffer()))).toMatchObject({ kind: "Namespace", metadata: { name: ns } });

    const missing = await call("GET", "/api/v1/namespaces/no-such-ns/status");
    expect(missing.json).toMatchObject({ code: 404, message: 'namespaces "no-such-ns" not found', details: { name: "no-such-ns", kind: "namespaces" } });
  });
});

describe("status", () => {
  it("PUT changes status and metadata but keeps spec; the main resource's PUT keeps status", async () => {
    const ns = await newNamespace("s");
    const name = ns.metadata.name;
    const body = {
      ...ns,
      metadata: { ...ns.metadata, labels: { ...ns.metadata.labels, team: "a" } },
      spec: { finalizers: ["example.com/other"] },
      status: { phase: "Active", conditions: [{ type: "Ready", status: "True", reason: "Fine" }] },
    };
    const r = await call("PUT", `/api/v1/namespaces/${name}/status`, body);
    expect(r.status).toBe(200);
    expect(r.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(r.json.status.conditions).toEqual([{ type: "Ready", status: "True", lastTransitionTime: null, reason: "Fine" }]);
    expect(r.json.metadata.labels.team).toBe("a");
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThan(Number(ns.metadata.resourceVersion));

    // The same change through the main resource: status and spec.finalizers are kept.
    const main = await call("PUT", `/api/v1/namespaces/${name}`, { ...r.json, spec: { finalizers: [] }, status: { phase: "Active" } });
    expect(main.status).toBe(200);
    expect(main.json.status.conditions).toHaveLength(1);
    expect(main.json.spec).toEqual({ finalizers: ["kubernetes"] });
  });

  it("PUT: stale resourceVersion is 409, a phase that disagrees with deletionTimestamp is 422, missing is 404", async () => {
    const ns = await newNamespace("v");
    const name = ns.metadata.name;
    await call("PATCH", `/api/v1/namespaces/${name}`, { metadata: { labels: { bump: "1" } } }, merge);
    const stale = await call("PUT", `/api/v1/namespaces/${name}/status`, ns);
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      reason: "Conflict",
      message: `Operation cannot be fulfilled on namespaces "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      details: { name, kind: "namespaces" },
    });
    const current = (await call("GET", `/api/v1/namespaces/${name}`)).json;
    const bad = await call("PUT", `/api/v1/namespaces/${name}/status`, { ...current, status: { phase: "Terminating" } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      `Namespace "${name}" is invalid: status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
    );
    expect(bad.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", message: "Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty", field: "status.Phase" },
    ]);
    const empty = await call("PUT", `/api/v1/namespaces/${name}/status`, { ...current, status: {} });
    expect(empty.json.message).toContain('status.Phase: Invalid value: "": may only be');

    const missing = await call("PUT", "/api/v1/namespaces/no-such-ns/status", { metadata: { name: "no-such-ns" }, status: { phase: "Active" } });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('namespaces "no-such-ns" not found');
  });

  it("PUT with dryRun answers the change and stores nothing; fieldValidation works as on the main resource", async () => {
    const ns = await newNamespace("d");
    const name = ns.metadata.name;
    const withCondition = { ...ns, status: { phase: "Active", conditions: [{ type: "T", status: "True" }] } };
    const dry = await call("PUT", `/api/v1/namespaces/${name}/status?dryRun=All`, withCondition);
    expect(dry.status).toBe(200);
    expect(dry.json.status.conditions).toHaveLength(1);
    expect((await call("GET", `/api/v1/namespaces/${name}`)).json).toEqual(ns);
    expect((await call("PUT", `/api/v1/namespaces/${name}/status?dryRun=Bogus`, withCondition)).status).toBe(422);

    const unknown = { ...withCondition, status: { ...withCondition.status, bogus: 1 } };
    const strictSub = await call("PUT", `/api/v1/namespaces/${name}/status?fieldValidation=Strict`, unknown);
    const strictMain = await call("PUT", `/api/v1/namespaces/${name}?fieldValidation=Strict`, unknown);
    expect(strictSub.status).toBe(strictMain.status);
    expect(strictSub.json.message).toBe(strictMain.json.message);
    const warn = await call("PUT", `/api/v1/namespaces/${name}/status?fieldValidation=Warn`, unknown);
    expect(warn.status).toBe(200);
    expect(String(warn.headers["warning"])).toContain('unknown field \\"status.bogus\\"');
  });

  it("PATCH in every patch type changes status only; apply records the subresource in managedFields", async () => {
    const ns = await newNamespace("pt");
    const name = ns.metadata.name;
    const path = `/api/v1/namespaces/${name}/status`;
    const m = await call("PATCH", `${path}?fieldManager=merger`, { spec: { finalizers: [] }, status: { conditions: [{ type: "A", status: "True" }] } }, merge);
    expect(m.status).toBe(200);
    expect(m.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(m.json.status.conditions.map((c: { type: string }) => c.type)).toEqual(["A"]);
    // The creator's entry (it owns the name label) stays; the patch adds its own, marked with the subresource.
    expect(m.json.metadata.managedFields).toEqual([
      expect.not.objectContaining({ manager: "merger" }),
      expect.objectContaining({ manager: "merger", operation: "Update", apiVersion: "v1", subresource: "status" }),
    ]);

    const smp = await call(
      "PATCH",
      path,
      { status: { conditions: [{ type: "B", status: "False" }] } },
      { headers: { "content-type": "application/strategic-merge-patch+json" } },
    );
    expect(smp.status).toBe(200);
    const types: string[] = smp.json.status.conditions.map((c: { type: string }) => c.type);
    expect([...types].sort()).toEqual(["A", "B"]);

    const jp = await call(
      "PATCH",
      path,
      [
        { op: "replace", path: "/spec/finalizers", value: [] },
        { op: "remove", path: `/status/conditions/${types.indexOf("A")}` },
      ],
      {
        headers: { "content-type": "application/json-patch+json" },
      },
    );
    expect(jp.status).toBe(200);
    expect(jp.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(jp.json.status.conditions.map((c: { type: string }) => c.type)).toEqual(["B"]);

    const config = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
      spec: { finalizers: ["example.com/x"] },
      status: { phase: "Active", conditions: [{ type: "C", status: "True" }] },
    };
    const applied = await call("PATCH", `${path}?fieldManager=applier&force=true`, undefined, {
      raw: toYaml(config),
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(applied.status).toBe(200);
    expect(applied.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(applied.json.status.conditions.map((c: { type: string }) => c.type).sort()).toEqual(["B", "C"]);
    const entry = applied.json.metadata.managedFields.find((e: { manager: string }) => e.manager === "applier");
    expect(entry).toMatchObject({ operation: "Apply", apiVersion: "v1", subresource: "status" });
    // status's reset field (spec) is owned by nobody through it.
    expect(Object.keys(entry.fieldsV1)).not.toContain("f:spec");

    const stale = await call("PATCH", path, { metadata: { resourceVersion: ns.metadata.resourceVersion }, status: { phase: "Active" } }, merge);
    expect(stale.status).toBe(409);
    // Apply never creates through a subresource.
    const create = await call("PATCH", "/api/v1/namespaces/no-such-ns/status?fieldManager=a", undefined, {
      raw: toYaml({ ...config, metadata: { name: "no-such-ns" } }),
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(create.status).toBe(404);
    expect((await call("GET", "/api/v1/namespaces/no-such-ns")).status).toBe(404);
  });
});

describe("finalize", () => {
  it("PUT changes spec.finalizers only and validates each name on its indexed path", async () => {
    const ns = await newNamespace("f");
    const name = ns.metadata.name;
    const path = `/api/v1/namespaces/${name}/finalize`;
    const r = await call("PUT", path, { ...ns, spec: { finalizers: ["kubernetes", "example.com/hold"] }, status: { phase: "Terminating" } });
    expect(r.status).toBe(200);
    expect(r.json.spec).toEqual({ finalizers: ["kubernetes", "example.com/hold"] });
    expect(r.json.status).toEqual({ phase: "Active" });

    const bad = await call("PUT", path, { ...r.json, spec: { finalizers: ["ok.io/x", "plain", "a/b/c"] } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes.map((c: { field: string }) => c.field)).toEqual(["spec.finalizers[1]", "spec.finalizers[2]"]);
    expect(bad.json.message).toContain('spec.finalizers[1]: Invalid value: "plain": name is neither a standard finalizer name nor is it fully qualified');
    expect(bad.json.message).toContain('spec.finalizers[2]: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters');

    const stale = await call("PUT", path, { ...ns, spec: { finalizers: [] } });
    expect(stale.status).toBe(409);
    expect((await call("PUT", "/api/v1/namespaces/no-such-ns/finalize", { metadata: { name: "no-such-ns" } })).status).toBe(404);
  });

  it("cannot answer as a Table; other representations and encodings work", async () => {
    const ns = await newNamespace("ft");
    const path = `/api/v1/namespaces/${ns.metadata.name}/finalize`;
    const onlyTable = await call("PUT", path, ns, { headers: { accept: TABLE } });
    expect(onlyTable.status).toBe(406);
    expect(onlyTable.json.reason).toBe("NotAcceptable");
    const fallback = await call("PUT", path, ns, { headers: { accept: `${TABLE}, application/json` } });
    expect(fallback.status).toBe(200);
    expect(fallback.json.kind).toBe("Namespace");
    const pom = await call("PUT", path, ns, { headers: { accept: POM } });
    expect(pom.json.kind).toBe("PartialObjectMetadata");

    const yamlBody = toYaml({ ...ns, spec: { finalizers: ["example.com/y"] } });
    const y = await call("PUT", path, undefined, { raw: yamlBody, headers: { "content-type": "application/yaml", accept: "application/yaml" } });
    expect(y.status).toBe(200);
    expect(fromYaml(y.text)).toMatchObject({ spec: { finalizers: ["example.com/y"] } });
    const current = (await call("GET", `/api/v1/namespaces/${ns.metadata.name}`)).json;
    const pbBody = encodeObject({ ...current, spec: { finalizers: ["kubernetes"] } });
    const pb = await request(emu.url + path, { method: "PUT", body: pbBody, headers: { "content-type": PB, accept: PB } });
    expect(pb.statusCode).toBe(200);
    expect(decodeObject(new Uint8Array(await pb.body.arrayBuffer()))).toMatchObject({ spec: { finalizers: ["kubernetes"] } });
  });

  it("a terminating namespace held by a spec finalizer goes once finalize empties the list", async () => {
    const ns = await newNamespace("ftm");
    const name = ns.metadata.name;
    const held = await call("PUT", `/api/v1/namespaces/${name}/finalize`, { ...ns, spec: { finalizers: ["kubernetes", "example.com/hold"] } });
    expect(held.status).toBe(200);
    expect((await call("DELETE", `/api/v1/namespaces/${name}`)).status).toBe(200);
    // The controller removes only its own finalizer; the namespace waits for the other one.
    await until("only the other finalizer left", async () => {
      const r = await call("GET", `/api/v1/namespaces/${name}`);
      return JSON.stringify(r.json.spec) === JSON.stringify({ finalizers: ["example.com/hold"] });
    });
    await sleep(100);
    const waiting = await call("GET", `/api/v1/namespaces/${name}`);
    expect(waiting.json.status.phase).toBe("Terminating");

    const dry = await call("PUT", `/api/v1/namespaces/${name}/finalize?dryRun=All`, { ...waiting.json, spec: { finalizers: [] } });
    expect(dry.status).toBe(200);
    expect((await call("GET", `/api/v1/namespaces/${name}`)).status).toBe(200);

    const done = await call("PUT", `/api/v1/namespaces/${name}/finalize`, { ...waiting.json, spec: { finalizers: [] } });
    expect(done.status).toBe(200);
    expect(done.json.spec).toEqual({});
    expect((await call("GET", `/api/v1/namespaces/${name}`)).status).toBe(404);
  });

  it("a terminating namespace with metadata.finalizers stays until they are removed too", async () => {
    const ns = await newNamespace("fm");
    const name = ns.metadata.name;
    const withMeta = await call("PATCH", `/api/v1/namespaces/${name}`, { metadata: { finalizers: ["example.com/meta"] } }, merge);
    expect(withMeta.status).toBe(200);
    await call("PUT", `/api/v1/namespaces/${name}/finalize`, { ...withMeta.json, spec: { finalizers: ["example.com/spec"] } });
    await call("DELETE", `/api/v1/namespaces/${name}`);
    // The controller's pass has written its conditions: no write of its own can race the PUT below.
    await until("the namespace's conditions", async () => (await call("GET", `/api/v1/namespaces/${name}`)).json.status?.conditions?.length > 0);

    const current = (await call("GET", `/api/v1/namespaces/${name}`)).json;
    expect(current.spec.finalizers).toEqual(["example.com/spec"]);
    const emptied = await call("PUT", `/api/v1/namespaces/${name}/finalize`, { ...current, spec: { finalizers: [] } });
    expect(emptied.status).toBe(200);
    const still = await call("GET", `/api/v1/namespaces/${name}`);
    expect(still.status).toBe(200);
    expect(still.json.metadata.finalizers).toEqual(["example.com/meta"]);
    // A live namespace's status keeps the Terminating phase through status writes as well.
    const phase = await call("PUT", `/api/v1/namespaces/${name}/status`, { ...still.json, status: { phase: "Active" } });
    expect(phase.status).toBe(422);
    expect(phase.json.message).toContain("may only be 'Terminating' if `deletionTimestamp` is not empty");

    const last = await call("PATCH", `/api/v1/namespaces/${name}`, { metadata: { finalizers: null } }, merge);
    expect(last.status).toBe(200);
    expect((await call("GET", `/api/v1/namespaces/${name}`)).status).toBe(404);
  });
});

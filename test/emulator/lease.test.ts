/**
 * coordination.k8s.io/v1 Lease (registry/coordination), the type issue #13 added as the proof
 * that a new type is its folder plus one registration entry: discovery, CRUD in JSON and
 * protobuf, the real validation texts, the CoordinatedLeaderElection fields dropped with the
 * gate at its 1.35 default, the Table, field selectors, and the shape against the real golden
 * Lease files (read from ../shared at run time, skipped with a printed reason when absent).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject, KubeObject } from "../../lib/emulator/apimachinery/json.js";
import { canonicalize } from "../../lib/emulator/apimachinery/typed-json.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { LEASE_PRINTER } from "../../lib/emulator/registry/coordination/printer.js";
import { leaseStrategy } from "../../lib/emulator/registry/coordination/strategy.js";
import { validateLeaseSpec } from "../../lib/emulator/registry/coordination/validation.js";
import { decodeObject, encodeObject } from "../../lib/wire/protobuf/index.js";
import { toYaml } from "../../lib/wire/yaml.js";
import { byteDifference, GOLDEN_AVAILABLE, GOLDEN_ROOT, warnIfMissing } from "../wire/protobuf/golden-files.js";
import { client, openWatch, uniq } from "./support.js";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const GV = "coordination.k8s.io/v1";
const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let ns: string;
const leases = (): string => `/apis/${GV}/namespaces/${ns}/leases`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  ns = uniq("lease");
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await emu.close();
});

const lease = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: GV, kind: "Lease", metadata: { name }, spec });

/** A request whose answer is read as bytes (protobuf). */
async function bytes(
  method: string,
  urlPath: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<{ status: number; type: string; body: Uint8Array }> {
  const res = await request(emu.url + urlPath, { method: method as "GET", headers, body });
  return { status: res.statusCode, type: String(res.headers["content-type"]), body: new Uint8Array(await res.body.arrayBuffer()) };
}

describe("discovery", () => {
  it("lists coordination.k8s.io after apiextensions.k8s.io in /apis, as a real server orders its groups", async () => {
    const names = (await call("GET", "/apis")).json.groups.map((g: { name: string }) => g.name);
    expect(names.slice(names.indexOf("apiextensions.k8s.io"))).toEqual(["apiextensions.k8s.io", "coordination.k8s.io", "discovery.k8s.io"]);
    expect((await call("GET", "/apis/coordination.k8s.io")).json).toEqual({
      kind: "APIGroup",
      apiVersion: "v1",
      name: "coordination.k8s.io",
      versions: [{ groupVersion: GV, version: "v1" }],
      preferredVersion: { groupVersion: GV, version: "v1" },
    });
  });

  it("lists leases with the real server's verbs and storageVersionHash, and no shortNames", async () => {
    const list = await call("GET", `/apis/${GV}`);
    expect(list.text).toBe(
      `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"${GV}","resources":[{"name":"leases","singularName":"lease","namespaced":true,"kind":"Lease","verbs":${JSON.stringify(VERBS)},"storageVersionHash":"gqkMMb/YqFM="}]}\n`,
    );
  });
});

describe("create, read, update, delete in JSON", () => {
  it("creates a lease whose spec keeps Go's field order, and reads it back byte for byte", async () => {
    const name = uniq("a");
    const spec = { leaseTransitions: 0, renewTime: "2025-01-02T03:04:05.123456Z", leaseDurationSeconds: 40, holderIdentity: "" };
    const created = await call("POST", leases(), lease(name, spec));
    expect(created.status).toBe(201);
    expect(Object.keys(created.json)).toEqual(["kind", "apiVersion", "metadata", "spec"]);
    // Pointers are written when set, even to "" or 0; no status, no generation.
    expect(created.text).toContain(`"spec":{"holderIdentity":"","leaseDurationSeconds":40,"renewTime":"2025-01-02T03:04:05.123456Z","leaseTransitions":0}}`);
    expect(created.json.metadata.generation).toBeUndefined();
    expect((await call("GET", `${leases()}/${name}`)).text).toBe(created.text);
    const list = await call("GET", leases());
    expect(list.json).toMatchObject({ kind: "LeaseList", apiVersion: GV });
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(name);
  });

  it("writes an empty spec as {} (a struct Go never omits)", async () => {
    const created = await call("POST", leases(), { metadata: { name: uniq("empty") } });
    expect(created.status).toBe(201);
    expect(created.text).toMatch(/,"spec":\{\}\}\n$/);
  });

  it("creates by PUT, updates with a resourceVersion, and refuses an update without one (422)", async () => {
    const name = uniq("put");
    const made = await call("PUT", `${leases()}/${name}`, lease(name, { holderIdentity: "one" }));
    expect(made.status).toBe(201);
    const rv = made.json.metadata.resourceVersion;
    const renewed = await call("PUT", `${leases()}/${name}`, {
      ...lease(name, { holderIdentity: "two", leaseTransitions: 1 }),
      metadata: { name, resourceVersion: rv },
    });
    expect(renewed.status).toBe(200);
    expect(renewed.json.spec).toEqual({ holderIdentity: "two", leaseTransitions: 1 });
    const stale = await call("PUT", `${leases()}/${name}`, { ...lease(name), metadata: { name, resourceVersion: rv } });
    expect(stale.status).toBe(409);
    const blind = await call("PUT", `${leases()}/${name}`, lease(name, { holderIdentity: "three" }));
    expect(blind.status).toBe(422);
    expect(blind.json.message).toBe(
      `leases.coordination.k8s.io "${name}" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
    );
    expect(blind.json.details).toEqual({
      name,
      group: "coordination.k8s.io",
      kind: "leases",
      causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 0: must be specified for an update", field: "metadata.resourceVersion" }],
    });
  });

  it("patches (merge) a renewTime, deletes, and answers 404 after", async () => {
    const name = uniq("patch");
    expect((await call("POST", leases(), lease(name, { holderIdentity: "me" }))).status).toBe(201);
    const patched = await call(
      "PATCH",
      `${leases()}/${name}`,
      { spec: { renewTime: "2030-01-01T00:00:00.000001Z" } },
      { headers: { "content-type": "application/merge-patch+json" } },
    );
    expect(patched.status).toBe(200);
    expect(patched.json.spec).toEqual({ holderIdentity: "me", renewTime: "2030-01-01T00:00:00.000001Z" });
    const deleted = await call("DELETE", `${leases()}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ kind: "Status", status: "Success", details: { name, group: "coordination.k8s.io", kind: "leases" } });
    const gone = await call("GET", `${leases()}/${name}`);
    expect(gone.status).toBe(404);
    expect(gone.json.message).toBe(`leases.coordination.k8s.io "${name}" not found`);
  });

  it("watches a lease's changes", async () => {
    const name = uniq("w");
    const watch = await openWatch(emu.url, `${leases()}?watch=true&fieldSelector=metadata.name=${name}`);
    try {
      await call("POST", leases(), lease(name, { holderIdentity: "x" }));
      await call("DELETE", `${leases()}/${name}`);
      const events = await watch.take(2, 5000);
      expect(events.map((e) => [e.type, e.object.kind, e.object.spec.holderIdentity])).toEqual([
        ["ADDED", "Lease", "x"],
        ["DELETED", "Lease", "x"],
      ]);
    } finally {
      watch.close();
    }
  });

  it("drops strategy and preferredHolder, as a 1.35 server does with CoordinatedLeaderElection off", async () => {
    const name = uniq("cle");
    const created = await call("POST", leases(), lease(name, { holderIdentity: "h", strategy: "OldestEmulationVersion", preferredHolder: "p" }));
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ holderIdentity: "h" });
    const updated = await call("PUT", `${leases()}/${name}`, {
      ...lease(name, { holderIdentity: "h", strategy: "bogus", preferredHolder: "p" }),
      metadata: { name, resourceVersion: created.json.metadata.resourceVersion },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.spec).toEqual({ holderIdentity: "h" });
  });
});

describe("validation", () => {
  it("answers 422 with ValidateLease's texts and field paths", async () => {
    const bad = await call("POST", leases(), lease("Bad_Name", { leaseDurationSeconds: 0, leaseTransitions: -1 }));
    expect(bad.status).toBe(422);
    expect(bad.json.reason).toBe("Invalid");
    expect(bad.json.details.kind).toBe("Lease");
    expect(bad.json.details.group).toBe("coordination.k8s.io");
    expect(bad.json.details.causes.map((c: { field: string }) => c.field)).toEqual(["metadata.name", "spec.leaseDurationSeconds", "spec.leaseTransitions"]);
    expect(bad.json.message).toContain(
      'Lease.coordination.k8s.io "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain',
    );
    expect(bad.json.message).toContain(
      ", spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]",
    );
  });

  it("checks the spec again on update", async () => {
    const name = uniq("v");
    const created = await call("POST", leases(), lease(name, { leaseDurationSeconds: 15 }));
    const bad = await call("PUT", `${leases()}/${name}`, {
      ...lease(name, { leaseDurationSeconds: -3 }),
      metadata: { name, resourceVersion: created.json.metadata.resourceVersion },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(`Lease.coordination.k8s.io "${name}" is invalid: spec.leaseDurationSeconds: Invalid value: -3: must be greater than 0`);
  });

  it("refuses a type error in the spec with encoding/json's text (400)", async () => {
    const bad = await call("POST", leases(), lease(uniq("t"), { leaseDurationSeconds: "15" }));
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe(
      'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
    );
  });

  it("refuses a coordination.k8s.io/v1beta1 Lease body for its version (the scheme knows that kind)", async () => {
    const bad = await call("POST", leases(), { ...lease(uniq("b")), apiVersion: "coordination.k8s.io/v1beta1" });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe(`the API version in the data (coordination.k8s.io/v1beta1) does not match the expected API version (${GV})`);
  });

  it("refuses another registered kind, naming the internal type's package (coordination, not core)", async () => {
    const bad = await call("POST", leases(), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: uniq("cm") } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a Lease: converting (v1.ConfigMap) to (coordination.Lease): unknown conversion',
    );
  });

  // Unreachable over HTTP with the gate off (the fields are dropped first), so checked directly.
  it("has the gated strategy rules: the real spec.strategy.strategy path, qualified names, preferredHolder only with a strategy", () => {
    const spec = (s: JsonObject): KubeObject => ({ metadata: {}, spec: s });
    expect(validateLeaseSpec(spec({ strategy: "OldestEmulationVersion", preferredHolder: "p" }))).toEqual([]);
    expect(validateLeaseSpec(spec({ strategy: "example.com/mine" }))).toEqual([]);
    expect(validateLeaseSpec(spec({ strategy: "Newest" }))).toEqual([
      { type: "FieldValueNotSupported", field: "spec.strategy.strategy", badValue: "Newest", detail: 'supported values: "OldestEmulationVersion"' },
    ]);
    expect(validateLeaseSpec(spec({ strategy: "/x" })).map((e) => [e.field, e.detail])).toEqual([["spec.strategy.strategy", "prefix part must be non-empty"]]);
    expect(validateLeaseSpec(spec({ preferredHolder: "p" }))).toEqual([
      { type: "FieldValueForbidden", field: "spec.preferredHolder", detail: "may only be specified if `strategy` is defined" },
    ]);
    expect(validateLeaseSpec(spec({ preferredHolder: "p", strategy: "" })).map((e) => e.field)).toEqual(["spec.strategy.strategy", "spec.preferredHolder"]);
    expect(validateLeaseSpec(spec({ preferredHolder: "" }))).toEqual([]);
  });
});

describe("protobuf", () => {
  it("creates from a protobuf body and answers get and list in protobuf as in JSON", async () => {
    const name = uniq("pb");
    const body = encodeObject(lease(name, { holderIdentity: "pb", leaseDurationSeconds: 10, acquireTime: "2025-05-05T05:05:05.000005Z" }));
    const created = await bytes("POST", leases(), { "content-type": PB, accept: PB }, body);
    expect([created.status, created.type]).toEqual([201, PB]);
    const obj = decodeObject(created.body);
    expect(obj["spec"]).toEqual({ holderIdentity: "pb", leaseDurationSeconds: 10, acquireTime: "2025-05-05T05:05:05.000005Z" });
    const json = (await call("GET", `${leases()}/${name}`)).json;
    expect(decodeObject((await bytes("GET", `${leases()}/${name}`, { accept: PB })).body)).toEqual(json);
    const list = await bytes("GET", `${leases()}?fieldSelector=metadata.name=${name}`, { accept: PB });
    expect(decodeObject(list.body)).toEqual((await call("GET", `${leases()}?fieldSelector=metadata.name=${name}`)).json);
  });
});

describe("Table and field selectors", () => {
  it("has the printer's Name, Holder and Age columns", () => {
    expect(LEASE_PRINTER.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ["Name", "string", "name", 0],
      ["Holder", "string", "", 0],
      ["Age", "string", "", 0],
    ]);
    expect(LEASE_PRINTER.columns[1]?.description).toBe(
      "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
    );
  });

  it("prints the holder, and an empty cell (not <none>) for a lease without one", async () => {
    const other = uniq("tbl");
    await call("POST", "/api/v1/namespaces", { metadata: { name: other } });
    const otherLeases = `/apis/${GV}/namespaces/${other}/leases`;
    const empty = await call("GET", otherLeases, undefined, { headers: { accept: TABLE } });
    expect(empty.json.rows).toEqual([]);
    await call("POST", otherLeases, lease("held", { holderIdentity: "node-1" }));
    await call("POST", otherLeases, lease("free"));
    const table = await call("GET", otherLeases, undefined, { headers: { accept: TABLE } });
    expect(table.json.kind).toBe("Table");
    expect(table.json.rows.map((r: { cells: unknown[] }) => r.cells.slice(0, 2))).toEqual([
      ["free", ""],
      ["held", "node-1"],
    ]);
    expect(table.json.rows[0].cells[2]).toMatch(/^\d+s$/);
  });

  it("selects by metadata.name and metadata.namespace only", async () => {
    const name = uniq("sel");
    await call("POST", leases(), lease(name, { holderIdentity: "s" }));
    const byName = await call("GET", `${leases()}?fieldSelector=metadata.name=${name}`);
    expect(byName.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([name]);
    const byNs = await call("GET", `/apis/${GV}/leases?fieldSelector=metadata.namespace=${ns}`);
    expect(byNs.json.items.length).toBeGreaterThan(0);
    const refused = await call("GET", `${leases()}?fieldSelector=spec.holderIdentity=s`);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe("field label not supported: spec.holderIdentity");
  });
});

warnIfMissing("Lease golden round trip");

describe.skipIf(!GOLDEN_AVAILABLE)("the real golden Lease (kubernetes/api testdata v1.35.0)", () => {
  const file = (ext: string): string => path.join(GOLDEN_ROOT, "v1.35.0", `coordination.k8s.io.v1.Lease.${ext}`);
  const golden = (): Record<string, unknown> => JSON.parse(readFileSync(file("json"), "utf8")) as Record<string, unknown>;

  it("comes out of the Lease shape unchanged: the .json's text, the .yaml's and the .pb's bytes", () => {
    const shaped = canonicalize(golden() as KubeObject, leaseStrategy.shape);
    expect(JSON.stringify(shaped, null, 2)).toBe(readFileSync(file("json"), "utf8"));
    expect(toYaml(shaped)).toBe(readFileSync(file("yaml"), "utf8"));
    const diff = byteDifference(encodeObject(shaped), new Uint8Array(readFileSync(file("pb"))));
    if (diff !== null) expect.fail(diff);
  });

  it("round-trips its spec through the emulator in JSON and protobuf (less the gated fields)", async () => {
    const g = golden();
    const spec = { ...(g["spec"] as Record<string, unknown>) };
    const meta = g["metadata"] as Record<string, unknown>;
    const name = uniq("golden");
    const put = await call("PUT", `${leases()}/${name}`, {
      apiVersion: GV,
      kind: "Lease",
      metadata: { name, labels: meta["labels"], annotations: meta["annotations"] },
      spec,
    });
    expect(put.status).toBe(201);
    delete spec["strategy"];
    delete spec["preferredHolder"];
    expect(put.json.spec).toEqual(spec);
    expect(JSON.stringify(put.json.spec)).toBe(JSON.stringify(spec));
    expect(put.json.metadata).toMatchObject({ labels: meta["labels"], annotations: meta["annotations"] });
    expect(decodeObject((await bytes("GET", `${leases()}/${name}`, { accept: PB })).body)).toEqual(put.json);
  });
});

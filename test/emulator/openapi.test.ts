/**
 * OpenAPI v3 and v2 serving (wire-facts §19): the index and its ?hash= URLs, Etag and 304, the
 * immutable caching of a current hash and the 301 of a stale one, custom resource schemas
 * appearing and the hash changing with CRDs, and the generated schemas and paths compared with
 * the real 1.35 documents in /work/shared/reference (skipped when absent).
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});

afterAll(async () => {
  await emu.close();
});

const REFERENCE = "/work/shared/reference/openapi-v3/release-1.35";

type Obj = Record<string, any>;

/** A property's $ref (through allOf) or its type. */
function typeOf(p: Obj): string {
  if (Array.isArray(p["allOf"])) return p["allOf"][0]["$ref"];
  if (p["$ref"]) return p["$ref"];
  return p["type"] === "array"
    ? `array of ${typeOf(p["items"])}`
    : p["type"] === "object" && p["additionalProperties"]
      ? `map of ${typeOf(p["additionalProperties"])}`
      : p["type"];
}

const EXTENSIONS = ["x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key"];

describe("the index", () => {
  it("lists every served group-version with a ?hash= URL, an uppercase SHA-512 Etag and no Cache-Control", async () => {
    const r = await call("GET", "/openapi/v3");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["cache-control"]).toBeUndefined();
    expect(r.headers["etag"]).toMatch(/^"[0-9A-F]{128}"$/);
    expect(Object.keys(r.json.paths)).toEqual(
      expect.arrayContaining(["api/v1", "apis/events.k8s.io/v1", "apis/coordination.k8s.io/v1", "apis/apiextensions.k8s.io/v1"]),
    );
    expect(r.json.paths["api/v1"].serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    const again = await call("GET", "/openapi/v3", undefined, { headers: { "if-none-match": String(r.headers["etag"]) } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });

  it("serves each document at its hash URL with immutable caching, its hash as Etag, 304 on If-None-Match and 301 for a stale hash", async () => {
    const index = (await call("GET", "/openapi/v3")).json;
    const url: string = index.paths["api/v1"].serverRelativeURL;
    const hash = url.split("hash=")[1];
    const r = await call("GET", url);
    expect(r.status).toBe(200);
    expect(r.headers["etag"]).toBe(`"${hash}"`);
    expect(r.headers["cache-control"]).toBe("public, immutable");
    expect(r.headers["vary"]).toBe("Accept");
    expect(typeof r.headers["expires"]).toBe("string");
    expect(r.json.openapi).toBe("3.0.0");
    const plain = await call("GET", "/openapi/v3/api/v1");
    expect(plain.headers["cache-control"]).toBeUndefined();
    expect(plain.text).toBe(r.text);
    expect((await call("GET", "/openapi/v3/api/v1", undefined, { headers: { "if-none-match": `"${hash}"` } })).status).toBe(304);
    const stale = await call("GET", "/openapi/v3/api/v1?hash=ABC");
    expect(stale.status).toBe(301);
    expect(stale.headers["location"]).toBe(url);
    expect(
      (await call("GET", "/openapi/v3/api/v1", undefined, { headers: { accept: "application/com.github.proto-openapi.spec.v3.v1.0+protobuf" } })).status,
    ).toBe(406);
    const unknown = await call("GET", "/openapi/v3/apis/nothing.example.com/v1");
    expect([unknown.status, unknown.text]).toEqual([200, ""]);
  });

  it("serves /openapi/v2 as one Swagger 2.0 document in JSON; a protobuf-only Accept is 406", async () => {
    const r = await call("GET", "/openapi/v2", undefined, { headers: { accept: "application/json" } });
    expect(r.status).toBe(200);
    expect(r.json.swagger).toBe("2.0");
    expect(r.headers["etag"]).toMatch(/^"[0-9A-F]{128}"$/);
    expect(r.json.definitions["io.k8s.api.core.v1.ConfigMap"].properties.metadata.allOf[0].$ref).toBe(
      "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    );
    const patch = r.json.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"].patch;
    expect(patch.consumes).toContain("application/strategic-merge-patch+json");
    expect(patch.parameters.map((p: Obj) => p.name)).toEqual(["body", "dryRun", "fieldManager", "fieldValidation", "force"]);
    const pb = await call("GET", "/openapi/v2", undefined, { headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" } });
    expect(pb.status).toBe(406);
  });
});

describe("custom resources", () => {
  it("appear with their structural schema when a CRD is served, and the GV's hash changes with the CRD", async () => {
    const crd = (version: string, extra: Obj) => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.openapi.example.com" },
      spec: {
        group: "openapi.example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { size: { type: "integer" }, ...extra }, "x-kubernetes-preserve-unknown-fields": true } },
              },
            },
          },
        ],
      },
    });
    const created = await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("v1", {}));
    expect(created.status).toBe(201);
    const index = (await call("GET", "/openapi/v3")).json;
    const url: string = index.paths["apis/openapi.example.com/v1"].serverRelativeURL;
    const doc = (await call("GET", url)).json;
    const schema = doc.components.schemas["com.example.openapi.v1.Widget"];
    expect(schema.properties.spec.properties.size).toEqual({ type: "integer" });
    expect(schema.properties.spec["x-kubernetes-preserve-unknown-fields"]).toBe(true);
    expect(schema.properties.metadata.allOf[0].$ref).toBe("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(schema["x-kubernetes-group-version-kind"]).toEqual([{ group: "openapi.example.com", kind: "Widget", version: "v1" }]);
    expect(doc.paths["/apis/openapi.example.com/v1/namespaces/{namespace}/widgets/{name}"].patch["x-kubernetes-group-version-kind"]).toEqual({
      group: "openapi.example.com",
      kind: "Widget",
      version: "v1",
    });

    const current = (await call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.openapi.example.com")).json;
    const changed = crd("v1", { color: { type: "string" } });
    const updated = await call("PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.openapi.example.com", {
      ...changed,
      metadata: current.metadata,
    });
    expect(updated.status).toBe(200);
    const after: string = (await call("GET", "/openapi/v3")).json.paths["apis/openapi.example.com/v1"].serverRelativeURL;
    expect(after).not.toBe(url);
    expect((await call("GET", after)).json.components.schemas["com.example.openapi.v1.Widget"].properties.spec.properties.color).toEqual({ type: "string" });
    expect((await call("GET", url)).status).toBe(301);
  });

  it("every document, the custom resources' included, defines every schema it refers to", async () => {
    const index = (await call("GET", "/openapi/v3")).json;
    expect(Object.keys(index.paths)).toContain("apis/openapi.example.com/v1");
    for (const entry of Object.values<Obj>(index.paths)) {
      const doc = (await call("GET", entry["serverRelativeURL"])).json;
      const refs = new Set([...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]));
      expect([entry["serverRelativeURL"], [...refs].filter((r) => !(String(r) in doc.components.schemas))]).toEqual([entry["serverRelativeURL"], []]);
    }
    const v2 = (await call("GET", "/openapi/v2")).json;
    const refs = new Set([...JSON.stringify(v2).matchAll(/"#\/definitions\/([^"]+)"/g)].map((m) => m[1]));
    expect([...refs].filter((r) => !(String(r) in v2.definitions))).toEqual([]);
    expect(v2.definitions["com.example.openapi.v1.Widget"]["x-kubernetes-group-version-kind"]).toEqual([
      { group: "openapi.example.com", kind: "Widget", version: "v1" },
    ]);
  });
});

describe.skipIf(!existsSync(REFERENCE))("the generated documents against the real 1.35 ones", () => {
  if (!existsSync(REFERENCE)) console.log(`skipped: ${REFERENCE} is absent`);
  const files: [string, string][] = [
    ["api/v1", "api__v1_openapi.json"],
    ["apis/events.k8s.io/v1", "apis__events.k8s.io__v1_openapi.json"],
    ["apis/coordination.k8s.io/v1", "apis__coordination.k8s.io__v1_openapi.json"],
  ];
  for (const [key, file] of files) {
    it(`${key}: the same schema names, properties, types, $refs, GVKs and list/patch extensions; the same paths and operations`, async () => {
      const real: Obj = JSON.parse(readFileSync(`${REFERENCE}/${file}`, "utf8"));
      const ours: Obj = (await call("GET", `/openapi/v3/${key}`)).json;
      const problems: string[] = [];
      const realSchemas: Obj = real["components"]["schemas"];
      for (const [name, schema] of Object.entries<Obj>(ours["components"]["schemas"])) {
        const theirs = realSchemas[name];
        if (!theirs) {
          problems.push(`schema ${name} not in the real document`);
          continue;
        }
        if ((schema["properties"] === undefined) !== (theirs["properties"] === undefined)) problems.push(`${name}: properties present differ`);
        const sorted = (o: Obj, k: string) => JSON.stringify([...(o[k] ?? [])].sort());
        if (sorted(schema, "required") !== sorted(theirs, "required"))
          problems.push(`${name}: required ${sorted(schema, "required")} vs real ${sorted(theirs, "required")}`);
        if (schema["x-kubernetes-map-type"] !== theirs["x-kubernetes-map-type"])
          problems.push(`${name}: map-type ${schema["x-kubernetes-map-type"]} vs real ${theirs["x-kubernetes-map-type"]}`);
        for (const [prop, p] of Object.entries<Obj>(schema["properties"] ?? {})) {
          const tp = theirs["properties"]?.[prop];
          if (!tp) {
            problems.push(`${name}.${prop} not in the real schema`);
            continue;
          }
          if (typeOf(p) !== typeOf(tp)) problems.push(`${name}.${prop}: ${typeOf(p)} vs real ${typeOf(tp)}`);
          for (const x of EXTENSIONS) {
            if (JSON.stringify(p[x]) !== JSON.stringify(tp[x])) problems.push(`${name}.${prop} ${x}: ${JSON.stringify(p[x])} vs real ${JSON.stringify(tp[x])}`);
          }
        }
        for (const prop of Object.keys(theirs["properties"] ?? {})) if (!schema["properties"]?.[prop]) problems.push(`${name}.${prop} missing`);
        for (const gvk of schema["x-kubernetes-group-version-kind"] ?? []) {
          if (!(theirs["x-kubernetes-group-version-kind"] ?? []).some((g: Obj) => JSON.stringify(g) === JSON.stringify(gvk)))
            problems.push(`${name}: GVK ${JSON.stringify(gvk)} not in the real schema`);
        }
      }
      // Paths of the served resources: the same set of paths for those resources, the same operations with the same action and GVK.
      const resources = new Set(
        Object.keys(ours["paths"]).map((p) => p.replace(/^\/apis?\/(?:[^/]+\/)?v1\/(?:watch\/)?(?:namespaces\/\{namespace\}\/)?/, "").split("/")[0]),
      );
      const realPaths = Object.keys(real["paths"]).filter((p) =>
        resources.has(p.replace(/^\/apis?\/(?:[^/]+\/)?v1\/(?:watch\/)?(?:namespaces\/\{namespace\}\/)?/, "").split("/")[0]),
      );
      // Connect-only paths (services/{name}/proxy) are not served by the emulator.
      const connectOnly = (item: Obj) => ["get", "put", "post", "patch", "delete"].every((m) => !item[m] || item[m]["x-kubernetes-action"] === "connect");
      for (const p of realPaths) {
        const mine = ours["paths"][p];
        if (!mine && connectOnly(real["paths"][p])) continue;
        if (!mine) {
          problems.push(`path ${p} missing`);
          continue;
        }
        for (const method of ["get", "put", "post", "patch", "delete"]) {
          const a = mine[method];
          const b = real["paths"][p][method];
          if (!a !== !b) problems.push(`${method} ${p}: ${a ? "extra" : "missing"}`);
          else if (a && b) {
            if (a["x-kubernetes-action"] !== b["x-kubernetes-action"])
              problems.push(`${method} ${p}: action ${a["x-kubernetes-action"]} vs ${b["x-kubernetes-action"]}`);
            if (JSON.stringify(a["x-kubernetes-group-version-kind"]) !== JSON.stringify(b["x-kubernetes-group-version-kind"]))
              problems.push(`${method} ${p}: GVK differs`);
            if (a["operationId"] !== b["operationId"]) problems.push(`${method} ${p}: operationId ${a["operationId"]} vs ${b["operationId"]}`);
            // Parameters of the operation and of its path together (the real generator hoists shared ones to the path).
            const names = (o: Obj, path: Obj) => [...(o["parameters"] ?? []), ...(path["parameters"] ?? [])].map((x: Obj) => x["name"]).sort();
            if (JSON.stringify(names(a, mine)) !== JSON.stringify(names(b, real["paths"][p])))
              problems.push(`${method} ${p}: parameters ${names(a, mine)} vs ${names(b, real["paths"][p])}`);
          }
        }
      }
      for (const p of Object.keys(ours["paths"])) if (!real["paths"][p]) problems.push(`path ${p} not in the real document`);
      expect(problems).toEqual([]);
    });
  }
});

/**
 * The OpenAPI v3 document of each served group-version and the one Swagger 2.0 document, built
 * from the registry's strategies (wire-facts §19): schemas from the typed shapes (schemas.ts),
 * or a custom resource's openAPIV3Schema; paths with the verbs each type serves, the
 * x-kubernetes-action and GVK extensions, and the query parameters kubectl reads
 * (fieldValidation on PATCH decides server-side validation; the strategic-merge-patch body type
 * decides client-side apply's patch).
 */
import { cloneJson, isJsonObject, type Json, type JsonObject } from "../../apimachinery/json.js";
import { OBJECT_META } from "../../apimachinery/object-meta.js";
import type { StructShape } from "../../apimachinery/typed-json.js";
import type { ResourceStrategy } from "../../registry/generic/strategy.js";
import { DELETE_OPTIONS_SHAPE } from "../handlers/delete-options.js";
import { addMetaSchemas, metaName, packageOf, ref, type Schemas, ShapeSchemas } from "./schemas.js";

const query = (name: string, type: string, description: string): JsonObject => ({ name, in: "query", description, schema: { type, uniqueItems: true } });
const P = {
  allowWatchBookmarks: query("allowWatchBookmarks", "boolean", "Ask for BOOKMARK events (the server may still send none)."),
  continue: query("continue", "string", "The token of the previous chunk, to read the next one."),
  fieldSelector: query("fieldSelector", "string", "Only objects whose fields match (field=value, field!=value, comma-separated)."),
  labelSelector: query("labelSelector", "string", "Only objects whose labels match."),
  limit: query("limit", "integer", "Most items in one chunk; a continue token gives the rest."),
  resourceVersion: query("resourceVersion", "string", "Which version of the data may answer (with resourceVersionMatch)."),
  resourceVersionMatch: query("resourceVersionMatch", "string", "Exact or NotOlderThan: how resourceVersion binds a list."),
  sendInitialEvents: query("sendInitialEvents", "boolean", "With watch=true: the current objects as ADDED events first, then a bookmark."),
  timeoutSeconds: query("timeoutSeconds", "integer", "Seconds after which a list or watch ends."),
  watch: query("watch", "boolean", "Stream changes instead of answering a list."),
  dryRun: query("dryRun", "string", "All: answer as the write would, store nothing."),
  fieldManager: query("fieldManager", "string", "Who makes the change, for managedFields."),
  fieldValidation: query("fieldValidation", "string", "Ignore, Warn or Strict: what unknown or duplicate fields cost."),
  force: query("force", "boolean", "Apply: take over fields other managers own."),
  gracePeriodSeconds: query("gracePeriodSeconds", "integer", "Seconds of grace before the deletion."),
  ignoreStoreReadError: query(
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "boolean",
    "Delete an object the server cannot read (unsafe; needs the gate and its own verb).",
  ),
  orphanDependents: query("orphanDependents", "boolean", "Old form of propagationPolicy=Orphan."),
  propagationPolicy: query("propagationPolicy", "string", "Orphan, Background or Foreground: what happens to dependents."),
  pretty: query("pretty", "string", "Indented output."),
};
const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
const PATCH_PARAMS = [...WRITE_PARAMS, P.force];
const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.ignoreStoreReadError, P.orphanDependents, P.propagationPolicy];
const pathParam = (name: string, description: string): JsonObject => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string", uniqueItems: true },
});

const PATCH_TYPES = ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"];

interface TypeNames {
  readonly kind: string;
  readonly list: string;
  readonly gvk: JsonObject;
}

/** The per-GV documents and the index keys (`api/v1`, `apis/<g>/<v>`), for one registry state. */
export interface OpenApiDocuments {
  readonly v3: ReadonlyMap<string, JsonObject>;
  readonly v2: JsonObject;
}

export function gvKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

const camel = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
function opGroup(group: string): string {
  if (group === "") return "Core";
  const head = group.endsWith(".k8s.io") ? group.slice(0, -".k8s.io".length) : group;
  return head.split(/[.-]/).map(camel).join("");
}

function content(schema: JsonObject, unstructured: boolean): JsonObject {
  const types = unstructured ? ["application/json", "application/yaml"] : ["application/json", "application/vnd.kubernetes.protobuf", "application/yaml"];
  return Object.fromEntries(types.map((t) => [t, { schema }]));
}

function response(description: string, schema: JsonObject, unstructured: boolean): JsonObject {
  return { description, content: content(schema, unstructured) };
}

function generateFor(strategies: readonly ResourceStrategy[], group: string, version: string): JsonObject {
  const schemas: Schemas = new Map();
  addMetaSchemas(schemas);
  const pkg = packageOf(group, version);
  const shapes = new ShapeSchemas(schemas, pkg);
  // Every document carries the schemas its operations and custom resources refer to.
  shapes.nameOf(DELETE_OPTIONS_SHAPE);
  shapes.nameOf(OBJECT_META);
  const paths: JsonObject = {};
  const tag = group ? `${opGroup(group).charAt(0).toLowerCase()}${opGroup(group).slice(1)}_${version}` : `core_${version}`;
  const root = group ? `/apis/${group}/${version}` : `/api/${version}`;
  for (const s of strategies) {
    const names = typeSchemas(s, schemas, shapes, pkg);
    addPaths(paths, s, names, root, tag);
    // A subresource of another kind (serviceaccounts/token: a TokenRequest) brings that kind's schemas, in its own package.
    for (const sub of s.subresources ?? []) {
      const kind = sub.discoveryKind;
      if (!kind || !sub.discoveryShape) continue;
      const name = new ShapeSchemas(schemas, packageOf(kind.group, kind.version)).nameOf(sub.discoveryShape);
      schemas.set(name, { ...schemas.get(name), "x-kubernetes-group-version-kind": [{ group: kind.group, kind: kind.kind, version: kind.version }] });
    }
  }
  const doc: JsonObject = {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "v1.35.0" },
    paths,
    components: {
      schemas: Object.fromEntries([...schemas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      securitySchemes: { BearerToken: { type: "apiKey", in: "header", name: "authorization", description: "Bearer Token authentication" } },
    },
  };
  return doc;
}

/** Writes the type's object and list schemas; returns their names. */
function typeSchemas(s: ResourceStrategy, schemas: Schemas, shapes: ShapeSchemas, pkg: string): TypeNames {
  const gvk = { group: s.group, kind: s.kind, version: s.version };
  const listGvk = { group: s.group, kind: s.listKind, version: s.version };
  let kind: string;
  const crdSchema = s.unstructured?.openAPIV3Schema;
  if (s.unstructured) {
    kind = `${pkg}.${s.kind}`;
    schemas.set(kind, customResourceSchema(crdSchema, gvk));
  } else {
    kind = shapes.nameOf(s.shape as StructShape);
    const existing = schemas.get(kind) ?? {};
    const prior = Array.isArray(existing["x-kubernetes-group-version-kind"]) ? existing["x-kubernetes-group-version-kind"] : [];
    if (!prior.some((g) => isJsonObject(g) && g["kind"] === s.kind && g["group"] === s.group))
      schemas.set(kind, { ...existing, "x-kubernetes-group-version-kind": [...prior, gvk] });
  }
  const list = `${pkg}.${s.listKind}`;
  schemas.set(list, {
    description: `${s.listKind} is a list of ${s.kind}.`,
    type: "object",
    required: ["items"],
    properties: {
      apiVersion: { description: "Group and version of this object's schema.", type: "string" },
      items: { description: `List of ${s.resource}.`, type: "array", items: s.unstructured ? ref(kind) : { allOf: [ref(kind)], default: {} } },
      kind: { description: "Kind of this object.", type: "string" },
      metadata: { allOf: [ref(metaName("ListMeta"))], default: {}, description: "List metadata." },
    },
    "x-kubernetes-group-version-kind": [listGvk],
  });
  return { kind, list, gvk };
}

/** A custom resource's schema: its structural openAPIV3Schema with apiVersion, kind and metadata as the real server adds them. */
function customResourceSchema(schema: JsonObject | undefined, gvk: JsonObject): JsonObject {
  const out: JsonObject = schema ? cloneJson(schema) : { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  const properties: JsonObject = isJsonObject(out["properties"]) ? out["properties"] : {};
  properties["apiVersion"] = { description: "Group and version of this object's schema.", type: "string" };
  properties["kind"] = { description: "Kind of this object.", type: "string" };
  properties["metadata"] = { allOf: [ref(metaName("ObjectMeta"))], description: "Object metadata." };
  out["properties"] = properties;
  out["type"] = "object";
  out["x-kubernetes-group-version-kind"] = [gvk];
  return out;
}

function addPaths(paths: JsonObject, s: ResourceStrategy, names: TypeNames, root: string, tag: string): void {
  const verbs = new Set(s.verbs);
  const unstructured = s.unstructured !== undefined;
  const objectRef = ref(names.kind);
  const listRef = ref(names.list);
  const statusRef = ref(metaName("Status"));
  const g = opGroup(s.group);
  const v = camel(s.version);
  const scope = s.namespaced ? "Namespaced" : "";
  const op = (action: string, verbName: string, suffix: string, extra: JsonObject): JsonObject => ({
    description: `${action} ${s.kind}`,
    operationId: `${verbName}${g}${v}${suffix}`,
    tags: [tag],
    ...extra,
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": names.gvk,
  });
  const withBody = (schema: JsonObject): JsonObject => ({ requestBody: { required: true, content: content(schema, unstructured) } });
  const nsParam = pathParam("namespace", "the namespace");
  const nameParam = pathParam("name", `name of the ${s.kind}`);
  const collection = s.namespaced ? `${root}/namespaces/{namespace}/${s.resource}` : `${root}/${s.resource}`;
  const collectionParams = s.namespaced ? [nsParam, P.pretty] : [P.pretty];
  const itemParams = [nameParam, ...collectionParams];

  const coll: JsonObject = { parameters: collectionParams };
  if (verbs.has("list"))
    coll["get"] = op("list", "list", `${scope}${s.kind}`, { parameters: LIST_PARAMS, responses: { "200": response("OK", listRef, unstructured) } });
  if (verbs.has("create"))
    coll["post"] = op("post", "create", `${scope}${s.kind}`, {
      parameters: WRITE_PARAMS,
      ...withBody(objectRef),
      responses: {
        "200": response("OK", objectRef, unstructured),
        "201": response("Created", objectRef, unstructured),
        "202": response("Accepted", objectRef, unstructured),
      },
    });
  if (verbs.has("deletecollection"))
    coll["delete"] = op("deletecollection", "delete", `Collection${scope}${s.kind}`, {
      parameters: [...DELETE_PARAMS, ...LIST_PARAMS.filter((p) => p["name"] !== "watch" && p["name"] !== "allowWatchBookmarks")],
      requestBody: { content: { "*/*": { schema: ref(metaName("DeleteOptions")) } } },
      responses: { "200": response("OK", statusRef, unstructured) },
    });
  paths[collection] = coll;

  const item: JsonObject = { parameters: itemParams };
  if (verbs.has("get")) item["get"] = op("get", "read", `${scope}${s.kind}`, { responses: { "200": response("OK", objectRef, unstructured) } });
  if (verbs.has("update"))
    item["put"] = op("put", "replace", `${scope}${s.kind}`, {
      parameters: WRITE_PARAMS,
      ...withBody(objectRef),
      responses: { "200": response("OK", objectRef, unstructured), "201": response("Created", objectRef, unstructured) },
    });
  if (verbs.has("patch")) item["patch"] = op("patch", "patch", `${scope}${s.kind}`, patchOperation(objectRef, unstructured));
  if (verbs.has("delete"))
    item["delete"] = op("delete", "delete", `${scope}${s.kind}`, {
      parameters: DELETE_PARAMS,
      requestBody: { content: { "*/*": { schema: ref(metaName("DeleteOptions")) } } },
      responses: {
        "200": response("OK", unstructured ? statusRef : objectRef, unstructured),
        "202": response("Accepted", unstructured ? statusRef : objectRef, unstructured),
      },
    });
  paths[`${collection}/{name}`] = item;

  if (s.namespaced && verbs.has("list"))
    paths[`${root}/${s.resource}`] = {
      parameters: [P.pretty, ...LIST_PARAMS],
      get: op("list", "list", `${s.kind}ForAllNamespaces`, { responses: { "200": response("OK", listRef, unstructured) } }),
    };
  if (verbs.has("watch")) {
    const watchRef = ref(metaName("WatchEvent"));
    const watchOf = (suffix: string, action: string) => op(action, "watch", suffix, { responses: { "200": response("OK", watchRef, unstructured) } });
    const w = s.namespaced ? `${root}/watch/namespaces/{namespace}/${s.resource}` : `${root}/watch/${s.resource}`;
    paths[w] = { parameters: [...collectionParams, ...LIST_PARAMS], get: watchOf(`${scope}${s.kind}List`, "watchlist") };
    paths[`${w}/{name}`] = { parameters: [nameParam, ...collectionParams, ...LIST_PARAMS], get: watchOf(`${scope}${s.kind}`, "watch") };
    if (s.namespaced)
      paths[`${root}/watch/${s.resource}`] = { parameters: [P.pretty, ...LIST_PARAMS], get: watchOf(`${s.kind}ListForAllNamespaces`, "watchlist") };
  }
  for (const sub of s.subresources ?? []) {
    const suffix = `${scope}${s.kind}${camel(sub.name)}`;
    const subPath: JsonObject = { parameters: itemParams };
    const subVerbs = new Set(sub.verbs);
    if (sub.create) {
      const kind = sub.discoveryKind;
      const schema = kind ? ref(`${packageOf(kind.group, kind.version)}.${kind.kind}`) : objectRef;
      subPath["post"] = {
        ...op("post", "create", suffix, {
          parameters: WRITE_PARAMS,
          ...withBody(schema),
          responses: { "200": response("OK", schema, unstructured), "201": response("Created", schema, unstructured) },
        }),
        ...(kind ? { "x-kubernetes-group-version-kind": { group: kind.group, kind: kind.kind, version: kind.version } } : {}),
      };
    } else {
      if (subVerbs.has("get")) subPath["get"] = op("get", "read", suffix, { responses: { "200": response("OK", objectRef, unstructured) } });
      if (subVerbs.has("update"))
        subPath["put"] = op("put", "replace", suffix, {
          parameters: WRITE_PARAMS,
          ...withBody(objectRef),
          responses: { "200": response("OK", objectRef, unstructured), "201": response("Created", objectRef, unstructured) },
        });
      if (subVerbs.has("patch")) subPath["patch"] = op("patch", "patch", suffix, patchOperation(objectRef, unstructured));
    }
    paths[`${collection}/{name}/${sub.name}`] = subPath;
  }
}

function patchOperation(objectRef: JsonObject, unstructured: boolean): JsonObject {
  // Custom resources take no strategic merge patch here, so it is not listed for them.
  const types = unstructured ? PATCH_TYPES.filter((t) => t !== "application/strategic-merge-patch+json") : PATCH_TYPES;
  return {
    parameters: PATCH_PARAMS,
    requestBody: { required: true, content: Object.fromEntries(types.map((t) => [t, { schema: ref(metaName("Patch")) }])) },
    responses: { "200": response("OK", objectRef, unstructured), "201": response("Created", objectRef, unstructured) },
  };
}

/** Builds all documents for the served types. */
export function buildDocuments(strategies: readonly ResourceStrategy[]): OpenApiDocuments {
  const byGv = new Map<string, ResourceStrategy[]>();
  for (const s of strategies) {
    const key = gvKey(s.group, s.version);
    byGv.set(key, [...(byGv.get(key) ?? []), s]);
  }
  const v3 = new Map<string, JsonObject>();
  for (const [key, list] of byGv) {
    const first = list[0] as ResourceStrategy;
    v3.set(key, generateFor(list, first.group, first.version));
  }
  return { v3, v2: swaggerOf([...v3.values()]) };
}

/** Rewrites a v3 value for Swagger 2.0: `#/components/schemas/` refs become `#/definitions/`. */
function toV2Refs(value: Json): Json {
  if (Array.isArray(value)) return value.map(toV2Refs);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "#/definitions/") : toV2Refs(v);
  }
  return out;
}

function v2Parameter(p: Json): Json {
  if (!isJsonObject(p) || !isJsonObject(p["schema"])) return p;
  const { schema, ...rest } = p;
  return { ...rest, ...schema };
}

function v2Operation(op: JsonObject): JsonObject {
  const { requestBody, responses, parameters, ...rest } = op;
  const out: JsonObject = {
    ...rest,
    consumes: ["*/*"],
    produces: ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"],
    schemes: ["https"],
  };
  const params = Array.isArray(parameters) ? parameters.map(v2Parameter) : [];
  if (isJsonObject(requestBody) && isJsonObject(requestBody["content"])) {
    const types = Object.keys(requestBody["content"]);
    const first = requestBody["content"][types[0] ?? ""];
    if (types.length > 0 && types[0] !== "*/*") out["consumes"] = types;
    params.unshift({ name: "body", in: "body", required: requestBody["required"] === true, schema: isJsonObject(first) ? (first["schema"] ?? {}) : {} });
  }
  if (params.length > 0) out["parameters"] = params;
  const rs: JsonObject = {};
  for (const [code, r] of Object.entries(isJsonObject(responses) ? responses : {})) {
    if (!isJsonObject(r)) continue;
    const c = isJsonObject(r["content"]) ? Object.values(r["content"])[0] : undefined;
    rs[code] = { description: r["description"] ?? "", ...(isJsonObject(c) && c["schema"] !== undefined ? { schema: c["schema"] } : {}) };
  }
  rs["401"] = { description: "Unauthorized" };
  out["responses"] = rs;
  return out;
}

/** The Swagger 2.0 document: every GV's paths and schemas in one. */
function swaggerOf(docs: readonly JsonObject[]): JsonObject {
  const paths: JsonObject = {};
  const definitions: JsonObject = {};
  for (const doc of docs) {
    for (const [path, item] of Object.entries(isJsonObject(doc["paths"]) ? doc["paths"] : {})) {
      if (!isJsonObject(item)) continue;
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(item)) {
        if (k === "parameters" && Array.isArray(v)) out[k] = v.map(v2Parameter);
        else if (isJsonObject(v)) out[k] = v2Operation(v);
      }
      paths[path] = out;
    }
    const components = doc["components"];
    const schemas = isJsonObject(components) && isJsonObject(components["schemas"]) ? components["schemas"] : {};
    for (const [name, schema] of Object.entries(schemas)) {
      const prior = definitions[name];
      if (schema === undefined) continue;
      // A schema several GVs carry (DeleteOptions) is kept once.
      if (prior === undefined) definitions[name] = schema;
    }
  }
  const sortedDefs = Object.fromEntries(
    Object.keys(definitions)
      .sort()
      .map((k) => [k, definitions[k] as Json]),
  );
  return toV2Refs({
    swagger: "2.0",
    info: { title: "Kubernetes", version: "v1.35.0" },
    paths,
    definitions: sortedDefs,
    securityDefinitions: { BearerToken: { description: "Bearer Token authentication", type: "apiKey", name: "authorization", in: "header" } },
    security: [{ BearerToken: [] }],
  }) as JsonObject;
}

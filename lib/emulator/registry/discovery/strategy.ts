/**
 * discovery.k8s.io/v1 EndpointSlice, as a 1.35 server serves it (k/k
 * pkg/registry/discovery/endpointslice): namespaced, DNS subdomain names, generation (1 on
 * create, one more on an update that changes anything beyond metadata), port defaults (name
 * "" and protocol TCP, SetDefaults_EndpointPort), and the validation of validation.ts.
 *
 * Known difference: deprecatedTopology is kept as written (a real v1 write drops it).
 */
import { cloneJson, isJsonObject, type Json, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import { nameOf, namespaceOf, objectHead, setMeta } from "../../apimachinery/object-meta.js";
import { BOOL, canonicalize, field, INT32, listOf, mapOf, STRING, struct } from "../../apimachinery/typed-json.js";
import { OBJECT_REFERENCE } from "../events/strategy.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { ENDPOINT_SLICE_PRINTER } from "./printer.js";
import { validateEndpointSlice, validateEndpointSliceUpdate } from "./validation.js";

const ENDPOINT_CONDITIONS = struct("v1", "EndpointConditions", [
  field("ready", BOOL, "pointer"),
  field("serving", BOOL, "pointer"),
  field("terminating", BOOL, "pointer"),
]);

const ENDPOINT_HINTS = struct("v1", "EndpointHints", [
  field("forZones", listOf(struct("v1", "ForZone", [field("name", STRING, "always")]))),
  field("forNodes", listOf(struct("v1", "ForNode", [field("name", STRING, "always")]))),
]);

const ENDPOINT = struct("v1", "Endpoint", [
  field("addresses", listOf(STRING), "always"),
  field("conditions", ENDPOINT_CONDITIONS),
  field("hostname", STRING, "pointer"),
  field("targetRef", OBJECT_REFERENCE, "pointer"),
  field("deprecatedTopology", mapOf(STRING)),
  field("nodeName", STRING, "pointer"),
  field("zone", STRING, "pointer"),
  field("hints", ENDPOINT_HINTS, "pointer"),
]);

const ENDPOINT_PORT = struct("v1", "EndpointPort", [
  field("name", STRING, "pointer"),
  field("protocol", STRING, "pointer"),
  field("port", INT32, "pointer"),
  field("appProtocol", STRING, "pointer"),
]);

const ENDPOINT_SLICE_SHAPE = struct("v1", "EndpointSlice", [
  ...objectHead(),
  field("addressType", STRING, "always"),
  field("endpoints", listOf(ENDPOINT), "always"),
  field("ports", listOf(ENDPOINT_PORT), "always"),
]);

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

function defaultPorts(o: KubeObject): void {
  for (const p of objects(o["ports"])) {
    if (typeof p["name"] !== "string") p["name"] = "";
    if (typeof p["protocol"] !== "string") p["protocol"] = "TCP";
  }
}

/** The object without metadata, to tell a change that bumps the generation. */
function content(o: KubeObject): string {
  const { metadata: _metadata, ...rest } = canonicalize(o, ENDPOINT_SLICE_SHAPE);
  return JSON.stringify(rest);
}

export const endpointSliceStrategy: ResourceStrategy = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
  kind: "EndpointSlice",
  listKind: "EndpointSliceList",
  singularName: "endpointslice",
  shortNames: [],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "qgS0xkrxYAI=",
  storagePrefix: "/registry/endpointslices",
  watchCache: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  internalKind: { group: "discovery.k8s.io", kind: "EndpointSlice" },
  shape: ENDPOINT_SLICE_SHAPE,
  sameTypeVersions: ["discovery.k8s.io/v1beta1"],
  fieldLabels: ["metadata.name", "metadata.namespace"],
  selectableFields: (o) => ({ "metadata.name": nameOf(o), "metadata.namespace": namespaceOf(o) }),
  decodeDefaults(o) {
    const copy = cloneJson(o);
    for (const p of objects(copy["ports"])) {
      if (typeof p["name"] !== "string") p["name"] = "";
      if (typeof p["protocol"] !== "string") p["protocol"] = "TCP";
    }
    return copy;
  },
  prepareForCreate(o) {
    defaultPorts(o);
    setMeta(o, "generation", 1);
  },
  prepareForUpdate(o, old) {
    defaultPorts(o);
    const generation = typeof old.metadata["generation"] === "number" ? old.metadata["generation"] : 0;
    setMeta(o, "generation", content(o) === content(old) ? generation : generation + 1);
  },
  validateCreate: validateEndpointSlice,
  validateUpdate: validateEndpointSliceUpdate,
  canonicalize() {},
  pendingFinalizers: () => [],
  tablePrinter: ENDPOINT_SLICE_PRINTER,
};

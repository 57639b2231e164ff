/** core/v1 ConfigMap: namespaced; data keys are config keys; immutable ones keep their data. */
import { type FieldError, forbidden, invalid, tooLong } from "../../../apimachinery/field-errors.js";
import { type JsonObject, type KubeObject, obj } from "../../../apimachinery/json.js";
import { configMapKey, dns1123Subdomain } from "../../../apimachinery/name-validation.js";
import { nameOf, namespaceOf, objectHead, validateObjectMeta, validateObjectMetaUpdate } from "../../../apimachinery/object-meta.js";
import { BOOL, BYTES, field, mapOf, STRING, struct } from "../../../apimachinery/typed-json.js";
import type { ResourceStrategy } from "../../generic/strategy.js";
import { CONFIG_MAP_PRINTER } from "./printer.js";

/** Total bytes of data plus binaryData (v1.MaxSecretSize). */
const MAX_SIZE = 1024 * 1024;

const CONFIG_MAP_SHAPE = struct("v1", "ConfigMap", [
  ...objectHead(),
  field("immutable", BOOL, "pointer"),
  field("data", mapOf(STRING)),
  field("binaryData", mapOf(BYTES)),
]);

function validateConfigMap(o: KubeObject): FieldError[] {
  const errs = validateObjectMeta(o, true, dns1123Subdomain);
  const data = obj(o, "data") ?? {};
  const binary = obj(o, "binaryData") ?? {};
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of configMapKey(key)) errs.push(invalid(`data[${key}]`, key, msg));
    if (Object.hasOwn(binary, key)) errs.push(invalid(`data[${key}]`, key, "duplicate of key present in binaryData"));
    size += typeof value === "string" ? Buffer.byteLength(value) : 0;
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const msg of configMapKey(key)) errs.push(invalid(`binaryData[${key}]`, key, msg));
    size += typeof value === "string" ? Buffer.from(value, "base64").length : 0;
  }
  if (size > MAX_SIZE) errs.push(tooLong("", MAX_SIZE));
  return errs;
}

const same = (a: JsonObject | undefined, b: JsonObject | undefined): boolean => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

export const configMapStrategy: ResourceStrategy = {
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  listKind: "ConfigMapList",
  singularName: "configmap",
  shortNames: ["cm"],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "qFsyl6wFWjQ=",
  storagePrefix: "/registry/configmaps",
  watchCache: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  internalKind: { group: "", kind: "ConfigMap" },
  shape: CONFIG_MAP_SHAPE,
  fieldLabels: ["metadata.name", "metadata.namespace"],
  selectableFields: (o) => ({ "metadata.name": nameOf(o), "metadata.namespace": namespaceOf(o) }),
  prepareForCreate() {},
  prepareForUpdate() {},
  validateCreate: validateConfigMap,
  validateUpdate(o, old) {
    const errs = validateObjectMetaUpdate(o, old);
    if (old["immutable"] === true) {
      const message = "field is immutable when `immutable` is set";
      if (o["immutable"] !== true) errs.push(forbidden("immutable", message));
      if (!same(obj(o, "data"), obj(old, "data"))) errs.push(forbidden("data", message));
      if (!same(obj(o, "binaryData"), obj(old, "binaryData"))) errs.push(forbidden("binaryData", message));
    }
    return [...errs, ...validateConfigMap(o)];
  },
  canonicalize() {},
  pendingFinalizers: () => [],
  tablePrinter: CONFIG_MAP_PRINTER,
};

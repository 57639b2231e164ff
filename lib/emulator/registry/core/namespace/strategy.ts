/**
 * core/v1 Namespace: cluster-scoped; the server owns status (phase Active on create) and
 * spec.finalizers (always holds "kubernetes" after create), and keeps the
 * kubernetes.io/metadata.name label equal to the name.
 *
 * Its DELETE is its own (rest.ts): Terminating first, then the namespace controller; the
 * answer is always the namespace.
 *
 * Two subresources (pkg/registry/core/namespace strategy.go, storage.go): `status` (get,
 * patch, update) writes status and metadata, keeping spec; `finalize` (update only, no Table
 * convertor) writes spec.finalizers and metadata, keeping status. Both validate the ObjectMeta
 * update; status checks the phase against deletionTimestamp, finalize each finalizer name.
 */
import { type FieldError, invalid } from "../../../apimachinery/field-errors.js";
import { cloneJson, isJsonObject, type JsonObject, type KubeObject, obj, str, stringList } from "../../../apimachinery/json.js";
import { dns1123Label } from "../../../apimachinery/name-validation.js";
import {
  isTerminating,
  labelsOf,
  nameOf,
  objectHead,
  setMeta,
  validateFinalizers,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../../../apimachinery/object-meta.js";
import { field, listOf, STRING, struct, TIME } from "../../../apimachinery/typed-json.js";
import type { ResourceStrategy, SubresourceStrategy } from "../../generic/strategy.js";
import { NAMESPACE_PRINTER } from "./printer.js";
import { NAMESPACE_DELETE } from "./rest.js";

export const KUBERNETES_FINALIZER = "kubernetes";
const METADATA_NAME_LABEL = "kubernetes.io/metadata.name";

const NAMESPACE_CONDITION = struct("v1", "NamespaceCondition", [
  field("type", STRING, "always"),
  field("status", STRING, "always"),
  field("lastTransitionTime", TIME),
  field("reason", STRING),
  field("message", STRING),
]);

const NAMESPACE_SHAPE = struct("v1", "Namespace", [
  ...objectHead(),
  field("spec", struct("v1", "NamespaceSpec", [field("finalizers", listOf(STRING))])),
  field("status", struct("v1", "NamespaceStatus", [field("phase", STRING), field("conditions", listOf(NAMESPACE_CONDITION))])),
]);

const phaseOf = (o: KubeObject): string => str(obj(o, "status"), "phase");
export const specFinalizersOf = (o: KubeObject): string[] => stringList(obj(o, "spec"), "finalizers");

const validateSpecFinalizers = (o: KubeObject): FieldError[] => validateFinalizers(specFinalizersOf(o), "spec.finalizers");

/** Replaces (or removes) one top-level field of `o` with the old object's. */
function keepOld(o: KubeObject, old: KubeObject, key: "spec" | "status"): void {
  const value = old[key];
  if (value === undefined) delete o[key];
  else o[key] = cloneJson(value);
}

/** ValidateNamespaceStatusUpdate: the phase must agree with deletionTimestamp (Go field name `Phase`). */
function validateStatusUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateObjectMetaUpdate(o, old);
  const phase = phaseOf(o);
  if (!isTerminating(o)) {
    if (phase !== "Active") errs.push(invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (phase !== "Terminating") {
    errs.push(invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}

/** ValidateNamespaceFinalizeUpdate: each finalizer name on its own indexed path. */
function validateFinalizeUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateObjectMetaUpdate(o, old);
  for (const [i, f] of specFinalizersOf(o).entries()) errs.push(...validateFinalizers([f], `spec.finalizers[${i}]`));
  return errs;
}

const NAMESPACE_STATUS: SubresourceStrategy = {
  name: "status",
  verbs: ["get", "patch", "update"],
  table: true,
  resetFields: ["spec"],
  prepareForUpdate: (o, old) => keepOld(o, old, "spec"),
  validateUpdate: validateStatusUpdate,
};

const NAMESPACE_FINALIZE: SubresourceStrategy = {
  name: "finalize",
  verbs: ["update"],
  table: false,
  resetFields: ["status"],
  prepareForUpdate: (o, old) => keepOld(o, old, "status"),
  validateUpdate: validateFinalizeUpdate,
};

export const namespaceStrategy: ResourceStrategy = {
  group: "",
  version: "v1",
  resource: "namespaces",
  kind: "Namespace",
  listKind: "NamespaceList",
  singularName: "namespace",
  shortNames: ["ns"],
  namespaced: false,
  definesNamespace: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "Q3oi5N2YM8M=",
  storagePrefix: "/registry/namespaces",
  watchCache: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  internalKind: { group: "", kind: "Namespace" },
  shape: NAMESPACE_SHAPE,
  fieldLabels: ["metadata.name", "status.phase", "name"],
  selectableFields: (o) => ({ "metadata.name": nameOf(o), "status.phase": phaseOf(o), name: nameOf(o) }),
  prepareForCreate(o) {
    o["status"] = { phase: "Active" };
    const finalizers = specFinalizersOf(o);
    if (!finalizers.includes(KUBERNETES_FINALIZER)) finalizers.push(KUBERNETES_FINALIZER);
    o["spec"] = { ...(obj(o, "spec") ?? {}), finalizers };
  },
  prepareForUpdate(o, old) {
    // spec.finalizers change only through /finalize and status only through /status.
    const spec: JsonObject = { ...(obj(o, "spec") ?? {}) };
    const oldFinalizers = obj(old, "spec")?.["finalizers"];
    if (oldFinalizers === undefined) delete spec["finalizers"];
    else spec["finalizers"] = oldFinalizers;
    o["spec"] = spec;
    o["status"] = obj(old, "status") ?? {};
  },
  validateCreate: (o) => [...validateObjectMeta(o, false, dns1123Label), ...validateSpecFinalizers(o)],
  validateUpdate: (o, old) => [...validateObjectMetaUpdate(o, old), ...validateSpecFinalizers(o)],
  /** A named namespace gets the kubernetes.io/metadata.name label when decoded (SetDefaults_Namespace), so its creator owns it. */
  decodeDefaults(o) {
    const meta = isJsonObject(o["metadata"]) ? o["metadata"] : {};
    const name = meta["name"];
    if (typeof name !== "string" || name === "") return o;
    const labels = isJsonObject(meta["labels"]) ? meta["labels"] : {};
    return { ...o, metadata: { ...meta, labels: { ...labels, [METADATA_NAME_LABEL]: name } } };
  },
  canonicalize(o) {
    setMeta(o, "labels", { ...labelsOf(o), [METADATA_NAME_LABEL]: nameOf(o) });
  },
  // Status is written only through /status: nobody owns it through the main resource.
  resetFields: ["status"],
  pendingFinalizers: specFinalizersOf,
  returnDeletedObject: true,
  tablePrinter: NAMESPACE_PRINTER,
  deleteOverride: NAMESPACE_DELETE,
  subresources: [NAMESPACE_STATUS, NAMESPACE_FINALIZE],
};

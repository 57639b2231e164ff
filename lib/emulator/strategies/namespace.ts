/**
 * core/v1 Namespace: cluster-scoped; the server owns status (phase Active on create) and
 * spec.finalizers (always holds "kubernetes" after create), and keeps the
 * kubernetes.io/metadata.name label equal to the name.
 */
import type { FieldError } from "../field-errors.js";
import { obj, str, stringList, type JsonObject, type KubeObject } from "../json.js";
import { dns1123Label } from "../name-validation.js";
import { labelsOf, nameOf, objectHead, setMeta, validateFinalizers, validateObjectMeta, validateObjectMetaUpdate } from "../object-meta.js";
import type { ResourceStrategy } from "../resources.js";
import { field, listOf, STRING, struct, TIME } from "../typed-json.js";

export const KUBERNETES_FINALIZER = "kubernetes";
export const METADATA_NAME_LABEL = "kubernetes.io/metadata.name";

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

export const phaseOf = (o: KubeObject): string => str(obj(o, "status"), "phase");
export const specFinalizersOf = (o: KubeObject): string[] => stringList(obj(o, "spec"), "finalizers");

const validateSpecFinalizers = (o: KubeObject): FieldError[] => validateFinalizers(specFinalizersOf(o), "spec.finalizers");

export const namespaceStrategy: ResourceStrategy = {
  group: "",
  version: "v1",
  resource: "namespaces",
  kind: "Namespace",
  listKind: "NamespaceList",
  singularName: "namespace",
  shortNames: ["ns"],
  namespaced: false,
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
  canonicalize(o) {
    setMeta(o, "labels", { ...labelsOf(o), [METADATA_NAME_LABEL]: nameOf(o) });
  },
  pendingFinalizers: specFinalizersOf,
};

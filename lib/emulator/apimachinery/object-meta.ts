/**
 * ObjectMeta: its shape (field order from the golden fixtures), accessors, and the generic
 * metadata validation every type runs on create and update.
 */
import { type FieldError, forbidden, goQuote, invalid, required, tooLong } from "./field-errors.js";
import { type Json, type JsonObject, type KubeObject, obj, str, stringList, stringMap } from "./json.js";
import { asNamePrefix, dns1123Label, labelValue, qualifiedName } from "./name-validation.js";
import { ANY, BOOL, type FieldSpec, field, INT64, listOf, mapOf, STRING, type StructShape, struct, TIME } from "./typed-json.js";

const OWNER_REFERENCE = struct("v1", "OwnerReference", [
  field("apiVersion", STRING, "always"),
  field("kind", STRING, "always"),
  field("name", STRING, "always"),
  field("uid", STRING, "always"),
  field("controller", BOOL, "pointer"),
  field("blockOwnerDeletion", BOOL, "pointer"),
]);

const MANAGED_FIELDS_ENTRY = struct("v1", "ManagedFieldsEntry", [
  field("manager", STRING),
  field("operation", STRING),
  field("apiVersion", STRING),
  field("time", TIME, "pointer"),
  field("fieldsType", STRING),
  field("fieldsV1", ANY, "pointer"),
  field("subresource", STRING),
]);

export const OBJECT_META: StructShape = struct("v1", "ObjectMeta", [
  field("name", STRING),
  field("generateName", STRING),
  field("namespace", STRING),
  field("selfLink", STRING),
  field("uid", STRING),
  field("resourceVersion", STRING),
  field("generation", INT64),
  field("creationTimestamp", TIME, "omitzero"),
  field("deletionTimestamp", TIME, "pointer"),
  field("deletionGracePeriodSeconds", INT64, "pointer"),
  field("labels", mapOf(STRING)),
  field("annotations", mapOf(STRING)),
  field("ownerReferences", listOf(OWNER_REFERENCE)),
  field("finalizers", listOf(STRING)),
  field("managedFields", listOf(MANAGED_FIELDS_ENTRY)),
]);

/** kind, apiVersion and metadata: the head of every top-level object shape. */
export function objectHead(): FieldSpec[] {
  return [field("kind", STRING), field("apiVersion", STRING), field("metadata", OBJECT_META, "always")];
}

const META_ORDER = OBJECT_META.fields.map((f) => f.name);

/** Sets one metadata field (or removes it with undefined) keeping the canonical key order. */
export function setMeta(o: KubeObject, key: string, value: Json | undefined): void {
  // One new object in canonical order: a key it does not know is dropped, as before.
  const current = o.metadata;
  const ordered: JsonObject = {};
  for (const k of META_ORDER) {
    const v = k === key ? value : current[k];
    if (v !== undefined) ordered[k] = v;
  }
  o.metadata = ordered;
}

export const nameOf = (o: KubeObject): string => str(o.metadata, "name");
export const namespaceOf = (o: KubeObject): string => str(o.metadata, "namespace");
export const uidOf = (o: KubeObject): string => str(o.metadata, "uid");
export const resourceVersionOf = (o: KubeObject): string => str(o.metadata, "resourceVersion");
export const labelsOf = (o: KubeObject): Record<string, string> => stringMap(o.metadata, "labels");
export const finalizersOf = (o: KubeObject): string[] => stringList(o.metadata, "finalizers");
export const isTerminating = (o: KubeObject): boolean => typeof o.metadata["deletionTimestamp"] === "string";

/** Narrows a decoded JSON object to a KubeObject (decoding always writes metadata). */
export function asKubeObject(value: JsonObject): KubeObject {
  const metadata = obj(value, "metadata");
  if (!metadata) throw new TypeError("object without metadata");
  return { ...value, metadata };
}

export type NameValidator = (name: string) => string[];

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateLabels(labels: Record<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(labels).sort()) {
    for (const msg of qualifiedName(key)) errs.push(invalid(path, key, msg));
    for (const msg of labelValue(labels[key] ?? "")) errs.push(invalid(path, labels[key] ?? "", msg));
  }
  return errs;
}

function validateAnnotations(annotations: Record<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const key of Object.keys(annotations).sort()) {
    for (const msg of qualifiedName(key.toLowerCase())) errs.push(invalid(path, key, msg));
    size += Buffer.byteLength(key) + Buffer.byteLength(annotations[key] ?? "");
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** Finalizer names: qualified names, and without a '/' only the standard ones. */
export function validateFinalizers(finalizers: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) {
    for (const msg of qualifiedName(f)) errs.push(invalid(path, f, msg));
    if (!f.includes("/") && !STANDARD_FINALIZERS.has(f)) {
      errs.push(invalid(path, f, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  return errs;
}

/** The checks shared by create and update: labels, annotations, finalizers, generation. */
function validateMetaContent(meta: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const generation = meta["generation"];
  if (typeof generation === "number" && generation < 0) {
    errs.push(invalid("metadata.generation", generation, "must be greater than or equal to 0"));
  }
  errs.push(...validateLabels(stringMap(meta, "labels"), "metadata.labels"));
  errs.push(...validateAnnotations(stringMap(meta, "annotations"), "metadata.annotations"));
  errs.push(...validateFinalizers(stringList(meta, "finalizers"), "metadata.finalizers"));
  return errs;
}

/** ObjectMeta validation on create: name (or generateName), namespace presence, content. */
export function validateObjectMeta(o: KubeObject, namespaced: boolean, nameFn: NameValidator): FieldError[] {
  const meta = o.metadata;
  const errs: FieldError[] = [];
  const generateName = str(meta, "generateName");
  if (generateName) {
    for (const msg of nameFn(asNamePrefix(generateName))) errs.push(invalid("metadata.generateName", generateName, msg));
  }
  const name = str(meta, "name");
  if (!name) errs.push(required("metadata.name", "name or generateName is required"));
  else for (const msg of nameFn(name)) errs.push(invalid("metadata.name", name, msg));
  const namespace = str(meta, "namespace");
  if (namespaced) {
    if (!namespace) errs.push(required("metadata.namespace"));
    else for (const msg of dns1123Label(namespace)) errs.push(invalid("metadata.namespace", namespace, msg));
  } else if (namespace) {
    errs.push(forbidden("metadata.namespace", "not allowed on this type"));
  }
  errs.push(...validateMetaContent(meta));
  return errs;
}

/** Go's %#v of a []string (`[]string{"a", "b"}`), as ValidateNoNewFinalizers prints the new ones. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

/**
 * ValidateNoNewFinalizers (apimachinery pkg/api/validation/objectmeta.go): once an object is
 * being deleted its finalizers may only go away. The new ones are listed sorted and without
 * repeats (a sets.String difference).
 */
export function validateNoNewFinalizers(o: KubeObject, old: KubeObject): FieldError[] {
  if (!isTerminating(old)) return [];
  const before = new Set(finalizersOf(old));
  const added = [...new Set(finalizersOf(o).filter((f) => !before.has(f)))].sort();
  if (added.length === 0) return [];
  return [forbidden("metadata.finalizers", `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`)];
}

/**
 * ObjectMeta validation on update (ValidateObjectMetaAccessorUpdate): no new finalizers on a
 * terminating object first, then identity fields immutable, then content as on create.
 */
export function validateObjectMetaUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = validateNoNewFinalizers(o, old);
  for (const key of ["name", "namespace", "uid"] as const) {
    const now = str(o.metadata, key);
    if (now !== str(old.metadata, key)) errs.push(invalid(`metadata.${key}`, now, "field is immutable"));
  }
  errs.push(...validateMetaContent(o.metadata));
  return errs;
}

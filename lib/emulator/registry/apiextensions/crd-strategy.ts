/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition: cluster-scoped, named
 * `<spec.names.plural>.<spec.group>`. Its shape (Go field order of the v1 types), its defaults
 * (singular and listKind from the kind, conversion `None`), the v1 validation a client sees
 * (names, group, scope, versions, one storage version, a structural schema per version), and
 * the status rules: the main resource never changes status (the controller writes it,
 * crd-controller.ts), storedVersions starts with the storage version.
 * The first DELETE adds the `customresourcecleanup.apiextensions.k8s.io` finalizer and the
 * Terminating condition; the controller then deletes the instances and the finalizer.
 *
 * Known differences from a real server: the values of Invalid errors on whole lists are
 * printed as JSON, not Go's %#v; JSONSchemaProps' `items`, `additionalProperties` and
 * `additionalItems` (schema-or-array/bool unions) are kept as given without checks of their
 * own fields; CEL rules (x-kubernetes-validations) are stored and not evaluated; webhook
 * conversion is accepted and never called (every version reads the same stored object).
 */
import { type FieldError, invalid, notSupported, required } from "../../apimachinery/field-errors.js";
import { cloneJson, isJsonObject, type Json, type JsonObject, type KubeObject, obj, str } from "../../apimachinery/json.js";
import { dns1035Label, dns1123Subdomain } from "../../apimachinery/name-validation.js";
import { finalizersOf, nameOf, objectHead, setMeta, validateObjectMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";
import {
  ANY,
  BOOL,
  BYTES,
  type FieldSpec,
  FLOAT64,
  field,
  INT32,
  INT64,
  listOf,
  mapOf,
  STRING,
  type StructShape,
  struct,
  TIME,
} from "../../apimachinery/typed-json.js";
import { statusSubresourceOf } from "../generic/status-subresource.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { structuralErrors } from "./structural.js";

const CRD_GROUP = "apiextensions.k8s.io";
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

/** JSONSchemaProps is recursive: its fields are filled in after the struct exists. */
const jsonSchemaFields: FieldSpec[] = [];
const JSON_SCHEMA_PROPS: StructShape = struct("v1", "JSONSchemaProps", jsonSchemaFields);
jsonSchemaFields.push(
  field("id", STRING),
  field("$schema", STRING),
  field("$ref", STRING, "pointer"),
  field("description", STRING),
  field("type", STRING),
  field("format", STRING),
  field("title", STRING),
  field("default", ANY, "pointer"),
  field("maximum", FLOAT64, "pointer"),
  field("exclusiveMaximum", BOOL),
  field("minimum", FLOAT64, "pointer"),
  field("exclusiveMinimum", BOOL),
  field("maxLength", INT64, "pointer"),
  field("minLength", INT64, "pointer"),
  field("pattern", STRING),
  field("maxItems", INT64, "pointer"),
  field("minItems", INT64, "pointer"),
  field("uniqueItems", BOOL),
  field("multipleOf", FLOAT64, "pointer"),
  field("enum", listOf(ANY)),
  field("maxProperties", INT64, "pointer"),
  field("minProperties", INT64, "pointer"),
  field("required", listOf(STRING)),
  field("items", ANY, "pointer"),
  field("allOf", listOf(JSON_SCHEMA_PROPS)),
  field("oneOf", listOf(JSON_SCHEMA_PROPS)),
  field("anyOf", listOf(JSON_SCHEMA_PROPS)),
  field("not", JSON_SCHEMA_PROPS, "pointer"),
  field("properties", mapOf(JSON_SCHEMA_PROPS)),
  field("additionalProperties", ANY, "pointer"),
  field("patternProperties", mapOf(JSON_SCHEMA_PROPS)),
  field("dependencies", mapOf(ANY)),
  field("additionalItems", ANY, "pointer"),
  field("definitions", mapOf(JSON_SCHEMA_PROPS)),
  field("externalDocs", struct("v1", "ExternalDocumentation", [field("description", STRING), field("url", STRING)]), "pointer"),
  field("example", ANY, "pointer"),
  field("nullable", BOOL),
  field("x-kubernetes-preserve-unknown-fields", BOOL, "pointer"),
  field("x-kubernetes-embedded-resource", BOOL),
  field("x-kubernetes-int-or-string", BOOL),
  field("x-kubernetes-list-map-keys", listOf(STRING)),
  field("x-kubernetes-list-type", STRING, "pointer"),
  field("x-kubernetes-map-type", STRING, "pointer"),
  field(
    "x-kubernetes-validations",
    listOf(
      struct("v1", "ValidationRule", [
        field("rule", STRING, "always"),
        field("message", STRING),
        field("messageExpression", STRING),
        field("reason", STRING, "pointer"),
        field("fieldPath", STRING),
        field("optionalOldSelf", BOOL, "pointer"),
      ]),
    ),
  ),
);

const NAMES = struct("v1", "CustomResourceDefinitionNames", [
  field("plural", STRING, "always"),
  field("singular", STRING),
  field("shortNames", listOf(STRING)),
  field("kind", STRING, "always"),
  field("listKind", STRING),
  field("categories", listOf(STRING)),
]);

const COLUMN = struct("v1", "CustomResourceColumnDefinition", [
  field("name", STRING, "always"),
  field("type", STRING, "always"),
  field("format", STRING),
  field("description", STRING),
  field("priority", INT32),
  field("jsonPath", STRING, "always"),
]);

const VERSION = struct("v1", "CustomResourceDefinitionVersion", [
  field("name", STRING, "always"),
  field("served", BOOL, "always"),
  field("storage", BOOL, "always"),
  field("deprecated", BOOL),
  field("deprecationWarning", STRING, "pointer"),
  field("schema", struct("v1", "CustomResourceValidation", [field("openAPIV3Schema", JSON_SCHEMA_PROPS, "pointer")]), "pointer"),
  field(
    "subresources",
    struct("v1", "CustomResourceSubresources", [
      field("status", struct("v1", "CustomResourceSubresourceStatus", []), "pointer"),
      field(
        "scale",
        struct("v1", "CustomResourceSubresourceScale", [
          field("specReplicasPath", STRING, "always"),
          field("statusReplicasPath", STRING, "always"),
          field("labelSelectorPath", STRING, "pointer"),
        ]),
        "pointer",
      ),
    ]),
    "pointer",
  ),
  field("additionalPrinterColumns", listOf(COLUMN)),
  field("selectableFields", listOf(struct("v1", "SelectableField", [field("jsonPath", STRING, "always")]))),
]);

const SERVICE_REFERENCE = struct("v1", "ServiceReference", [
  field("namespace", STRING, "always"),
  field("name", STRING, "always"),
  field("path", STRING, "pointer"),
  field("port", INT32, "pointer"),
]);

const CONVERSION = struct("v1", "CustomResourceConversion", [
  field("strategy", STRING, "always"),
  field(
    "webhook",
    struct("v1", "WebhookConversion", [
      field(
        "clientConfig",
        struct("v1", "WebhookClientConfig", [field("url", STRING, "pointer"), field("service", SERVICE_REFERENCE, "pointer"), field("caBundle", BYTES)]),
        "pointer",
      ),
      field("conversionReviewVersions", listOf(STRING), "always"),
    ]),
    "pointer",
  ),
]);

const CONDITION = struct("v1", "CustomResourceDefinitionCondition", [
  field("type", STRING, "always"),
  field("status", STRING, "always"),
  field("lastTransitionTime", TIME),
  field("reason", STRING),
  field("message", STRING),
]);

export const CRD_SHAPE = struct("v1", "CustomResourceDefinition", [
  ...objectHead(),
  field(
    "spec",
    struct("v1", "CustomResourceDefinitionSpec", [
      field("group", STRING, "always"),
      field("names", NAMES, "always"),
      field("scope", STRING, "always"),
      field("versions", listOf(VERSION), "always"),
      field("conversion", CONVERSION, "pointer"),
      field("preserveUnknownFields", BOOL),
    ]),
    "always",
  ),
  field(
    "status",
    struct("v1", "CustomResourceDefinitionStatus", [
      field("conditions", listOf(CONDITION)),
      field("acceptedNames", NAMES, "always"),
      field("storedVersions", listOf(STRING), "always"),
    ]),
    "always",
  ),
]);

/**
 * apiextensions validates metadata with apimachinery's generic ObjectMeta rules, which do not
 * have the core rule that a finalizer without '/' must be a standard one (its own cleanup
 * finalizer has no '/').
 */
export function withoutStandardFinalizerRule(errs: FieldError[]): FieldError[] {
  return errs.filter((e) => !(e.field === "metadata.finalizers" && e.detail === "name is neither a standard finalizer name nor is it fully qualified"));
}

const objects = (v: Json | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

export const specOf = (o: JsonObject): JsonObject => obj(o, "spec") ?? {};
export const namesOf = (o: JsonObject): JsonObject => obj(specOf(o), "names") ?? {};
export const versionsOf = (o: JsonObject): JsonObject[] => objects(specOf(o)["versions"]);
export const storageVersionOf = (o: JsonObject): string =>
  str(
    versionsOf(o).find((v) => v["storage"] === true),
    "name",
  );

function validateNames(names: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const plural = str(names, "plural");
  const singular = str(names, "singular");
  const kind = str(names, "kind");
  const listKind = str(names, "listKind");
  if (plural) for (const m of dns1035Label(plural)) errs.push(invalid(`${path}.plural`, plural, m));
  if (singular) for (const m of dns1035Label(singular)) errs.push(invalid(`${path}.singular`, singular, m));
  if (kind) for (const m of dns1035Label(kind.toLowerCase())) errs.push(invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${m}`));
  if (listKind)
    for (const m of dns1035Label(listKind.toLowerCase()))
      errs.push(invalid(`${path}.listKind`, listKind, `may have mixed case, but should otherwise match: ${m}`));
  const shortNames = Array.isArray(names["shortNames"]) ? names["shortNames"] : [];
  shortNames.forEach((s, i) => {
    if (typeof s === "string") for (const m of dns1035Label(s)) errs.push(invalid(`${path}.shortNames[${i}]`, s, m));
  });
  if (kind && kind === listKind) errs.push(invalid(`${path}.listKind`, listKind, "kind and listKind may not be the same"));
  const categories = Array.isArray(names["categories"]) ? names["categories"] : [];
  categories.forEach((c, i) => {
    if (typeof c === "string") for (const m of dns1035Label(c)) errs.push(invalid(`${path}.categories[${i}]`, c, m));
  });
  return errs;
}

const COLUMN_TYPES = ["integer", "number", "string", "boolean", "date"];

function validateVersions(versions: JsonObject[]): FieldError[] {
  const errs: FieldError[] = [];
  if (versions.length === 0) errs.push(required("spec.versions", "must have at least one version"));
  const seen = new Set<string>();
  let unique = true;
  let storage = 0;
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    const name = str(v, "name");
    if (v["storage"] === true) storage++;
    if (seen.has(name)) unique = false;
    seen.add(name);
    const nameErrs = dns1035Label(name);
    if (nameErrs.length) errs.push(invalid(`${path}.name`, name, nameErrs.join(",")));
    const schema = obj(obj(v, "schema"), "openAPIV3Schema");
    if (!schema) errs.push(required(`${path}.schema.openAPIV3Schema`, "schemas are required"));
    else errs.push(...structuralErrors(schema, `${path}.schema.openAPIV3Schema`));
    objects(v["additionalPrinterColumns"]).forEach((c, j) => {
      const cpath = `${path}.additionalPrinterColumns[${j}]`;
      if (!str(c, "name")) errs.push(required(`${cpath}.name`));
      const type = str(c, "type");
      if (!type) errs.push(required(`${cpath}.type`));
      else if (!COLUMN_TYPES.includes(type)) errs.push(notSupported(`${cpath}.type`, type, COLUMN_TYPES));
      if (!str(c, "jsonPath")) errs.push(required(`${cpath}.JSONPath`));
    });
  });
  if (!unique) errs.push(invalid("spec.versions", versions, "must contain unique version names"));
  if (versions.length > 0 && storage !== 1) errs.push(invalid("spec.versions", versions, "must have exactly one version marked as storage version"));
  return errs;
}

function validateSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const errs: FieldError[] = [];
  const group = str(spec, "group");
  if (!group) errs.push(required("spec.group"));
  else {
    const groupErrs = dns1123Subdomain(group);
    if (groupErrs.length) errs.push(invalid("spec.group", group, groupErrs.join(",")));
    else if (group.split(".").length < 2) errs.push(invalid("spec.group", group, "should be a domain with at least one dot"));
  }
  const scope = str(spec, "scope");
  if (!scope) errs.push(required("spec.scope"));
  else if (scope !== "Cluster" && scope !== "Namespaced") errs.push(notSupported("spec.scope", scope, ["Cluster", "Namespaced"]));
  errs.push(...validateVersions(versionsOf(o)));
  const names = namesOf(o);
  for (const key of ["plural", "singular", "kind", "listKind"]) if (!str(names, key)) errs.push(required(`spec.names.${key}`));
  errs.push(...validateNames(names, "spec.names"));
  const conversion = obj(spec, "conversion");
  const strategy = str(conversion, "strategy");
  if (strategy !== "None" && strategy !== "Webhook") errs.push(notSupported("spec.conversion.strategy", strategy, ["None", "Webhook"]));
  if (spec["preserveUnknownFields"] === true) errs.push(invalid("spec.preserveUnknownFields", true, "must be false in order to use defaults in the schema"));
  return errs;
}

/** The name rule: a DNS subdomain that is exactly plural.group. */
function nameRule(o: KubeObject): (name: string) => string[] {
  return (name) => {
    const errs = dns1123Subdomain(name);
    if (name !== `${str(namesOf(o), "plural")}.${str(specOf(o), "group")}`) errs.push('must be spec.names.plural+"."+spec.group');
    return errs;
  };
}

/** SetDefaults_CustomResourceDefinitionSpec: singular, listKind, conversion, service port. */
function setDefaults(o: KubeObject): void {
  const spec = isJsonObject(o["spec"]) ? o["spec"] : (o["spec"] = {});
  const names = isJsonObject(spec["names"]) ? spec["names"] : (spec["names"] = {});
  const kind = str(names, "kind");
  if (!str(names, "singular")) names["singular"] = kind.toLowerCase();
  if (!str(names, "listKind") && kind) names["listKind"] = `${kind}List`;
  if (!isJsonObject(spec["conversion"])) spec["conversion"] = { strategy: "None" };
  const service = obj(obj(obj(spec, "conversion"), "webhook"), "clientConfig")?.["service"];
  if (isJsonObject(service) && service["port"] === undefined) service["port"] = 443;
}

const same = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

const crdMainStrategy: ResourceStrategy = {
  group: CRD_GROUP,
  version: "v1",
  resource: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  listKind: "CustomResourceDefinitionList",
  singularName: "customresourcedefinition",
  shortNames: ["crd", "crds"],
  namespaced: false,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "M5uH+AlWATY=",
  storagePrefix: "/registry/apiextensions.k8s.io/customresourcedefinitions",
  watchCache: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  internalKind: { group: CRD_GROUP, kind: "CustomResourceDefinition" },
  shape: CRD_SHAPE,
  fieldLabels: ["metadata.name"],
  selectableFields: (o) => ({ "metadata.name": nameOf(o) }),
  prepareForCreate(o) {
    setDefaults(o);
    setMeta(o, "generation", 1);
    const storage = storageVersionOf(o);
    o["status"] = { acceptedNames: { plural: "", kind: "" }, storedVersions: storage ? [storage] : [] };
  },
  prepareForUpdate(o, old) {
    setDefaults(o);
    o["status"] = cloneJson(old["status"] ?? {});
    const generation = typeof old.metadata["generation"] === "number" ? old.metadata["generation"] : 1;
    setMeta(o, "generation", same(o["spec"], old["spec"]) ? generation : generation + 1);
    // A new storage version joins storedVersions (the strategy's PrepareForUpdate).
    const storage = storageVersionOf(o);
    const status = o["status"] as JsonObject;
    const stored = Array.isArray(status["storedVersions"]) ? status["storedVersions"] : [];
    if (storage && !stored.includes(storage)) status["storedVersions"] = [...stored, storage];
  },
  validateCreate(o) {
    return [...withoutStandardFinalizerRule(validateObjectMeta(o, false, nameRule(o))), ...validateSpec(o)];
  },
  validateUpdate(o, old) {
    const errs = withoutStandardFinalizerRule(validateObjectMetaUpdate(o, old));
    const name = nameOf(o);
    for (const m of nameRule(o)(name)) errs.push(invalid("metadata.name", name, m));
    const scope = str(specOf(o), "scope");
    if (scope !== str(specOf(old), "scope")) errs.push(invalid("spec.scope", scope, "field is immutable"));
    const stored = (obj(old, "status")?.["storedVersions"] ?? []) as Json[];
    const served = new Set(versionsOf(o).map((v) => str(v, "name")));
    stored.forEach((v, i) => {
      if (typeof v === "string" && !served.has(v)) errs.push(invalid(`status.storedVersions[${i}]`, v, "must appear in spec.versions"));
    });
    return [...errs, ...validateSpec(o)];
  },
  canonicalize() {},
  // Holds the first DELETE: the object is marked, and prepareForDeletion adds the finalizer.
  pendingFinalizers: (o) =>
    typeof o.metadata["deletionTimestamp"] === "string" || finalizersOf(o).includes(CRD_CLEANUP_FINALIZER) ? [] : [CRD_CLEANUP_FINALIZER],
  prepareForDeletion(o) {
    if (!finalizersOf(o).includes(CRD_CLEANUP_FINALIZER)) setMeta(o, "finalizers", [...finalizersOf(o), CRD_CLEANUP_FINALIZER]);
    setMeta(o, "deletionGracePeriodSeconds", undefined);
    const now = str(o.metadata, "deletionTimestamp");
    setCondition(o, { type: "Terminating", status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" }, now);
  },
};

export interface CrdCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** SetCRDCondition: replaces the condition of that type; the transition time moves only when the status does. */
export function setCondition(o: KubeObject, c: CrdCondition, now: string): boolean {
  const status = isJsonObject(o["status"]) ? o["status"] : (o["status"] = {});
  const conditions = objects(status["conditions"]);
  const existing = conditions.find((x) => x["type"] === c.type);
  if (existing && existing["status"] === c.status && existing["reason"] === c.reason && existing["message"] === c.message) return false;
  const time = existing && existing["status"] === c.status ? (existing["lastTransitionTime"] ?? now) : now;
  const next: JsonObject = { type: c.type, status: c.status, lastTransitionTime: time, reason: c.reason, message: c.message };
  status["conditions"] = existing ? conditions.map((x) => (x === existing ? next : x)) : [...conditions, next];
  return true;
}

/** The CRD type, with its `/status` subresource (where the controllers write). */
export const crdStrategy: ResourceStrategy = { ...crdMainStrategy, subresources: [statusSubresourceOf(crdMainStrategy)] };

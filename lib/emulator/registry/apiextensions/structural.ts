/**
 * The structural-schema rules of apiextensions.k8s.io/v1 that a CRD create or update checks
 * on each version's openAPIV3Schema (apiextensions-apiserver pkg/apiserver/schema), the
 * common ones only: a root of type object, a type on every specified property and array item
 * (unless x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields stands in for
 * it), `items` on every array, and properties and additionalProperties not both set.
 * Not checked here: the value-validation restrictions inside allOf/anyOf/oneOf/not, metadata
 * beyond name and generateName, defaults, and CEL rules.
 */
import { type FieldError, forbidden, invalid, required } from "../../apimachinery/field-errors.js";
import { isJsonObject, type JsonObject } from "../../apimachinery/json.js";

const hasTypeStandIn = (s: JsonObject): boolean => s["x-kubernetes-int-or-string"] === true || s["x-kubernetes-preserve-unknown-fields"] === true;

function walk(s: JsonObject, path: string, errs: FieldError[]): void {
  const properties = isJsonObject(s["properties"]) ? s["properties"] : undefined;
  if (properties && isJsonObject(s["additionalProperties"])) {
    errs.push(forbidden(`${path}.additionalProperties`, "additionalProperties and properties are mutual exclusive"));
  }
  for (const [key, child] of Object.entries(properties ?? {})) {
    if (!isJsonObject(child)) continue;
    const childPath = `${path}.properties[${key}]`;
    if (!child["type"] && !hasTypeStandIn(child)) errs.push(required(`${childPath}.type`, "must not be empty for specified object fields"));
    walk(child, childPath, errs);
  }
  const additional = s["additionalProperties"];
  if (isJsonObject(additional)) {
    const childPath = `${path}.additionalProperties`;
    if (!additional["type"] && !hasTypeStandIn(additional)) errs.push(required(`${childPath}.type`, "must not be empty for specified object fields"));
    walk(additional, childPath, errs);
  }
  const items = s["items"];
  if (s["type"] === "array" && items === undefined) errs.push(required(`${path}.items`, "must be specified"));
  if (isJsonObject(items)) {
    const childPath = `${path}.items`;
    if (!items["type"] && !hasTypeStandIn(items)) errs.push(required(`${childPath}.type`, "must not be empty for specified array items"));
    walk(items, childPath, errs);
  } else if (Array.isArray(items)) {
    errs.push(forbidden(`${path}.items`, "items must be a schema object and not an array"));
  }
}

/** The structural errors of one version's schema, `path` naming it (`spec.versions[0].schema.openAPIV3Schema`). */
export function structuralErrors(schema: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = schema["type"];
  if (!type) errs.push(required(`${path}.type`, "must not be empty at the root"));
  else if (type !== "object") errs.push(invalid(`${path}.type`, String(type), "must be object at the root"));
  walk(schema, path, errs);
  return errs;
}

/**
 * Validation of a custom resource against its version's openAPIV3Schema, with ajv doing the
 * JSON Schema checks and the errors worded as the real server's schema validator words them
 * (kube-openapi validate, through apiextensions' validation): field paths like
 * `spec.ports[0].containerPort`, `Invalid value: "string": spec.replicas in body must be of
 * type integer: "string"`, `Required value`, `Unsupported value: "x": supported values: …`.
 *
 * The schema is given to ajv without the Kubernetes extensions; x-kubernetes-int-or-string
 * becomes "integer or string"; apiVersion, kind and metadata are not validated by it (the
 * metadata rules are the generic ObjectMeta ones). Known differences: formats (int32,
 * date-time, …) and CEL rules (x-kubernetes-validations) are not checked, and the texts of
 * the less common keywords (uniqueItems, multipleOf, min/maxProperties, the combinators)
 * follow the same pattern without having been compared with a real server.
 */
import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { type FieldError, invalid, notSupported, required, tooLong } from "../../apimachinery/field-errors.js";
import { isJsonObject, type Json, type JsonObject } from "../../apimachinery/json.js";
import { ownValue } from "../../apimachinery/own-keys.js";

// ownProperties: a property the schema names `constructor` or `toString` is absent when the
// object lacks it, not Object.prototype's function (which failed `type: string` and met `required`).
// Made by the first schema compiled, not at load: ajv takes about 50 ms to load, which every emulator start paid.
let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (!ajvInstance) {
    const { Ajv } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
    ajvInstance = new Ajv({ allErrors: true, strict: false, validateFormats: false, validateSchema: false, ownProperties: true });
  }
  return ajvInstance;
}

const DROPPED = new Set([
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
  "id",
  "$schema",
  "$ref",
  "default",
  "example",
  "externalDocs",
  "format",
]);

/** The schema in the form ajv reads. */
function forAjv(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key === "x-kubernetes-int-or-string") continue;
    if (key === "properties" || key === "patternProperties" || key === "definitions") {
      out[key] = isJsonObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forAjv(v)])) : value;
    } else if (key === "enum") {
      out[key] = value;
    } else {
      out[key] = forAjv(value);
    }
  }
  // ajv skips a property named `__proto__`; the same schema as a pattern for exactly that name
  // is checked like any other property (properties and patternProperties both apply).
  const properties = out["properties"];
  if (isJsonObject(properties) && Object.hasOwn(properties, "__proto__")) {
    const patterns = isJsonObject(out["patternProperties"]) ? out["patternProperties"] : {};
    out["patternProperties"] = { ...patterns, "^__proto__$": ownValue(properties, "__proto__") ?? {} };
  }
  if (schema["x-kubernetes-int-or-string"] === true) {
    const intOrString: JsonObject = { anyOf: [{ type: "integer" }, { type: "string" }] };
    return Object.keys(out).length ? { allOf: [out, intOrString] } : intOrString;
  }
  return out;
}

/** The root schema without apiVersion, kind and metadata, compiled. */
export function compileSchema(schema: JsonObject | undefined): ValidateFunction | undefined {
  if (!schema) return undefined;
  const root = forAjv(schema) as JsonObject;
  if (isJsonObject(root["properties"])) {
    const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = root["properties"];
    root["properties"] = rest;
  }
  if (Array.isArray(root["required"])) root["required"] = root["required"].filter((r) => r !== "metadata" && r !== "apiVersion" && r !== "kind");
  try {
    return ajv().compile(root);
  } catch {
    // A schema ajv cannot read (an odd pattern): the object is then not validated by it.
    return undefined;
  }
}

/** `/spec/ports/0/containerPort` → `spec.ports[0].containerPort`. */
function fieldPath(instancePath: string, root: Json): string {
  let out = "";
  let node: Json | undefined = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) {
      out += `[${seg}]`;
      node = node[Number(seg)];
    } else {
      out += out ? `.${seg}` : seg;
      node = isJsonObject(node) ? node[seg] : undefined;
    }
  }
  return out;
}

function valueAt(instancePath: string, root: Json): Json | undefined {
  let node: Json | undefined = root;
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = Array.isArray(node) ? node[Number(seg)] : isJsonObject(node) ? node[seg] : undefined;
  }
  return node;
}

/** The OpenAPI type name of a JSON value, as the validator prints it. */
function openApiType(value: Json | undefined): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const num = (v: unknown): string => String(v);

function toFieldError(e: ErrorObject, root: JsonObject): FieldError | undefined {
  const value = valueAt(e.instancePath, root);
  const path = fieldPath(e.instancePath, root);
  const params = e.params as Record<string, unknown>;
  const at = (p: string): string => (p ? `${p} in body` : "body");
  switch (e.keyword) {
    case "required": {
      const missing = String(params["missingProperty"]);
      return required(path ? `${path}.${missing}` : missing);
    }
    case "type": {
      const expected = Array.isArray(params["type"]) ? (params["type"] as string[]).join(",") : String(params["type"]);
      const actual = openApiType(value);
      return invalid(path, actual, `${at(path)} must be of type ${expected}: ${JSON.stringify(actual)}`);
    }
    case "enum": {
      const allowed = (params["allowedValues"] as Json[] | undefined) ?? [];
      return notSupported(
        path,
        value ?? null,
        allowed.map((a) => (typeof a === "string" ? a : JSON.stringify(a))),
      );
    }
    case "maximum":
      return invalid(path, value ?? null, `${at(path)} should be less than or equal to ${num(params["limit"])}`);
    case "exclusiveMaximum":
      return invalid(path, value ?? null, `${at(path)} should be less than ${num(params["limit"])}`);
    case "minimum":
      return invalid(path, value ?? null, `${at(path)} should be greater than or equal to ${num(params["limit"])}`);
    case "exclusiveMinimum":
      return invalid(path, value ?? null, `${at(path)} should be greater than ${num(params["limit"])}`);
    case "maxLength":
      return tooLong(path, Number(params["limit"]));
    case "minLength":
      return invalid(path, value ?? null, `${at(path)} should be at least ${num(params["limit"])} chars long`);
    case "pattern":
      return invalid(path, value ?? null, `${at(path)} should match '${String(params["pattern"])}'`);
    case "maxItems":
      return invalid(path, value ?? null, `${at(path)} should have at most ${num(params["limit"])} items`);
    case "minItems":
      return invalid(path, value ?? null, `${at(path)} should have at least ${num(params["limit"])} items`);
    case "uniqueItems":
      return invalid(path, value ?? null, `${at(path)} shouldn't contain duplicates`);
    case "multipleOf":
      return invalid(path, value ?? null, `${at(path)} should be a multiple of ${num(params["multipleOf"])}`);
    case "maxProperties":
      return invalid(path, value ?? null, `${at(path)} should have at most ${num(params["limit"])} properties`);
    case "minProperties":
      return invalid(path, value ?? null, `${at(path)} should have at least ${num(params["limit"])} properties`);
    case "anyOf":
    case "allOf":
      // The branches' own errors say what is wrong.
      return undefined;
    default:
      return invalid(path, value ?? null, `${at(path)} ${e.message ?? "is invalid"}`);
  }
}

/**
 * The schema errors of an object (already pruned), ordered by field path: the real validator
 * walks properties in Go map order, so no order is guaranteed; sorting keeps answers stable.
 */
export function schemaErrors(validate: ValidateFunction | undefined, o: JsonObject): FieldError[] {
  if (!validate || validate(o)) return [];
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    const fe = toFieldError(e, o);
    if (!fe) continue;
    const key = `${fe.type}|${fe.field}|${fe.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fe);
  }
  return out.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

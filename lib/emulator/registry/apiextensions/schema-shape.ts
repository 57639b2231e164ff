/**
 * A custom resource's typed-json shape, deduced from its version's openAPIV3Schema: what
 * decoding does to a body is then the real server's pruning (apiextensions structural
 * pruning). Fields the schema declares are kept, others dropped and reported as unknown
 * fields (fieldValidation), except under x-kubernetes-preserve-unknown-fields, which keeps
 * them unreported; x-kubernetes-embedded-resource keeps apiVersion, kind and metadata.
 * Values of the wrong JSON type pass through (lenient shapes) for the schema validation to
 * report as 422, as an unstructured decode has no type errors. Keys come out sorted, as an
 * unstructured object is written (a Go map); metadata keeps ObjectMeta's order.
 *
 * Known differences: a null value is dropped (the real server keeps it where the schema is
 * nullable, and reports it elsewhere); metadata is decoded as the typed ObjectMeta, so a
 * wrong type there is a 400 decode error.
 */
import { isJsonObject, type JsonObject } from "../../apimachinery/json.js";
import { OBJECT_META } from "../../apimachinery/object-meta.js";
import { ANY, type FieldSpec, field, type Shape, STRING, type StructShape } from "../../apimachinery/typed-json.js";

function structOf(goName: string, fields: FieldSpec[], preserveUnknownFields: boolean): StructShape {
  const sorted = [...fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: "struct", goName, goPackage: "unstructured", fields: sorted, lenient: true, preserveUnknownFields };
}

function propertyFields(schema: JsonObject, goName: string): FieldSpec[] {
  const properties = isJsonObject(schema["properties"]) ? schema["properties"] : {};
  return Object.entries(properties).map(([name, child]) => field(name, isJsonObject(child) ? shapeOf(child, goName) : ANY, "pointer"));
}

function embeddedHead(): FieldSpec[] {
  return [field("apiVersion", STRING, "pointer"), field("kind", STRING, "pointer"), field("metadata", OBJECT_META, "pointer")];
}

function shapeOf(schema: JsonObject, goName: string): Shape {
  if (schema["x-kubernetes-int-or-string"] === true) return ANY;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  const embedded = schema["x-kubernetes-embedded-resource"] === true;
  const type = schema["type"];
  if (type === "array") {
    const items = schema["items"];
    return { kind: "list", items: isJsonObject(items) ? shapeOf(items, goName) : ANY, lenient: true };
  }
  if (type === "object" || (type === undefined && (isJsonObject(schema["properties"]) || embedded))) {
    const additional = schema["additionalProperties"];
    if (isJsonObject(additional) && !isJsonObject(schema["properties"])) return { kind: "map", values: shapeOf(additional, goName), lenient: true };
    // additionalProperties: true keeps everything, as preserve-unknown-fields does.
    if (!isJsonObject(schema["properties"]) && !embedded && (preserve || additional === true)) return ANY;
    const fields = propertyFields(schema, goName).filter((f) => !embedded || !["apiVersion", "kind", "metadata"].includes(f.name));
    return structOf(goName, embedded ? [...embeddedHead(), ...fields] : fields, preserve || additional === true);
  }
  return ANY;
}

/** The shape of a whole custom resource: apiVersion, kind and metadata, then the schema's properties. */
export function customResourceShape(schema: JsonObject | undefined, kind: string): StructShape {
  const root = schema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  const fields = propertyFields(root, kind).filter((f) => !["apiVersion", "kind", "metadata"].includes(f.name));
  // apiVersion and kind are always in a stored object; omitempty keeps them out of the zero
  // object (a BOOKMARK's), which gets them from the watched type.
  const head = [field("apiVersion", STRING), field("kind", STRING), field("metadata", OBJECT_META, "always")];
  const shape = structOf(kind, [...head, ...fields], root["x-kubernetes-preserve-unknown-fields"] === true);
  return { ...shape, lenient: false };
}

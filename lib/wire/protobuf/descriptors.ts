/**
 * Turns the protobufjs reflection of schema.ts into the small, typed description table the
 * codec walks. Done once, at the first lookup (not at load: it costs about 0.1 s, which no
 * start needs); the compiled copy reads it as data the build precomputed. A schema mistake
 * (unknown option, unsupported type) fails loudly here instead of producing wrong bytes later.
 */
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type protobuf from "protobufjs";
import { protobufjs } from "./protobufjs.js";
import { APIEXTENSIONS_PACKAGE, AUTHENTICATION_PACKAGE, AUTHORIZATION_PACKAGE, INTSTR_PACKAGE, loadRoot, META_PACKAGE, RUNTIME_PACKAGE } from "./schema.js";

export type ScalarKind = "string" | "bool" | "int32" | "int64" | "double" | "bytes";

/**
 * Messages whose JSON form is not a JSON object of their fields. "rawJson" is apiextensions
 * JSON (raw JSON text, inline in JSON like FieldsV1); the three "schemaOr..." are the
 * apiextensions unions whose JSON is a schema object or an array / a boolean.
 */
export type SpecialMessage =
  | "time"
  | "microTime"
  | "fieldsV1"
  | "rawExtension"
  | "stringList"
  | "intOrString"
  | "rawJson"
  | "schemaOrArray"
  | "schemaOrBool"
  | "schemaOrStringArray";

/**
 * How the JSON side treats the field (see schema.ts for the option spelling):
 * - always: written even when zero (repeated/map: `[]` / `{}` when empty);
 * - omitempty: left out when zero/empty (non-pointer scalars, repeated fields, maps);
 * - omitzero: left out when zero (creationTimestamp);
 * - null: no omitempty on a pointer, slice or map, so Go writes `null` when it is nil (and a
 *   protobuf decode leaves an empty repeated field nil).
 * Other pointer fields are left out when unset.
 */
export type JsonMode = "always" | "omitempty" | "omitzero" | "null";

/**
 * Map values: strings, bytes, a string-list message (ExtraValue: `[]string` in Go, an array in
 * JSON), or any other message (apiextensions: JSONSchemaProps by property name).
 */
export type MapValue = "string" | "bytes" | "stringList" | MessageDesc;

export type FieldType = { kind: "scalar"; scalar: ScalarKind } | { kind: "message"; message: MessageDesc } | { kind: "map"; value: MapValue };

export interface FieldDesc {
  /** The JSON key; the proto field name unless (key) gives it (names never reach the wire). */
  readonly name: string;
  readonly number: number;
  readonly type: FieldType;
  readonly repeated: boolean;
  /** Go pointer: protobuf writes it only when set; JSON leaves it out when unset. */
  readonly pointer: boolean;
  readonly json: JsonMode;
  /** Go `json:",inline"` embedding: the message's fields sit in the parent's JSON object. */
  readonly inline: boolean;
}

export interface MessageDesc {
  /** Full protobuf name without the leading dot, e.g. k8s.io.api.core.v1.ConfigMap. */
  readonly fullName: string;
  readonly special: SpecialMessage | undefined;
  /** In declaration order = Go struct order = JSON key order. */
  readonly fields: readonly FieldDesc[];
  /** Ascending field number: protobuf emission order. */
  readonly byNumber: readonly FieldDesc[];
  readonly fieldForNumber: ReadonlyMap<number, FieldDesc>;
}

const SPECIAL: Readonly<Record<string, SpecialMessage>> = {
  [`${META_PACKAGE}.Time`]: "time",
  [`${META_PACKAGE}.MicroTime`]: "microTime",
  [`${META_PACKAGE}.FieldsV1`]: "fieldsV1",
  [`${RUNTIME_PACKAGE}.RawExtension`]: "rawExtension",
  [`${INTSTR_PACKAGE}.IntOrString`]: "intOrString",
  [`${AUTHENTICATION_PACKAGE}.ExtraValue`]: "stringList",
  [`${AUTHORIZATION_PACKAGE}.ExtraValue`]: "stringList",
  [`${APIEXTENSIONS_PACKAGE}.JSON`]: "rawJson",
  [`${APIEXTENSIONS_PACKAGE}.JSONSchemaPropsOrArray`]: "schemaOrArray",
  [`${APIEXTENSIONS_PACKAGE}.JSONSchemaPropsOrBool`]: "schemaOrBool",
  [`${APIEXTENSIONS_PACKAGE}.JSONSchemaPropsOrStringArray`]: "schemaOrStringArray",
};

const SCALARS: ReadonlySet<string> = new Set<ScalarKind>(["string", "bool", "int32", "int64", "double", "bytes"]);

function stripDot(name: string): string {
  return name.startsWith(".") ? name.slice(1) : name;
}

function buildTable(root: protobuf.Root): Map<string, MessageDesc> {
  const pb = protobufjs();
  const table = new Map<string, MessageDesc>();
  interface Building {
    fullName: string;
    special: SpecialMessage | undefined;
    fields: FieldDesc[];
    byNumber: FieldDesc[];
    fieldForNumber: Map<number, FieldDesc>;
  }
  const pending: { type: protobuf.Type; desc: Building }[] = [];

  const collect = (ns: protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof pb.Type) {
        const fullName = stripDot(nested.fullName);
        const fields: FieldDesc[] = [];
        const desc: Building = {
          fullName,
          special: SPECIAL[fullName],
          fields,
          byNumber: [],
          fieldForNumber: new Map<number, FieldDesc>(),
        };
        table.set(fullName, desc);
        pending.push({ type: nested, desc });
      }
      if (nested instanceof pb.Namespace || nested instanceof pb.Type) collect(nested);
    }
  };
  collect(root);

  for (const { type, desc } of pending) {
    for (const field of type.fieldsArray) {
      const options: Record<string, unknown> = { ...(field.options ?? {}) };
      const ptr = options["(ptr)"] === true;
      const jsonOption = options["(json)"];
      const inline = options["(inline)"] === true;
      const key = options["(key)"];
      delete options["(ptr)"];
      delete options["(json)"];
      delete options["(inline)"];
      delete options["(key)"];
      const where = `${type.fullName}.${field.name}`;
      if (Object.keys(options).length > 0) throw new Error(`schema: unexpected options on ${where}: ${JSON.stringify(options)}`);
      if (key !== undefined && typeof key !== "string") throw new Error(`schema: bad (key) option on ${where}`);
      if (jsonOption !== undefined && jsonOption !== "omitempty" && jsonOption !== "omitzero" && jsonOption !== "null") {
        throw new Error(`schema: bad (json) option on ${where}`);
      }
      const json: JsonMode = jsonOption ?? "always";

      let fieldType: FieldType;
      if (field instanceof pb.MapField) {
        const valueMessage = field.resolvedType instanceof pb.Type ? table.get(stripDot(field.resolvedType.fullName)) : undefined;
        const valueType = valueMessage ? (valueMessage.special === "stringList" ? "stringList" : valueMessage) : field.type;
        if (field.keyType !== "string" || (valueType !== "string" && valueType !== "bytes" && valueType !== "stringList" && typeof valueType !== "object")) {
          throw new Error(`schema: unsupported map on ${where}`);
        }
        fieldType = { kind: "map", value: valueType };
      } else if (SCALARS.has(field.type)) {
        fieldType = { kind: "scalar", scalar: field.type as ScalarKind };
      } else if (field.resolvedType instanceof pb.Type) {
        const target = table.get(stripDot(field.resolvedType.fullName));
        if (!target) throw new Error(`schema: unresolved type on ${where}`);
        fieldType = { kind: "message", message: target };
      } else {
        throw new Error(`schema: unsupported type ${field.type} on ${where}`);
      }
      if (ptr && (field.repeated || field instanceof pb.MapField)) throw new Error(`schema: (ptr) on a repeated field ${where}`);
      if (inline && (fieldType.kind !== "message" || field.repeated || ptr)) throw new Error(`schema: (inline) on ${where} needs a single non-pointer message`);
      desc.fields.push({ name: key ?? field.name, number: field.id, type: fieldType, repeated: field.repeated, pointer: ptr, json, inline });
    }
    desc.byNumber.push(...[...desc.fields].sort((a, b) => a.number - b.number));
    for (const f of desc.fields) desc.fieldForNumber.set(f.number, f);
  }
  return table;
}

/** The table built from the schema text (protobufjs parses it): what the precomputed copy is checked against. */
export function schemaTable(): Map<string, MessageDesc> {
  return buildTable(loadRoot());
}

/** A field's type with messages named, not linked: the table as JSON. */
type FieldTypeData =
  | { kind: "scalar"; scalar: ScalarKind }
  | { kind: "message"; message: string }
  | { kind: "map"; value: "string" | "bytes" | "stringList" | { message: string } };
interface MessageData {
  fullName: string;
  special?: SpecialMessage;
  fields: (Omit<FieldDesc, "type"> & { type: FieldTypeData })[];
}

/** The schema's table as plain data, which `npm run build` writes to dist/ (PRECOMPUTED_FILE). */
export function descriptorTableData(): MessageData[] {
  return [...schemaTable().values()].map((m) => ({
    fullName: m.fullName,
    ...(m.special ? { special: m.special } : {}),
    fields: m.fields.map((f) => {
      const t = f.type;
      const type: FieldTypeData =
        t.kind === "scalar"
          ? t
          : t.kind === "message"
            ? { kind: "message", message: t.message.fullName }
            : { kind: "map", value: typeof t.value === "string" ? t.value : { message: t.value.fullName } };
      return { ...f, type };
    }),
  }));
}

/** The table from descriptorTableData's form: the same objects buildTable makes, linked by name. */
export function tableFromData(data: readonly MessageData[]): Map<string, MessageDesc> {
  const table = new Map<string, MessageDesc & { fields: FieldDesc[]; byNumber: FieldDesc[]; fieldForNumber: Map<number, FieldDesc> }>();
  for (const m of data) table.set(m.fullName, { fullName: m.fullName, special: m.special, fields: [], byNumber: [], fieldForNumber: new Map() });
  const linked = (name: string): MessageDesc => {
    const desc = table.get(name);
    if (!desc) throw new Error(`schema: no message ${name} in the precomputed table`);
    return desc;
  };
  for (const m of data) {
    const desc = linked(m.fullName) as MessageDesc & { fields: FieldDesc[]; byNumber: FieldDesc[]; fieldForNumber: Map<number, FieldDesc> };
    for (const f of m.fields) {
      const t = f.type;
      const type: FieldType =
        t.kind === "scalar"
          ? { kind: "scalar", scalar: t.scalar }
          : t.kind === "message"
            ? { kind: "message", message: linked(t.message) }
            : { kind: "map", value: typeof t.value === "string" ? t.value : linked(t.value.message) };
      desc.fields.push({ name: f.name, number: f.number, type, repeated: f.repeated, pointer: f.pointer, json: f.json, inline: f.inline });
    }
    desc.byNumber.push(...[...desc.fields].sort((a, b) => a.number - b.number));
    for (const f of desc.fields) desc.fieldForNumber.set(f.number, f);
  }
  return table;
}

/** Where `npm run build` puts the table, under dist/: the compiled copy reads it instead of parsing the schema. */
export const PRECOMPUTED_FILE = "protobuf-descriptors.json";

/**
 * The precomputed table when this module runs from dist/ (written by the same build, and
 * bin/tollgate.js runs dist/ only while it is current); from the sources, undefined.
 */
function precomputedTable(): Map<string, MessageDesc> | undefined {
  const path = fileURLToPath(import.meta.url);
  const at = path.lastIndexOf(`${sep}dist${sep}`);
  if (at < 0) return undefined;
  let text: string;
  try {
    text = readFileSync(join(path.slice(0, at), "dist", PRECOMPUTED_FILE), "utf8");
  } catch {
    return undefined;
  }
  return tableFromData(JSON.parse(text) as MessageData[]);
}

let builtTable: Map<string, MessageDesc> | undefined;

/** The description of a message, by full name (without leading dot). Throws if unknown. */
export function messageDesc(fullName: string): MessageDesc {
  builtTable ??= precomputedTable() ?? buildTable(loadRoot());
  const desc = builtTable.get(fullName);
  if (!desc) throw new Error(`schema: no message ${fullName}`);
  return desc;
}

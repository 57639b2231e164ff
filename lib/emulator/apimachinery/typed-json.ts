/**
 * Decoding of request JSON against Go-struct-like shapes, which is what gives the emulator the
 * real server's byte form: fields come out in Go struct order, map keys sorted, zero values
 * written or left out by the Go tags (omitempty, omitzero, pointers), unknown fields dropped
 * (and reported for the fieldValidation warnings), and type mismatches rejected with
 * encoding/json's error text (they surface in 400 decode errors).
 */
import { parseApiTime } from "./api-time.js";
import { isJsonObject, type Json, type JsonObject } from "./json.js";
import { ownValue, setOwn } from "./own-keys.js";

export type ScalarKind = "string" | "bool" | "int32" | "int64" | "float64" | "time" | "microtime" | "bytes" | "any";

export type Shape =
  | { readonly kind: ScalarKind }
  | { readonly kind: "map"; readonly values: Shape; readonly lenient?: boolean }
  | { readonly kind: "list"; readonly items: Shape; readonly lenient?: boolean }
  | StructShape;

export interface StructShape {
  readonly kind: "struct";
  /** Go type name and package alias, for error texts (`v1.ObjectMeta`). */
  readonly goName: string;
  readonly goPackage: string;
  readonly fields: readonly FieldSpec[];
  /**
   * Custom resource schemas (registry/apiextensions/schema-shape.ts): `lenient` lets a value of the
   * wrong JSON type through unchanged, for schema validation to report (an unstructured
   * object has no decode type errors); `preserveUnknownFields` keeps fields the struct does
   * not declare, unreported (x-kubernetes-preserve-unknown-fields), keys then sorted.
   */
  readonly lenient?: boolean;
  readonly preserveUnknownFields?: boolean;
}

/**
 * How a field is written when it holds its zero value: "always" (no omitempty), "omitempty"
 * (but structs and Time are never omitted by it, as in Go), "omitzero", or "pointer" (left out
 * only when absent/null).
 */
export type Emit = "always" | "omitempty" | "omitzero" | "pointer";

export interface FieldSpec {
  readonly name: string;
  readonly shape: Shape;
  readonly emit: Emit;
}

export const STRING: Shape = { kind: "string" };
export const BOOL: Shape = { kind: "bool" };
export const INT32: Shape = { kind: "int32" };
export const INT64: Shape = { kind: "int64" };
export const FLOAT64: Shape = { kind: "float64" };
export const TIME: Shape = { kind: "time" };
export const MICRO_TIME: Shape = { kind: "microtime" };
export const BYTES: Shape = { kind: "bytes" };
export const ANY: Shape = { kind: "any" };
export const listOf = (items: Shape): Shape => ({ kind: "list", items });
export const mapOf = (values: Shape): Shape => ({ kind: "map", values });
export const field = (name: string, shape: Shape, emit: Emit = "omitempty"): FieldSpec => ({ name, shape, emit });
export const struct = (goPackage: string, goName: string, fields: FieldSpec[]): StructShape => ({
  kind: "struct",
  goName,
  goPackage,
  fields,
});

/** A decode failure; the message is the Go text that follows "cannot be handled as a X: ". */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DecodeError";
  }
}

export interface Decoded {
  readonly value: JsonObject;
  /** Paths of fields the shape does not know (`spec.foo`, `items[0].bar`). */
  readonly unknownFields: string[];
}

/**
 * Where the decoder is: a chain of steps from the root, made into texts only for an error or an
 * unknown field (a decode visits every field; most never need their path).
 */
class Ctx {
  constructor(
    readonly unknown: string[],
    readonly parent: Ctx | undefined,
    /** The struct field's JSON name, or the map key or list index text. */
    readonly step: string,
    /** A struct field (joins with "." and counts in Go's error path) or a map key or list index ("[step]"). */
    readonly isField: boolean,
    /** Innermost Go struct name, as encoding/json names it in errors. */
    readonly structName: string,
  ) {}

  /** Full path with indexes and keys, for unknown-field reports. */
  get path(): string {
    const parent = this.parent;
    if (parent === undefined) return "";
    const base = parent.path;
    if (!this.isField) return `${base}[${this.step}]`;
    return base ? `${base}.${this.step}` : this.step;
  }

  /** JSON field names from the root, for Go's error text. */
  get goPath(): string[] {
    const names: string[] = [];
    for (let c: Ctx | undefined = this; c?.parent !== undefined; c = c.parent) if (c.isField) names.push(c.step);
    return names.reverse();
  }
}

function goTypeName(shape: Shape): string {
  switch (shape.kind) {
    case "time":
      return "v1.Time";
    case "microtime":
      return "v1.MicroTime";
    case "bytes":
      return "[]uint8";
    case "any":
      return "interface {}";
    case "map":
      return `map[string]${goTypeName(shape.values)}`;
    case "list":
      return `[]${goTypeName(shape.items)}`;
    case "struct":
      return `${shape.goPackage}.${shape.goName}`;
    default:
      return shape.kind;
  }
}

/** encoding/json's name for the JSON type of a value, as its errors print it. */
export function jsonTypeName(value: Json): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

function typeError(value: Json, shape: Shape, ctx: Ctx, numberText?: string): DecodeError {
  const what = numberText ?? jsonTypeName(value);
  const goPath = ctx.goPath;
  const where = goPath.length ? `Go struct field ${ctx.structName}.${goPath.join(".")}` : "Go value";
  return new DecodeError(`json: cannot unmarshal ${what} into ${where} of type ${goTypeName(shape)}`);
}

const INT_RANGE = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

function decodeValue(value: Json, shape: Shape, ctx: Ctx): Json {
  switch (shape.kind) {
    case "string":
      if (typeof value !== "string") throw typeError(value, shape, ctx);
      return value;
    case "bool":
      if (typeof value !== "boolean") throw typeError(value, shape, ctx);
      return value;
    case "int32":
    case "int64": {
      if (typeof value !== "number") throw typeError(value, shape, ctx);
      const [lo, hi] = INT_RANGE[shape.kind];
      if (!Number.isInteger(value) || value < lo || value > hi) throw typeError(value, shape, ctx, `number ${value}`);
      return value;
    }
    case "float64":
      if (typeof value !== "number") throw typeError(value, shape, ctx);
      return value;
    case "time":
    case "microtime": {
      // metav1.Time's UnmarshalJSON first reads a Go string, then parses it.
      if (typeof value !== "string") throw new DecodeError(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type string`);
      const parsed = parseApiTime(value, shape.kind === "microtime");
      if (!parsed.ok) throw new DecodeError(parsed.error);
      return parsed.text;
    }
    case "bytes": {
      if (typeof value !== "string") throw typeError(value, shape, ctx);
      const bad = /[^A-Za-z0-9+/=]/.exec(value);
      if (bad || value.length % 4 !== 0) {
        throw new DecodeError(`illegal base64 data at input byte ${bad ? bad.index : value.length - (value.length % 4)}`);
      }
      return Buffer.from(value, "base64").toString("base64");
    }
    case "any":
      return value;
    case "map": {
      if (!isJsonObject(value)) {
        if (shape.lenient) return value;
        throw typeError(value, shape, ctx);
      }
      const out: JsonObject = {};
      for (const key of Object.keys(value).sort()) {
        const v = value[key];
        if (v === undefined) continue;
        // encoding/json stores null map values as the zero value.
        // A string where a string goes (labels, data) is taken as it is, without a position.
        if (typeof v === "string" && shape.values.kind === "string") setOwn(out, key, v);
        else
          setOwn(
            out,
            key,
            v === null ? (zeroValue(shape.values) ?? null) : decodeValue(v, shape.values, new Ctx(ctx.unknown, ctx, key, false, ctx.structName)),
          );
      }
      return out;
    }
    case "list": {
      if (!Array.isArray(value)) {
        if (shape.lenient) return value;
        throw typeError(value, shape, ctx);
      }
      return value.map((item, i) =>
        item === null ? (zeroValue(shape.items) ?? null) : decodeValue(item, shape.items, new Ctx(ctx.unknown, ctx, String(i), false, ctx.structName)),
      );
    }
    case "struct":
      if (!isJsonObject(value)) {
        if (shape.lenient) return value;
        throw typeError(value, shape, ctx);
      }
      return decodeFields(value, shape, ctx);
  }
}

/** Each struct shape's field names, made once (shapes are immutable; a custom resource's is rebuilt with its definition). */
const knownFields = new WeakMap<StructShape, ReadonlySet<string>>();

function knownFieldsOf(shape: StructShape): ReadonlySet<string> {
  let known = knownFields.get(shape);
  if (!known) {
    known = new Set(shape.fields.map((f) => f.name));
    knownFields.set(shape, known);
  }
  return known;
}

function decodeFields(input: JsonObject, shape: StructShape, ctx: Ctx): JsonObject {
  const known = knownFieldsOf(shape);
  const kept: string[] = [];
  for (const key of Object.keys(input)) {
    if (known.has(key)) continue;
    if (shape.preserveUnknownFields) kept.push(key);
    else {
      const path = ctx.path;
      ctx.unknown.push(path ? `${path}.${key}` : key);
    }
  }
  const out: JsonObject = {};
  for (const spec of shape.fields) {
    // A custom resource's schema may name a property `constructor` or `__proto__`: own members only.
    const raw = ownValue(input, spec.name);
    let value: Json | undefined;
    if (raw === undefined || raw === null) value = undefined;
    else if (typeof raw === "string" && spec.shape.kind === "string") value = raw;
    else value = decodeValue(raw, spec.shape, new Ctx(ctx.unknown, ctx, spec.name, true, shape.goName));
    const emitted = emitValue(value, spec);
    if (emitted !== undefined) setOwn(out, spec.name, emitted);
  }
  if (kept.length === 0) return out;
  for (const key of kept) {
    const v = input[key];
    if (v !== undefined) setOwn(out, key, v);
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k] as Json]),
  );
}

function isEmpty(value: Json): boolean {
  if (value === "" || value === 0 || value === false || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

/** Whether Go's omitempty applies to this shape at all (not to structs or Time). */
function omitemptyApplies(shape: Shape): boolean {
  return shape.kind !== "struct" && shape.kind !== "time" && shape.kind !== "microtime";
}

function emitValue(value: Json | undefined, spec: FieldSpec): Json | undefined {
  switch (spec.emit) {
    case "pointer":
      return value;
    case "omitzero":
      return value === undefined || value === null ? undefined : value;
    case "omitempty":
      if (omitemptyApplies(spec.shape)) return value === undefined || isEmpty(value) ? undefined : value;
      return value ?? zeroValue(spec.shape);
    case "always":
      return value ?? zeroValue(spec.shape);
  }
}

/** The JSON a Go zero value of the shape marshals to. */
export function zeroValue(shape: Shape): Json {
  switch (shape.kind) {
    case "string":
      return "";
    case "bool":
      return false;
    case "int32":
    case "int64":
    case "float64":
      return 0;
    case "struct": {
      const out: JsonObject = {};
      for (const spec of shape.fields) {
        const v = emitValue(undefined, spec);
        if (v !== undefined) setOwn(out, spec.name, v);
      }
      return out;
    }
    default:
      return null;
  }
}

/** Decodes a request object against the shape of its type. */
export function decodeObject(input: JsonObject, shape: StructShape): Decoded {
  const ctx = new Ctx([], undefined, "", true, shape.goName);
  const value = decodeFields(input, shape, ctx);
  return { value, unknownFields: ctx.unknown };
}

/** Re-applies the shape to an object the server itself changed, restoring order and omissions. */
export function canonicalize(input: JsonObject, shape: StructShape): JsonObject {
  return decodeObject(input, shape).value;
}

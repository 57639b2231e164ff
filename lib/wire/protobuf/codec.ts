/**
 * JSON form <-> Kubernetes protobuf wire form, driven by the description table.
 *
 * Why a hand-written walk over protobufjs's Writer/Reader instead of protobufjs's generated
 * encode/decode: the Kubernetes bytes follow Go's gogo-protobuf marshallers, not proto2
 * presence. Non-pointer fields are written even when zero, pointer fields only when set,
 * fields go out in ascending number order (protobufjs uses declaration order), map entries
 * sorted by key bytes, Time drops its nanos, MicroTime truncates them, a zero time is an empty
 * message, and FieldsV1/RawExtension carry JSON or an embedded body. protobufjs has none of
 * these rules, but its Writer (varints, int64, fork/ldelim lengths) and Reader do the byte
 * mechanics well, so they are used for exactly that.
 */

import type { Long, Reader, Writer } from "protobufjs";
import { concatBytes } from "../bytes.js";
import type { FieldDesc, MapValue, MessageDesc, ScalarKind } from "./descriptors.js";
import { messageDesc } from "./descriptors.js";
import { ProtobufFormatError } from "./errors.js";
import { fastEncodeEnveloped, fastEncodeField, fastEncodeMessage, fastMessageLength, INVALID } from "./fast-encode.js";
import { protobufjsMinimal } from "./protobufjs.js";
import { type KindEntry, lookupKind } from "./registry.js";
import { RUNTIME_PACKAGE } from "./schema.js";
import { formatTime, isZeroTime, normaliseTimestamp, parseTime, type Timestamp } from "./time.js";

/** "k8s" + 0x00 ("an Unknown follows"). */
export const MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

// Looked up when first needed: the table is built on first use (descriptors.ts).
const UNKNOWN = (): MessageDesc => messageDesc(`${RUNTIME_PACKAGE}.Unknown`);
const RUNTIME_TYPE_META = (): MessageDesc => messageDesc(`${RUNTIME_PACKAGE}.TypeMeta`);

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

// TextEncoder turns lone surrogates into U+FFFD, as Go's JSON decoder does; TextDecoder
// (non-fatal) turns invalid UTF-8 into U+FFFD, as Go's JSON encoder does.
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8");

function utf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

function tag(number: number, wire: number): number {
  return ((number << 3) | wire) >>> 0;
}

function fail(path: string, message: string): ProtobufFormatError {
  return new ProtobufFormatError(`${path}: ${message}`);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && MAGIC.every((b, i) => bytes[i] === b);
}

/** Go sorts map keys with sort.Strings: byte order of the UTF-8 text, not UTF-16 order. */
function compareUtf8(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Sets a key on a fresh object safely, even when the key is "__proto__" (map keys are free text). */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

// ── base64 (JSON form of bytes) ───────────────────────────────────────────────────────────

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function fromBase64(text: string, path: string): Uint8Array {
  // Go's base64.StdEncoding (what encoding/json uses for []byte): padded, '\r'/'\n' ignored.
  const compact = text.replace(/[\r\n]/g, "");
  if (!BASE64.test(compact)) throw fail(path, `illegal base64 data ${JSON.stringify(text.slice(0, 40))}`);
  return new Uint8Array(Buffer.from(compact, "base64"));
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
}

// ── 64-bit integers ───────────────────────────────────────────────────────────────────────

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

function longOf(value: bigint): Long {
  const u = BigInt.asUintN(64, value);
  return { low: Number(u & 0xffffffffn) | 0, high: Number(u >> 32n) | 0, unsigned: false };
}

function bigOfLong(l: Long): bigint {
  return (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
}

/** int64 in the JSON form: a number when exact, else a bigint (JSON numbers beyond 2^53 are not exact in JS). */
function int64Json(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function integerOf(v: unknown, bits: 32 | 64, path: string): bigint {
  let b: bigint;
  if (typeof v === "number" && Number.isInteger(v)) b = BigInt(v);
  else if (typeof v === "bigint") b = v;
  else throw fail(path, `expected an integer, got ${describe(v)}`);
  const [min, max] = bits === 32 ? [-(1n << 31n), (1n << 31n) - 1n] : [INT64_MIN, INT64_MAX];
  if (b < min || b > max) throw fail(path, `${b} does not fit in int${bits}`);
  return b;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "string" ? `string ${JSON.stringify(v.slice(0, 40))}` : typeof v;
}

// ── encoding (JSON form -> protobuf) ──────────────────────────────────────────────────────

/** The value of a JSON key, undefined when absent (never read through the prototype). */
function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function encodeFields(desc: MessageDesc, obj: Record<string, unknown>, w: Writer, path: string): void {
  // Keys that are not fields (kind/apiVersion at the top, anything unknown) are ignored, as
  // Go's JSON decoder drops unknown fields.
  for (const f of desc.byNumber) {
    // An inline (embedded) struct reads its fields from this same JSON object.
    const v = f.inline ? obj : own(obj, f.name);
    const fpath = `${path}.${f.name}`;
    if (f.type.kind === "map") {
      if (v === undefined || v === null) continue;
      encodeMap(f, f.type.value, v, w, fpath);
    } else if (f.repeated) {
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v)) throw fail(fpath, `expected an array, got ${describe(v)}`);
      for (const [i, el] of v.entries()) encodeValue(f, el, w, `${fpath}[${i}]`);
    } else if (v === undefined || v === null) {
      // Unset: a pointer stays out, and so does a nil []byte; anything else is written with its
      // zero value (a nested struct with its own always-written fields, a zero time as tag 00).
      if (f.pointer || (f.type.kind === "scalar" && f.type.scalar === "bytes")) continue;
      encodeValue(f, undefined, w, fpath);
    } else {
      encodeValue(f, v, w, fpath);
    }
  }
}

function encodeMap(f: FieldDesc, valueKind: MapValue, v: unknown, w: Writer, path: string): void {
  if (!isPlainObject(v)) throw fail(path, `expected an object, got ${describe(v)}`);
  const entries = Object.entries(v).map(([k, val]) => ({ k, kb: utf8(k), val }));
  entries.sort((a, b) => compareUtf8(a.kb, b.kb));
  for (const { k, kb, val } of entries) {
    const epath = `${path}[${JSON.stringify(k)}]`;
    w.uint32(tag(f.number, WIRE_LEN)).fork();
    w.uint32(tag(1, WIRE_LEN)).bytes(kb);
    if (valueKind === "string") {
      if (val !== null && typeof val !== "string") throw fail(epath, `expected a string, got ${describe(val)}`);
      w.uint32(tag(2, WIRE_LEN)).bytes(utf8(val ?? ""));
    } else if (valueKind === "stringList") {
      // A message value is always written, even empty (gogo marshals the map value struct).
      w.uint32(tag(2, WIRE_LEN)).fork();
      encodeStringList(val, w, epath);
      w.ldelim();
    } else if (typeof valueKind === "object") {
      w.uint32(tag(2, WIRE_LEN)).fork();
      encodeMessageBody(valueKind, val, w, epath);
      w.ldelim();
    } else if (val !== null) {
      // A null []byte is nil in Go, and gogo leaves the value field of a nil entry out.
      if (typeof val !== "string") throw fail(epath, `expected a base64 string, got ${describe(val)}`);
      w.uint32(tag(2, WIRE_LEN)).bytes(fromBase64(val, epath));
    }
    w.ldelim();
  }
}

/** The body of a `[]string` message (ExtraValue): field 1 once per string; null is nil. */
function encodeStringList(v: unknown, w: Writer, path: string): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) throw fail(path, `expected an array, got ${describe(v)}`);
  for (const [i, s] of v.entries()) {
    if (typeof s !== "string") throw fail(`${path}[${i}]`, `expected a string, got ${describe(s)}`);
    w.uint32(tag(1, WIRE_LEN)).bytes(utf8(s));
  }
}

/** IntOrString: type (0 int, 1 string), intVal and strVal, all three always written. */
function encodeIntOrString(v: unknown, w: Writer, path: string): void {
  const isString = typeof v === "string";
  if (!isString && v !== undefined && v !== null && typeof v !== "number") throw fail(path, `expected an integer or a string, got ${describe(v)}`);
  w.uint32(tag(1, WIRE_VARINT)).int64(longOf(isString ? 1n : 0n));
  w.uint32(tag(2, WIRE_VARINT)).int32(isString || v === undefined || v === null ? 0 : Number(integerOf(v, 32, path)));
  w.uint32(tag(3, WIRE_LEN)).bytes(utf8(isString ? v : ""));
}

/** Writes one occurrence of field f; v undefined/null means the zero value. */
function encodeValue(f: FieldDesc, v: unknown, w: Writer, path: string): void {
  const t = f.type;
  if (t.kind === "message") {
    w.uint32(tag(f.number, WIRE_LEN)).fork();
    encodeMessageBody(t.message, v, w, path);
    w.ldelim();
    return;
  }
  if (t.kind !== "scalar") throw new Error(`codec: map field ${path} reached encodeValue`);
  encodeScalar(f.number, t.scalar, v, w, path);
}

function encodeScalar(number: number, scalar: ScalarKind, v: unknown, w: Writer, path: string): void {
  const missing = v === undefined || v === null;
  switch (scalar) {
    case "string":
      if (!missing && typeof v !== "string") throw fail(path, `expected a string, got ${describe(v)}`);
      w.uint32(tag(number, WIRE_LEN)).bytes(utf8(missing ? "" : (v as string)));
      return;
    case "bool":
      if (!missing && typeof v !== "boolean") throw fail(path, `expected a boolean, got ${describe(v)}`);
      w.uint32(tag(number, WIRE_VARINT)).bool(missing ? false : (v as boolean));
      return;
    case "int32":
      w.uint32(tag(number, WIRE_VARINT)).int32(missing ? 0 : Number(integerOf(v, 32, path)));
      return;
    case "int64":
      w.uint32(tag(number, WIRE_VARINT)).int64(longOf(missing ? 0n : integerOf(v, 64, path)));
      return;
    case "double":
      if (!missing && (typeof v !== "number" || !Number.isFinite(v))) throw fail(path, `expected a number, got ${describe(v)}`);
      w.uint32(tag(number, WIRE_FIXED64)).double(missing ? 0 : (v as number));
      return;
    case "bytes":
      if (typeof v !== "string") throw fail(path, `expected a base64 string, got ${describe(v)}`);
      w.uint32(tag(number, WIRE_LEN)).bytes(fromBase64(v, path));
      return;
  }
}

function encodeTime(v: unknown, micro: boolean, w: Writer, path: string): void {
  if (v === undefined || v === null) return; // zero time: empty message
  if (typeof v !== "string") throw fail(path, `expected a time string or null, got ${describe(v)}`);
  const t = parseTime(v, micro, path);
  // Go checks IsZero on the full time (fraction included) before dropping the nanos.
  if (isZeroTime(t)) return;
  w.uint32(tag(1, WIRE_VARINT)).int64(longOf(BigInt(t.seconds)));
  // Time never writes nanos (the field is still present, as 0); MicroTime keeps microseconds.
  w.uint32(tag(2, WIRE_VARINT)).int32(micro ? t.nanos - (t.nanos % 1000) : 0);
}

/** The body of a message-typed value (without tag and length). */
function encodeMessageBody(desc: MessageDesc, v: unknown, w: Writer, path: string): void {
  switch (desc.special) {
    case "time":
      return encodeTime(v, false, w, path);
    case "microTime":
      return encodeTime(v, true, w, path);
    case "fieldsV1":
    case "rawJson":
      // Raw holds the JSON text itself; null leaves Raw nil.
      if (v !== undefined && v !== null) w.uint32(tag(1, WIRE_LEN)).bytes(jsonBytes(v, path));
      return;
    case "schemaOrArray":
    case "schemaOrBool":
    case "schemaOrStringArray":
      return encodeSchemaUnion(desc, v, w, path);
    case "rawExtension":
      if (v !== undefined && v !== null) w.uint32(tag(1, WIRE_LEN)).bytes(embeddedBytes(v, path));
      return;
    case "stringList":
      return encodeStringList(v, w, path);
    case "intOrString":
      return encodeIntOrString(v, w, path);
    case undefined:
      if (v === undefined || v === null) return encodeFields(desc, {}, w, path);
      if (!isPlainObject(v)) throw fail(path, `expected an object, got ${describe(v)}`);
      return encodeFields(desc, v, w, path);
  }
}

/**
 * The apiextensions unions, from their JSON form (upstream marshal.go): OrArray takes an object
 * (schema) or an array (jSONSchemas); OrBool a boolean (allows) or an object (schema, and allows
 * true); OrStringArray an object (schema) or an array of strings (property). Any other value is
 * the zero union for the first and the last (their UnmarshalJSON ignores it) and an error for OrBool.
 */
function encodeSchemaUnion(desc: MessageDesc, v: unknown, w: Writer, path: string): void {
  const [first, second] = desc.byNumber as [FieldDesc, FieldDesc];
  if (desc.special === "schemaOrBool") {
    if (v !== undefined && v !== null && typeof v !== "boolean" && !isPlainObject(v)) throw fail(path, `boolean or JSON schema expected, got ${describe(v)}`);
    encodeScalar(first.number, "bool", v === undefined || v === null ? false : v === true || isPlainObject(v), w, path);
    if (isPlainObject(v)) encodeValue(second, v, w, path);
    return;
  }
  if (isPlainObject(v)) return encodeValue(first, v, w, path);
  if (!Array.isArray(v)) return;
  for (const [i, el] of v.entries()) encodeValue(second, el, w, `${path}[${i}]`);
}

function jsonBytes(v: unknown, path: string): Uint8Array {
  try {
    return utf8(JSON.stringify(v));
  } catch (e) {
    throw fail(path, `cannot be written as JSON: ${(e as Error).message}`);
  }
}

/**
 * RawExtension.raw for an embedded object: a kind with a protobuf form is embedded as a full
 * protobuf body (magic + Unknown), as the server's watch encoder does; anything else as compact
 * JSON text, which RawExtension allows (the golden core.v1.WatchEvent embeds JSON this way).
 */
function embeddedBytes(v: unknown, path: string): Uint8Array {
  if (isPlainObject(v)) {
    const apiVersion = own(v, "apiVersion");
    const kind = own(v, "kind");
    if (typeof apiVersion === "string" && typeof kind === "string" && apiVersion !== "" && kind !== "") {
      const entry = lookupKind(apiVersion, kind);
      if (entry) return envelope(entry, apiVersion, kind, encodeBody(entry.message, v, path));
    }
  }
  return jsonBytes(v, path);
}

/** The reference walk (fast-encode.ts compiles the same rules; this one names the path in its errors). */
function encodeBody(desc: MessageDesc, obj: Record<string, unknown>, path: string): Uint8Array {
  const w = protobufjsMinimal().Writer.create();
  encodeFields(desc, obj, w, path);
  return w.finish();
}

/** magic + runtime.Unknown{typeMeta{apiVersion(1), kind(2)}, raw(2), contentEncoding "", contentType ""}. */
function envelope(entry: KindEntry, apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobufjsMinimal().Writer.create();
  w.raw(MAGIC);
  w.uint32(tag(1, WIRE_LEN)).fork();
  w.uint32(tag(1, WIRE_LEN)).bytes(utf8(entry.emptyTypeMeta ? "" : apiVersion));
  w.uint32(tag(2, WIRE_LEN)).bytes(utf8(entry.emptyTypeMeta ? "" : kind));
  w.ldelim();
  w.uint32(tag(2, WIRE_LEN)).bytes(raw);
  w.uint32(tag(3, WIRE_LEN)).bytes(new Uint8Array(0));
  w.uint32(tag(4, WIRE_LEN)).bytes(new Uint8Array(0));
  return w.finish();
}

/** The kind entry for a JSON object, or a ProtobufFormatError naming what is missing. */
export function entryFor(obj: Record<string, unknown>): { entry: KindEntry; apiVersion: string; kind: string } {
  const apiVersion = own(obj, "apiVersion") ?? "";
  const kind = own(obj, "kind") ?? "";
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    throw new ProtobufFormatError("apiVersion and kind must be strings");
  }
  // Without TypeMeta only a WatchEvent ({type, object}) is meaningful; see registry.ts.
  if (apiVersion === "" && kind === "" && typeof own(obj, "type") !== "string") {
    throw new ProtobufFormatError("Object 'Kind' is missing: the object needs apiVersion and kind");
  }
  const entry = lookupKind(apiVersion, kind);
  if (!entry) {
    throw new ProtobufFormatError(
      `object kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
    );
  }
  return { entry, apiVersion, kind };
}

export function encodeEnveloped(obj: Record<string, unknown>): Uint8Array {
  const { entry, apiVersion, kind } = entryFor(obj);
  try {
    return fastEncodeEnveloped(entry.emptyTypeMeta ? "" : apiVersion, entry.emptyTypeMeta ? "" : kind, entry.message, obj);
  } catch (e) {
    if (e !== INVALID) throw e;
  }
  // Rejected: the walk throws the error with its path.
  return referenceEncodeEnveloped(obj);
}

/** A raw message (no envelope) of the given type, e.g. the WatchEvent of a watch frame. */
export function encodeMessage(desc: MessageDesc, obj: Record<string, unknown>, path: string): Uint8Array {
  try {
    return fastEncodeMessage(desc, obj);
  } catch (e) {
    if (e !== INVALID) throw e;
  }
  return encodeBody(desc, obj, path);
}

/** The length of encodeMessage's bytes, without copying them out. */
export function messageLength(desc: MessageDesc, obj: Record<string, unknown>, path: string): number {
  try {
    return fastMessageLength(desc, obj);
  } catch (e) {
    if (e !== INVALID) throw e;
  }
  return encodeBody(desc, obj, path).length;
}

/** Field `number` (length-delimited) holding encodeMessage's bytes: tag, length and message in one array. */
export function encodeMessageField(number: number, desc: MessageDesc, obj: Record<string, unknown>, path: string): Uint8Array {
  try {
    return fastEncodeField(number, desc, obj);
  } catch (e) {
    if (e !== INVALID) throw e;
  }
  const w = protobufjsMinimal().Writer.create();
  w.uint32(tag(number, WIRE_LEN)).bytes(encodeBody(desc, obj, path));
  return w.finish();
}

/** encodeEnveloped by the reference walk alone: for the errors' paths and for tests. */
export function referenceEncodeEnveloped(obj: Record<string, unknown>): Uint8Array {
  const { entry, apiVersion, kind } = entryFor(obj);
  return envelope(entry, apiVersion, kind, encodeBody(entry.message, obj, kind || "WatchEvent"));
}

/** encodeMessage by the reference walk alone (tests). */
export function referenceEncodeMessage(desc: MessageDesc, obj: Record<string, unknown>, path: string): Uint8Array {
  return encodeBody(desc, obj, path);
}

// ── decoding (protobuf -> JSON form) ──────────────────────────────────────────────────────

interface Occurrence {
  readonly varint?: bigint;
  readonly double?: number;
  readonly bytes?: Uint8Array;
}

function wireTypeOf(f: FieldDesc): number {
  if (f.type.kind !== "scalar" || f.type.scalar === "string" || f.type.scalar === "bytes") return WIRE_LEN;
  return f.type.scalar === "double" ? WIRE_FIXED64 : WIRE_VARINT;
}

/**
 * Splits a message into its known fields. Unknown numbers are skipped (proto2); a known
 * number with the wrong wire type, a truncated value or a bad varint is a format error.
 */
function readFields(desc: MessageDesc, bytes: Uint8Array, path: string): Map<number, Occurrence[]> {
  const out = new Map<number, Occurrence[]>();
  const r: Reader = protobufjsMinimal().Reader.create(bytes);
  try {
    while (r.pos < r.len) {
      const t = r.uint32();
      const number = t >>> 3;
      const wire = t & 7;
      if (number === 0) throw fail(path, "illegal field number 0");
      const f = desc.fieldForNumber.get(number);
      if (!f) {
        r.skipType(wire);
        continue;
      }
      if (wire !== wireTypeOf(f)) throw fail(`${path}.${f.name}`, `wrong wire type ${wire} for field ${number}`);
      const occ: Occurrence = wire === WIRE_VARINT ? { varint: bigOfLong(r.uint64()) } : wire === WIRE_FIXED64 ? { double: r.double() } : { bytes: r.bytes() };
      const list = out.get(number);
      if (list) list.push(occ);
      else out.set(number, [occ]);
    }
  } catch (e) {
    if (e instanceof ProtobufFormatError) throw e;
    throw fail(path, `malformed protobuf message: ${(e as Error).message}`);
  }
  return out;
}

function decodeScalar(scalar: ScalarKind, occ: Occurrence | undefined): unknown {
  switch (scalar) {
    case "string":
      return occ?.bytes ? utf8Decoder.decode(occ.bytes) : "";
    case "bool":
      return occ?.varint !== undefined && occ.varint !== 0n;
    case "int32":
      return Number(BigInt.asIntN(32, occ?.varint ?? 0n));
    case "int64":
      return int64Json(BigInt.asIntN(64, occ?.varint ?? 0n));
    case "double":
      return occ?.double ?? 0;
    case "bytes":
      return toBase64(occ?.bytes ?? new Uint8Array(0));
  }
}

function isZeroScalar(v: unknown): boolean {
  return v === "" || v === false || v === 0 || v === 0n;
}

function decodeTime(desc: MessageDesc, bytes: Uint8Array | undefined, micro: boolean, path: string): string | null {
  if (!bytes || bytes.length === 0) return null; // empty message = zero time
  const fields = readFields(desc, bytes, path);
  const seconds = Number(BigInt.asIntN(64, fields.get(1)?.at(-1)?.varint ?? 0n));
  const nanos = Number(BigInt.asIntN(32, fields.get(2)?.at(-1)?.varint ?? 0n));
  // Time ignores nanos on read (Go: time.Unix(seconds, 0)); MicroTime truncates to microseconds.
  let t: Timestamp = micro ? normaliseTimestamp(seconds, nanos) : { seconds, nanos: 0 };
  if (micro) t = { seconds: t.seconds, nanos: t.nanos - (t.nanos % 1000) };
  return isZeroTime(t) ? null : formatTime(t, micro, path);
}

function parseJsonBytes(bytes: Uint8Array, path: string): unknown {
  try {
    return JSON.parse(utf8Decoder.decode(bytes));
  } catch {
    throw fail(path, "raw value is neither a protobuf body nor JSON");
  }
}

/** The JSON form of one message-typed value; bytes undefined = field absent. */
function decodeMessageBody(desc: MessageDesc, bytes: Uint8Array | undefined, path: string): unknown {
  switch (desc.special) {
    case "time":
      return decodeTime(desc, bytes, false, path);
    case "microTime":
      return decodeTime(desc, bytes, true, path);
    case "fieldsV1":
    case "rawJson": {
      const raw = bytes ? readFields(desc, bytes, path).get(1)?.at(-1)?.bytes : undefined;
      // apiextensions JSON with empty Raw is written as null (its MarshalJSON).
      return raw === undefined || (desc.special === "rawJson" && raw.length === 0) ? null : parseJsonBytes(raw, path);
    }
    case "schemaOrArray":
    case "schemaOrBool":
    case "schemaOrStringArray":
      return decodeSchemaUnion(desc, bytes, path);
    case "rawExtension": {
      const raw = bytes ? readFields(desc, bytes, path).get(1)?.at(-1)?.bytes : undefined;
      if (raw === undefined) return null;
      return hasMagic(raw) ? decodeEnveloped(raw) : parseJsonBytes(raw, path);
    }
    case "stringList":
      return decodeStringList(bytes, path);
    case "intOrString": {
      // All three fields are non-pointers; type 1 means the string form.
      const fields = readFields(desc, bytes ?? new Uint8Array(0), path);
      if ((fields.get(1)?.at(-1)?.varint ?? 0n) === 1n) {
        const b = fields.get(3)?.at(-1)?.bytes;
        return b ? utf8Decoder.decode(b) : "";
      }
      return Number(BigInt.asIntN(32, fields.get(2)?.at(-1)?.varint ?? 0n));
    }
    case undefined:
      return decodeFields(desc, bytes ?? new Uint8Array(0), path);
  }
}

/** The JSON form of an apiextensions union (see encodeSchemaUnion): the schema wins over allows, the array over the schema. */
function decodeSchemaUnion(desc: MessageDesc, bytes: Uint8Array | undefined, path: string): unknown {
  const [first, second] = desc.byNumber as [FieldDesc, FieldDesc];
  const fields = readFields(desc, bytes ?? new Uint8Array(0), path);
  const one = (f: FieldDesc): unknown => {
    const list = fields.get(f.number) ?? [];
    const t = f.type as { kind: "message"; message: MessageDesc };
    return decodeMessageBody(t.message, concatBytes(list.map((o) => o.bytes ?? new Uint8Array(0))), `${path}.${f.name}`);
  };
  if (desc.special === "schemaOrBool") {
    if (fields.has(second.number)) return one(second);
    return (fields.get(first.number)?.at(-1)?.varint ?? 0n) !== 0n;
  }
  const many = fields.get(second.number) ?? [];
  if (many.length > 0) return many.map((occ, i) => decodeOccurrence(second, occ, `${path}[${i}]`));
  return fields.has(first.number) ? one(first) : null;
}

/** A `[]string` message: nil (JSON null) when it holds no strings, as Go's decoder leaves it. */
function decodeStringList(bytes: Uint8Array | undefined, path: string): string[] | null {
  const r: Reader = protobufjsMinimal().Reader.create(bytes ?? new Uint8Array(0));
  const out: string[] = [];
  try {
    while (r.pos < r.len) {
      const t = r.uint32();
      if (t >>> 3 === 1 && (t & 7) === WIRE_LEN) out.push(utf8Decoder.decode(r.bytes()));
      else if (t >>> 3 === 1) throw fail(path, `wrong wire type ${t & 7} for field 1`);
      else r.skipType(t & 7);
    }
  } catch (e) {
    if (e instanceof ProtobufFormatError) throw e;
    throw fail(path, `malformed protobuf message: ${(e as Error).message}`);
  }
  return out.length > 0 ? out : null;
}

export function decodeFields(desc: MessageDesc, bytes: Uint8Array, path: string): Record<string, unknown> {
  const occurrences = readFields(desc, bytes, path);
  const out: Record<string, unknown> = {};
  for (const f of desc.fields) {
    const list = occurrences.get(f.number) ?? [];
    const fpath = `${path}.${f.name}`;
    const t = f.type;
    if (t.kind === "map") {
      const m = decodeMapField(t.value, list, fpath);
      if (Object.keys(m).length > 0 || f.json === "always") out[f.name] = m;
      else if (f.json === "null") out[f.name] = null;
      continue;
    }
    if (f.repeated) {
      const arr = list.map((occ, i) => decodeOccurrence(f, occ, `${fpath}[${i}]`));
      if (arr.length > 0 || f.json === "always") out[f.name] = arr;
      else if (f.json === "null") out[f.name] = null;
      continue;
    }
    const present = list.length > 0;
    if (!present && f.pointer) {
      if (f.json === "null") out[f.name] = null;
      continue;
    }
    if (t.kind === "scalar") {
      if (!present && t.scalar === "bytes") {
        if (f.json === "always") out[f.name] = null; // nil []byte
        continue;
      }
      const v = decodeScalar(t.scalar, list.at(-1));
      if (!f.pointer && f.json === "omitempty" && isZeroScalar(v)) continue;
      out[f.name] = v;
      continue;
    }
    // A non-special message that occurs more than once is merged, which for protobuf is the
    // same as decoding the concatenated occurrences; special ones keep the last occurrence.
    const bytesOf = t.message.special === undefined && list.length > 1 ? concatBytes(list.map((o) => o.bytes ?? new Uint8Array(0))) : list.at(-1)?.bytes;
    const v = decodeMessageBody(t.message, bytesOf, fpath);
    if (!f.pointer && f.json === "omitzero" && v === null) continue;
    if (f.inline && isPlainObject(v)) {
      for (const [k, inner] of Object.entries(v)) setKey(out, k, inner);
      continue;
    }
    out[f.name] = v;
  }
  return out;
}

function decodeMapField(valueKind: MapValue, list: Occurrence[], path: string): Record<string, unknown> {
  const byKey = new Map<string, Uint8Array | undefined>();
  for (const occ of list) {
    const { kb, vb } = splitMapEntry(occ.bytes ?? new Uint8Array(0), path);
    byKey.set(utf8Decoder.decode(kb), vb); // duplicate keys: the last entry wins
  }
  // Go's encoding/json writes map keys sorted by their bytes.
  const sorted = [...byKey.entries()].sort((a, b) => compareUtf8(utf8(a[0]), utf8(b[0])));
  const out: Record<string, unknown> = {};
  for (const [k, v] of sorted) {
    // An absent value decodes to "" (gogo starts string and []byte values empty).
    const bytes = v ?? new Uint8Array(0);
    const epath = `${path}[${JSON.stringify(k)}]`;
    const value =
      typeof valueKind === "object"
        ? decodeMessageBody(valueKind, bytes, epath)
        : valueKind === "string"
          ? utf8Decoder.decode(bytes)
          : valueKind === "bytes"
            ? toBase64(bytes)
            : decodeStringList(bytes, epath);
    setKey(out, k, value);
  }
  return out;
}

function splitMapEntry(bytes: Uint8Array, path: string): { kb: Uint8Array; vb: Uint8Array | undefined } {
  const r: Reader = protobufjsMinimal().Reader.create(bytes);
  let kb: Uint8Array = new Uint8Array(0);
  let vb: Uint8Array | undefined;
  try {
    while (r.pos < r.len) {
      const t = r.uint32();
      const number = t >>> 3;
      if (number === 1 || number === 2) {
        if ((t & 7) !== WIRE_LEN) throw fail(path, `wrong wire type ${t & 7} in a map entry`);
        if (number === 1) kb = r.bytes();
        else vb = r.bytes();
      } else {
        r.skipType(t & 7);
      }
    }
  } catch (e) {
    if (e instanceof ProtobufFormatError) throw e;
    throw fail(path, `malformed map entry: ${(e as Error).message}`);
  }
  return { kb, vb };
}

function decodeOccurrence(f: FieldDesc, occ: Occurrence, path: string): unknown {
  const t = f.type;
  if (t.kind === "scalar") return decodeScalar(t.scalar, occ);
  if (t.kind === "message") return decodeMessageBody(t.message, occ.bytes, path);
  throw new Error(`codec: map field ${path} reached decodeOccurrence`);
}

export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  /** The serialized object (field 2 of runtime.Unknown). */
  readonly raw: Uint8Array;
  readonly contentEncoding: string;
  readonly contentType: string;
}

/** Checks the magic and splits the runtime.Unknown envelope, without decoding raw. */
export function parseEnvelope(bytes: Uint8Array): Envelope {
  if (!(bytes instanceof Uint8Array)) throw new ProtobufFormatError("a protobuf body must be a Uint8Array");
  if (!hasMagic(bytes)) {
    const got = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new ProtobufFormatError(`provided data does not appear to be a protobuf message, expected prefix 6b 38 73 00 ("k8s\\0"), got ${got || "no bytes"}`);
  }
  const fields = readFields(UNKNOWN(), bytes.subarray(4), "Unknown");
  const str = (m: Map<number, Occurrence[]>, n: number): string => {
    const b = m.get(n)?.at(-1)?.bytes;
    return b ? utf8Decoder.decode(b) : "";
  };
  const tm = fields.get(1)?.at(-1)?.bytes;
  const typeMeta = readFields(RUNTIME_TYPE_META(), tm ?? new Uint8Array(0), "Unknown.typeMeta");
  return {
    apiVersion: str(typeMeta, 1),
    kind: str(typeMeta, 2),
    raw: fields.get(2)?.at(-1)?.bytes ?? new Uint8Array(0),
    contentEncoding: str(fields, 3),
    contentType: str(fields, 4),
  };
}

/** How deep RawExtensions may nest objects (a WatchEvent in a WatchEvent ...) before we give up. */
const MAX_EMBEDDING_DEPTH = 16;
let embeddingDepth = 0;

export function decodeEnveloped(bytes: Uint8Array): Record<string, unknown> {
  if (embeddingDepth >= MAX_EMBEDDING_DEPTH) throw new ProtobufFormatError(`objects nested more than ${MAX_EMBEDDING_DEPTH} deep in RawExtensions`);
  embeddingDepth++;
  try {
    return decodeEnvelopedBody(bytes);
  } finally {
    embeddingDepth--;
  }
}

function decodeEnvelopedBody(bytes: Uint8Array): Record<string, unknown> {
  const env = parseEnvelope(bytes);
  if (env.contentEncoding !== "") throw new ProtobufFormatError(`unsupported contentEncoding ${JSON.stringify(env.contentEncoding)}`);
  if (env.contentType !== "" && env.contentType !== "application/vnd.kubernetes.protobuf") {
    throw new ProtobufFormatError(`unsupported contentType ${JSON.stringify(env.contentType)} in the envelope`);
  }
  const entry = lookupKind(env.apiVersion, env.kind);
  if (!entry) {
    throw new ProtobufFormatError(`no kind ${JSON.stringify(env.kind)} is registered for version ${JSON.stringify(env.apiVersion)}`);
  }
  const body = decodeFields(entry.message, env.raw, env.kind || "WatchEvent");
  if (env.apiVersion === "" && env.kind === "") return body;
  return { kind: env.kind, apiVersion: env.apiVersion, ...body };
}

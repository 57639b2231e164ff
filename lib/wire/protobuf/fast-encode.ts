/**
 * The JSON form -> protobuf encoder, compiled: one closure per message type and field, built
 * once from the description table, writing into one reused, growing buffer (issue #18: the
 * generic walk in codec.ts spent 70-150 µs an Event, mostly in a Uint8Array per string, a
 * protobufjs Writer op per field and a path string per field).
 *
 * It writes exactly the bytes of codec.ts's walk (the reference, kept: the property test in
 * test/wire/protobuf compares the two) and accepts no value the walk rejects. It carries no
 * paths: on anything it does not like it throws INVALID, and the caller re-runs the walk, which
 * then throws the error with its path (or, should the two ever disagree, gives its bytes).
 */
import type { FieldDesc, MapValue, MessageDesc, ScalarKind } from "./descriptors.js";
import { lookupKind } from "./registry.js";
import { parseCanonicalTime, parseTime, type Timestamp } from "./time.js";

/** Thrown for any value the reference walk would reject (or might treat differently). */
export const INVALID: unique symbol = Symbol("protobuf fast encoder: invalid value");

const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const GO_ZERO_SECONDS = -62135596800;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function tag(number: number, wire: number): number {
  return ((number << 3) | wire) >>> 0;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

function varintLength(n: number): number {
  let length = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 0x80)) length++;
  return length;
}

/** A growing buffer with protobuf's primitives; nested lengths are patched in place (ldelim). */
class Out {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A non-negative integer below 2^53 (tags, lengths, non-negative int32/int64). */
  varint(n: number): void {
    this.ensure(10);
    const buf = this.buf;
    let p = this.pos;
    let v = n;
    while (v >= 0x80) {
      buf[p++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[p++] = v;
    this.pos = p;
  }

  /** Any int64 as two's complement (a negative one takes 10 bytes, as Go writes it). */
  varintBig(b: bigint): void {
    this.ensure(10);
    let u = BigInt.asUintN(64, b);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  /** An int32 or int64 value given as a safe integer. */
  signed(n: number): void {
    if (n >= 0) this.varint(n);
    else this.varintBig(BigInt(n));
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** A length-delimited UTF-8 string (lone surrogates become U+FFFD, as TextEncoder does). */
  string(s: string): void {
    const n = s.length;
    if (n < 43) {
      // At most 126 bytes: the length fits one byte, written once the bytes are.
      this.ensure(1 + n * 3);
      const buf = this.buf;
      const start = this.pos + 1;
      let p = start;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          p = start + buf.write(s, start, "utf8");
          break;
        }
        buf[p++] = c;
      }
      buf[this.pos] = p - start;
      this.pos = p;
      return;
    }
    const length = Buffer.byteLength(s, "utf8");
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(s, this.pos, length, "utf8");
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Reserves one length byte; returns where it is, for ldelim. */
  fork(): number {
    this.ensure(1);
    return this.pos++;
  }

  ldelim(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    const extra = varintLength(length) - 1;
    this.ensure(extra);
    this.buf.copyWithin(at + 1 + extra, at + 1, this.pos);
    const end = this.pos + extra;
    this.pos = at;
    this.varint(length);
    this.pos = end;
  }
}

/** Writes one value (with or without its tag, per the encoder). */
type Enc = (v: unknown, out: Out) => void;
/** Writes one field of a message, reading it from the message's JSON object. */
type FieldEnc = (obj: Record<string, unknown>, out: Out) => void;

function own(obj: Record<string, unknown>, key: string): unknown {
  const v = obj[key];
  return v === undefined || Object.hasOwn(obj, key) ? v : undefined;
}

// ── scalars ───────────────────────────────────────────────────────────────────────────────

function intOf(v: unknown, bits: 32 | 64): number | bigint {
  if (typeof v === "number") {
    if (bits === 32) {
      if (Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) return v;
      throw INVALID;
    }
    if (Number.isSafeInteger(v)) return v;
    if (!Number.isInteger(v)) throw INVALID;
    return bigInRange(BigInt(v));
  }
  if (typeof v === "bigint") {
    if (bits === 32) {
      if (v >= BigInt(INT32_MIN) && v <= BigInt(INT32_MAX)) return Number(v);
      throw INVALID;
    }
    return bigInRange(v);
  }
  throw INVALID;
}

function bigInRange(b: bigint): bigint {
  if (b < INT64_MIN || b > INT64_MAX) throw INVALID;
  return b;
}

function base64Bytes(v: unknown): Uint8Array {
  if (typeof v !== "string") throw INVALID;
  const compact = v.replace(/[\r\n]/g, "");
  if (!BASE64.test(compact)) throw INVALID;
  return Buffer.from(compact, "base64");
}

/** One occurrence of a scalar field, tag included; undefined/null is the zero value. */
function scalarEncoder(number: number, scalar: ScalarKind): Enc {
  switch (scalar) {
    case "string": {
      const t = tag(number, WIRE_LEN);
      return (v, out) => {
        if (v === undefined || v === null) v = "";
        else if (typeof v !== "string") throw INVALID;
        out.varint(t);
        out.string(v as string);
      };
    }
    case "bool": {
      const t = tag(number, WIRE_VARINT);
      return (v, out) => {
        if (v !== undefined && v !== null && typeof v !== "boolean") throw INVALID;
        out.varint(t);
        out.byte(v === true ? 1 : 0);
      };
    }
    case "int32":
    case "int64": {
      const t = tag(number, WIRE_VARINT);
      const bits = scalar === "int32" ? 32 : 64;
      return (v, out) => {
        const n = v === undefined || v === null ? 0 : intOf(v, bits);
        out.varint(t);
        if (typeof n === "number") out.signed(n);
        else out.varintBig(n);
      };
    }
    case "double": {
      const t = tag(number, WIRE_FIXED64);
      return (v, out) => {
        if (v !== undefined && v !== null && (typeof v !== "number" || !Number.isFinite(v))) throw INVALID;
        out.varint(t);
        out.double(v === undefined || v === null ? 0 : (v as number));
      };
    }
    case "bytes": {
      const t = tag(number, WIRE_LEN);
      return (v, out) => {
        const b = base64Bytes(v);
        out.varint(t);
        out.bytes(b);
      };
    }
  }
}

// ── special messages (bodies, without tag and length) ─────────────────────────────────────

function timeOf(text: string, micro: boolean): Timestamp {
  const t = parseCanonicalTime(text, micro);
  if (t) return t;
  try {
    return parseTime(text, micro, "");
  } catch {
    throw INVALID;
  }
}

function timeBody(micro: boolean): Enc {
  return (v, out) => {
    if (v === undefined || v === null) return;
    if (typeof v !== "string") throw INVALID;
    const t = timeOf(v, micro);
    if (t.seconds === GO_ZERO_SECONDS && t.nanos === 0) return;
    out.varint(tag(1, WIRE_VARINT));
    out.signed(t.seconds);
    out.varint(tag(2, WIRE_VARINT));
    out.varint(micro ? t.nanos - (t.nanos % 1000) : 0);
  };
}

function jsonText(v: unknown): string {
  let text: unknown;
  try {
    text = JSON.stringify(v);
  } catch {
    throw INVALID;
  }
  if (typeof text !== "string") throw INVALID;
  return text;
}

const rawJsonBody: Enc = (v, out) => {
  if (v === undefined || v === null) return;
  out.varint(tag(1, WIRE_LEN));
  out.string(jsonText(v));
};

const stringListBody: Enc = (v, out) => {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) throw INVALID;
  for (const s of v) {
    if (typeof s !== "string") throw INVALID;
    out.varint(tag(1, WIRE_LEN));
    out.string(s);
  }
};

const intOrStringBody: Enc = (v, out) => {
  const isString = typeof v === "string";
  if (!isString && v !== undefined && v !== null && typeof v !== "number") throw INVALID;
  out.varint(tag(1, WIRE_VARINT));
  out.varint(isString ? 1 : 0);
  out.varint(tag(2, WIRE_VARINT));
  out.signed(isString || v === undefined || v === null ? 0 : (intOf(v, 32) as number));
  out.varint(tag(3, WIRE_LEN));
  out.string(isString ? (v as string) : "");
};

/** A RawExtension: an object of a kind with a protobuf form embedded as a full body, else JSON text. */
const rawExtensionBody: Enc = (v, out) => {
  if (v === undefined || v === null) return;
  out.varint(tag(1, WIRE_LEN));
  if (isPlainObject(v)) {
    const apiVersion = own(v, "apiVersion");
    const kind = own(v, "kind");
    if (typeof apiVersion === "string" && typeof kind === "string" && apiVersion !== "" && kind !== "") {
      const entry = lookupKind(apiVersion, kind);
      if (entry) {
        const at = out.fork();
        writeEnvelope(entry.emptyTypeMeta ? "" : apiVersion, entry.emptyTypeMeta ? "" : kind, entry.message, v, out);
        out.ldelim(at);
        return;
      }
    }
  }
  out.string(jsonText(v));
};

function schemaUnionBody(desc: MessageDesc): Enc {
  const [first, second] = desc.byNumber as [FieldDesc, FieldDesc];
  const secondEnc = lazy(() => valueEncoder(second));
  if (desc.special === "schemaOrBool") {
    const allows = scalarEncoder(first.number, "bool");
    return (v, out) => {
      const object = isPlainObject(v);
      if (v !== undefined && v !== null && typeof v !== "boolean" && !object) throw INVALID;
      allows(v === true || object, out);
      if (object) secondEnc()(v, out);
    };
  }
  const firstEnc = lazy(() => valueEncoder(first));
  return (v, out) => {
    if (isPlainObject(v)) return firstEnc()(v, out);
    if (!Array.isArray(v)) return;
    const enc = secondEnc();
    for (const el of v) enc(el, out);
  };
}

function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

// ── messages ──────────────────────────────────────────────────────────────────────────────

const bodies = new Map<MessageDesc, Enc>();
const fieldLists = new Map<MessageDesc, FieldEnc[]>();

/** The body of a message-typed value; undefined/null is the zero message. */
function bodyEncoder(desc: MessageDesc): Enc {
  let enc = bodies.get(desc);
  if (enc) return enc;
  switch (desc.special) {
    case "time":
      enc = timeBody(false);
      break;
    case "microTime":
      enc = timeBody(true);
      break;
    case "fieldsV1":
    case "rawJson":
      enc = rawJsonBody;
      break;
    case "schemaOrArray":
    case "schemaOrBool":
    case "schemaOrStringArray":
      enc = schemaUnionBody(desc);
      break;
    case "rawExtension":
      enc = rawExtensionBody;
      break;
    case "stringList":
      enc = stringListBody;
      break;
    case "intOrString":
      enc = intOrStringBody;
      break;
    case undefined: {
      const fields = lazy(() => fieldsOf(desc));
      enc = (v, out) => {
        if (v === undefined || v === null) v = EMPTY;
        else if (!isPlainObject(v)) throw INVALID;
        const list = fields();
        for (let i = 0; i < list.length; i++) (list[i] as FieldEnc)(v as Record<string, unknown>, out);
      };
      break;
    }
  }
  bodies.set(desc, enc);
  return enc;
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function fieldsOf(desc: MessageDesc): FieldEnc[] {
  let list = fieldLists.get(desc);
  if (!list) {
    list = desc.byNumber.map(fieldEncoder);
    fieldLists.set(desc, list);
  }
  return list;
}

/** One occurrence of field f, tag included. */
function valueEncoder(f: FieldDesc): Enc {
  const t = f.type;
  if (t.kind === "scalar") return scalarEncoder(f.number, t.scalar);
  if (t.kind !== "message") throw new Error(`protobuf: map field ${f.name} has no value encoder`);
  const fieldTag = tag(f.number, WIRE_LEN);
  const body = bodyEncoder(t.message);
  return (v, out) => {
    out.varint(fieldTag);
    const at = out.fork();
    body(v, out);
    out.ldelim(at);
  };
}

function fieldEncoder(f: FieldDesc): FieldEnc {
  const name = f.name;
  const t = f.type;
  if (t.kind === "map") {
    const entries = mapEncoder(f.number, t.value);
    return (obj, out) => {
      const v = own(obj, name);
      if (v !== undefined && v !== null) entries(v, out);
    };
  }
  const one = valueEncoder(f);
  if (f.repeated) {
    return (obj, out) => {
      const v = own(obj, name);
      if (v === undefined || v === null) return;
      if (!Array.isArray(v)) throw INVALID;
      for (let i = 0; i < v.length; i++) one(v[i], out);
    };
  }
  if (f.inline) return (obj, out) => one(obj, out);
  // Unset: a pointer stays out, and so does a nil []byte; anything else is written as its zero.
  const skipUnset = f.pointer || (t.kind === "scalar" && t.scalar === "bytes");
  return (obj, out) => {
    const v = own(obj, name);
    if ((v === undefined || v === null) && skipUnset) return;
    one(v, out);
  };
}

/** Go sorts map keys with sort.Strings: UTF-8 byte order, which is JS order unless a key has a surrogate or U+E000.. text. */
function sortedKeys(m: Record<string, unknown>): string[] {
  const keys = Object.keys(m);
  let plain = true;
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) {
      if (k.charCodeAt(i) >= 0xd800) {
        plain = false;
        break;
      }
    }
    if (!plain) break;
  }
  if (plain) return keys.sort();
  const bytes = new Map(keys.map((k) => [k, Buffer.from(k, "utf8")]));
  return keys.sort((a, b) => Buffer.compare(bytes.get(a) as Buffer, bytes.get(b) as Buffer));
}

function mapEncoder(number: number, value: MapValue): Enc {
  const entryTag = tag(number, WIRE_LEN);
  const valueTag = tag(2, WIRE_LEN);
  let writeValue: (val: unknown, out: Out) => void;
  if (value === "string") {
    writeValue = (val, out) => {
      if (val !== null && typeof val !== "string") throw INVALID;
      out.varint(valueTag);
      out.string((val as string | null) ?? "");
    };
  } else if (value === "bytes") {
    // A null []byte is nil in Go, and gogo leaves the value field of a nil entry out.
    writeValue = (val, out) => {
      if (val === null) return;
      const b = base64Bytes(val);
      out.varint(valueTag);
      out.bytes(b);
    };
  } else {
    const body = value === "stringList" ? stringListBody : bodyEncoder(value);
    writeValue = (val, out) => {
      out.varint(valueTag);
      const at = out.fork();
      body(val, out);
      out.ldelim(at);
    };
  }
  return (v, out) => {
    if (!isPlainObject(v)) throw INVALID;
    for (const k of sortedKeys(v)) {
      out.varint(entryTag);
      const at = out.fork();
      out.varint(tag(1, WIRE_LEN));
      out.string(k);
      writeValue(v[k], out);
      out.ldelim(at);
    }
  };
}

// ── entry points ──────────────────────────────────────────────────────────────────────────

/** magic + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding "", contentType ""}. */
function writeEnvelope(apiVersion: string, kind: string, desc: MessageDesc, obj: Record<string, unknown>, out: Out): void {
  out.ensure(4);
  for (const b of MAGIC) out.buf[out.pos++] = b;
  out.varint(tag(1, WIRE_LEN));
  const typeMeta = out.fork();
  out.varint(tag(1, WIRE_LEN));
  out.string(apiVersion);
  out.varint(tag(2, WIRE_LEN));
  out.string(kind);
  out.ldelim(typeMeta);
  out.varint(tag(2, WIRE_LEN));
  const raw = out.fork();
  bodyEncoder(desc)(obj, out);
  out.ldelim(raw);
  out.varint(tag(3, WIRE_LEN));
  out.varint(0);
  out.varint(tag(4, WIRE_LEN));
  out.varint(0);
}

/** One buffer reused by every call (encoding is synchronous); one that grew past this is let go. */
const KEEP_BYTES = 4 << 20;
let shared: Out | undefined;
let busy = false;

function run(write: (out: Out) => void): Uint8Array;
function run(write: (out: Out) => void, lengthOnly: true): number;
function run(write: (out: Out) => void, lengthOnly?: true): Uint8Array | number {
  const out = busy ? new Out(1024) : (shared ??= new Out(64 << 10));
  const mine = out === shared;
  busy ||= mine;
  out.pos = 0;
  try {
    write(out);
    if (lengthOnly) return out.pos;
    // A plain Uint8Array of its own (callers and tests see one type, and the buffer is reused).
    return new Uint8Array(out.buf.buffer, out.buf.byteOffset, out.pos).slice();
  } finally {
    if (mine) {
      busy = false;
      if (out.buf.length > KEEP_BYTES) shared = undefined;
    }
  }
}

/** The message bytes of obj as desc (no envelope). Throws INVALID where codec.ts's walk would throw. */
export function fastEncodeMessage(desc: MessageDesc, obj: Record<string, unknown>): Uint8Array {
  return run((out) => bodyEncoder(desc)(obj, out));
}

/** The enveloped body (TypeMeta as given: the caller applies emptyTypeMeta). */
export function fastEncodeEnveloped(apiVersion: string, kind: string, desc: MessageDesc, obj: Record<string, unknown>): Uint8Array {
  return run((out) => writeEnvelope(apiVersion, kind, desc, obj, out));
}

/** fastEncodeMessage's length alone (no copy out): a list measuring its items. */
export function fastMessageLength(desc: MessageDesc, obj: Record<string, unknown>): number {
  return run((out) => bodyEncoder(desc)(obj, out), true);
}

/** Field `number` holding obj as desc, tag and length first (a list's item, in one piece). */
export function fastEncodeField(number: number, desc: MessageDesc, obj: Record<string, unknown>): Uint8Array {
  return run((out) => {
    out.varint(tag(number, WIRE_LEN));
    const at = out.fork();
    bodyEncoder(desc)(obj, out);
    out.ldelim(at);
  });
}

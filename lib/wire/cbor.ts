/**
 * CBOR bodies as a Kubernetes server writes them (`application/cbor`, `application/cbor-seq`;
 * wire-facts §3, toolchain gotcha 9). The object has the same shape as its JSON form; only
 * the encoding differs.
 *
 * Encoding rules followed here:
 *  - every item starts with the self-described CBOR tag 55799 (`d9 d9 f7`);
 *  - map keys and strings are CBOR byte strings (major type 2), not text strings;
 *  - integers are CBOR integers in the shortest form: cbor-x writes a JS number of 2^32 or
 *    more as a float64, so such integers are handed to it as BigInt;
 *  - no indefinite lengths; null is `f6`; NaN and ±Infinity are refused like the server does;
 *  - non-integral numbers are float64. The server writes the shortest float that keeps the
 *    value (float16/32 when exact); cbor-x has no such mode (its float32 options round), so
 *    floats differ from the server's bytes but decode to the same value. Key order is the
 *    object's own order; the server shuffles map order on purpose, so byte-for-byte
 *    comparison with a real server is not possible anyway.
 *
 * Why the values are rewritten before cbor-x sees them: cbor-x always writes JS strings and
 * object keys as text strings (major type 3) and has no option for byte strings. It does
 * write a Uint8Array as a plain byte string (with `tagUint8Array: false`) and a `Map` with
 * whatever keys it holds, so strings become UTF-8 `Uint8Array`s and objects become `Map`s
 * keyed by UTF-8 bytes. Decoding goes the other way (see `decodeCbor`).
 */
import { createRequire } from "node:module";
import type { Decoder, Encoder, Tag as TagClass } from "cbor-x";
import { concatBytes } from "./bytes.js";

/** The self-described CBOR tag (RFC 8949 §3.4.6) every Kubernetes CBOR item starts with. */
const SELF_DESCRIBED_CBOR_TAG = 55799;

/** RFC 8949 §3.4.5.2 "expected later encoding" tags; Go []byte goes in tag 22 (base64). */
const TAG_BASE64URL = 21;
const TAG_BASE64 = 22;
const TAG_BASE16 = 23;

/** Thrown for input that is not a CBOR item of the Kubernetes wire form. */
export class CborDecodeError extends Error {
  override name = "CborDecodeError";
}

export interface EncodeCborOptions {
  /**
   * Sort map keys as RFC 8949 §4.2.1 core deterministic encoding does (by the encoded key:
   * shorter first, then bytewise), which is what the server's deterministic mode does.
   * Default false: keys keep the object's order.
   */
  deterministic?: boolean;
}

export interface DecodeCborOptions {
  /**
   * Integers outside ±(2^53 - 1): `"number"` (default) rounds them to the nearest double,
   * as `JSON.parse` does with the JSON form; `"bigint"` returns them exactly as BigInt.
   */
  bigIntegers?: "number" | "bigint";
}

// One encoder/decoder per module, configured once. `useRecords: false` and `pack: false`
// keep cbor-x's own extensions (record tags, shared structures) out of the bytes. Made at the
// first CBOR body, not at load: CBOR is off by default, and cbor-x (with its native extractor)
// cost every emulator start 15-20 ms. Its CommonJS build, of the same version and sources.
let cborX: { encoder: Encoder; decoder: Decoder; Tag: typeof TagClass } | undefined;
function cbor(): NonNullable<typeof cborX> {
  if (!cborX) {
    const { Decoder, Encoder, Tag } = createRequire(import.meta.url)("cbor-x") as typeof import("cbor-x");
    const encoder = new Encoder({
      useRecords: false,
      mapsAsObjects: false,
      variableMapSize: true,
      tagUint8Array: false,
      useSelfDescribedHeader: true,
      pack: false,
      structuredClone: false,
    });
    cborX = { encoder, decoder: new Decoder({ useRecords: false, mapsAsObjects: false }), Tag };
  }
  return cborX;
}

const utf8 = new TextEncoder();
// fatal: invalid UTF-8 is an error, not U+FFFD; ignoreBOM: a leading U+FEFF is data.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const TWO_32 = 2 ** 32;
const TWO_63 = 2 ** 63;

/** The value as cbor-x should write it (see the module comment). */
function toWire(value: unknown, path: string, deterministic: boolean): unknown {
  switch (typeof value) {
    case "string":
      return utf8.encode(value);
    case "boolean":
      return value;
    case "bigint":
      return value;
    case "number": {
      if (!Number.isFinite(value)) throw new TypeError(`encodeCbor: ${value} at ${path || "<root>"} has no CBOR form (the server refuses NaN and Infinity)`);
      // Integers in the int64 range go out as integers. Beyond ±2^32 cbor-x would write a
      // float64, so pass a BigInt; beyond int64 the JSON decoder of the server would have a
      // float64 too, so leave those as floats.
      if (Number.isInteger(value) && Math.abs(value) >= TWO_32 && value >= -TWO_63 && value < TWO_63) return BigInt(value);
      return value;
    }
    case "object": {
      if (value === null) return null;
      if (value instanceof Uint8Array) return new (cbor().Tag)(value, TAG_BASE64); // a Go []byte
      if (Array.isArray(value)) {
        // As JSON.stringify: a missing or undefined element is null.
        return Array.from(value, (v, i) => (v === undefined ? null : toWire(v, `${path}[${i}]`, deterministic)));
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError(`encodeCbor: ${describe(value)} at ${path || "<root>"} is not a JSON-like value`);
      }
      let entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [utf8.encode(k), toWire(v, path ? `${path}.${k}` : k, deterministic)] as const);
      if (deterministic) entries = entries.sort(([a], [b]) => compareEncodedKeys(a, b));
      return new Map<Uint8Array, unknown>(entries);
    }
    default:
      throw new TypeError(`encodeCbor: ${typeof value} at ${path || "<root>"} is not a JSON-like value`);
  }
}

/** Order of two byte-string keys by their encoding: the length header first, then bytes. */
function compareEncodedKeys(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

function describe(v: object): string {
  return v.constructor?.name ?? Object.prototype.toString.call(v);
}

/** Encodes a JSON-like value the way the server writes `application/cbor`. A `Uint8Array`
 * is taken as a Go []byte: a byte string in tag 22, which decodes back to its base64 text. */
export function encodeCbor(value: unknown, options: EncodeCborOptions = {}): Uint8Array {
  const wire = toWire(value, "", options.deterministic ?? false);
  return new Uint8Array(cbor().encoder.encode(wire));
}

/** A watch event as it travels in a cbor-seq stream. */
export interface CborWatchEvent {
  type: string;
  object: unknown;
}

function isWatchEvent(item: unknown): item is CborWatchEvent {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
  const keys = Object.keys(item);
  return keys.length === 2 && keys.includes("type") && keys.includes("object") && typeof (item as CborWatchEvent).type === "string";
}

/** One watch event: `d9d9f7` + map{type, object}, where `object` is an embedded CBOR item
 * that carries its own `d9d9f7` (RawExtension keeps the tag; wire-facts §3). */
export function encodeWatchEventCbor(event: CborWatchEvent, options: EncodeCborOptions = {}): Uint8Array {
  const deterministic = options.deterministic ?? false;
  const entries: [Uint8Array, unknown][] = [
    [utf8.encode("type"), utf8.encode(event.type)],
    [utf8.encode("object"), new (cbor().Tag)(toWire(event.object, "object", deterministic), SELF_DESCRIBED_CBOR_TAG)],
  ];
  if (deterministic) entries.sort(([a], [b]) => compareEncodedKeys(a, b));
  return new Uint8Array(cbor().encoder.encode(new Map(entries)));
}

/**
 * An `application/cbor-seq` body (RFC 8742): the items simply concatenated, no framing.
 * An item shaped like a watch event (exactly the keys `type`, a string, and `object`) is
 * written by `encodeWatchEventCbor`, so its object keeps its own self-described tag, as in
 * a real watch stream; anything else by `encodeCbor`.
 */
export function encodeCborSeq(items: readonly unknown[], options: EncodeCborOptions = {}): Uint8Array {
  const parts = items.map((item) => (isWatchEvent(item) ? encodeWatchEventCbor(item, options) : encodeCbor(item, options)));
  return concatBytes(parts);
}

/**
 * Turns what cbor-x decoded into the JSON form. The rule for strings: the server writes every
 * Go string (and every field name) as an untagged byte string, and the JSON form has no
 * binary type, so an untagged byte string becomes a string when it is valid UTF-8, and is an
 * error otherwise. A byte string inside tag 22/21/23 is a Go []byte; its JSON form is the
 * base64 / base64url (unpadded) / hex text, which is what it becomes. Text strings are
 * accepted as they are. Map keys may be byte or text strings; two keys naming the same
 * string are an error (the server's decoder rejects duplicate keys).
 */
function fromWire(v: unknown, path: string, opts: Required<DecodeCborOptions>): unknown {
  const where = path || "<root>";
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new CborDecodeError(`CBOR ${v} at ${where} has no JSON form`);
    return v;
  }
  if (typeof v === "bigint") {
    if (opts.bigIntegers === "bigint" && (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER))) return v;
    return Number(v);
  }
  if (v instanceof Uint8Array) return bytesToString(v, where);
  if (Array.isArray(v)) return v.map((x, i) => fromWire(x, `${path}[${i}]`, opts));
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) {
      let key: string;
      if (typeof k === "string") key = k;
      else if (k instanceof Uint8Array) key = bytesToString(k, `a key in ${where}`);
      else throw new CborDecodeError(`CBOR map key of type ${typeof k} in ${where}: keys must be strings`);
      if (Object.hasOwn(out, key)) throw new CborDecodeError(`CBOR map ${where} has the key ${JSON.stringify(key)} twice`);
      // defineProperty so that a "__proto__" key is an own property, as with JSON.parse.
      Object.defineProperty(out, key, { value: fromWire(x, path ? `${path}.${key}` : key, opts), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (v instanceof cbor().Tag && v.value instanceof Uint8Array) {
    const bytes = v.value;
    if (v.tag === TAG_BASE64) return Buffer.from(bytes).toString("base64");
    if (v.tag === TAG_BASE64URL) return Buffer.from(bytes).toString("base64url");
    if (v.tag === TAG_BASE16) return Buffer.from(bytes).toString("hex");
  }
  const what = v instanceof cbor().Tag ? `tag ${v.tag}` : typeof v === "object" ? describe(v) : typeof v;
  throw new CborDecodeError(`CBOR ${what} at ${where} is not part of the Kubernetes wire form`);
}

function bytesToString(bytes: Uint8Array, where: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new CborDecodeError(`CBOR byte string at ${where} is not valid UTF-8 and has no base64/base16 tag, so it has no JSON form`);
  }
}

interface CborXError {
  message?: unknown;
  incomplete?: unknown;
  lastPosition?: unknown;
}

function describeCborXError(e: unknown): { message: string; incomplete: boolean; lastPosition: number } {
  const err = (typeof e === "object" && e !== null ? e : {}) as CborXError;
  return {
    message: typeof err.message === "string" ? err.message : String(e),
    incomplete: err.incomplete === true,
    lastPosition: typeof err.lastPosition === "number" ? err.lastPosition : 0,
  };
}

/**
 * Decodes one `application/cbor` body into its JSON form (see `fromWire` for strings).
 * The `d9d9f7` prefix may be present or not. Anything after the first item is an error:
 * a body holds exactly one item (sequences are `application/cbor-seq`).
 */
export function decodeCbor(bytes: Uint8Array, options: DecodeCborOptions = {}): unknown {
  if (bytes.length === 0) throw new CborDecodeError("empty CBOR input: expected one data item");
  let items: unknown[];
  try {
    // decodeMultiple, not decode: it tells where the trailing data starts.
    items = (cbor().decoder.decodeMultiple(bytes) as unknown[] | undefined) ?? [];
  } catch (e) {
    const { message, incomplete, lastPosition } = describeCborXError(e);
    if (lastPosition > 0)
      throw new CborDecodeError(`trailing bytes after the CBOR data item: ${bytes.length - lastPosition} byte(s) at offset ${lastPosition}`);
    if (incomplete) throw new CborDecodeError(`truncated CBOR: the data item is cut off after ${bytes.length} byte(s)`);
    throw new CborDecodeError(`malformed CBOR: ${message}`);
  }
  if (items.length !== 1) throw new CborDecodeError(`trailing bytes after the CBOR data item: ${items.length - 1} more item(s) follow the first`);
  return fromWire(items[0], "", { bigIntegers: options.bigIntegers ?? "number" });
}

/**
 * Reads an `application/cbor-seq` stream (a CBOR watch) from chunks cut anywhere. `push`
 * returns the items completed by that chunk, each in its JSON form (a watch event's embedded
 * object loses its self-described tag, like the outer item). `end` checks that the stream
 * did not stop inside an item. After a malformed item the reader stays failed.
 */
export class CborSeqReader {
  #pending: Uint8Array = new Uint8Array(0);
  #consumed = 0;
  #failed: CborDecodeError | undefined;
  readonly #opts: Required<DecodeCborOptions>;

  constructor(options: DecodeCborOptions = {}) {
    this.#opts = { bigIntegers: options.bigIntegers ?? "number" };
  }

  push(chunk: Uint8Array): unknown[] {
    if (this.#failed) throw this.#failed;
    if (chunk.length === 0) return [];
    const buf = new Uint8Array(this.#pending.length + chunk.length);
    buf.set(this.#pending, 0);
    buf.set(chunk, this.#pending.length);
    const raw: unknown[] = [];
    let keepFrom = buf.length;
    try {
      cbor().decoder.decodeMultiple(buf, (item: unknown) => {
        raw.push(item);
      });
    } catch (e) {
      const { message, incomplete, lastPosition } = describeCborXError(e);
      if (!incomplete) {
        this.#failed = new CborDecodeError(`malformed CBOR in the sequence at stream offset ${this.#consumed + lastPosition}: ${message}`);
        throw this.#failed;
      }
      // The last item is not complete yet: keep its bytes for the next chunk.
      keepFrom = lastPosition;
    }
    this.#pending = buf.slice(keepFrom);
    this.#consumed += keepFrom;
    try {
      return raw.map((item) => fromWire(item, "", this.#opts));
    } catch (e) {
      this.#failed = e instanceof CborDecodeError ? e : new CborDecodeError(String(e));
      throw this.#failed;
    }
  }

  /** Bytes received but not yet part of a complete item. */
  get bufferedBytes(): number {
    return this.#pending.length;
  }

  /** Call when the stream ends: an unfinished item is an error. */
  end(): void {
    if (this.#failed) throw this.#failed;
    if (this.#pending.length > 0)
      throw new CborDecodeError(`CBOR sequence ended inside an item (${this.#pending.length} byte(s) left at stream offset ${this.#consumed})`);
  }
}

/**
 * A protobuf list body written item by item (doc1 rule 4: "JSON and binary collection
 * responses are encoded item by item"; apimachinery's streaming protobuf collection encoder).
 *
 * The body is `6b 38 73 00` + runtime.Unknown{1: typeMeta, 2: raw, 3: "", 4: ""} where raw is
 * the list message {1: ListMeta, 2: item, 2: item, …}. Every length-delimited field needs its
 * length before its bytes, so the lengths are worked out first (each item encoded once to
 * measure it, then dropped) and the bytes are made again as they are written: memory stays at
 * one item and a number per item, like the Go encoder, which asks each item its Size() first.
 *
 * Only the envelope framing is written here; every message byte comes from the shared codec
 * (lib/wire): the head from the list with no items (encodeObject), each item from its own
 * message (the raw an envelope would hold). The result is byte-for-byte encodeObject(the whole
 * list) (unit-tested). Items of stored entries are encoded once and their fields kept with the
 * entries (ItemFields), so a later list copies them.
 */
import { encodeMessageField, entryFor, messageLength } from "../../wire/protobuf/codec.js";
import { decodeEnvelope, encodeObject, ProtobufFormatError } from "../../wire/protobuf/index.js";

/** Field 2 (raw, and the list's items), wire type 2: (2 << 3) | 2. */
const TAG_RAW_OR_ITEMS = 0x12;
/** Unknown fields 3 and 4 (contentEncoding, contentType), both written empty. */
const ENVELOPE_TAIL = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

function varint(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

function varintLength(n: number): number {
  let length = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 0x80)) length++;
  return length;
}

/** Reads the varint at `at`: its value and the offset after it. */
function readVarint(bytes: Uint8Array, at: number): { value: number; end: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length && i < at + 10; i++) {
    const b = bytes[i] as number;
    value += (b & 0x7f) * scale;
    scale *= 0x80;
    if (b < 0x80) return { value, end: i + 1 };
  }
  throw new ProtobufFormatError("protobuf list: bad varint in the envelope");
}

type Entry = ReturnType<typeof entryFor>;

/** The size of the pieces Chunker makes: the body writer's chunk (http-io.ts). */
const CHUNK_BYTES = 64 * 1024;

/**
 * The pieces gathered into fresh chunks of CHUNK_BYTES (a piece that does not fit ends the
 * chunk; a larger one goes alone). Each chunk is handed over once made and never written again.
 */
function* packed(pieces: Iterable<Uint8Array>): Generator<Uint8Array> {
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (const piece of pieces) {
    if (used > 0 && used + piece.length > CHUNK_BYTES) {
      yield chunk.subarray(0, used);
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      used = 0;
    }
    if (piece.length >= CHUNK_BYTES) {
      yield piece;
      continue;
    }
    chunk.set(piece, used);
    used += piece.length;
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/**
 * The kind entry of each item, looked up once per apiVersion/kind in a row (a list's items
 * share theirs): the item message is its envelope's raw, made without the envelope.
 */
function entries(): (item: Record<string, unknown>) => Entry {
  let last: Entry | undefined;
  return (item) => {
    if (
      last &&
      last.kind !== "" &&
      item["apiVersion"] === last.apiVersion &&
      item["kind"] === last.kind &&
      Object.hasOwn(item, "kind") &&
      Object.hasOwn(item, "apiVersion")
    )
      return last;
    last = entryFor(item);
    return last;
  };
}

/**
 * The items of a list made from stored entries, by index, with each item's encoded field
 * (tag, length, message) kept from an earlier list of the same entry (the writer keeps them per
 * stored entry, which never changes: a write makes a new one). A kept item is copied, not
 * decoded and encoded again: that is what makes a repeated protobuf list cost about what a
 * stream of ready bytes costs (issue #18).
 */
export interface ItemFields {
  readonly count: number;
  /** Item `index`, decoded. */
  item(index: number): Record<string, unknown>;
  /** The field kept for item `index`, if any. */
  known(index: number): Uint8Array | undefined;
  /** Offers item `index`'s field for keeping; false when it is not kept (a memory bound). */
  remember(index: number, field: Uint8Array): boolean;
}

/**
 * The body of `{...head, items}` as pieces. `head` carries kind, apiVersion and metadata;
 * `items` is called twice (measure, then write) and must yield the same objects both times.
 * With `fields` (a list of stored entries), items come from it by index instead, and each is
 * encoded at most once per list (twice only when its field was not kept).
 */
export function* protobufListPieces(head: Record<string, unknown>, items: () => Iterable<Record<string, unknown>>, fields?: ItemFields): Generator<Uint8Array> {
  const empty = encodeObject({ ...head, items: [] });
  // magic (4 bytes), then field 1 (0a, length, runtime.TypeMeta): copied as the codec wrote it.
  if (empty[4] !== 0x0a) throw new ProtobufFormatError("protobuf list: unexpected envelope layout");
  const typeMeta = readVarint(empty, 5);
  const prefix = empty.subarray(0, typeMeta.end + typeMeta.value);
  const listHead = decodeEnvelope(empty).raw;
  const entryOf = entries();
  const encodeItem = (item: Record<string, unknown>): Uint8Array => {
    const { entry, kind } = entryOf(item);
    // Field 2 of the list: tag, length and message in one piece.
    return encodeMessageField(2, entry.message, item, kind || "WatchEvent");
  };
  if (fields) {
    // Measure: a kept field has its length; another is encoded once and offered for keeping
    // (memory: the kept fields, which stay with their entries, and one item at a time).
    const sizes: number[] = new Array(fields.count);
    let rawLength = listHead.length;
    for (let i = 0; i < fields.count; i++) {
      let field = fields.known(i);
      if (!field) {
        field = encodeItem(fields.item(i));
        fields.remember(i, field);
      }
      sizes[i] = field.length;
      rawLength += field.length;
    }
    // Copied into chunks of the writer's size: one piece per 64 KB instead of one per item.
    yield* packed(
      (function* (): Generator<Uint8Array> {
        yield prefix;
        yield Uint8Array.of(TAG_RAW_OR_ITEMS, ...varint(rawLength));
        yield listHead;
        for (let i = 0; i < fields.count; i++) {
          const field = fields.known(i) ?? encodeItem(fields.item(i));
          if (field.length !== sizes[i]) throw new ProtobufFormatError("protobuf list: an item changed between measuring and writing");
          yield field;
        }
        yield ENVELOPE_TAIL;
      })(),
    );
    return;
  }
  const lengths: number[] = [];
  for (const item of items()) {
    const { entry, kind } = entryOf(item);
    lengths.push(messageLength(entry.message, item, kind || "WatchEvent"));
  }
  let rawLength = listHead.length;
  for (const n of lengths) rawLength += 1 + varintLength(n) + n;
  yield prefix;
  yield Uint8Array.of(TAG_RAW_OR_ITEMS, ...varint(rawLength));
  yield listHead;
  let i = 0;
  for (const item of items()) {
    const field = encodeItem(item);
    const n = lengths[i++] as number;
    if (field.length !== 1 + varintLength(n) + n) throw new ProtobufFormatError("protobuf list: an item changed between measuring and writing");
    yield field;
  }
  if (i !== lengths.length) throw new ProtobufFormatError("protobuf list: the items changed between measuring and writing");
  yield ENVELOPE_TAIL;
}

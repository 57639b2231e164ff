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
 * list) (unit-tested). Lengths known from an earlier list of the same stored entries spare the
 * measuring pass (ItemLengths).
 */
import { encodeMessage, entryFor } from "../../wire/protobuf/codec.js";
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

/** The message bytes of one object: its envelope's raw, made without the envelope (and its two copies). */
function messageOf(item: Record<string, unknown>): Uint8Array {
  const { entry, kind } = entryFor(item);
  return encodeMessage(entry.message, item, kind || "WatchEvent");
}

/**
 * Message lengths known from an earlier list of the same entries (the writer of an object list
 * keeps them per stored entry): when every item's is known, the measuring pass, which decodes
 * and encodes every item only to count its bytes, is skipped.
 */
export interface ItemLengths {
  readonly count: number;
  known(index: number): number | undefined;
  remember(index: number, length: number): void;
}

function knownLengths(lengths: ItemLengths | undefined): number[] | undefined {
  if (!lengths) return undefined;
  const out: number[] = new Array(lengths.count);
  for (let i = 0; i < lengths.count; i++) {
    const n = lengths.known(i);
    if (n === undefined) return undefined;
    out[i] = n;
  }
  return out;
}

/**
 * The body of `{...head, items}` as pieces. `head` carries kind, apiVersion and metadata;
 * `items` is called twice (measure, then write) and must yield the same objects both times.
 */
export function* protobufListPieces(
  head: Record<string, unknown>,
  items: () => Iterable<Record<string, unknown>>,
  itemLengths?: ItemLengths,
): Generator<Uint8Array> {
  const empty = encodeObject({ ...head, items: [] });
  // magic (4 bytes), then field 1 (0a, length, runtime.TypeMeta): copied as the codec wrote it.
  if (empty[4] !== 0x0a) throw new ProtobufFormatError("protobuf list: unexpected envelope layout");
  const typeMeta = readVarint(empty, 5);
  const prefix = empty.subarray(0, typeMeta.end + typeMeta.value);
  const listHead = decodeEnvelope(empty).raw;
  let lengths = knownLengths(itemLengths);
  if (!lengths) {
    lengths = [];
    for (const item of items()) {
      const n = messageOf(item).length;
      itemLengths?.remember(lengths.length, n);
      lengths.push(n);
    }
  }
  let rawLength = listHead.length;
  for (const n of lengths) rawLength += 1 + varintLength(n) + n;
  yield prefix;
  yield Uint8Array.of(TAG_RAW_OR_ITEMS, ...varint(rawLength));
  yield listHead;
  let i = 0;
  for (const item of items()) {
    const bytes = messageOf(item);
    if (bytes.length !== lengths[i++]) throw new ProtobufFormatError("protobuf list: an item changed between measuring and writing");
    yield Uint8Array.of(TAG_RAW_OR_ITEMS, ...varint(bytes.length));
    yield bytes;
  }
  if (i !== lengths.length) throw new ProtobufFormatError("protobuf list: the items changed between measuring and writing");
  yield ENVELOPE_TAIL;
}

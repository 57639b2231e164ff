/**
 * Answers in the negotiated representation and encoding (apiserver@v0.35.7
 * pkg/endpoints/handlers/response.go transformResponseObject, responsewriters):
 *
 *  - representation: the object itself, PartialObjectMetadata(List), or a Table. A Status is
 *    never transformed. A list asked for as PartialObjectMetadata, or one object asked for as
 *    PartialObjectMetadataList, is 406 (negotiation accepts both forms on every endpoint; the
 *    transformation refuses). The Table's includeObject is read (and a bad value refused with
 *    400) only when the answer is written, after the verb's own work, as upstream does;
 *  - encoding: JSON (compact, or indented for pretty), YAML, protobuf, CBOR (gate on);
 *  - lists: JSON and protobuf go out item by item (never whole in memory); YAML, CBOR and
 *    Tables are built whole, as the real server builds them;
 *  - gzip for bodies over 128 KiB when asked (http-io writeBody).
 */
import { encodeCbor } from "../../../wire/cbor.js";
import { encodeObject, ProtobufFormatError } from "../../../wire/protobuf/index.js";
import { isStatus, type Status } from "../../../wire/status.js";
import { toYaml } from "../../../wire/yaml.js";
import { badRequest, notAcceptableMessage } from "../../apimachinery/api-errors.js";
import { errorString, invalid as invalidField } from "../../apimachinery/field-errors.js";
import {
  collectionJsonPieces,
  compactJson,
  compactJsonOfText,
  escapeLikeGo,
  type Json,
  type JsonObject,
  type KubeObject,
  prettyJson,
} from "../../apimachinery/json.js";
import { groupVersionOf, type TableConvertor, type TypeIdentity } from "../../registry/generic/strategy.js";
import { buildTable, type IncludeObject, type ListMetaInit, partialObjectMetadata, printerOf, type TableOptions } from "../../registry/generic/table.js";
import type { ObjectStorage, StoredObject } from "../../storage/object-storage.js";
import type { KeyValue } from "../../storage/store.js";
import { type BodyPiece, writeBody } from "../http-io.js";
import { contentTypeOf, type Encoding, META_GROUP, type MetaVersion, type Representation } from "../negotiation.js";
import { type ItemFields, protobufListPieces } from "../protobuf-list.js";
import type { RequestContext } from "./context.js";

/** `meta.k8s.io/v1` (or v1beta1): the apiVersion of Tables and PartialObjectMetadata. */
export function metaApiVersion(version: MetaVersion): string {
  return `${META_GROUP}/${version}`;
}

/**
 * Encodes one body. A kind the protobuf codec does not know is refused with 406, as the real
 * serializer's "does not implement the protobuf marshalling interface" is (wire-facts §1.5);
 * negotiation keeps the known cases (Table) from getting here.
 */
export function encodeBody(encoding: Encoding, body: object, pretty: boolean): Buffer {
  switch (encoding) {
    case "json":
      return Buffer.from(pretty ? prettyJson(body) : compactJson(body), "utf8");
    case "yaml":
      return Buffer.from(toYaml(body), "utf8");
    case "protobuf":
      try {
        return asBuffer(encodeObject(body as Record<string, unknown>));
      } catch (e) {
        if (e instanceof ProtobufFormatError) throw notAcceptableMessage(e.message);
        throw e;
      }
    case "cbor":
      return asBuffer(encodeCbor(body));
  }
}

/** A Buffer view of the bytes, without copying. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

const INCLUDE_OBJECT: readonly string[] = ["Metadata", "Object", "None"];

/**
 * TableOptions from the query (optionsForTransform + ValidateTableOptions): includeObject must
 * be Metadata, Object, None or empty (the default, Metadata); anything else is 400.
 */
export function tableOptionsOf(url: URL): TableOptions {
  const raw = url.searchParams.get("includeObject") ?? "";
  if (raw !== "" && !INCLUDE_OBJECT.includes(raw)) {
    const error = invalidField("includeObject", raw, "must be 'Metadata', 'Object', 'None', or empty");
    throw badRequest(`Unable to convert to Table as requested: ${errorString(error)}`);
  }
  return { includeObject: (raw === "" ? "Metadata" : raw) as IncludeObject, noHeaders: false };
}

/** The Go type name an upstream message shows for the internal object (`*core.ConfigMap`). */
function internalTypeName(strategy: Pick<TypeIdentity, "internalKind">, list: boolean): string {
  const group = strategy.internalKind.group;
  const pkg = group === "" ? "core" : (group.split(".")[0] ?? group);
  return `*${pkg}.${strategy.internalKind.kind}${list ? "List" : ""}`;
}

/**
 * One object (not a Status) in the requested representation. `now` is the server clock, for
 * the Table's time cells.
 */
function transformObject(
  strategy: Pick<TypeIdentity, "internalKind"> & TableConvertor,
  o: KubeObject,
  representation: Representation,
  tableOptions: TableOptions | undefined,
  nowMs: number,
): JsonObject {
  switch (representation.as) {
    case "object":
      return o;
    case "PartialObjectMetadata":
      return partialObjectMetadata(o, metaApiVersion(representation.version));
    case "PartialObjectMetadataList":
      throw notAcceptableMessage(`you requested PartialObjectMetadataList, but the requested object is not a list (${internalTypeName(strategy, false)})`);
    case "Table":
      return buildTable(
        printerOf(strategy),
        [o],
        undefined,
        metaApiVersion(representation.version),
        tableOptions ?? { includeObject: "Metadata", noHeaders: false },
        nowMs,
      );
  }
}

/** The Content-Type of an answer: contentTypeOf its encoding, unless a failpoint mislabels it (failpoints.ts). */
function answerContentType(ctx: RequestContext, encoding: Encoding): string {
  const { failpoints } = ctx.parts.settings;
  const rep = ctx.negotiated.representation;
  if (failpoints.has("yaml-labelled-json") && encoding === "yaml") return contentTypeOf("json");
  if (failpoints.has("table-content-type-with-params") && rep.as === "Table") {
    return `${contentTypeOf(encoding)};as=Table;g=${META_GROUP};v=${rep.version}`;
  }
  return contentTypeOf(encoding);
}

function writeEncoded(ctx: RequestContext, code: number, body: object, headers?: Record<string, string | string[]>): Promise<void> {
  const { encoding } = ctx.negotiated;
  const bytes = encodeBody(encoding, body, ctx.pretty);
  return writeBody(ctx.res, code, [bytes], { contentType: answerContentType(ctx, encoding), headers, gzip: ctx.gzip });
}

/** Writes one object, or a Status (never transformed), as negotiated. */
export function writeObject(ctx: RequestContext, code: number, body: KubeObject | Status, headers?: Record<string, string | string[]>): Promise<void> {
  if (isStatus(body)) return writeEncoded(ctx, code, body, headers);
  const { representation } = ctx.negotiated;
  const options = representation.as === "Table" ? tableOptionsOf(ctx.url) : undefined;
  const out = transformObject(ctx.route.strategy, body, representation, options, ctx.parts.clock.now());
  return writeEncoded(ctx, code, out, headers);
}

/**
 * Compact JSON answers of stored entries, by entry: an entry never changes (a write makes a new
 * one), so repeated GETs of an unchanged object send the same bytes without decoding it.
 */
const STORED_ANSWERS = new WeakMap<KeyValue, Buffer>();

/**
 * Writes a stored object as writeObject writes it, from its stored text when the answer is the
 * object itself in compact JSON (the same bytes: objectJson is JSON.stringify of the decoded
 * object); any other representation or encoding decodes it and goes through writeObject.
 */
export function writeStoredObject(ctx: RequestContext, code: number, found: StoredObject, headers?: Record<string, string | string[]>): Promise<void> {
  const { encoding, representation } = ctx.negotiated;
  if (encoding !== "json" || representation.as !== "object" || ctx.pretty) return writeObject(ctx, code, found.object, headers);
  let bytes = STORED_ANSWERS.get(found.kv);
  if (!bytes) {
    bytes = Buffer.from(compactJsonOfText(ctx.parts.storage.objectJson(found.kv)), "utf8");
    STORED_ANSWERS.set(found.kv, bytes);
  }
  return writeBody(ctx.res, code, [bytes], { contentType: answerContentType(ctx, encoding), headers, gzip: ctx.gzip });
}

/** A page of a collection, read lazily: items are decoded (or their JSON text made) as they are written. */
export interface ListSource {
  readonly list: ListMetaInit;
  /** The stored entries the items are made from, in order, when they are (protobuf lengths are kept per entry). */
  readonly entries?: readonly KeyValue[];
  /** The items' compact JSON texts, one at a time. */
  itemTexts(): Iterable<string>;
  /** The items, decoded one at a time. */
  items(): Iterable<KubeObject>;
}

function listMetadata(list: ListMetaInit): JsonObject {
  const metadata: JsonObject = { resourceVersion: list.resourceVersion };
  if (list.continue) metadata["continue"] = list.continue;
  if (list.remainingItemCount !== undefined) metadata["remainingItemCount"] = list.remainingItemCount;
  return metadata;
}

/**
 * A list item as a list shows it: without kind and apiVersion. The server sets them on the
 * list object only (the items of a built-in type's list carry an empty TypeMeta, and JSON
 * omits its empty fields), so JSON, YAML and CBOR items agree with protobuf ones, whose
 * messages have no TypeMeta at all. A custom resource's list is unstructured: each item is the
 * stored object, kind and apiVersion included (keepTypeMeta).
 */
function listItem(o: KubeObject): KubeObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = o;
  return rest as KubeObject;
}

/** listItem on an object's compact JSON text: the stored form starts with kind and apiVersion, cut off here without parsing. */
export function listItemText(text: string): string {
  const head = /^\{"kind":"(?:[^"\\]|\\.)*","apiVersion":"(?:[^"\\]|\\.)*"(,|(?=\}))/.exec(text);
  if (head) return `{${text.slice(head[0].length)}`;
  return JSON.stringify(listItem(JSON.parse(text) as KubeObject));
}

/**
 * Whether the text holds a character Go's encoder escapes (escapeLikeGo); an item made from a
 * stored text without them needs no escaping. Five indexOf scans cost a tenth of one regex test.
 */
function hasGoEscapes(text: string): boolean {
  return text.indexOf("<") >= 0 || text.indexOf(">") >= 0 || text.indexOf("&") >= 0 || text.indexOf("\u2028") >= 0 || text.indexOf("\u2029") >= 0;
}

/**
 * collectionJsonPieces of a typed list in compact JSON, each item made straight from its
 * stored text (listItemJson: no TypeMeta, resourceVersion spliced in) and escaped only when
 * the stored text holds a character Go escapes. The same text, with fewer copies of each item.
 */
function* compactListPieces(head: JsonObject, entries: readonly KeyValue[], storage: ObjectStorage): Generator<string> {
  const open = JSON.stringify(head);
  yield escapeLikeGo(`${open.length > 2 ? `${open.slice(0, -1)},` : "{"}"items":[`);
  for (let i = 0; i < entries.length; i++) {
    const kv = entries[i] as KeyValue;
    const text = storage.listItemJson(kv) ?? listItemText(storage.objectJson(kv));
    const piece = i === 0 ? text : `,${text}`;
    yield hasGoEscapes(kv.value) ? escapeLikeGo(piece) : piece;
  }
  yield "]}\n";
}

function* mapIterable<A, B>(source: Iterable<A>, fn: (a: A) => B): Generator<B> {
  for (const a of source) yield fn(a);
}

/**
 * Each stored entry's list item field (protobuf-list.ts ItemFields), once a protobuf list has
 * encoded it, per storage (a route's storage decodes an entry in its own version): an entry
 * never changes (a write makes a new one), so a later list copies the bytes instead of decoding
 * and encoding the entry again. Kept with the entry (a WeakMap: dropped when the store drops
 * it), up to PROTOBUF_FIELDS_BUDGET bytes in all; beyond it lists encode as they go.
 */
const PROTOBUF_ITEM_FIELDS = new WeakMap<ObjectStorage, WeakMap<KeyValue, Uint8Array>>();
/** Bytes of kept item fields: about 0.7 of the entries' JSON, so about 350 MB of stored JSON at most. */
const PROTOBUF_FIELDS_BUDGET = 256 << 20;
let protobufFieldsBytes = 0;
/** Gives the budget back as entries (and their kept fields) are collected. */
const protobufFieldsFreed = new FinalizationRegistry<number>((bytes) => {
  protobufFieldsBytes -= bytes;
});

function fieldsOf(storage: ObjectStorage, entries: readonly KeyValue[]): ItemFields {
  let kept = PROTOBUF_ITEM_FIELDS.get(storage);
  if (!kept) PROTOBUF_ITEM_FIELDS.set(storage, (kept = new WeakMap()));
  const fields = kept;
  return {
    count: entries.length,
    item: (i) => storage.decode(entries[i] as KeyValue),
    known: (i) => fields.get(entries[i] as KeyValue),
    remember: (i, field) => {
      const kv = entries[i] as KeyValue;
      if (protobufFieldsBytes + field.length > PROTOBUF_FIELDS_BUDGET || fields.has(kv)) return false;
      fields.set(kv, field);
      protobufFieldsBytes += field.length;
      protobufFieldsFreed.register(kv, field.length);
      return true;
    },
  };
}

/** Writes a list in the negotiated representation and encoding. */
export function writeList(ctx: RequestContext, source: ListSource): Promise<void> {
  const { strategy } = ctx.route;
  const { encoding, representation } = ctx.negotiated;
  const metadata = listMetadata(source.list);
  const write = (pieces: Iterable<BodyPiece>): Promise<void> =>
    writeBody(ctx.res, 200, pieces, { contentType: answerContentType(ctx, encoding), gzip: ctx.gzip });

  switch (representation.as) {
    case "object": {
      const head: JsonObject = { kind: strategy.listKind, apiVersion: groupVersionOf(strategy), metadata };
      const keepTypeMeta = strategy.unstructured !== undefined;
      const itemText = keepTypeMeta ? (t: string): string => t : listItemText;
      const item = keepTypeMeta ? (o: KubeObject): KubeObject => o : listItem;
      if (encoding === "json" && !keepTypeMeta && !ctx.pretty && source.entries) return write(compactListPieces(head, source.entries, ctx.parts.storage));
      if (encoding === "json") return write(collectionJsonPieces(head, "items", mapIterable(source.itemTexts(), itemText), ctx.pretty));
      // The codec needs each item's kind to pick its message; the message itself has no TypeMeta.
      if (encoding === "protobuf") return write(protobufListPieces(head, () => source.items(), source.entries && fieldsOf(ctx.parts.storage, source.entries)));
      return write([encodeBody(encoding, { ...head, items: [...mapIterable(source.items(), item)] }, ctx.pretty)]);
    }
    case "PartialObjectMetadataList": {
      const apiVersion = metaApiVersion(representation.version);
      const head: JsonObject = { kind: "PartialObjectMetadataList", apiVersion, metadata };
      const partials = (): Iterable<KubeObject> => mapIterable(source.items(), (o) => partialObjectMetadata(o, apiVersion));
      // Upstream appends each item to a list whose Items start nil, so no items is `null`.
      const first = partials()[Symbol.iterator]().next();
      if (first.done) return write([encodeBody(encoding, { ...head, items: null }, ctx.pretty)]);
      if (encoding === "json")
        return write(
          collectionJsonPieces(
            head,
            "items",
            mapIterable(partials(), (p) => JSON.stringify(p)),
            ctx.pretty,
          ),
        );
      if (encoding === "protobuf") return write(protobufListPieces(head, partials));
      return write([encodeBody(encoding, { ...head, items: [...partials()] as Json[] }, ctx.pretty)]);
    }
    case "PartialObjectMetadata":
      throw notAcceptableMessage(`you requested PartialObjectMetadata, but the requested object is a list (${internalTypeName(strategy, true)})`);
    case "Table": {
      const options = tableOptionsOf(ctx.url);
      const table = buildTable(printerOf(strategy), [...source.items()], source.list, metaApiVersion(representation.version), options, ctx.parts.clock.now());
      return write([encodeBody(encoding, table, ctx.pretty)]);
    }
  }
}

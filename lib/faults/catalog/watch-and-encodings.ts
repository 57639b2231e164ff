/**
 * Faults of watches (what a stream reports, where it starts, bookmarks, initial events) and of
 * encodings (the protobuf envelope, media type negotiation, PartialObjectMetadata, Table).
 * Wire faults where the proxy can express the defect; emulator failpoints where it cannot (a
 * response header, a binary watch frame, where a watch starts).
 */
import type { EmulatorFault, Fault, WireFault } from "../types.js";
import { editJson, statusBody } from "./wire-edits.js";

type Json = Record<string, unknown>;

// ── protobuf: just enough of the wire format to take an envelope apart and put it back ──

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const PROTOBUF = /^application\/vnd\.[a-z.]+\.protobuf$/;

interface PbField {
  num: number;
  /** The field's bytes (length-delimited fields) or its encoded value otherwise. */
  value: Buffer;
  wire: number;
}

function varint(buf: Buffer, at: number): [number, number] {
  let v = 0;
  let mul = 1;
  for (;;) {
    const b = buf[at++] as number;
    v += (b & 0x7f) * mul;
    mul *= 128;
    if (b < 0x80) return [v, at];
  }
}

const encVarint = (n: number): Buffer => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
};

function pbFields(buf: Buffer): PbField[] {
  const out: PbField[] = [];
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = varint(buf, at);
    const wire = tag & 7;
    const num = Math.floor(tag / 8);
    let end: number;
    let start = next;
    if (wire === 0) end = varint(buf, next)[1];
    else if (wire === 2) {
      const [len, p] = varint(buf, next);
      start = p;
      end = p + len;
    } else end = next + (wire === 1 ? 8 : 4);
    out.push({ num, wire, value: buf.subarray(start, end) });
    at = end;
  }
  return out;
}

const pbBytes = (num: number, value: Buffer | string): Buffer => {
  const b = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  return Buffer.concat([encVarint(num * 8 + 2), encVarint(b.length), b]);
};

/** runtime.Unknown as a server writes it: typeMeta{apiVersion=1, kind=2}, raw, contentEncoding, contentType. */
interface PbEnvelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
  contentType: string;
}

function openEnvelope(body: Buffer): PbEnvelope {
  const fields = pbFields(body.subarray(4));
  const get = (n: number): Buffer => fields.find((f) => f.num === n)?.value ?? Buffer.alloc(0);
  const tm = pbFields(get(1));
  const tmGet = (n: number): string => tm.find((f) => f.num === n)?.value.toString("utf8") ?? "";
  return { apiVersion: tmGet(1), kind: tmGet(2), raw: get(2), contentEncoding: get(3).toString("utf8"), contentType: get(4).toString("utf8") };
}

const typeMeta = (apiVersion: string, kind: string, swapped = false): Buffer =>
  swapped ? Buffer.concat([pbBytes(1, kind), pbBytes(2, apiVersion)]) : Buffer.concat([pbBytes(1, apiVersion), pbBytes(2, kind)]);

const closeEnvelope = (e: PbEnvelope, tm: Buffer = typeMeta(e.apiVersion, e.kind)): Buffer =>
  Buffer.concat([MAGIC, pbBytes(1, tm), pbBytes(2, e.raw), pbBytes(3, e.contentEncoding), pbBytes(4, e.contentType)]);

/** A responseBytes rewrite of successful protobuf bodies (objects and lists, not Status answers). */
const protobufBodies =
  (edit: (body: Buffer) => Buffer): NonNullable<WireFault["wire"]["responseBytes"]> =>
  (r) =>
    r.method === "GET" && r.code === 200 && PROTOBUF.test(r.contentType) && r.bytes.subarray(0, 4).equals(MAGIC) ? { ...r, bytes: edit(r.bytes) } : r;

const PROTOBUF_FAULTS: readonly WireFault[] = [
  {
    name: "protobuf-prefix-without-nul",
    mode: "wire",
    rules: ["doc1.protobuf.magic-prefix", "doc1.protobuf.client-reject-prefix"],
    models: 'writes the protobuf magic as the three bytes "k8s" without its NUL (a C-string copy), so the Unknown starts one byte early',
    wire: { responseBytes: protobufBodies((b) => Buffer.concat([b.subarray(0, 3), b.subarray(4)])) },
  },
  {
    name: "protobuf-no-unknown-envelope",
    mode: "wire",
    rules: ["doc1.protobuf.unknown-envelope"],
    models: "writes the serialized object right after the magic prefix, without the runtime.Unknown around it",
    wire: { responseBytes: protobufBodies((b) => Buffer.concat([MAGIC, openEnvelope(b).raw])) },
  },
  {
    name: "protobuf-type-meta-fields-swapped",
    mode: "wire",
    rules: ["doc1.protobuf.type-meta-api-version", "doc1.protobuf.type-meta-kind"],
    models: "writes the envelope's TypeMeta in meta/v1 TypeMeta field order (kind=1, apiVersion=2), the reverse of runtime.TypeMeta",
    wire: {
      responseBytes: protobufBodies((b) => {
        const e = openEnvelope(b);
        return closeEnvelope(e, typeMeta(e.apiVersion, e.kind, true));
      }),
    },
  },
  {
    name: "protobuf-list-envelope-item-kind",
    mode: "wire",
    rules: ["doc1.protobuf.type-meta-kind"],
    models: "names a list's envelope with its items' kind (Event for an EventList), as an encoder that takes the kind from the item type",
    wire: {
      responseBytes: protobufBodies((b) => {
        const e = openEnvelope(b);
        return e.kind.endsWith("List") ? closeEnvelope({ ...e, kind: e.kind.slice(0, -"List".length) }) : b;
      }),
    },
  },
  {
    name: "protobuf-empty-type-meta",
    mode: "wire",
    rules: ["doc1.protobuf.unknown-type-meta"],
    models: "leaves the envelope's typeMeta empty, so a client cannot tell which kind raw holds",
    wire: { responseBytes: protobufBodies((b) => closeEnvelope(openEnvelope(b), Buffer.alloc(0))) },
  },
  {
    name: "protobuf-raw-without-metadata",
    mode: "wire",
    rules: ["doc1.protobuf.unknown-raw"],
    models: "serializes the object into raw without its field 1 (ObjectMeta, or ListMeta for a list)",
    wire: {
      responseBytes: protobufBodies((b) => {
        const e = openEnvelope(b);
        const kept = pbFields(e.raw).filter((f) => f.num !== 1);
        const raw = Buffer.concat(kept.map((f) => (f.wire === 2 ? pbBytes(f.num, f.value) : Buffer.concat([encVarint(f.num * 8 + f.wire), f.value]))));
        return closeEnvelope({ ...e, raw });
      }),
    },
  },
  {
    name: "protobuf-content-encoding-gzip-label",
    mode: "wire",
    rules: ["doc1.protobuf.unknown-content-encoding"],
    models: 'labels the envelope\'s contentEncoding "gzip" while raw is not compressed',
    wire: { responseBytes: protobufBodies((b) => closeEnvelope({ ...openEnvelope(b), contentEncoding: "gzip" })) },
  },
  {
    name: "protobuf-content-type-json-label",
    mode: "wire",
    rules: ["doc1.protobuf.unknown-content-type"],
    models: 'labels the envelope\'s contentType "application/json" while raw is protobuf',
    wire: { responseBytes: protobufBodies((b) => closeEnvelope({ ...openEnvelope(b), contentType: "application/json" })) },
  },
];

// ── watch streams (JSON lines) ──

const isWatchPath = (path: string): boolean => /[?&]watch=(true|1)(&|$)/.test(path);
const editLine = (line: string, edit: (e: Json) => void): string => {
  const e = JSON.parse(line) as Json;
  edit(e);
  return JSON.stringify(e);
};
const typeOf = (line: string): string | undefined => /^\{"type":"([A-Z]+)"/.exec(line)?.[1];

const WATCH_FAULTS: readonly (WireFault | EmulatorFault)[] = [
  {
    name: "watch-events-go-field-names",
    mode: "wire",
    rules: ["doc1.watch-event.type-and-object"],
    models:
      'encodes watch events with the Go field names of watch.Event ("Type", "Object"), which has no json tags, instead of metav1.WatchEvent\'s "type" and "object"',
    wire: { watchLine: (l) => l.replace(/^\{"type":/, '{"Type":').replace(/,"object":/, ',"Object":') },
  },
  {
    name: "watch-update-type-updated",
    mode: "wire",
    rules: ["doc1.watch-event.type-values"],
    models: 'reports an update with an event type of its own ("UPDATED") instead of MODIFIED',
    wire: { watchLine: (l) => (typeOf(l) === "MODIFIED" ? l.replace('"type":"MODIFIED"', '"type":"UPDATED"') : l) },
  },
  {
    name: "watch-modified-without-content",
    mode: "wire",
    rules: ["doc1.watch-events.modified"],
    models: "sends MODIFIED events with the object's metadata only, not the full object after the change",
    wire: {
      watchLine: (l) =>
        typeOf(l) === "MODIFIED"
          ? editLine(l, (e) => {
              const o = e.object as Json;
              for (const k of Object.keys(o)) if (!["kind", "apiVersion", "metadata"].includes(k)) delete o[k];
            })
          : l,
    },
  },
  {
    name: "watch-swaps-event-pairs",
    mode: "wire",
    rules: ["doc1.watch-events.reports-all-outcomes", "doc1.versioning.rv-ordered-per-type"],
    models: "delivers a watch's events out of order: each change held back until the next one has been sent",
    wire: {
      watchLines: () => {
        let held: string | undefined;
        return (l) => {
          if (typeOf(l) === "BOOKMARK" || typeOf(l) === "ERROR") return l;
          if (held === undefined) {
            held = l;
            return undefined;
          }
          const out = `${l}\n${held}`;
          held = undefined;
          return out;
        };
      },
    },
  },
  {
    name: "watch-stalls-after-first-event",
    mode: "wire",
    rules: ["doc1.service.watch"],
    models: "keeps a watch open but notifies only its first change (a stream that stops being fed after one event)",
    wire: {
      watchLines: () => {
        let sent = 0;
        return (l) => (typeOf(l) === "BOOKMARK" || ++sent === 1 ? l : undefined);
      },
    },
  },
  {
    name: "watch-as-json-array",
    mode: "wire",
    rules: ["doc1.watch-events.stream-documents"],
    models: "streams a watch as one JSON array of events ([ev, ev, …) instead of a sequence of JSON documents",
    wire: {
      watchLines: () => {
        let first = true;
        return (l) => {
          const out = `${first ? "[" : ","}${l}`;
          first = false;
          return out;
        };
      },
    },
  },
  {
    name: "watch-objects-without-type-meta",
    mode: "wire",
    rules: ["doc1.watch-event.object-kind"],
    models: "sends watch objects without kind and apiVersion, as list items are written",
    wire: {
      watchLine: (l) =>
        typeOf(l) === "ADDED" || typeOf(l) === "MODIFIED" || typeOf(l) === "DELETED"
          ? editLine(l, (e) => {
              delete (e.object as Json).kind;
              delete (e.object as Json).apiVersion;
            })
          : l,
    },
  },
  {
    name: "watch-of-one-object-watches-all",
    mode: "wire",
    rules: ["doc1.query.watch-resource-path"],
    models: "ignores the name of a watch on one object's path and watches the whole collection",
    wire: {
      request: (method, path) => (method === "GET" && isWatchPath(path) ? path.replace(/^(\/api\/v1\/namespaces\/[^/]+\/configmaps)\/[^/?]+/, "$1") : path),
    },
  },
  {
    name: "watch-param-ignored",
    mode: "wire",
    rules: ["doc1.verbs.watch-param", "doc1.query.watch-list-path"],
    models: "ignores ?watch=true on a collection's path and answers with a list (only the deprecated /watch/ prefix starts a watch)",
    wire: {
      request: (method, path) =>
        method === "GET" && /^\/api\/v1\/namespaces\/[^/]+\/configmaps\?/.test(path) ? path.replace(/([?&])watch=(true|1)(&|$)/, "$1") : path,
    },
  },
  {
    name: "watch-unset-rv-no-initial-events",
    mode: "emulator",
    rules: ["doc1.watch-rv.unset-state-most-recent", "doc1.watch-rv.most-recent-initial-added"],
    models:
      "starts a watch without resourceVersion at the current revision, sending no synthetic ADDED events for the existing objects (client-go's fake clientset watch)",
    reference: "https://github.com/kubernetes/kubernetes/issues/123109",
    failpoints: ["watch-unset-rv-no-initial-events"],
  },
  {
    name: "watch-rv-0-no-initial-events",
    mode: "emulator",
    rules: ["doc1.watch-rv.zero-state-any", "doc1.watch-rv.any-initial-added"],
    models: "treats resourceVersion=0 on a watch as 'from now', sending no synthetic ADDED events for the existing objects",
    failpoints: ["watch-rv-0-no-initial-events"],
  },
  {
    name: "watch-rv-ignored",
    mode: "wire",
    rules: ["doc1.watch-rv.other-start-exact", "doc1.watch-rv.exact-no-initial"],
    models: "ignores a watch's resourceVersion and always starts with the current state as synthetic ADDED events",
    wire: {
      request: (method, path) =>
        method === "GET" && isWatchPath(path) && !path.includes("sendInitialEvents") ? path.replace(/([?&])resourceVersion=(?!0(&|$))[^&]*(&|$)/, "$1") : path,
    },
  },
  {
    name: "watch-start-inclusive",
    mode: "wire",
    rules: ["doc1.watch-events.restart-from-last-rv", "doc1.watch-events.list-then-watch"],
    models: "starts a watch at the given resourceVersion inclusively (the storage revision passed without +1), so a resumed watch repeats the last event seen",
    reference: "https://github.com/etcd-io/etcd/issues/17247",
    wire: {
      request: (method, path) =>
        method === "GET" && isWatchPath(path) && !path.includes("sendInitialEvents")
          ? path.replace(/([?&]resourceVersion=)([1-9][0-9]*)/, (_m, p: string, rv: string) => `${p}${BigInt(rv) - 1n}`)
          : path,
    },
  },
  {
    name: "watch-future-rv-starts-now",
    mode: "emulator",
    rules: ["doc1.errors.watch-unrecognized-rv-waits"],
    models: "serves a watch from a resourceVersion newer than the store's from the current revision instead of waiting for it (or refusing it)",
    failpoints: ["watch-future-rv-starts-now"],
  },
  {
    name: "bookmarks-without-asking",
    mode: "wire",
    rules: ["doc1.watch-events.bookmark-opt-in"],
    models: "sends BOOKMARK events on every watch, whether or not it asked with allowWatchBookmarks",
    wire: {
      request: (method, path) => (method === "GET" && isWatchPath(path) && !path.includes("allowWatchBookmarks") ? `${path}&allowWatchBookmarks=true` : path),
    },
  },
  {
    name: "ignores-allow-watch-bookmarks",
    mode: "wire",
    rules: ["doc1.query.allow-watch-bookmarks"],
    models:
      "ignores allowWatchBookmarks: no BOOKMARK ever, not even the initial-events-end one a WatchList client waits for (kcp's CachedResource virtual storage)",
    reference: "https://github.com/kcp-dev/kcp/issues/3871",
    wire: {
      request: (method, path) => (method === "GET" && isWatchPath(path) ? path.replace(/([?&])allowWatchBookmarks=[^&]*(&|$)/, "$1") : path),
    },
  },
  {
    name: "list-accepts-send-initial-events",
    mode: "wire",
    rules: ["doc1.query.initial-events-watch-only", "doc1.errors.invalid-list-combinations"],
    models: "accepts sendInitialEvents on a list (not a watch) and lists as if it were absent",
    wire: {
      request: (method, path) => (method === "GET" && !isWatchPath(path) ? path.replace(/([?&])sendInitialEvents=[^&]*(&|$)/, "$1") : path),
    },
  },
  {
    name: "initial-events-default-not-older-than",
    mode: "wire",
    rules: ["doc1.query.initial-events-needs-not-older-than", "doc1.errors.invalid-list-combinations"],
    models: "defaults a missing resourceVersionMatch to NotOlderThan on a sendInitialEvents watch instead of refusing it",
    wire: {
      request: (method, path) =>
        method === "GET" && isWatchPath(path) && path.includes("sendInitialEvents=true") && !path.includes("resourceVersionMatch=")
          ? `${path}&resourceVersionMatch=NotOlderThan`
          : path,
    },
  },
  {
    name: "watch-rvm-without-initial-events",
    mode: "wire",
    rules: ["doc1.query.rvm-watch-needs-initial-events", "doc1.errors.invalid-list-combinations"],
    models: "accepts resourceVersionMatch on a watch without sendInitialEvents and ignores it",
    wire: {
      request: (method, path) =>
        method === "GET" && isWatchPath(path) && !path.includes("sendInitialEvents") ? path.replace(/([?&])resourceVersionMatch=[^&]*(&|$)/, "$1") : path,
    },
  },
  {
    name: "watch-not-chunked",
    mode: "emulator",
    rules: ["doc1.headers.chunked-watch"],
    models: "writes a watch as a close-delimited body without Transfer-Encoding: chunked (HTTP/1.0 style)",
    failpoints: ["watch-not-chunked"],
  },
  {
    name: "protobuf-watch-unframed",
    mode: "emulator",
    rules: ["doc1.watch-events.protobuf-framing"],
    models: "writes protobuf watch events as bare WatchEvent messages, without the 4-byte length that frames each",
    failpoints: ["protobuf-watch-unframed"],
  },
];

// ── media types and negotiation ──

const accept = (h: Record<string, string>): string => h.accept ?? "";
const withAccept = (h: Record<string, string>, value: string): Record<string, string> => ({ ...h, accept: value });
const withoutParams = (h: Record<string, string>, base: RegExp, as: RegExp): Record<string, string> =>
  base.test(accept(h)) && as.test(accept(h)) && !accept(h).includes(",") ? withAccept(h, accept(h).split(";")[0] as string) : h;
const bodyType = (h: Record<string, string>): string => h["content-type"] ?? "";

const MEDIA_FAULTS: readonly (WireFault | EmulatorFault)[] = [
  {
    name: "request-body-always-json",
    mode: "wire",
    rules: ["doc1.headers.content-type-request", "doc1.paths.request-bodies"],
    models: "reads every request body as JSON whatever its Content-Type (YAML and protobuf bodies fail to decode)",
    wire: {
      requestHeaders: (h) => (/^application\/(yaml|vnd\.[a-z.]+\.protobuf)/.test(bodyType(h)) ? { ...h, "content-type": "application/json" } : h),
    },
  },
  {
    name: "accept-last-listed-wins",
    mode: "wire",
    rules: ["doc1.headers.accept-negotiation", "doc1.media.protobuf-json-fallback"],
    models: "answers in the last media type an Accept header lists that it can serve, not in the client's preference",
    wire: {
      requestHeaders: (h) => (accept(h).includes(",") ? withAccept(h, (accept(h).split(",").at(-1) as string).trim().replace(/;q=[0-9.]+$/, "")) : h),
    },
  },
  {
    name: "accept-first-range-only",
    mode: "wire",
    rules: ["doc1.media.rule3-fallback-full-object"],
    models: "considers only the first media range of Accept, answering 406 when it cannot serve it although a later one names plain JSON",
    wire: { requestHeaders: (h) => (accept(h).includes(",") ? withAccept(h, (accept(h).split(",")[0] as string).trim()) : h) },
  },
  {
    name: "default-encoding-yaml",
    mode: "wire",
    rules: ["doc1.media.json-default"],
    models: "answers YAML when the client accepts anything (*/* or no Accept), not JSON",
    wire: { requestHeaders: (h) => (accept(h) === "" || accept(h) === "*/*" ? withAccept(h, "application/yaml") : h) },
  },
  {
    name: "not-acceptable-as-415",
    mode: "wire",
    rules: ["doc1.media.rule1-none-supported-406"],
    models: "answers an Accept it cannot satisfy with 415 UnsupportedMediaType instead of 406 NotAcceptable",
    wire: {
      response: (r) =>
        r.code === 406
          ? {
              ...r,
              code: 415,
              // The 406 of a YAML watch may itself be YAML: its message read either way.
              body: statusBody(415, "UnsupportedMediaType", /"?message"?: ?"?([^"\n]*)/.exec(r.body)?.[1] ?? "unsupported media type"),
            }
          : r,
    },
  },
  {
    name: "cbor-off-served-as-json",
    mode: "wire",
    rules: ["doc1.media.cbor-off-406"],
    models: "answers Accept: application/cbor with JSON while CBOR is off, instead of 406",
    wire: { requestHeaders: (h) => (accept(h) === "application/cbor" ? withAccept(h, "application/json") : h) },
  },
  {
    name: "cbor-body-read-as-json",
    mode: "wire",
    rules: ["doc1.media.cbor-off-415"],
    models: "reads a CBOR request body as JSON while CBOR is off (a 400 decoding error) instead of refusing its media type with 415",
    wire: { requestHeaders: (h) => (bodyType(h) === "application/cbor" ? { ...h, "content-type": "application/json" } : h) },
  },
  {
    name: "large-list-size-limit",
    mode: "wire",
    rules: ["doc1.limits.large-collection-encodings"],
    models: "fails lists larger than 2 MiB with 500, as a storage backend with a gRPC message size limit does",
    wire: {
      responseBytes: (r) =>
        r.method === "GET" && r.code === 200 && r.bytes.length > 2 * 1024 * 1024
          ? {
              ...r,
              code: 500,
              bytes: Buffer.from(
                statusBody(
                  500,
                  "InternalError",
                  `rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (${r.bytes.length} vs. 2097152)`,
                ),
              ),
            }
          : r,
    },
  },
  {
    name: "yaml-unquoted-numeric-strings",
    mode: "wire",
    rules: ["doc1.media.yaml"],
    models:
      "writes string values that look like numbers or booleans unquoted in YAML (resourceVersion: 123, a: true), so they read back as numbers and booleans, not the strings JSON has",
    wire: {
      response: (r) =>
        r.method === "GET" && r.code === 200 && /^(kind|apiVersion): /m.test(r.body) && !r.body.startsWith("{")
          ? { ...r, body: r.body.replace(/: "([0-9]+|true|false)"$/gm, ": $1") }
          : r,
    },
  },
  {
    name: "yaml-labelled-json",
    mode: "emulator",
    rules: ["doc1.headers.content-type-response"],
    models: "labels YAML answers Content-Type application/json",
    failpoints: ["yaml-labelled-json"],
  },
];

// ── PartialObjectMetadata and Table ──

const PROTOBUF_ACCEPT = /^application\/vnd\.[a-z.]+\.protobuf;/;
const isPartialAccept = (h: Record<string, string>): boolean => /as=PartialObjectMetadata(List)?(;|,|$)/.test(h.accept ?? "");

const REPRESENTATION_FAULTS: readonly (WireFault | EmulatorFault)[] = [
  {
    name: "partial-metadata-ignored",
    mode: "wire",
    rules: ["doc1.media.partial-meta-type", "doc1.partial-meta.single-kind", "doc1.media.partial-meta-list-type", "doc1.partial-meta.list-kind"],
    models: "ignores as=PartialObjectMetadata(List) in Accept and answers with the full objects",
    wire: { requestHeaders: (h) => withoutParams(h, /^application\/json;/, /as=PartialObjectMetadata/) },
  },
  {
    name: "partial-metadata-carries-content",
    mode: "wire",
    rules: ["doc1.partial-meta.single-metadata-only", "doc1.partial-meta.list-items", "doc1.meta-lists.partial-list"],
    models: "answers PartialObjectMetadata(List) requests with the kind relabelled but the objects' content (data, spec) still in",
    wire: {
      requestHeaders: (h) => withoutParams(h, /^application\/json;/, /as=PartialObjectMetadata/),
      response: (r) => {
        if (r.code !== 200 || !/^application\/json;.*as=PartialObjectMetadata/.test(r.requestHeaders.accept ?? "") || !r.body.startsWith("{")) return r;
        const list = /as=PartialObjectMetadataList/.test(r.requestHeaders.accept ?? "");
        return {
          ...r,
          body: editJson(r.body, (o) => {
            o.kind = list ? "PartialObjectMetadataList" : "PartialObjectMetadata";
            o.apiVersion = "meta.k8s.io/v1";
          }),
        };
      },
    },
  },
  {
    name: "partial-list-without-resource-version",
    mode: "wire",
    rules: ["doc1.partial-meta.list-metadata"],
    models: "writes a PartialObjectMetadataList without its list metadata's resourceVersion",
    wire: {
      response: (r) =>
        r.code === 200 && r.body.startsWith("{") && r.body.includes('"kind":"PartialObjectMetadataList"')
          ? { ...r, body: editJson(r.body, (o) => delete (o.metadata as Json).resourceVersion) }
          : r,
    },
  },
  {
    name: "yaml-ignores-as-params",
    mode: "wire",
    rules: ["doc1.media.rule2-partial-meta-encodings", "doc1.media.rule2-table-encodings"],
    models: "honours the as/g/v parameters on JSON only: YAML answers carry the full object",
    wire: { requestHeaders: (h) => withoutParams(h, /^application\/yaml;/, /as=/) },
  },
  {
    name: "protobuf-ignores-as-params",
    mode: "wire",
    rules: ["doc1.media.rule2-binary-params"],
    models: "ignores the as/g/v parameters attached to the protobuf media type and answers with the full object in protobuf",
    wire: { requestHeaders: (h) => withoutParams(h, PROTOBUF_ACCEPT, /as=/) },
  },
  {
    name: "table-ignored",
    mode: "wire",
    rules: ["doc1.media.table-type"],
    models: "ignores as=Table in Accept and answers with the plain object or list",
    wire: { requestHeaders: (h) => (isPartialAccept(h) ? h : withoutParams(h, /^application\/json;/, /as=Table/)) },
  },
  {
    name: "table-api-version-v1beta1",
    mode: "wire",
    rules: ["doc1.table.kind-api-version"],
    models: "answers a meta.k8s.io/v1 Table request with a meta.k8s.io/v1beta1 Table (the version older servers served)",
    wire: {
      response: (r) =>
        r.code === 200 && r.body.startsWith('{"kind":"Table"') ? { ...r, body: editJson(r.body, (o) => (o.apiVersion = "meta.k8s.io/v1beta1")) } : r,
    },
  },
  {
    name: "table-columns-omit-empty",
    mode: "wire",
    rules: ["doc1.table.column-definitions"],
    models: "omits empty keys of a Table's column definitions (format, description written omitempty)",
    wire: {
      response: (r) =>
        r.code === 200 && r.body.startsWith('{"kind":"Table"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                for (const c of (o.columnDefinitions as Json[] | null) ?? []) for (const k of ["format", "description"]) if (c[k] === "") delete c[k];
              }),
            }
          : r,
    },
  },
  {
    name: "table-drops-wide-columns",
    mode: "wire",
    rules: ["doc1.table.wide-columns"],
    models: "leaves out a Table's priority>0 columns (and their cells), as kubectl prints without -o wide",
    wire: {
      response: (r) =>
        r.code === 200 && r.body.startsWith('{"kind":"Table"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                const cols = (o.columnDefinitions as { priority?: number }[] | null) ?? [];
                const keep = cols.map((c) => !c.priority);
                if (keep.every(Boolean)) return;
                o.columnDefinitions = cols.filter((_c, i) => keep[i]);
                for (const row of (o.rows as { cells: unknown[] }[]) ?? []) row.cells = row.cells.filter((_c, i) => keep[i]);
              }),
            }
          : r,
    },
  },
  {
    name: "table-rows-without-object",
    mode: "wire",
    rules: ["doc1.table.row-object"],
    models: "writes Table rows with cells only, never the object (neither its metadata by default nor the full object for includeObject=Object)",
    wire: {
      response: (r) =>
        r.code === 200 && r.body.startsWith('{"kind":"Table"')
          ? {
              ...r,
              body: editJson(r.body, (o) => {
                for (const row of (o.rows as Json[]) ?? []) delete row.object;
              }),
            }
          : r,
    },
  },
  {
    name: "table-content-type-with-params",
    mode: "emulator",
    rules: ["doc1.table.content-type"],
    models: "labels a Table answer with the Accept's parameters (application/json;as=Table;g=meta.k8s.io;v=v1) instead of plain application/json",
    failpoints: ["table-content-type-with-params"],
  },
];

export const WATCH_AND_ENCODING_FAULTS: readonly Fault[] = [...PROTOBUF_FAULTS, ...WATCH_FAULTS, ...MEDIA_FAULTS, ...REPRESENTATION_FAULTS];

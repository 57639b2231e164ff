/**
 * How one watch stream writes its events (wire-facts §2, §3; apiserver@v0.35.7
 * pkg/endpoints/handlers/watch.go and response.go watchEncoder/watchEmbeddedEncoder):
 *
 *  - JSON: one compact `{"type":…,"object":…}` line per event, Content-Type application/json;
 *  - protobuf: frames from the shared codec (lib/wire encodeWatchFrame: a 4-byte length, a raw
 *    WatchEvent, the object fully enveloped inside), `application/vnd.kubernetes.protobuf;stream=watch`;
 *  - CBOR (gate on): concatenated items (encodeWatchEventCbor), `application/cbor-seq`.
 *
 * The object of each event goes through the negotiated transformation first: PartialObjectMetadata,
 * or a one-row Table whose column definitions only the stream's first event carries (later
 * ones have `"columnDefinitions":null`: the embedded encoder turns on NoHeaders after its first
 * object, whatever the event type). ERROR Status objects are never transformed. A watch asking
 * for PartialObjectMetadataList gets the objects untransformed: upstream's embedded encoder
 * logs the failed transformation and sends the object as it is.
 *
 * A format has a key: streams with the same key get the very same bytes for the same change,
 * which is what lets watch.ts encode a change once per format instead of once per watcher.
 */
import { encodeWatchEventCbor } from "../../../wire/cbor.js";
import { encodeWatchFrame } from "../../../wire/protobuf/index.js";
import { isStatus, type Status } from "../../../wire/status.js";
import type { FeatureGates } from "../../apimachinery/feature-gates.js";
import { compactJson, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import type { ResourceStrategy } from "../../registry/generic/strategy.js";
import { buildTable, partialObjectMetadata, printerOf, type TableOptions, type TablePrinter } from "../../registry/generic/table.js";
import { type Encoding, type Negotiated, negotiateWatch, type Representation, watchContentTypeOf } from "../negotiation.js";
import { asBuffer, metaApiVersion, tableOptionsOf } from "./respond.js";

export interface WatchFormat {
  /** Equal keys mean equal bytes for the same event. */
  readonly key: string;
  readonly encoding: Exclude<Encoding, "yaml">;
  readonly representation: Representation;
  readonly contentType: string;
  /** Plain JSON of the stored object: event lines can be spliced from the stored text. */
  readonly plainJson: boolean;
  /** Whether the first event carries column definitions (Table watches). */
  readonly tableHeaders: boolean;
  readonly printer: TablePrinter;
  readonly tableOptions?: TableOptions;
}

/**
 * The format of a watch; throws 406 for an encoding without a stream form and 400 for a bad
 * includeObject, both before the 200 goes out.
 */
export function watchFormatOf(strategy: ResourceStrategy, negotiated: Negotiated, gates: FeatureGates, url: URL): WatchFormat {
  const { encoding, representation } = negotiateWatch(negotiated, gates);
  const tableOptions = representation.as === "Table" ? tableOptionsOf(url) : undefined;
  const version = representation.as === "object" ? "" : representation.version;
  return {
    key: [encoding, representation.as, version, tableOptions?.includeObject ?? ""].join(":"),
    encoding,
    representation,
    contentType: watchContentTypeOf(encoding),
    plainJson: encoding === "json" && (representation.as === "object" || representation.as === "PartialObjectMetadataList"),
    tableHeaders: representation.as === "Table",
    printer: printerOf(strategy),
    tableOptions,
  };
}

/** The event's object as this stream shows it; `headers` only matters for Tables. */
export function watchObject(format: WatchFormat, object: KubeObject | JsonObject | Status, headers: boolean, nowMs: number): object {
  if (isStatus(object)) return object;
  const o = object as KubeObject;
  const rep = format.representation;
  switch (rep.as) {
    case "object":
    case "PartialObjectMetadataList":
      return o;
    case "PartialObjectMetadata":
      return partialObjectMetadata(o, metaApiVersion(rep.version));
    case "Table":
      return buildTable(
        format.printer,
        [o],
        undefined,
        metaApiVersion(rep.version),
        { includeObject: format.tableOptions?.includeObject ?? "Metadata", noHeaders: !headers },
        nowMs,
      );
  }
}

/** One event on the wire in the stream's encoding (the object already transformed). */
export function encodeWatchEvent(format: WatchFormat, type: string, object: object): Buffer {
  switch (format.encoding) {
    case "json":
      return Buffer.from(compactJson({ type, object }), "utf8");
    case "protobuf":
      return asBuffer(encodeWatchFrame(type, object as Record<string, unknown>));
    case "cbor":
      return asBuffer(encodeWatchEventCbor({ type, object }));
  }
}

/**
 * Content negotiation (doc1 "Media types and negotiation" rules 1-5; wire-facts §1.0, §2, §3,
 * §4, §8), modelled on apiserver@v0.35.7 pkg/endpoints/handlers/negotiation/negotiate.go and
 * the RequestScope's AllowsMediaTypeTransform:
 *
 *  - the server's serializers, in its order: JSON, YAML, protobuf, and CBOR only with the
 *    CBORServingAndStorage gate. Accept ranges are matched against them with the shared
 *    lib/wire negotiate (q values, wildcards, q=0 exclusion by the most specific range);
 *  - `as`/`g`/`v` ask for another representation and must match exactly (case-sensitive):
 *    Table only as meta.k8s.io v1 or v1beta1 and only in JSON or YAML (a protobuf or CBOR
 *    Table clause is skipped); PartialObjectMetadata(List) in every encoding. A clause naming
 *    any other group-version is skipped at negotiation, so it is the generic 406 (the later
 *    "no Table exists in group version" check of response.go cannot be reached that way);
 *  - a `stream` parameter is accepted only as `stream=watch` on an encoding with a stream
 *    form (not YAML);
 *  - errors (Status) negotiate without transformations (DefaultEndpointRestrictions): a
 *    clause with `as` never matches them;
 *  - a watch negotiates like any read, then needs a stream serializer: when the chosen
 *    encoding is YAML the answer is 406 listing the stream media types (NegotiateOutputMediaTypeStream);
 *  - a request body's Content-Type must name a served serializer exactly (parameters such as
 *    charset are ignored; none means JSON), else 415 listing the served media types.
 *
 * `application/cbor-seq` is a response type only: the CBOR serializer registers
 * `application/cbor` as its sole accept type, so an Accept of just `application/cbor-seq` is
 * not acceptable even with the gate on; a CBOR watch is asked for with `application/cbor`.
 *
 * Where lib/wire negotiate and Go's goautoneg could differ: q=0 excludes a type (RFC 9110;
 * the newer upstream negotiator does the same), and a range naming parameters the offer
 * lacks (charset=utf-8) still matches.
 */
import type { IncomingMessage } from "node:http";
import { parseGoBool } from "../../wire/go-strconv.js";
import { isCbor, isJson, isProtobuf, isYaml, type MediaType, negotiate, type Offer, parseAccept, parseMediaType } from "../../wire/media-type.js";
import { PROTOBUF_CONTENT_TYPE } from "../../wire/protobuf/index.js";
import { notAcceptable, unsupportedMediaType } from "../apimachinery/api-errors.js";
import type { FeatureGates } from "../apimachinery/feature-gates.js";

export type Encoding = "json" | "yaml" | "protobuf" | "cbor";

/** meta.k8s.io versions that have Table and PartialObjectMetadata (response.go asTable et al.). */
export type MetaVersion = "v1" | "v1beta1";

export type Representation =
  | { readonly as: "object" }
  | { readonly as: "Table"; readonly version: MetaVersion }
  | { readonly as: "PartialObjectMetadata"; readonly version: MetaVersion }
  | { readonly as: "PartialObjectMetadataList"; readonly version: MetaVersion };

export interface Negotiated {
  readonly encoding: Encoding;
  readonly representation: Representation;
}

const JSON_MEDIA_TYPE = "application/json";
const YAML_MEDIA_TYPE = "application/yaml";
const CBOR_MEDIA_TYPE = "application/cbor";
const CBOR_SEQ_MEDIA_TYPE = "application/cbor-seq";
const PROTOBUF_STREAM_MEDIA_TYPE = `${PROTOBUF_CONTENT_TYPE};stream=watch`;

/** The group of the Table and PartialObjectMetadata kinds. */
export const META_GROUP = "meta.k8s.io";

const OBJECT: Representation = { as: "object" };

const MEDIA_TYPE: Record<Encoding, string> = {
  json: JSON_MEDIA_TYPE,
  yaml: YAML_MEDIA_TYPE,
  protobuf: PROTOBUF_CONTENT_TYPE,
  cbor: CBOR_MEDIA_TYPE,
};

/** The Content-Type of a (non-watch) response body in this encoding; Table and metadata forms use the plain type. */
export function contentTypeOf(encoding: Encoding): string {
  return MEDIA_TYPE[encoding];
}

/** The Content-Type of a watch stream (wire-facts §2: JSON has no `;stream=watch`, CBOR is a sequence). */
export function watchContentTypeOf(encoding: Exclude<Encoding, "yaml">): string {
  return encoding === "json" ? JSON_MEDIA_TYPE : encoding === "protobuf" ? PROTOBUF_STREAM_MEDIA_TYPE : CBOR_SEQ_MEDIA_TYPE;
}

function servedEncodings(gates: FeatureGates): Encoding[] {
  return gates.CBORServingAndStorage ? ["json", "yaml", "protobuf", "cbor"] : ["json", "yaml", "protobuf"];
}

/** The media types in 406 and 415 messages, in the server's order (MediaTypesForSerializer). */
export function servedMediaTypes(gates: FeatureGates): string[] {
  return servedEncodings(gates).map(contentTypeOf);
}

/** The stream media types, as a watch's 406 lists them. */
export function streamMediaTypes(gates: FeatureGates): string[] {
  const out = [`${JSON_MEDIA_TYPE};stream=watch`, PROTOBUF_STREAM_MEDIA_TYPE];
  if (gates.CBORServingAndStorage) out.push(CBOR_SEQ_MEDIA_TYPE);
  return out;
}

interface NegotiationOffer extends Offer {
  readonly negotiated: Negotiated;
}

function offer(encoding: Encoding, representation: Representation): NegotiationOffer {
  const m = parseMediaType(contentTypeOf(encoding)) as MediaType;
  // An offer's `stream` parameter makes a clause with another stream value miss it: "watch"
  // for encodings with a stream serializer, "" (no stream) for YAML.
  const params: Record<string, string> = { stream: encoding === "yaml" ? "" : "watch" };
  if (representation.as !== "object") Object.assign(params, { as: representation.as, g: META_GROUP, v: representation.version });
  return { type: m.type, subtype: m.subtype, params, negotiated: { encoding, representation } };
}

const META_VERSIONS: readonly MetaVersion[] = ["v1", "v1beta1"];

/**
 * Every (encoding, representation) the endpoint can produce, in the server's preference order.
 * `transforms` is false for Status answers (errors), which are never transformed; `tables` is
 * false for an endpoint whose storage has no Table convertor (a namespace's `finalize`).
 */
function offers(gates: FeatureGates, transforms: boolean, objectProtobuf: boolean, tables = true): readonly NegotiationOffer[] {
  // Made once per gates and flags: the offers are the same for every request.
  let byFlags = OFFERS.get(gates);
  if (!byFlags) {
    byFlags = new Map();
    OFFERS.set(gates, byFlags);
  }
  const key = (transforms ? 4 : 0) + (objectProtobuf ? 2 : 0) + (tables ? 1 : 0);
  let out = byFlags.get(key);
  if (!out) {
    out = makeOffers(gates, transforms, objectProtobuf, tables);
    byFlags.set(key, out);
  }
  return out;
}

const OFFERS = new WeakMap<FeatureGates, Map<number, readonly NegotiationOffer[]>>();

function makeOffers(gates: FeatureGates, transforms: boolean, objectProtobuf: boolean, tables: boolean): NegotiationOffer[] {
  const out: NegotiationOffer[] = [];
  for (const encoding of servedEncodings(gates)) {
    // A type without a protobuf form is not offered in protobuf (its metadata-only forms are).
    if (encoding !== "protobuf" || objectProtobuf) out.push(offer(encoding, OBJECT));
    if (!transforms) continue;
    // AllowsMediaTypeTransform: Table only for application/json and application/yaml, and
    // only when the endpoint has a TableConvertor.
    if (tables && (encoding === "json" || encoding === "yaml")) for (const version of META_VERSIONS) out.push(offer(encoding, { as: "Table", version }));
    for (const version of META_VERSIONS) {
      // The protobuf codec (lib/wire) registers only meta.k8s.io/v1 PartialObjectMetadata(List);
      // the v1beta1 forms are offered in the other encodings.
      if (encoding === "protobuf" && version !== "v1") continue;
      out.push(offer(encoding, { as: "PartialObjectMetadata", version }));
      out.push(offer(encoding, { as: "PartialObjectMetadataList", version }));
    }
  }
  return out;
}

/** The negotiated encoding and representation for this Accept header, or undefined (406). */
export function negotiateAccept(
  accept: string | undefined,
  gates: FeatureGates,
  transforms = true,
  objectProtobuf = true,
  tables = true,
): Negotiated | undefined {
  // An absent header means the server's first serializer (NegotiateMediaTypeOptions).
  if (accept === undefined || accept === "") return JSON_OBJECT;
  const all = offers(gates, transforms, objectProtobuf, tables);
  // Clients send few distinct Accept headers: the verdict is kept per header and offer set
  // (bounded; a client cycling through headers only refills it).
  let verdicts = VERDICTS.get(all);
  if (!verdicts) {
    verdicts = new Map();
    VERDICTS.set(all, verdicts);
  }
  const known = verdicts.get(accept);
  if (known !== undefined) return known === NONE ? undefined : known;
  const verdict = negotiate(parseAccept(accept), all)?.negotiated;
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(accept, verdict ?? NONE);
  return verdict;
}

const JSON_OBJECT: Negotiated = { encoding: "json", representation: OBJECT };
const NONE = Symbol("not acceptable");
const MAX_VERDICTS = 256;
const VERDICTS = new WeakMap<readonly NegotiationOffer[], Map<string, Negotiated | typeof NONE>>();

/**
 * Negotiates a response for a resource endpoint; 406 listing the served media types when nothing
 * fits. `objectProtobuf` false: the type has no protobuf form; `tables` false: the endpoint
 * cannot answer as a Table.
 */
export function negotiateOutput(req: IncomingMessage, gates: FeatureGates, objectProtobuf = true, tables = true): Negotiated {
  const n = negotiateAccept(req.headers.accept, gates, true, objectProtobuf, tables);
  if (!n) throw notAcceptable(servedMediaTypes(gates));
  return n;
}

export interface NegotiatedWatch extends Negotiated {
  readonly encoding: Exclude<Encoding, "yaml">;
}

/**
 * A watch's answer, from the negotiation every read does first: 406 listing the stream media
 * types when the chosen encoding has no stream form (YAML), as NegotiateOutputMediaTypeStream
 * refuses it; it takes the first acceptable clause, so `application/yaml, application/json`
 * is refused too.
 */
export function negotiateWatch(negotiated: Negotiated, gates: FeatureGates): NegotiatedWatch {
  const { encoding, representation } = negotiated;
  if (encoding === "yaml") throw notAcceptable(streamMediaTypes(gates));
  return { encoding, representation };
}

/** The encoding of a Status answer (no transformations), or undefined when the Accept header allows none. */
export function negotiateStatusEncoding(accept: string | undefined, gates: FeatureGates): Encoding | undefined {
  return negotiateAccept(accept, gates, false)?.encoding;
}

/** The encoding each Content-Type header names (undefined for none served), parsed once per header text. */
const BODY_ENCODINGS = new Map<string, Encoding | undefined>();

/**
 * The encoding of a request body by its Content-Type (NegotiateInputSerializer): absent means
 * JSON; parameters are ignored; anything that is not a served serializer's media type is 415.
 */
export function requestBodyEncoding(req: IncomingMessage, gates: FeatureGates): Encoding {
  const header = req.headers["content-type"];
  if (header === undefined || header.trim() === "") return "json";
  let encoding = BODY_ENCODINGS.get(header);
  if (!BODY_ENCODINGS.has(header)) {
    const m = parseMediaType(header);
    encoding = m === undefined ? undefined : isJson(m) ? "json" : isYaml(m) ? "yaml" : isProtobuf(m) ? "protobuf" : isCbor(m) ? "cbor" : undefined;
    // Bounded: clients send a handful of Content-Types; a flood of made-up ones only clears it.
    if (BODY_ENCODINGS.size >= 64) BODY_ENCODINGS.clear();
    BODY_ENCODINGS.set(header, encoding);
  }
  if (encoding === undefined || !servedEncodings(gates).includes(encoding)) throw unsupportedMediaType(servedMediaTypes(gates));
  return encoding;
}

/** Throws 406 unless a non-resource endpoint that serves JSON only (discovery, /version) may answer. */
export function negotiateJsonOnly(req: IncomingMessage): void {
  if (!negotiate(parseAccept(req.headers.accept), [offer("json", OBJECT)])) throw notAcceptable([JSON_MEDIA_TYPE]);
}

/**
 * Whether to gzip a large response (responsewriters negotiateContentEncoding): the gate is on
 * and a comma-separated token of Accept-Encoding is exactly `gzip` after trimming. As upstream,
 * a token with parameters (`gzip;q=0.5`) is not recognised, and q values are not read.
 */
export function wantsGzip(req: IncomingMessage, gates: FeatureGates): boolean {
  if (!gates.APIResponseCompression) return false;
  const header = req.headers["accept-encoding"];
  if (header === undefined || header === "") return false;
  return header.split(",").some((token) => token.trim() === "gzip");
}

const PRETTY_AGENTS = ["curl", "Wget", "Mozilla/5.0"];

/** Pretty output for `?pretty=true` or a browser/curl/wget User-Agent (wire-facts §10). */
export function wantsPretty(req: IncomingMessage, url: URL): boolean {
  const pretty = url.searchParams.get("pretty");
  if (pretty) return parseGoBool(pretty) === true;
  const agent = req.headers["user-agent"] ?? "";
  return PRETTY_AGENTS.some((p) => agent.startsWith(p));
}

/**
 * Turning a create/update body into an object of the endpoint's type, with the real server's
 * error order: 413, 415, then the decode errors (400): unreadable JSON, a kind or apiVersion
 * the endpoint cannot take, wrong field types, and unknown or duplicate fields under
 * fieldValidation=Strict (strict-decoding.ts: their wording and order; under Warn each is a
 * Warning item, under Ignore nothing is said).
 *
 * Bodies may be JSON, YAML, protobuf or (CBORServingAndStorage on) CBOR, by Content-Type
 * (negotiation.ts requestBodyEncoding; 415 otherwise). A non-JSON body is first read into the
 * JSON object form with the shared codecs (lib/wire), then takes the JSON path: the server, too,
 * converts YAML to JSON before decoding, and its protobuf and CBOR decoders fill the same Go
 * structs the JSON one does.
 *
 * The bodies REST overrides take are read as plain JSON objects (decodeJsonObject).
 */

import { CborDecodeError, decodeCbor } from "../../../wire/cbor.js";
import { parseJsonStrict } from "../../../wire/json-strict.js";
import { decodeObject as decodeProtobuf, ProtobufFormatError } from "../../../wire/protobuf/index.js";
import { fromYaml, YamlDecodeError, YamlLimitError, YamlTooDeepError } from "../../../wire/yaml.js";
import { badRequest, invalidError } from "../../apimachinery/api-errors.js";
import { notSupported } from "../../apimachinery/field-errors.js";
import { goJsonSyntaxError, summarizeBody } from "../../apimachinery/go-json-errors.js";
import {
  emulatorDepthMessage,
  isJsonObject,
  type Json,
  type JsonObject,
  jsonBeyondEmulator,
  jsonDepthExceeded,
  jsonDepthIfKeysPlain,
  type KubeObject,
  PROBE_FREE_DEPTH,
  valueBeyondEmulator,
} from "../../apimachinery/json.js";
import { asKubeObject } from "../../apimachinery/object-meta.js";
import { jsonStrictErrors, strictWarnings, unknownFieldMessage, yamlStrictErrors } from "../../apimachinery/strict-decoding.js";
import { DecodeError, decodeObject, jsonTypeName } from "../../apimachinery/typed-json.js";
import { groupVersionOf, type ObjectSchema, type TypeIdentity, type UnstructuredInfo } from "../../registry/generic/strategy.js";
import { type Encoding, requestBodyEncoding } from "../negotiation.js";
import type { RequestContext } from "./context.js";

const TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Kinds a real server has registered, so a mismatch is a conversion error rather than "no kind". */
const REGISTERED_KINDS: Record<string, readonly string[]> = {
  v1: ["ConfigMap", "Event", "Namespace", "Node", "Pod", "Secret", "Service", "ServiceAccount"],
  "events.k8s.io/v1": ["Event"],
  "events.k8s.io/v1beta1": ["Event"],
  "coordination.k8s.io/v1": ["Lease"],
  "discovery.k8s.io/v1": ["EndpointSlice"],
};

export type FieldValidation = "Ignore" | "Warn" | "Strict";

export interface DecodedBody {
  readonly object: KubeObject;
  /** Warning header values (`299 - "unknown field \"x\""`, `299 - "duplicate field \"metadata.name\""`). */
  readonly warnings: string[];
}

export function fieldValidationOf(url: URL): FieldValidation {
  const v = url.searchParams.get("fieldValidation");
  if (v === null || v === "") return "Warn";
  if (v === "Ignore" || v === "Warn" || v === "Strict") return v;
  throw invalidError({ group: "meta.k8s.io", kind: "CreateOptions" }, "", [notSupported("fieldValidation", v, ["Ignore", "Warn", "Strict"])]);
}

const versionPart = (apiVersion: string): string => apiVersion.slice(apiVersion.indexOf("/") + 1);

function checkTypeMeta(strategy: TypeIdentity & ObjectSchema, kind: string, apiVersion: string): void {
  const expected = groupVersionOf(strategy);
  if (kind === strategy.kind && apiVersion === expected) return;
  const prefix = `${kind} in version "${versionPart(apiVersion)}" cannot be handled as a ${strategy.kind}`;
  // Another version of the same internal type: the decoder takes it, then the handler refuses the version.
  if (kind === strategy.kind && strategy.sameTypeVersions?.includes(apiVersion)) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  }
  // apiVersion is the client's (`constructor`, `__proto__`): own entries only.
  if (Object.hasOwn(REGISTERED_KINDS, apiVersion) && REGISTERED_KINDS[apiVersion]?.includes(kind)) {
    const pkg = apiVersion.includes("/") ? versionPart(apiVersion) : apiVersion;
    // The internal type's Go package: core for the core group (events included), else the group's first label.
    const internalPkg = strategy.internalKind.group === "" ? "core" : (strategy.internalKind.group.split(".")[0] ?? "core");
    throw badRequest(`${prefix}: converting (${pkg}.${kind}) to (${internalPkg}.${strategy.kind}): unknown conversion`);
  }
  throw badRequest(`${prefix}: no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`);
}

/**
 * The unstructured decoder of custom resources needs kind and apiVersion in the body (a
 * typed decoder defaults them from the endpoint); any served version of the definition is
 * accepted, the object then read as the endpoint's version (no conversion but apiVersion).
 */
function checkUnstructuredTypeMeta(strategy: TypeIdentity, info: UnstructuredInfo, parsed: JsonObject, body: Buffer): void {
  const kind = typeof parsed["kind"] === "string" ? parsed["kind"] : "";
  const apiVersion = typeof parsed["apiVersion"] === "string" ? parsed["apiVersion"] : "";
  if (!kind) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${strategy.kind}): Object 'Kind' is missing in '${JSON.stringify(parsed)}' (${summarizeBody(body)})`,
    );
  }
  if (!apiVersion) {
    throw badRequest(`${kind} in version "" cannot be handled as a ${strategy.kind}: Object 'apiVersion' is missing in '${JSON.stringify(parsed)}'`);
  }
  if (!info.servedApiVersions.includes(apiVersion)) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${groupVersionOf(strategy)})`);
  }
  if (kind !== strategy.kind) {
    throw badRequest(
      `${kind} in version "${versionPart(apiVersion)}" cannot be handled as a ${strategy.kind}: the kind in the data (${kind}) does not match the expected kind (${strategy.kind})`,
    );
  }
}

/** A decoded value in the JSON form: bigint (protobuf int64 beyond 2^53) becomes a number, like JSON numbers do. */
function jsonForm(value: unknown): Json {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))) as Json;
}

/**
 * A body in the JSON object form. `unrecognized` makes the 400 for a body that cannot be read
 * (its detail text is the decoder's). With `strict`, a YAML duplicate key makes the body
 * unreadable; otherwise the last one wins, as the server's lenient conversion does (decodeBody
 * always reads that way and reports duplicates as strict decoding errors instead).
 */
export function bodyJsonForm(
  encoding: Encoding,
  body: Buffer,
  strict: boolean,
  unrecognized: (detail: string) => Error,
  /** The error for a YAML body the server's YAML reader refuses (its limits), when it differs from `unrecognized`'s. */
  convertFailed?: (detail: string) => Error,
): Json {
  switch (encoding) {
    case "json": {
      const text = body.toString("utf8");
      try {
        return JSON.parse(text) as Json;
      } catch (e) {
        throw unrecognized(goJsonSyntaxError(text, e));
      }
    }
    case "yaml":
      try {
        return jsonForm(fromYaml(body.toString("utf8"), { allowDuplicateKeys: !strict, serverLimits: true }));
      } catch (e) {
        // sigs.k8s.io/yaml v1.6.0's YAMLToJSON returns go-yaml's error as is, before any
        // version/kind is looked for (wire-facts §11, YAML).
        if (e instanceof YamlLimitError) throw (convertFailed ?? unrecognized)(e.message);
        if (e instanceof YamlTooDeepError) throw unrecognized(emulatorDepthMessage());
        if (e instanceof YamlDecodeError) throw unrecognized(`error converting YAML to JSON: ${e.message}`);
        throw e;
      }
    case "protobuf":
      try {
        return jsonForm(decodeProtobuf(body));
      } catch (e) {
        if (e instanceof ProtobufFormatError) throw unrecognized(e.message);
        throw e;
      }
    case "cbor":
      try {
        return jsonForm(decodeCbor(body));
      } catch (e) {
        if (e instanceof CborDecodeError) throw unrecognized(e.message);
        throw e;
      }
  }
}

/** A body read for decoding: its JSON form, and what the strict checks need of its source. */
interface ReadBody {
  readonly value: Json;
  /** The text of a JSON or YAML body whose strict checks walk it; unset when they cannot. */
  readonly text?: string;
  /** Repeated keys of a JSON body as parseJsonStrict reports them. */
  readonly duplicates: readonly string[];
  /**
   * A JSON body parseJsonStrict has not read: a scan found no key that could repeat (the
   * common body), so it runs only if the strict errors need their order (unknown fields).
   */
  readonly strictParseDeferred?: boolean;
}

/**
 * bodyJsonForm for decodeBody. A JSON body goes through parseJsonStrict (the shared duplicate
 * detection) unless nothing will be said about duplicates (Ignore); a malformed one is still
 * described by JSON.parse's error, whose wording go-json-errors.ts turns into Go's. YAML
 * duplicates resolve to the last value here, as the server's lenient conversion does; the
 * strict checks find them in the text.
 */
function parseBody(
  encoding: Encoding,
  body: Buffer,
  mode: FieldValidation,
  unrecognized: (detail: string) => Error,
  convertFailed: (detail: string) => Error,
): ReadBody {
  if (encoding === "json") {
    const text = body.toString("utf8");
    if (mode !== "Ignore") {
      // The common body: shallow, no key written twice or with an escape, well-formed. Then the
      // depth checks below pass, parseJsonStrict would find no duplicates and JSON.parse's value
      // is its value; anything else takes the full path.
      const depth = jsonDepthIfKeysPlain(text);
      if (depth !== undefined && depth <= PROBE_FREE_DEPTH) {
        let value: Json | undefined;
        try {
          value = JSON.parse(text) as Json;
        } catch {
          // Malformed: the full path says how.
        }
        if (value !== undefined) return { value, text, duplicates: [], strictParseDeferred: true };
      }
    }
    // Go's JSON scanner stops at 10000 levels, while reading apiVersion and kind (wire-facts §11, JSON depth).
    const opener = jsonDepthExceeded(text);
    if (opener !== undefined) throw unrecognized(`invalid character '${opener}' exceeded max depth`);
    if (jsonBeyondEmulator(text)) throw unrecognized(emulatorDepthMessage());
    if (mode !== "Ignore") {
      try {
        const { value, duplicates } = parseJsonStrict(text);
        return { value: value as Json, text, duplicates };
      } catch {
        // Either malformed (JSON.parse below says how) or beyond the AST parser (say, nesting it
        // cannot follow) while JSON.parse reads it: then the body goes on without duplicate
        // checks, its unknown fields reported in the shape's order.
        return { value: bodyJsonForm(encoding, body, false, unrecognized), duplicates: [] };
      }
    }
  }
  const value = bodyJsonForm(encoding, body, false, unrecognized, convertFailed);
  if (valueBeyondEmulator(value)) throw unrecognized(emulatorDepthMessage());
  return { value, text: encoding === "yaml" && mode !== "Ignore" ? body.toString("utf8") : undefined, duplicates: [] };
}

/** The strict decoding errors of a decoded body, in the server's order (strict-decoding.ts). */
function strictErrorsOf(encoding: Encoding, read: ReadBody, shape: ObjectSchema["shape"], unknownFields: readonly string[]): string[] {
  if (read.strictParseDeferred) {
    // No duplicates: nothing to say without unknown fields; with some, their order needs the
    // strict parse after all, with the full path's fallback when it cannot read the text.
    if (unknownFields.length === 0 || read.text === undefined) return [];
    let duplicates: readonly string[];
    try {
      duplicates = parseJsonStrict(read.text).duplicates;
    } catch {
      return unknownFields.map(unknownFieldMessage);
    }
    return jsonStrictErrors(read.text, shape, duplicates, unknownFields);
  }
  if (encoding === "json" && read.text !== undefined) return jsonStrictErrors(read.text, shape, read.duplicates, unknownFields);
  if (encoding === "yaml" && read.text !== undefined) return yamlStrictErrors(read.text, read.value, shape, unknownFields);
  // Protobuf bodies cannot carry unknown fields in this form; CBOR keeps the shape's report.
  return unknownFields.map(unknownFieldMessage);
}

/** Decodes a body of the endpoint's type; kind and apiVersion come out set to the endpoint's. */
export function decodeBody(ctx: RequestContext, body: Buffer, mode: FieldValidation): DecodedBody {
  const encoding = requestBodyEncoding(ctx.req, ctx.parts.settings.featureGates);
  const strategy = ctx.route.strategy;
  if (strategy.unstructured && encoding === "protobuf") {
    // The protobuf decoder cannot fill an unstructured object (errNotMarshalable), a decode error.
    const v = strategy.version;
    throw badRequest(
      `${strategy.kind} in version "${v}" cannot be handled as a ${strategy.kind}: object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
    );
  }
  const unrecognized = (detail: string): Error =>
    badRequest(
      `the object provided is unrecognized (must be of type ${strategy.kind}): couldn't get version/kind; ${encoding === "json" ? "json parse error: " : ""}${detail} (${summarizeBody(body)})`,
    );
  const convertFailed = (detail: string): Error =>
    badRequest(`the object provided is unrecognized (must be of type ${strategy.kind}): ${detail} (${summarizeBody(body)})`);
  const read = parseBody(encoding, body, mode, unrecognized, convertFailed);
  const parsed = read.value;
  if (!isJsonObject(parsed)) {
    throw unrecognized(`json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type ${TYPE_META_STRUCT}`);
  }
  for (const key of ["kind", "apiVersion"] as const) {
    const v = parsed[key];
    if (v !== undefined && v !== null && typeof v !== "string") {
      throw unrecognized(`json: cannot unmarshal ${jsonTypeName(v)} into Go struct field .${key} of type string`);
    }
  }
  if (strategy.unstructured) checkUnstructuredTypeMeta(strategy, strategy.unstructured, parsed, body);
  const kind = typeof parsed["kind"] === "string" && parsed["kind"] ? parsed["kind"] : strategy.kind;
  const apiVersion = typeof parsed["apiVersion"] === "string" && parsed["apiVersion"] ? parsed["apiVersion"] : groupVersionOf(strategy);
  if (!strategy.unstructured) checkTypeMeta(strategy, kind, apiVersion);

  const prefix = `${kind} in version "${versionPart(apiVersion)}" cannot be handled as a ${strategy.kind}`;
  let decoded: ReturnType<typeof decodeObject>;
  try {
    // A server whose MicroTime decoding takes any RFC 3339 precision (failpoints.ts): fixed up before the decoder sees it.
    const input = ctx.parts.settings.failpoints.has("event-microtime-any-precision") && strategy.kind === "Event" ? withMicroEventTime(parsed) : parsed;
    decoded = decodeObject({ ...input, kind: strategy.kind, apiVersion: groupVersionOf(strategy) } satisfies JsonObject, strategy.shape);
  } catch (e) {
    // A type error is fatal at every level, and then nothing is said about unknown fields.
    if (e instanceof DecodeError) throw badRequest(`${prefix}: ${e.message}`);
    throw e;
  }
  const failpoints = ctx.parts.settings.failpoints;
  // A custom resource store that does not prune: the body is kept as sent, nothing reported (failpoints.ts).
  if (strategy.unstructured && failpoints.has("crd-no-pruning")) {
    return { object: asKubeObject({ ...parsed, kind: strategy.kind, apiVersion: groupVersionOf(strategy) }), warnings: [] };
  }
  const object = asKubeObject(decoded.value);
  // Ignore decodes leniently: no strict errors are even looked for.
  if (mode === "Ignore") return { object, warnings: [] };
  let errors = strictErrorsOf(encoding, read, strategy.shape, decoded.unknownFields);
  // A last-key-wins decoder sees no duplicates (failpoints.ts).
  if (failpoints.has("duplicate-fields-unflagged")) errors = errors.filter((e) => !e.startsWith("duplicate field"));
  // A server that does not enforce Strict: the level is read as Warn (failpoints.ts).
  if (mode === "Strict" && errors.length && !failpoints.has("strict-validation-as-warn"))
    throw badRequest(`${prefix}: strict decoding error: ${errors.join(", ")}`);
  const warnings = strictWarnings(errors);
  // One Warning item for every field at once (failpoints.ts).
  if (failpoints.has("field-warnings-joined") && warnings.length > 1) return { object, warnings: [`299 - ${JSON.stringify(warnings.join(", "))}`] };
  return { object, warnings: warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
}

/**
 * The body of a POST a REST override serves (the review types, a TokenRequest), read as a JSON
 * object whatever its Content-Type: 400 naming `kind` for anything else, as a decode error would be.
 */
export function decodeJsonObject(body: Buffer, kind: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (e) {
    throw badRequest(`the body of the request was in an unknown format or could not be decoded as a ${kind}: ${(e as Error).message}`);
  }
  if (!isJsonObject(parsed)) throw badRequest(`the body of the request could not be decoded as a ${kind}: not a JSON object`);
  return parsed;
}

/** eventTime padded or cut to six fractional digits, as a lenient MicroTime decoder would take it (failpoint event-microtime-any-precision). */
function withMicroEventTime(o: JsonObject): JsonObject {
  const t = o["eventTime"];
  if (typeof t !== "string") return o;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(t);
  return m ? { ...o, eventTime: `${m[1]}.${(m[2] ?? "").padEnd(6, "0").slice(0, 6)}Z` } : o;
}

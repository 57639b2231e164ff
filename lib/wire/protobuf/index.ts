/**
 * The Kubernetes protobuf wire form (application/vnd.kubernetes.protobuf), shared by the
 * harness (client side) and the emulator (server side). It converts between the JSON object
 * form, exactly as the API serves it as JSON, and the bytes a real 1.35 server writes
 * (checked byte for byte against the upstream golden files in test/wire/protobuf).
 *
 * JSON form conventions: field names and key order as served, times as RFC 3339 strings
 * (MicroTime with 6 fractional digits), zero times as null, bytes as base64, int64 as a number
 * (a bigint only beyond 2^53). Facts: ../shared/docs/wire-facts.md §1, §2.
 */
import { decodeEnveloped, type Envelope, encodeEnveloped, isPlainObject, MAGIC, parseEnvelope } from "./codec.js";
import { ProtobufFormatError } from "./errors.js";
import { hasKind } from "./registry.js";

export type { Envelope } from "./codec.js";
export { ProtobufFormatError } from "./errors.js";
export { encodeWatchFrame, type WatchFrameEvent, WatchFrameReader, type WatchFrameReaderOptions } from "./watch.js";

/** 6b 38 73 00: "k8s" and 0x00, meaning a runtime.Unknown follows. */
export const PROTOBUF_MAGIC: Uint8Array = MAGIC.slice();

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

/** Copies a protobufjs Buffer into a plain Uint8Array, so callers and tests see one type. */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/**
 * Encodes a JSON-form object (must carry apiVersion and kind) into the enveloped body:
 * magic + runtime.Unknown{typeMeta{apiVersion(1), kind(2)}, raw, contentEncoding "", contentType ""}.
 * Throws ProtobufFormatError for a kind it does not know (the server answers that with 406)
 * and for a JSON value the server could not decode (wrong type, bad time or base64).
 *
 * meta.v1 WatchEvent is the one exception to "must carry apiVersion and kind": it has no
 * TypeMeta in Go, so `{type, object}` alone is accepted, and its envelope TypeMeta is written
 * empty whatever apiVersion/kind it was given, as the real serializer does.
 */
export function encodeObject(obj: Record<string, unknown>): Uint8Array {
  if (!isPlainObject(obj)) throw new ProtobufFormatError("encodeObject needs a JSON object");
  return plain(encodeEnveloped(obj));
}

/**
 * Decodes an enveloped body back to the JSON form, with apiVersion and kind taken from the
 * envelope (first, as the server writes them). Rejects a body whose first 4 bytes are not the
 * magic (doc1: a client must reject a different prefix), an unknown kind, and malformed bytes,
 * all with ProtobufFormatError. An envelope with empty TypeMeta is read as a WatchEvent.
 */
export function decodeObject(bytes: Uint8Array): Record<string, unknown> {
  return decodeEnveloped(bytes);
}

/** Splits the envelope (after checking the magic) without decoding the object. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  const env = parseEnvelope(bytes);
  return { ...env, raw: plain(env.raw) };
}

/** Whether objects of this apiVersion/kind have a protobuf form here. */
export function supportsProtobuf(apiVersion: string, kind: string): boolean {
  return apiVersion !== "" && kind !== "" && hasKind(apiVersion, kind);
}

/**
 * The encodings a suite can ask a target for, and how the harness reads each back into the
 * JSON object form, using the codecs in lib/wire (the same ones the emulator uses, each
 * checked on its own against real golden bytes).
 */
import { gunzipSync } from "node:zlib";
import { CborSeqReader, decodeCbor, encodeCbor } from "../wire/cbor.js";
import { isCbor, isCborSeq, isJson, isProtobuf, isYaml, parseMediaType } from "../wire/media-type.js";
import { decodeObject, encodeObject, WatchFrameReader } from "../wire/protobuf/index.js";
import { fromYaml, toYaml } from "../wire/yaml.js";
import type { ApiResponse } from "./client.js";
import type { SpecSettings } from "./target.js";
import { type FrameDecoder, JsonLineDecoder } from "./watch.js";

export type Encoding = "json" | "yaml" | "protobuf" | "cbor";

export function mediaTypeOf(encoding: Encoding, spec: SpecSettings): string {
  switch (encoding) {
    case "json":
      return "application/json";
    case "yaml":
      return "application/yaml";
    case "protobuf":
      return `application/vnd.${spec.vendor}.protobuf`;
    case "cbor":
      return "application/cbor";
  }
}

class BodyDecodeError extends Error {}

/** The response body as received, gunzipped when the server compressed it. */
function plainBytes(res: ApiResponse): Uint8Array {
  return /gzip/i.test(res.headers["content-encoding"] ?? "") ? new Uint8Array(gunzipSync(res.bytes)) : res.bytes;
}

/** Decodes a response body by its Content-Type into the JSON object form. */
export function decodeBody(res: ApiResponse, spec: SpecSettings): unknown {
  const ct = res.headers["content-type"] ?? "";
  const m = parseMediaType(ct);
  if (!m) throw new BodyDecodeError(`response without a usable Content-Type: ${JSON.stringify(ct)}`);
  const bytes = plainBytes(res);
  const text = (): string => Buffer.from(bytes).toString("utf8");
  if (isJson(m)) return JSON.parse(text());
  if (isYaml(m)) return fromYaml(text());
  if (isProtobuf(m, spec.vendor)) return decodeObject(bytes);
  if (isCbor(m)) return decodeCbor(bytes);
  throw new BodyDecodeError(`no decoder for Content-Type ${ct}`);
}

/** Encodes a JSON-form object as a request body. */
export function encodeBody(obj: Record<string, unknown>, encoding: Encoding): string | Uint8Array {
  switch (encoding) {
    case "json":
      return JSON.stringify(obj);
    case "yaml":
      return toYaml(obj);
    case "protobuf":
      return encodeObject(obj);
    case "cbor":
      return encodeCbor(obj);
  }
}

/** Adapts the wire readers (which throw on a bad frame) to the harness's watch decoder shape. */
class ProtobufFrames implements FrameDecoder {
  private readonly reader = new WatchFrameReader();
  push(chunk: Uint8Array): unknown[] {
    return this.reader.push(chunk);
  }
  end(): unknown[] {
    this.reader.end();
    return [];
  }
}

class CborFrames implements FrameDecoder {
  private readonly reader = new CborSeqReader();
  push(chunk: Uint8Array): unknown[] {
    return this.reader.push(chunk);
  }
  end(): unknown[] {
    this.reader.end();
    return [];
  }
}

/** The watch framing for a response media type (wire-facts §2, §3); JSON lines otherwise. */
export function frameDecoderFor(contentType: string, vendor = "kubernetes"): FrameDecoder {
  const m = parseMediaType(contentType);
  if (m && isProtobuf(m, vendor)) return new ProtobufFrames();
  if (m && isCborSeq(m)) return new CborFrames();
  return new JsonLineDecoder();
}

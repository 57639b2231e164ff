/**
 * Content negotiation. Only JSON is served for now (yaml, protobuf and cbor come later), so
 * an Accept header is acceptable when it is absent or lists application/json, application/*
 * or *\/* with a non-zero q; a type asking for another representation (`;as=Table`) does not
 * count. Request bodies must be JSON (or untyped).
 */
import type { IncomingMessage } from "node:http";
import { notAcceptable, unsupportedMediaType } from "./api-errors.js";

export const JSON_MEDIA_TYPE = "application/json";
export const SERVED_MEDIA_TYPES: readonly string[] = [JSON_MEDIA_TYPE];

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
}

function parseMediaRange(text: string): MediaRange {
  const [head = "", ...rest] = text.split(";");
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"|"$/g, ""));
  }
  return { type: head.trim().toLowerCase(), params };
}

const JSON_RANGES = new Set(["application/json", "application/*", "*/*"]);

/** Whether the Accept header allows a plain JSON response. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((part) => {
    const range = parseMediaRange(part);
    const q = range.params.get("q");
    if (q !== undefined && Number(q) === 0) return false;
    return JSON_RANGES.has(range.type) && !range.params.has("as");
  });
}

/** Throws 406 unless the request accepts JSON. */
export function negotiateOutput(req: IncomingMessage): void {
  if (!acceptsJson(req.headers.accept)) throw notAcceptable(SERVED_MEDIA_TYPES);
}

/** Throws 415 for a body in a format other than JSON (an absent Content-Type means JSON). */
export function checkBodyContentType(req: IncomingMessage): void {
  const header = req.headers["content-type"];
  if (header === undefined || header.trim() === "") return;
  if (parseMediaRange(header).type !== JSON_MEDIA_TYPE) throw unsupportedMediaType(SERVED_MEDIA_TYPES);
}

const PRETTY_AGENTS = ["curl", "Wget", "Mozilla/5.0"];

/** Go's strconv.ParseBool. */
export function parseGoBool(value: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

/** Pretty output for `?pretty=true` or a browser/curl/wget User-Agent (wire-facts §10). */
export function wantsPretty(req: IncomingMessage, url: URL): boolean {
  const pretty = url.searchParams.get("pretty");
  if (pretty) return parseGoBool(pretty) === true;
  const agent = req.headers["user-agent"] ?? "";
  return PRETTY_AGENTS.some((p) => agent.startsWith(p));
}

/**
 * Go encoding/json syntax-error texts for a body JSON.parse rejected, derived from V8's
 * message. They appear inside 400 decode errors, where clients may show them to people.
 */

import { JsonDepthError } from "./json.js";

/** Go's quoteChar: the offending byte in single quotes. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

export function goJsonSyntaxError(text: string, error: unknown): string {
  // Already Go's text (json.ts parseJsonLimited).
  if (error instanceof JsonDepthError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  if (/Unexpected end of JSON input|Unterminated string/.test(message) || text.trim() === "") return "unexpected end of JSON input";
  const pos = /at position (\d+)/.exec(message);
  const tokenMatch = /Unexpected token '(.)'/.exec(message) ?? /Unexpected token (.)/.exec(message);
  const at = pos?.[1] !== undefined ? text[Number(pos[1])] : tokenMatch?.[1];
  if (at === undefined) return "unexpected end of JSON input";
  const c = quoteChar(at);
  if (/Bad control character|Bad escaped character/.test(message)) return `invalid character ${c} in string literal`;
  if (/Expected property name/.test(message)) return `invalid character ${c} looking for beginning of object key string`;
  if (/after JSON/.test(message)) return `invalid character ${c} after top-level value`;
  if (/after property value/.test(message)) return `invalid character ${c} after object key:value pair`;
  if (/after property name/.test(message)) return `invalid character ${c} after object key`;
  if (/after array element/.test(message)) return `invalid character ${c} after array element`;
  return `invalid character ${c} looking for beginning of value`;
}

/** How the server quotes a body it could not make sense of: 30 bytes, text if it starts with '{', else hex. */
export function summarizeBody(body: Buffer): string {
  if (body.length === 0) return "<empty>";
  const head = body.subarray(0, 30);
  const shown = body[0] === 0x7b ? head.toString("utf8") : head.toString("hex");
  return body.length > 30 ? `${shown} ...` : shown;
}

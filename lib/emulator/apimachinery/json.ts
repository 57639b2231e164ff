/**
 * JSON value types shared by the emulator, and the byte form a Go API server writes.
 */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

/** An API object after decoding: a JSON object whose metadata is an object. */
export interface KubeObject extends JsonObject {
  metadata: JsonObject;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function cloneJson<T extends Json>(value: T): T {
  return structuredClone(value);
}

/** Parses text that is known to be JSON written by this process (stored values). */
export function parseStored(text: string): JsonObject {
  const value: unknown = JSON.parse(text);
  if (!isJsonObject(value)) throw new TypeError("stored value is not a JSON object");
  return value;
}

/**
 * Go's encoding/json escapes <, > and & (and U+2028/U+2029) inside strings. Those characters
 * can only occur inside string literals of JSON.stringify output, so a global replace is safe.
 */
function escapeLikeGo(text: string): string {
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Compact JSON plus a trailing newline, as json.Encoder writes it (wire-facts §10). */
export function compactJson(value: unknown): string {
  return `${escapeLikeGo(JSON.stringify(value))}\n`;
}

/** 2-space indented JSON without a trailing newline, as json.MarshalIndent writes it. */
export function prettyJson(value: unknown): string {
  return escapeLikeGo(JSON.stringify(value, null, 2));
}

/**
 * A collection body (head keys, then an array under itemsKey) as a sequence of text pieces
 * whose concatenation is exactly compactJson / prettyJson of the whole object, so a large list
 * can go out item by item without ever existing as one string. Items come as their compact
 * JSON.stringify text. The Go escaping is applied per piece; that is safe because a piece
 * boundary never falls inside a string literal.
 */
export function* collectionJsonPieces(head: JsonObject, itemsKey: string, itemTexts: Iterable<string>, pretty: boolean): Generator<string> {
  const key = JSON.stringify(itemsKey);
  let count = 0;
  if (!pretty) {
    const open = JSON.stringify(head);
    yield escapeLikeGo(`${open.length > 2 ? `${open.slice(0, -1)},` : "{"}${key}:[`);
    for (const text of itemTexts) yield escapeLikeGo(count++ === 0 ? text : `,${text}`);
    yield "]}\n";
    return;
  }
  // JSON.stringify indents an element of a top-level key's array by two levels (4 spaces).
  const open = JSON.stringify(head, null, 2);
  yield escapeLikeGo(`${open.length > 2 ? `${open.slice(0, -2)},\n` : "{\n"}  ${key}: [`);
  for (const text of itemTexts) {
    const indented = JSON.stringify(JSON.parse(text), null, 2).replace(/\n/g, "\n    ");
    yield escapeLikeGo(`${count++ === 0 ? "" : ","}\n    ${indented}`);
  }
  yield count > 0 ? "\n  ]\n}" : "]\n}";
}

/** One watch event line, {"type":…,"object":…} plus the newline, from the object's compact JSON text. */
export function watchEventLine(type: string, objectText: string): string {
  return `${escapeLikeGo(`{"type":${JSON.stringify(type)},"object":${objectText}}`)}\n`;
}

export function str(obj: JsonObject | undefined, key: string): string {
  const v = obj?.[key];
  return typeof v === "string" ? v : "";
}

export function obj(parent: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = parent?.[key];
  return isJsonObject(v) ? v : undefined;
}

export function stringMap(parent: JsonObject | undefined, key: string): Record<string, string> {
  const v = obj(parent, key);
  if (!v) return {};
  // fromEntries stores every key as an own member, `__proto__` included (user data).
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
}

export function stringList(parent: JsonObject | undefined, key: string): string[] {
  const v = parent?.[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

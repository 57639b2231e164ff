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

/**
 * A deep copy. Iterative: structuredClone recurses and runs out of stack at about 2000 levels,
 * while the server takes objects nested 10000 deep (MAX_JSON_DEPTH).
 */
export function cloneJson<T extends Json>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const root: Json = Array.isArray(value) ? [] : {};
  const stack: Array<[Json[] | JsonObject, Json[] | JsonObject]> = [[value, root as Json[] | JsonObject]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [from, to] = top;
    if (Array.isArray(from)) {
      const out = to as Json[];
      for (const item of from) out.push(copyShallow(item, stack));
    } else {
      const out = to as JsonObject;
      for (const key of Object.keys(from)) {
        const copy = copyShallow(from[key] as Json, stack);
        // A "__proto__" key stays an own property, as structuredClone keeps it.
        if (key === "__proto__") Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
        else out[key] = copy;
      }
    }
  }
  return root as T;
}

function copyShallow(v: Json, stack: Array<[Json[] | JsonObject, Json[] | JsonObject]>): Json {
  if (typeof v !== "object" || v === null) return v;
  const copy: Json[] | JsonObject = Array.isArray(v) ? [] : {};
  stack.push([v, copy]);
  return copy;
}

/** Go's encoding/json nesting limit (scanner.go maxNestingDepth), which sigs.k8s.io/json keeps. */
export const MAX_JSON_DEPTH = 10000;

/** JSON text nested deeper than Go's scanner reads; the message is Go's. */
export class JsonDepthError extends SyntaxError {
  override name = "JsonDepthError";
}

/**
 * Frames of a bare recursive call that fit on this thread's stack. The stack is fixed per
 * thread (V8's --stack-size on the main thread, resourceLimits in a worker), so this is a
 * measure of how deep the emulator's recursive steps can go here.
 */
function stackFrames(): number {
  let depth = 0;
  const down = (): void => {
    depth++;
    down();
  };
  try {
    down();
  } catch {
    // RangeError: the stack is full.
  }
  return depth;
}

/**
 * Bare frames per level of nesting the emulator's deepest request path takes (decoding,
 * patches, field sets, schema pruning, V8's JSON.stringify and js-yaml's reader): measured
 * failing near 1800 levels on Node's default stack (13688 probe frames) and near 13000 with
 * --stack-size=7168 (101638); 9.5 leaves about a quarter of the stack spare.
 */
const FRAMES_PER_LEVEL = 9.5;

/**
 * Nesting that every Node stack follows (the default 984 KB one follows about 1400 levels): a
 * body within it is accepted without probing the stack. The probe fills the whole stack, about
 * 30 ms with a large one, a tenth of the emulator's start (issue #18), so it runs only for the
 * first body nested deeper than this.
 */
export const PROBE_FREE_DEPTH = 500;

let probedDepth: number | undefined;

/**
 * The nesting this emulator follows: Go's 10000 levels when the stack allows (bin/tollgate.js
 * runs the emulator with a stack that does), fewer on a small stack (the emulator started
 * inside a test worker). A body between the two is refused with emulatorDepthMessage() rather
 * than failing halfway through with a RangeError. Probed once per thread, at the first call:
 * the frames already on the stack then (a request's few dozen) are within the spare quarter.
 */
export function emulatorMaxDepth(): number {
  probedDepth ??= Math.min(MAX_JSON_DEPTH, Math.floor(stackFrames() / FRAMES_PER_LEVEL));
  return probedDepth;
}

/** Why a body nested deeper than emulatorMaxDepth() (but within MAX_JSON_DEPTH) is refused. */
export function emulatorDepthMessage(): string {
  return `nesting deeper than ${emulatorMaxDepth()} levels, more than this emulator follows on its stack (a real server reads up to ${MAX_JSON_DEPTH}; run it with node's --stack-size larger)`;
}

/** Whether JSON text nests deeper than this emulator follows (emulatorMaxDepth), probing only for deep text. */
export function jsonBeyondEmulator(text: string): boolean {
  return jsonDepthExceeded(text, PROBE_FREE_DEPTH) !== undefined && jsonDepthExceeded(text, emulatorMaxDepth()) !== undefined;
}

/** Whether a value nests deeper than this emulator follows (emulatorMaxDepth), probing only for deep values. */
export function valueBeyondEmulator(value: unknown): boolean {
  return valueDepthExceeds(value, PROBE_FREE_DEPTH) && valueDepthExceeds(value, emulatorMaxDepth());
}

/** The message of the RangeError V8 throws when the stack runs out. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && error.message === "Maximum call stack size exceeded";
}

/**
 * JSON.parse, refusing text nested deeper than MAX_JSON_DEPTH as Go's decoders do (and
 * deeper than this emulator follows with emulatorDepthMessage()).
 */
export function parseJsonLimited(text: string): Json {
  const opener = jsonDepthExceeded(text);
  if (opener !== undefined) throw new JsonDepthError(`invalid character '${opener}' exceeded max depth`);
  if (jsonBeyondEmulator(text)) throw new JsonDepthError(emulatorDepthMessage());
  return JSON.parse(text) as Json;
}

/** Whether a value nests objects and arrays more than `max` deep (iterative). */
export function valueDepthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The bracket ('{' or '[') at which JSON text opens more than `max` nested objects and arrays,
 * or undefined: Go's scanner then fails with `invalid character '{' exceeded max depth`.
 * A scan of the text (strings skipped), not a parse.
 */
export function jsonDepthExceeded(text: string, max = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return text[i];
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

/**
 * One pass over JSON text for the common request body: the deepest nesting, counted as
 * jsonDepthExceeded counts it, when no object in it repeats a key or writes a key with an escape;
 * undefined otherwise (then a duplicate is possible and the full strict parse must look). Keys are
 * compared as written, so two spellings of one name ("a", "\u0061") count as a possible
 * duplicate through the escape. On text that is not JSON the answer means nothing: callers
 * parse it too.
 */
export function jsonDepthIfKeysPlain(text: string): number | undefined {
  let depth = 0;
  let maxDepth = 0;
  // One entry per open container: null for an array; for an object false (no key yet), its one
  // key, or the set of its keys from the second on.
  const keys: Array<Set<string> | string | false | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i + 1;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      if (!expectKey) continue;
      expectKey = false;
      if (escaped) return undefined;
      const key = text.slice(start, i);
      const top = keys.length - 1;
      const seen = keys[top];
      if (seen === undefined || seen === null) continue;
      if (seen === false) keys[top] = key;
      else if (typeof seen === "string") {
        if (seen === key) return undefined;
        keys[top] = new Set([seen, key]);
      } else {
        if (seen.has(key)) return undefined;
        seen.add(key);
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) maxDepth = depth;
      keys.push(c === 0x7b ? false : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      keys.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = keys.length > 0 && keys[keys.length - 1] !== null;
    }
  }
  return maxDepth;
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
export function escapeLikeGo(text: string): string {
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Compact JSON plus a trailing newline, as json.Encoder writes it (wire-facts §10). */
export function compactJson(value: unknown): string {
  return `${escapeLikeGo(JSON.stringify(value))}\n`;
}

/** compactJson of the value whose JSON.stringify text this is, without parsing it again. */
export function compactJsonOfText(text: string): string {
  return `${escapeLikeGo(text)}\n`;
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

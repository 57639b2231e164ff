/**
 * RFC 6902 operations applied the way the real server's library (evanphx/json-patch v4) does,
 * on fast-json-patch: shared by the JSON patch endpoint and by mutating admission webhooks'
 * patches, so it sits below both. Keys are user data (`__proto__`, `constructor`, `toString`
 * are valid ConfigMap keys): fast-json-patch reads and writes `obj[key]`, so the document it
 * works on is a copy without prototypes and its prototype ban is off; `test`, `move` and `copy`
 * are done here because the library's versions re-enter it with the ban on.
 */
import type { Operation } from "fast-json-patch";
import jsonpatch from "fast-json-patch";
import { isJsonObject, type Json, type JsonObject } from "./json.js";
import { deepEqual } from "./managed-fields/typed-values.js";

const unescapeToken = (s: string): string => s.replace(/~1/g, "/").replace(/~0/g, "~");

/** The value at a JSON pointer, or undefined when the pointer does not resolve. */
export function resolve(doc: Json, pointer: string): Json | undefined {
  if (pointer === "") return doc;
  let v: Json | undefined = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = unescapeToken(raw);
    if (Array.isArray(v)) v = /^\d+$/.test(key) ? v[Number(key)] : undefined;
    else if (isJsonObject(v)) v = Object.hasOwn(v, key) ? v[key] : undefined;
    else return undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

export function splitPointer(pointer: string): { parent: string; key: string } {
  const at = pointer.lastIndexOf("/");
  return { parent: at <= 0 ? "" : pointer.slice(0, at), key: unescapeToken(pointer.slice(at + 1)) };
}

/**
 * fast-json-patch's own validation, except that a `replace` may name a missing member of an
 * existing object (evanphx v4 behaviour, see the module comment).
 */
function validator(operation: Operation, index: number, document: unknown, existingPath?: string): void {
  if (operation.op === "replace" && existingPath !== undefined && existingPath !== operation.path) {
    const { parent } = splitPointer(operation.path);
    if (existingPath === parent && isJsonObject(resolve(document as Json, parent) ?? null)) return;
  }
  jsonpatch.validator(operation, index, document, existingPath);
}

/**
 * A deep copy whose objects have no prototype (see the module comment). Iterative, as
 * structuredClone is, so that a deeply nested document does not exhaust the stack.
 */
export function bareClone(value: Json): Json {
  const shell = (v: Json): Json => (Array.isArray(v) ? [] : isJsonObject(v) ? (Object.create(null) as JsonObject) : v);
  const root = shell(value);
  const pending: [Json, Json][] = [[value, root]];
  for (let top = pending.pop(); top; top = pending.pop()) {
    const [from, to] = top;
    const entries: [string | number, Json][] = Array.isArray(from) ? [...from.entries()] : isJsonObject(from) ? Object.entries(from) : [];
    for (const [key, child] of entries) {
      const copy = shell(child);
      // A prototype-less target has no `__proto__` setter: plain assignment stores the key.
      (to as Record<string | number, Json>)[key] = copy;
      if (copy !== child) pending.push([child, copy]);
    }
  }
  return root;
}

/**
 * One library operation on `doc` itself (the caller's working copy), prototype ban off. The
 * library validates before it writes, so a failing operation leaves `doc` as it was; copying
 * the document per operation instead made a 10000-operation patch of a large object cost
 * 10000 copies of it.
 */
function libraryOperation(doc: Json, op: Operation): Json {
  return jsonpatch.applyOperation(doc, op, validator, true, false).newDocument as Json;
}

/** Applies one operation to `doc` (a bare working copy, changed in place), giving the new document; throws the library's errors. */
export function applyOne(doc: Json, raw: JsonObject, kind: string): Json {
  const value = raw["value"];
  if (kind === "test") {
    const path = raw["path"];
    const actual = typeof path === "string" && (path === "" || path.startsWith("/")) ? resolve(doc, path) : undefined;
    if (actual === undefined || value === undefined || !deepEqual(actual, value))
      throw new jsonpatch.JsonPatchError("Test operation failed", "TEST_OPERATION_FAILED");
    return doc;
  }
  if (kind === "move" || kind === "copy") {
    const from = raw["from"];
    const moved = typeof from === "string" ? resolve(doc, from) : undefined;
    if (typeof from !== "string" || moved === undefined) {
      throw new jsonpatch.JsonPatchError("Cannot perform the operation from a path that does not exist", "OPERATION_FROM_UNRESOLVABLE");
    }
    // A move that fails at its add must leave the document as it was: it works on a copy.
    const source = kind === "move" ? libraryOperation(bareClone(doc), { op: "remove", path: from }) : doc;
    return libraryOperation(source, { op: "add", path: raw["path"], value: bareClone(moved) } as Operation);
  }
  // evanphx v4 writes null for an add or replace that has no value.
  const op = { ...raw, ...(kind === "add" || kind === "replace" ? { value: value === undefined ? null : bareClone(value) } : {}) } as unknown as Operation;
  return libraryOperation(doc, op);
}

/**
 * Decoded operations applied to a copy of `doc`, keys handled as in applyJsonPatch; a failing
 * operation throws the library's error (an admission webhook's patch reports its text).
 */
export function applyPatchOperations(doc: JsonObject, ops: readonly JsonObject[]): Json {
  let current: Json = bareClone(doc);
  for (const raw of ops) {
    const kind = raw["op"];
    if (typeof kind !== "string" || !["add", "remove", "replace", "move", "copy", "test"].includes(kind)) {
      throw new jsonpatch.JsonPatchError("Operation `op` property is not one of operations defined in RFC-6902", "OPERATION_OP_INVALID");
    }
    current = applyOne(current, raw, kind);
  }
  return structuredClone(current);
}

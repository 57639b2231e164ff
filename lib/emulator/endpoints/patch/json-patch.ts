/**
 * application/json-patch+json: RFC 6902 operations applied with fast-json-patch, with the
 * real server's decoding and error behaviour around it (apiserver@v0.35.7 patch.go
 * applyJSPatch over gopkg.in/evanphx/json-patch.v4):
 *
 *  - the body must be a JSON array of operation objects, else 400: under Warn/Strict
 *    validation the strict decode into []handlers.jsonPatchOp speaks (`error decoding patch:
 *    json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`), under
 *    Ignore the library's DecodePatch (`json: cannot unmarshal object into Go value of type
 *    jsonpatch.Patch`); unknown or repeated operation keys are strict errors (`json patch
 *    unknown field "[0].x"`);
 *  - more than 10000 operations is 413;
 *  - any failing operation, a `test` included, fails the whole patch with 422 Invalid,
 *    message `the server rejected our request due to an error in our request` and one
 *    UnexpectedServerResponse cause carrying the library's text. The texts here are
 *    evanphx/json-patch v4's (`testing value /data/a failed: test failed`, …) for the
 *    failures it has; the rare shapes it words differently keep fast-json-patch's text;
 *  - evanphx v4 quirks kept: `replace` of a missing object member adds it (its get does not
 *    report a missing key), and an add/replace without `value` writes null.
 *
 * Nothing is changed on failure: the operations run on a copy.
 *
 * Keys are user data (`__proto__`, `constructor`, `toString` are valid ConfigMap keys, stored
 * by a real server like any other): fast-json-patch reads and writes `obj[key]`, so the
 * document it works on is a copy without prototypes (no inherited members to read, no
 * `__proto__` setter to hit) and its prototype ban is off. `test`, `move` and `copy` are done
 * here (evanphx's own way: a read, a remove, an add) because the library's versions re-enter
 * it with the ban on, and its equality calls the value's `hasOwnProperty`.
 */

import jsonpatch from "fast-json-patch";
import { duplicateFieldMessage, parseJsonStrict } from "../../../wire/json-strict.js";
import { badRequest } from "../../apimachinery/api-errors.js";
import { goJsonSyntaxError } from "../../apimachinery/go-json-errors.js";
import { isJsonObject, type Json, type JsonObject, parseJsonLimited } from "../../apimachinery/json.js";
import { applyOne, bareClone, resolve, splitPointer } from "../../apimachinery/json-patch-operations.js";
import { jsonTypeName } from "../../apimachinery/typed-json.js";
import { patchRejected, tooManyOperations } from "./errors.js";
import type { FieldValidation } from "./options.js";

const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface PatchResult {
  readonly patched: Json;
  /** Strict decoding errors found in the patch itself (unknown or repeated keys). */
  readonly strictErrors: string[];
}

const OP_KEYS = new Set(["op", "path", "from", "value"]);

/** Decodes the body into operations, with the 400s of the real decoder. */
function decodeOperations(body: Buffer, validation: FieldValidation): { ops: JsonObject[]; strictErrors: string[] } {
  const text = body.toString("utf8");
  const strict = validation !== "Ignore";
  let parsed: Json;
  try {
    parsed = parseJsonLimited(text);
  } catch (e) {
    throw badRequest(strict ? `error decoding patch: ${goJsonSyntaxError(text, e)}` : goJsonSyntaxError(text, e));
  }
  const target = strict ? "[]handlers.jsonPatchOp" : "jsonpatch.Patch";
  const itemType = strict ? "handlers.jsonPatchOp" : "jsonpatch.Operation";
  const fail = (message: string): never => {
    throw badRequest(strict ? `error decoding patch: ${message}` : message);
  };
  if (!Array.isArray(parsed)) return fail(`json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type ${target}`);
  const strictErrors: string[] = [];
  for (const [i, op] of parsed.entries()) {
    if (op === null) continue;
    if (!isJsonObject(op)) fail(`json: cannot unmarshal ${jsonTypeName(op)} into Go value of type ${itemType}`);
    if (!strict || !isJsonObject(op)) continue;
    for (const key of ["op", "path", "from"]) {
      const v = op[key];
      if (v !== undefined && v !== null && typeof v !== "string") {
        fail(`json: cannot unmarshal ${jsonTypeName(v)} into Go struct field jsonPatchOp.${key} of type string`);
      }
    }
    for (const key of Object.keys(op)) if (!OP_KEYS.has(key)) strictErrors.push(`json patch unknown field "[${i}].${key}"`);
  }
  if (strict) {
    for (const path of parseJsonStrict(text).duplicates) strictErrors.push(`json patch ${duplicateFieldMessage(path)}`);
  }
  return { ops: parsed.map((op) => (isJsonObject(op) ? op : {})), strictErrors };
}

/** evanphx/json-patch v4's text for an operation that failed on `doc`. */
function failureText(op: JsonObject, doc: Json, fallback: string): string {
  const kind = typeof op["op"] === "string" ? op["op"] : "unknown";
  const path = typeof op["path"] === "string" ? op["path"] : "";
  const from = typeof op["from"] === "string" ? op["from"] : "";
  const { parent, key } = splitPointer(path);
  const container = resolve(doc, parent);
  const parentMissing = path !== "" && (!path.startsWith("/") || container === undefined || (!Array.isArray(container) && !isJsonObject(container)));
  const badIndex = `Unable to access invalid index: ${key}: invalid index referenced`;
  switch (kind) {
    case "test":
      if (parentMissing) return `test operation does not apply: is missing path: ${path}: missing value`;
      return `testing value ${path} failed: test failed`;
    case "add":
      if (parentMissing) return `add operation does not apply: doc is missing path: "${path}": missing value`;
      if (Array.isArray(container) && key !== "-" && !/^-?\d+$/.test(key)) {
        return `error in add for path: '${path}': value was not a proper array index: '${key}': strconv.Atoi: parsing "${key}": invalid syntax`;
      }
      return `error in add for path: '${path}': ${badIndex}`;
    case "remove":
      if (parentMissing) return `remove operation does not apply: doc is missing path: "${path}": missing value`;
      if (Array.isArray(container)) return `error in remove for path: '${path}': ${badIndex}`;
      return `error in remove for path: '${path}': Unable to remove nonexistent key: ${key}: missing value`;
    case "replace":
      if (parentMissing) return `replace operation does not apply: doc is missing path: ${path}: missing value`;
      return `replace operation does not apply: doc is missing key: ${path}: missing value`;
    case "move":
    case "copy": {
      if (from === "" && op["from"] === undefined) return `${kind} operation failed to decode from: operation, missing from field: missing value`;
      if (resolve(doc, from) === undefined) return `${kind} operation does not apply: doc is missing from path: ${from}: missing value`;
      return `${kind} operation does not apply: doc is missing destination path: ${path}: missing value`;
    }
    default:
      return fallback;
  }
}

/** Applies the patch to a copy of `doc`. */
export function applyJsonPatch(doc: JsonObject, body: Buffer, validation: FieldValidation): PatchResult {
  const { ops, strictErrors } = decodeOperations(body, validation);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(ops.length);
  let current: Json = bareClone(doc);
  for (const raw of ops) {
    const kind = raw["op"];
    if (typeof kind !== "string" || !["add", "remove", "replace", "move", "copy", "test"].includes(kind)) {
      throw patchRejected(`Unexpected kind: ${typeof kind === "string" ? kind : "unknown"}`);
    }
    const before = current;
    try {
      current = applyOne(before, raw, kind);
    } catch (e) {
      if (e instanceof jsonpatch.JsonPatchError || e instanceof TypeError) throw patchRejected(failureText(raw, before, e.message));
      throw e;
    }
  }
  // Back to ordinary objects (structuredClone keeps an own `__proto__` member as one).
  return { patched: structuredClone(current), strictErrors };
}

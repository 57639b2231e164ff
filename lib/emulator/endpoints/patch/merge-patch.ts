/**
 * application/merge-patch+json: RFC 7386 (a null deletes a member, objects merge recursively,
 * anything else replaces), with the real server's decoding around
 * it (apiserver@v0.35.7 patch.go applyJSPatch over evanphx/json-patch v4 MergePatch):
 *
 *  - under Warn/Strict validation the body is first decoded strictly into a
 *    map[string]interface{}: unreadable JSON or a non-object is 400 `error decoding patch: …`,
 *    repeated keys are strict errors (`duplicate field "metadata.labels.a"`);
 *  - a `null` body is 400 `Invalid JSON Patch` (evanphx ErrBadJSONPatch), and so is, under
 *    Ignore, unreadable JSON or a scalar; an array under Ignore replaces the whole document
 *    (the caller's decode then refuses it).
 */
import { duplicateFieldMessage, parseJsonStrict } from "../../../wire/json-strict.js";
import { badRequest } from "../../apimachinery/api-errors.js";
import { goJsonSyntaxError } from "../../apimachinery/go-json-errors.js";
import { isJsonObject, type Json, type JsonObject, parseJsonLimited } from "../../apimachinery/json.js";
import { ownValue, setOwn } from "../../apimachinery/own-keys.js";
import { jsonTypeName } from "../../apimachinery/typed-json.js";
import type { PatchResult } from "./json-patch.js";
import type { FieldValidation } from "./options.js";

const BAD_PATCH = "Invalid JSON Patch";

/**
 * RFC 7386 §2 MergePatch, by hand: json-merge-patch stops at a `__proto__`, `constructor` or
 * `prototype` key and silently drops it and every key after it, while a real server stores
 * them as ordinary keys. Changes `target` in place when it is an object.
 */
function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isJsonObject(patch)) return patch;
  const out: JsonObject = isJsonObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwn(out, key, mergePatch(ownValue(out, key), value));
  }
  return out;
}

/** RFC 7386 nulls inside an array are kept by the merge; evanphx prunes them. */
function pruneArrayNulls(value: Json): Json {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(pruneArrayNulls);
  return value;
}

export function applyMergePatch(doc: JsonObject, body: Buffer, validation: FieldValidation): PatchResult {
  const text = body.toString("utf8");
  const strict = validation !== "Ignore";
  let patch: Json;
  try {
    patch = parseJsonLimited(text);
  } catch (e) {
    throw badRequest(strict ? `error decoding patch: ${goJsonSyntaxError(text, e)}` : BAD_PATCH);
  }
  const strictErrors: string[] = [];
  if (strict) {
    if (patch !== null && !isJsonObject(patch)) {
      throw badRequest(`error decoding patch: json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
    }
    for (const path of parseJsonStrict(text).duplicates) strictErrors.push(duplicateFieldMessage(path));
  }
  if (patch === null) throw badRequest(BAD_PATCH);
  if (Array.isArray(patch)) return { patched: pruneArrayNulls(patch), strictErrors };
  if (!isJsonObject(patch)) throw badRequest(BAD_PATCH);
  // mergePatch() changes its target in place: give it a copy.
  const patched = mergePatch(structuredClone(doc), patch);
  return { patched, strictErrors };
}

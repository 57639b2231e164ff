/**
 * application/strategic-merge-patch+json for the built-in types, after
 * apimachinery@v0.35.7 pkg/util/strategicpatch (StrategicMergeMapPatch with MergeParallelList
 * and IgnoreUnmatchedNulls) and the handler around it (apiserver patch.go strategicPatchObject).
 *
 * Written by hand: strategic merge is Kubernetes-specific (it reads patch strategies from Go
 * struct tags) and no maintained npm library implements it. The struct tags come from the
 * schema (schema.ts): metadata.finalizers merges as a set of strings, ownerReferences and a
 * namespace's status.conditions merge by key (uid, type), every other list is replaced.
 *
 * Semantics, as upstream:
 *  - maps merge recursively; a null deletes the key; a value of another JSON type replaces;
 *  - `$patch: replace` in a map replaces it with the patch's other keys, `$patch: delete`
 *    leaves it empty; any other `$patch` is an error;
 *  - merged primitive lists are a union; `$deleteFromPrimitiveList/<field>: [...]` removes
 *    items (on a field the object does not have it sets the field to that list, an upstream
 *    quirk); the result order is upstream's normalizeElementOrder (patch items and
 *    server-only items interleaved by their live order, new items first);
 *  - keyed lists merge items with the same key; `{"$patch": "delete", <key>: …}` removes an
 *    item, `{"$patch": "replace"}` replaces the list;
 *  - `$setElementOrder/<field>` orders the merged list; `$retainKeys` clears the keys it does
 *    not list (and refuses a patch that sets one of them).
 * Upstream walks the patch map in Go's random order; here `$deleteFromPrimitiveList`
 * directives run before the other keys, which is the order that gives kubectl's generated
 * patches (delete old items, add new ones) their intended result.
 *
 * Errors: the mergepatch sentinel errors the handler maps to 400 or 422 keep that mapping;
 * the plain errors (unknown `$patch`, missing merge key, …) that the real server lets become
 * 500 are 400 here (errors.ts).
 */

import { duplicateFieldMessage, parseJsonStrict } from "../../../wire/json-strict.js";
import { badRequest } from "../../apimachinery/api-errors.js";
import { goJsonSyntaxError } from "../../apimachinery/go-json-errors.js";
import { isJsonObject, type Json, type JsonObject, parseJsonLimited } from "../../apimachinery/json.js";
import type { SchemaNode } from "../../apimachinery/managed-fields/schema.js";
import { ownValue, setOwn } from "../../apimachinery/own-keys.js";
import { jsonTypeName } from "../../apimachinery/typed-json.js";
import { PatchInputError, patchRejected } from "./errors.js";
import { goValue } from "./go-format.js";
import type { PatchResult } from "./json-patch.js";
import type { FieldValidation } from "./options.js";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_PREFIX = "$deleteFromPrimitiveList";
const ORDER_PREFIX = "$setElementOrder";

/** mergepatch's sentinel errors, by the status the handler gives them (interpretStrategicMergePatchError). */
const ERR_PRIMITIVE_LIST = "invalid patch format of primitive list";
const ERR_RETAIN_KEYS = "invalid patch format of retainKeys";
const ERR_ORDER_LIST = "invalid patch format of setElementOrder list";
const ERR_LIST_OF_LISTS = "lists of lists are not supported";

class SentinelError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 422,
  ) {
    super(message);
  }
}

type Kind = "map" | "list" | "scalar";

/** The Go kind a decoded JSON value has (reflect.TypeOf compared by the merge). */
function goType(v: Json): string {
  if (v === null) return "nil";
  if (Array.isArray(v)) return "slice";
  if (isJsonObject(v)) return "map";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return typeof v;
}

const elementKind = (v: Json): Kind => (Array.isArray(v) ? "list" : isJsonObject(v) ? "map" : "scalar");

function childNode(node: SchemaNode, key: string): SchemaNode | undefined {
  if (node.type === "struct") return node.fields.get(key);
  if (node.type === "map") return node.values;
  return undefined;
}

/** forkedjson.LookupPatchMetadata: a struct field the type does not declare is an error. */
function lookup(node: SchemaNode, key: string): SchemaNode {
  const child = childNode(node, key);
  if (child) return child;
  const goName = node.type === "struct" ? node.goName : "map";
  throw new PatchInputError(`unable to find api field in struct ${goName} for the json field "${key}"`);
}

/** The merge strategy a list field carries: its merge key ("" for primitives), or undefined for replace. */
function mergeKeyOf(node: SchemaNode): string | undefined {
  if (node.type !== "list") return undefined;
  if (node.listType === "set") return "";
  if (node.listType === "map") return node.keys[0] ?? "";
  return undefined;
}

function itemNode(node: SchemaNode): SchemaNode {
  return node.type === "list" ? node.items : node;
}

function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw new SentinelError(prefix === DELETE_PREFIX ? ERR_PRIMITIVE_LIST : ERR_ORDER_LIST, 400);
  }
  return key.slice(slash + 1);
}

const noMergeKey = (m: Json, key: string): PatchInputError => new PatchInputError(`map: ${goValue(m)} does not contain declared merge key: ${key}`);

/** sliceElementType: the one kind of every element of the lists. */
function sliceElementKind(...lists: Json[][]): Kind {
  let prev: string | undefined;
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goType(v);
      if (prev === undefined) {
        prev = t;
        kind = elementKind(v);
        if (kind === "list") throw new SentinelError(ERR_LIST_OF_LISTS, 422);
      } else if (prev !== t) {
        throw new PatchInputError(`list element types are not identical: ${lists.map((l) => goValue(l)).join(" ")}`);
      }
    }
  }
  if (kind === undefined) throw new PatchInputError("no elements in any of the given slices");
  return kind;
}

/** index(): the position of an item (maps: by merge key value) in a list, or -1. */
function indexOf(list: readonly Json[], value: Json, mergeKey: string, kind: Kind): number {
  const get = (item: Json): Json | undefined => (kind === "map" ? (isJsonObject(item) ? item[mergeKey] : undefined) : item);
  const wanted = get(value);
  return list.findIndex((v) => get(v) === wanted);
}

/** normalizeSliceOrder: upstream's sort.SliceStable with its comparator, as an insertion sort. */
function normalizeSliceOrder(toSort: Json[], order: readonly Json[], mergeKey: string, kind: Kind): Json[] {
  let items = [...toSort];
  let toDelete: Json[] = [];
  if (kind === "map") {
    for (const v of [...items, ...order]) {
      if (!isJsonObject(v) || !Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
    toDelete = items.filter((v) => isJsonObject(v) && v[DIRECTIVE] === "delete");
    items = items.filter((v) => !(isJsonObject(v) && v[DIRECTIVE] === "delete"));
  }
  const less = (a: Json, b: Json): boolean => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOf(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j] ?? null, items[j - 1] ?? null); j--) {
      const t = items[j] ?? null;
      items[j] = items[j - 1] ?? null;
      items[j - 1] = t;
    }
  }
  return [...items, ...toDelete];
}

/** mergeSortedSlice: server-only items inserted into the patch items by their live order. */
function mergeSortedSlice(left: readonly Json[], right: readonly Json[], serverOrder: readonly Json[], mergeKey: string, kind: Kind): Json[] {
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const l = left[i];
    const r = right[j];
    if (l === undefined) {
      out.push(r ?? null);
      j++;
    } else if (r === undefined) {
      out.push(l);
      i++;
    } else {
      const li = indexOf(serverOrder, l, mergeKey, kind);
      const ri = indexOf(serverOrder, r, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push(l);
        i++;
      } else {
        out.push(r);
        j++;
      }
    }
  }
  return out;
}

function normalizeElementOrder(
  patch: Json[],
  serverOnly: Json[],
  patchOrder: readonly Json[],
  serverOrder: readonly Json[],
  mergeKey: string,
  kind: Kind,
): Json[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function partition(merged: readonly Json[], by: readonly Json[], mergeKey: string, kind: Kind): [Json[], Json[]] {
  const inPatch: Json[] = [];
  const serverOnly: Json[] = [];
  for (const v of merged) {
    let found: boolean;
    if (kind === "map") {
      if (!isJsonObject(v) || !Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      found = by.some((b) => isJsonObject(b) && b[mergeKey] === v[mergeKey]);
    } else {
      found = by.some((b) => b === v);
    }
    (found ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

function deleteMatching(original: Json[], mergeKey: string, value: Json): Json[] {
  return original.filter((v) => !(isJsonObject(v) && v[mergeKey] === value));
}

function mergeSlice(original: Json[], patch: Json[], node: SchemaNode, mergeKey: string, isDeleteList: boolean): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: Json[];
  let orig = original;
  let pat = patch;
  if (kind !== "map") {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [];
    for (const v of [...original, ...patch]) if (!merged.includes(v)) merged.push(v);
  } else {
    if (mergeKey === "") throw new PatchInputError("cannot merge lists without merge key for type struct");
    // mergeSliceWithSpecialElements
    const plain: Json[] = [];
    let replace = false;
    for (const v of patch) {
      const item = v as JsonObject;
      if (!Object.hasOwn(item, DIRECTIVE)) {
        plain.push(v);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === "delete") {
        if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
        orig = deleteMatching(orig, mergeKey, item[mergeKey] ?? null);
      } else if (directive === "replace") {
        replace = true;
      } else if (directive === "merge") {
        throw new PatchInputError("merging lists cannot yet be specified in the patch");
      } else {
        throw new PatchInputError(`unknown patch type: ${goValue(directive ?? null)} in map: ${goValue(item)}`);
      }
    }
    if (replace) {
      orig = plain;
      pat = [];
    } else {
      pat = plain;
    }
    // mergeSliceWithoutSpecialElements
    merged = [...orig];
    for (const v of pat) {
      const item = v as JsonObject;
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const at = merged.findIndex((m) => isJsonObject(m) && m[mergeKey] === item[mergeKey]);
      const found = merged[at];
      if (at >= 0 && isJsonObject(found)) merged[at] = mergeMap(structuredClone(found), structuredClone(item), itemNode(node));
      else merged.push(v);
    }
  }
  const [patchItems, serverOnly] = partition(merged, pat, mergeKey, kind);
  return normalizeElementOrder(patchItems, serverOnly, pat, orig, mergeKey, kind);
}

function mergeSliceHandler(original: Json[], patch: Json[], node: SchemaNode, isDeleteList: boolean): Json[] {
  const mergeKey = mergeKeyOf(node);
  if (mergeKey === undefined) return patch;
  return mergeSlice(original, patch, node, mergeKey, isDeleteList);
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new SentinelError(ERR_RETAIN_KEYS, 400);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PREFIX) || k.startsWith(ORDER_PREFIX)) continue;
    if (!list.includes(k)) throw new SentinelError(ERR_RETAIN_KEYS, 400);
  }
  for (const k of Object.keys(original)) if (!list.includes(k)) delete original[k];
}

/** validatePatchWithSetOrderList: the patch list must follow the order list. */
function checkOrderList(patchList: Json[], order: Json[], mergeKey: string): void {
  if (!order.length || !patchList.length) return;
  const nonDelete = mergeKey ? patchList.filter((v) => !(isJsonObject(v) && v[DIRECTIVE] === "delete")) : patchList;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < order.length) {
    const item = nonDelete[p] ?? null;
    if (isJsonObject(item) && Object.hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    const o = order[s] ?? null;
    const equal = mergeKey ? isJsonObject(item) && isJsonObject(o) && item[mergeKey] === o[mergeKey] : item === o;
    if (equal) p++;
    s++;
  }
  if (p < nonDelete.length && s >= order.length) {
    throw new PatchInputError(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${ORDER_PREFIX} list:\n${goValue(order)}\n`);
  }
}

/** mergePatchIntoOriginal: the `$setElementOrder/<field>` directives. */
function applyOrderDirectives(original: JsonObject, patch: JsonObject, node: SchemaNode): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(ORDER_PREFIX)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw new SentinelError(ERR_ORDER_LIST, 400);
    const field = extractKey(key, ORDER_PREFIX);
    const originalList = ownValue(original, field);
    const patchList = ownValue(patch, field);
    if (originalList !== undefined && !Array.isArray(originalList)) throw new SentinelError(ERR_ORDER_LIST, 400);
    if (patchList !== undefined && !Array.isArray(patchList)) throw new SentinelError(ERR_ORDER_LIST, 400);
    const child = lookup(node, field);
    const mergeKey = mergeKeyOf(child) ?? "";
    checkOrderList(patchList ?? [], order, mergeKey);
    let merged: Json[];
    if (originalList === undefined && patchList === undefined) continue;
    if (patchList === undefined) merged = originalList ?? [];
    else if (originalList === undefined) merged = patchList;
    else merged = mergeSliceHandler(originalList, patchList, child, false);
    const kind = sliceElementKind(originalList ?? [], patchList ?? []);
    const [inOrder, serverOnly] = partition(merged, order, mergeKey, kind);
    setOwn(original, field, normalizeElementOrder(inOrder, serverOnly, order, originalList ?? [], mergeKey, kind));
    delete patch[field];
  }
}

/**
 * discardNullValuesFromPatch (IgnoreUnmatchedNulls): a patch value taken whole, because the
 * original lacks the key or has another type there, loses its nulls; else a null meant to
 * delete a key that is not there would store one (`{"data":{"x":null}}` giving `x: ""`).
 */
function discardNulls(value: Json): void {
  if (Array.isArray(value)) for (const item of value) discardNulls(item);
  else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else discardNulls(v);
    }
  }
}

function mergeMap(original: JsonObject, patch: JsonObject, node: SchemaNode): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === "replace") {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === "delete") return {};
    throw new PatchInputError(`unknown patch type: ${goValue(directive ?? null)} in map: ${goValue(patch)}`);
  }
  applyRetainKeys(original, patch);
  applyOrderDirectives(original, patch, node);
  const keys = Object.keys(patch).sort((a, b) => Number(!a.startsWith(DELETE_PREFIX)) - Number(!b.startsWith(DELETE_PREFIX)));
  for (const rawKey of keys) {
    const patchV = patch[rawKey] ?? null;
    let k = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_PREFIX)) {
      k = extractKey(rawKey, DELETE_PREFIX);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[k];
      continue;
    }
    // Keys are user data (`__proto__` is a valid ConfigMap key): own members only.
    if (!Object.hasOwn(original, k)) {
      discardNulls(patchV);
      setOwn(original, k, patchV);
      continue;
    }
    const current = original[k] ?? null;
    if (goType(current) !== goType(patchV)) {
      discardNulls(patchV);
      setOwn(original, k, patchV);
      continue;
    }
    const child = lookup(node, k);
    if (isJsonObject(current) && isJsonObject(patchV)) setOwn(original, k, mergeMap(current, patchV, child));
    else if (Array.isArray(current) && Array.isArray(patchV)) setOwn(original, k, mergeSliceHandler(current, patchV, child, isDeleteList));
    else setOwn(original, k, patchV);
  }
  return original;
}

export interface StrategicPatchResult extends PatchResult {
  /** The decoded patch, as `%+v` prints it in the 422 for a result that does not decode. */
  readonly patchText: string;
}

/** Applies the patch to a copy of `doc`. */
export function applyStrategicMergePatch(doc: JsonObject, body: Buffer, validation: FieldValidation, schema: SchemaNode): StrategicPatchResult {
  const text = body.toString("utf8");
  let patch: Json;
  try {
    patch = parseJsonLimited(text);
  } catch (e) {
    throw badRequest(goJsonSyntaxError(text, e));
  }
  if (patch !== null && !isJsonObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
  }
  const strictErrors = validation === "Ignore" ? [] : parseJsonStrict(text).duplicates.map(duplicateFieldMessage);
  const patchMap: JsonObject = patch ?? {};
  const patchText = goValue(patchMap);
  try {
    const patched = mergeMap(structuredClone(doc), structuredClone(patchMap), schema);
    return { patched, strictErrors, patchText };
  } catch (e) {
    if (e instanceof SentinelError) throw e.status === 400 ? badRequest(e.message) : patchRejected(e.message);
    throw e;
  }
}

/**
 * The operations server-side apply needs on typed values (JSON objects read against a
 * SchemaNode), after structured-merge-diff's typed package: the field set a configuration
 * sets, the comparison of two objects, the merge of a configuration into a live object, and
 * the removal of one path.
 *
 * Kept to what the served types need: structs and granular maps recurse, atomic structs and
 * lists and scalars are one leaf each, set lists hold scalar items (`v:`), keyed lists hold
 * struct items (`k:`). A null is a value like any other scalar.
 */
import { isJsonObject, type Json, type JsonObject } from "../json.js";
import { ownValue, setOwn } from "../own-keys.js";
import { FieldSet, fieldElement, keyElement, type Path, valueElement } from "./field-set.js";
import { childOf, isAtomic, type SchemaNode } from "./schema.js";

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The path element of one list item, or undefined when the item cannot be addressed. */
export function itemElement(node: SchemaNode & { type: "list" }, item: Json): string | undefined {
  if (node.listType === "set") return valueElement(item);
  if (node.listType === "map" && isJsonObject(item)) return keyElement(node.keys, item);
  return undefined;
}

function itemsByElement(node: SchemaNode & { type: "list" }, list: Json | undefined): Map<string, Json> {
  const out = new Map<string, Json>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const e = itemElement(node, item);
    if (e !== undefined && !out.has(e)) out.set(e, item);
  }
  return out;
}

/** Whether a value can be walked as the node's container kind (absent and null can). */
function isContainer(v: Json | undefined, n: SchemaNode): boolean {
  return v === undefined || v === null || (n.type === "list" ? Array.isArray(v) : isJsonObject(v));
}

const isEmptyContainer = (v: Json | undefined): boolean =>
  v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : isJsonObject(v) && Object.keys(v).length === 0);

/**
 * The fields a configuration sets (typed.ToFieldSet): every leaf it holds and every list
 * item; a granular struct or map is not itself a member.
 */
export function fieldSetOf(value: Json, node: SchemaNode): FieldSet {
  const paths: Path[] = [];
  const walk = (v: Json, n: SchemaNode, path: string[]): void => {
    if (isAtomic(n) || v === null) {
      if (path.length) paths.push(path);
      return;
    }
    if (n.type === "list") {
      if (!Array.isArray(v)) return void (path.length && paths.push(path));
      for (const item of v) {
        const e = itemElement(n, item);
        if (e === undefined) continue;
        paths.push([...path, e]);
        if (n.listType === "map") walk(item, n.items, [...path, e]);
      }
      return;
    }
    if (!isJsonObject(v)) return void (path.length && paths.push(path));
    for (const [key, child] of Object.entries(v)) walk(child, childOf(n, key), [...path, fieldElement(key)]);
  };
  walk(value, node, []);
  return FieldSet.of(paths);
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * typed.Compare: which fields `rhs` adds, changes and removes relative to `lhs`. A struct,
 * map or list that appears (or disappears) as a whole is itself added (removed), along with
 * everything in it; that is where the `.` entries of Update managers come from.
 */
export function compare(lhs: Json | undefined, rhs: Json | undefined, node: SchemaNode): Comparison {
  const added: Path[] = [];
  const modified: Path[] = [];
  const removed: Path[] = [];
  const leaf = (l: Json | undefined, r: Json | undefined, path: string[]): void => {
    if (l === undefined && r === undefined) return;
    if (l === undefined) added.push(path);
    else if (r === undefined) removed.push(path);
    else if (!deepEqual(l, r)) modified.push(path);
  };
  const walk = (l: Json | undefined, r: Json | undefined, n: SchemaNode, path: string[]): void => {
    if (l === undefined && r === undefined) return;
    if (isAtomic(n)) return leaf(l, r, path);
    if (!isContainer(l, n) || !isContainer(r, n) || (isEmptyContainer(l) && isEmptyContainer(r))) return leaf(l, r, path);
    const lv = l === null ? undefined : l;
    const rv = r === null ? undefined : r;
    if (path.length) {
      if (lv === undefined) added.push(path);
      if (rv === undefined) removed.push(path);
    }
    if (n.type === "list") {
      const li = itemsByElement(n, lv);
      const ri = itemsByElement(n, rv);
      for (const [e, item] of li) {
        if (n.listType === "set") leaf(item, ri.get(e), [...path, e]);
        else walk(item, ri.get(e), n.items, [...path, e]);
      }
      for (const [e, item] of ri) {
        if (li.has(e)) continue;
        if (n.listType === "set") leaf(undefined, item, [...path, e]);
        else walk(undefined, item, n.items, [...path, e]);
      }
      return;
    }
    const lo = (lv ?? {}) as JsonObject;
    const ro = (rv ?? {}) as JsonObject;
    const lkeys = Object.keys(lo);
    const rkeys = Object.keys(ro);
    // One side empty (a create compares with the zero object): its keys are the other's, in order.
    const keys = lkeys.length === 0 ? rkeys : rkeys.length === 0 ? lkeys : new Set([...lkeys, ...rkeys]);
    for (const key of keys) {
      walk(ownValue(lo, key), ownValue(ro, key), childOf(n, key), [...path, fieldElement(key)]);
    }
  };
  walk(lhs, rhs, node, []);
  return { added: FieldSet.of(added), modified: FieldSet.of(modified), removed: FieldSet.of(removed) };
}

/**
 * typed.Merge: the configuration laid over the live object. Granular structs and maps merge
 * key by key, keyed lists item by item, sets as a union (live items first); anything atomic
 * is replaced by the configuration's value.
 */
export function merge(live: Json | undefined, config: Json | undefined, node: SchemaNode): Json | undefined {
  if (config === undefined) return live;
  if (live === undefined || live === null || config === null || isAtomic(node)) return structuredClone(config);
  if (node.type === "list") {
    if (!Array.isArray(live) || !Array.isArray(config)) return structuredClone(config);
    const configItems = itemsByElement(node, config);
    const out: Json[] = [];
    const seen = new Set<string>();
    for (const item of live) {
      const e = itemElement(node, item);
      if (e === undefined || seen.has(e)) continue;
      seen.add(e);
      const c = configItems.get(e);
      out.push(c === undefined ? item : node.listType === "map" ? (merge(item, c, node.items) ?? null) : item);
    }
    for (const [e, item] of configItems) if (!seen.has(e)) out.push(structuredClone(item));
    return out;
  }
  if (!isJsonObject(live) || !isJsonObject(config)) return structuredClone(config);
  const out: JsonObject = { ...live };
  for (const [key, value] of Object.entries(config)) {
    const merged = merge(ownValue(live, key), value, childOf(node, key));
    if (merged !== undefined) setOwn(out, key, merged);
  }
  return out;
}

/** Removes the value at `path` (a field, map key or list item), in place. */
export function removePath(root: JsonObject, path: Path, node: SchemaNode): void {
  let value: Json | undefined = root;
  let n = node;
  for (let i = 0; i < path.length - 1; i++) {
    const e = path[i] ?? "";
    if (e.startsWith("f:")) {
      if (!isJsonObject(value)) return;
      value = ownValue(value, e.slice(2));
      n = childOf(n, e.slice(2));
    } else {
      if (!Array.isArray(value) || n.type !== "list") return;
      const list: SchemaNode & { type: "list" } = n;
      value = value.find((item) => itemElement(list, item) === e);
      n = list.items;
    }
  }
  const last = path[path.length - 1];
  if (last === undefined) return;
  if (last.startsWith("f:")) {
    if (isJsonObject(value)) delete value[last.slice(2)];
    return;
  }
  if (Array.isArray(value) && n.type === "list") {
    const list: SchemaNode & { type: "list" } = n;
    const at = value.findIndex((item) => itemElement(list, item) === last);
    if (at >= 0) value.splice(at, 1);
  }
}

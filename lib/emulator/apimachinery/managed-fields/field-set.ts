/**
 * Sets of field paths, as structured-merge-diff's fieldpath.Set, and their FieldsV1 form
 * (the `fieldsV1` of a managedFields entry).
 *
 * A path is a list of path elements, each kept in its FieldsV1 spelling:
 *  - `f:<name>`   a struct field or map key;
 *  - `k:<json>`   an item of a keyed list, by its key fields (`k:{"uid":"…"}`, names sorted);
 *  - `v:<json>`   an item of a set (`v:"example.com/x"`);
 *  - `i:<n>`      an item of a list by position (not produced for the served types).
 * A set holds members; in FieldsV1 a node that is a member and also has children writes the
 * extra key `.` (fieldpath/serialize.go). Elements sort as upstream's PathElement.Compare:
 * field names first (byte order), then keys, then values, then indexes.
 */
import { goQuote } from "../field-errors.js";
import { isJsonObject, type Json, type JsonObject } from "../json.js";

export type Path = readonly string[];

export const fieldElement = (name: string): string => `f:${name}`;
export const valueElement = (value: Json): string => `v:${JSON.stringify(value)}`;

/** `k:{…}` for a keyed list item: the key fields, sorted by name. */
export function keyElement(keys: readonly string[], item: JsonObject): string {
  const out: JsonObject = {};
  for (const k of [...keys].sort()) out[k] = item[k] ?? null;
  return `k:${JSON.stringify(out)}`;
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareElements(a: string, b: string): number {
  // The common case: two fields, keys or values ("f:…"), whose order is their bodies' order,
  // which for equal two-character heads is the whole strings' order (no slices made).
  const head = a.charCodeAt(0);
  if (head === b.charCodeAt(0) && head !== 0x69 && a.charCodeAt(1) === 0x3a && b.charCodeAt(1) === 0x3a && RANK[a[0] ?? ""] !== undefined) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const ra = RANK[a[0] ?? ""] ?? 4;
  const rb = RANK[b[0] ?? ""] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === "i") return Number(a.slice(2)) - Number(b.slice(2));
  const x = a.slice(2);
  const y = b.slice(2);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** value.ToString: strings as Go %q, other values as JSON. */
function valueText(value: Json): string {
  return typeof value === "string" ? goQuote(value) : JSON.stringify(value);
}

/** One element as fieldpath.PathElement.String() prints it (`.name`, `[uid="…"]`, `[="…"]`, `[0]`). */
function elementString(e: string): string {
  const body = e.slice(2);
  switch (e[0]) {
    case "f":
      return `.${body}`;
    case "k": {
      const keys = JSON.parse(body) as JsonObject;
      return `[${Object.entries(keys)
        .map(([k, v]) => `${k}=${valueText(v)}`)
        .join(",")}]`;
    }
    case "v":
      return `[=${valueText(JSON.parse(body) as Json)}]`;
    default:
      return `[${body}]`;
  }
}

/** A path as fieldpath.Path.String() prints it (`.metadata.labels.app`), as conflicts name fields. */
export function pathString(path: Path): string {
  return path.map(elementString).join("");
}

interface Node {
  member: boolean;
  readonly children: Map<string, Node>;
}

const newNode = (): Node => ({ member: false, children: new Map() });

export class FieldSetDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldSetDecodeError";
  }
}

const ELEMENT = /^(f:.*|k:\{.*\}|v:.+|i:\d+)$/s;

/** An immutable set of paths. */
export class FieldSet {
  private constructor(private readonly root: Node) {}

  /**
   * A set made by an operation: its root is never a member (the empty path is no path; a FieldsV1
   * `{".": {}}` at the top sets it, and FieldSet.of never does).
   */
  private static fromTree(root: Node | undefined): FieldSet {
    if (!root) return FieldSet.empty();
    root.member = false;
    return new FieldSet(root);
  }

  static empty(): FieldSet {
    return new FieldSet(newNode());
  }

  static of(paths: Iterable<Path>): FieldSet {
    const root = newNode();
    for (const p of paths) insertInto(root, p);
    return new FieldSet(root);
  }

  /** Reads a FieldsV1 object; throws FieldSetDecodeError on a malformed one. */
  static fromFieldsV1(value: Json): FieldSet {
    const root = newNode();
    const walk = (node: Node, v: Json): void => {
      if (!isJsonObject(v)) throw new FieldSetDecodeError("FieldsV1 nodes must be objects");
      for (const [key, child] of Object.entries(v)) {
        if (key === ".") {
          node.member = true;
          continue;
        }
        if (!ELEMENT.test(key)) throw new FieldSetDecodeError(`unrecognised path element ${JSON.stringify(key)}`);
        if ((key[0] === "k" || key[0] === "v") && !parsesAsJson(key.slice(2))) {
          throw new FieldSetDecodeError(`unrecognised path element ${JSON.stringify(key)}`);
        }
        let next = node.children.get(key);
        if (!next) {
          next = newNode();
          node.children.set(key, next);
        }
        if (!isJsonObject(child)) throw new FieldSetDecodeError("FieldsV1 nodes must be objects");
        // A key without children is a member; with children it is a member only through ".".
        if (Object.keys(child).length === 0) next.member = true;
        else walk(next, child);
      }
    };
    walk(root, value);
    return new FieldSet(root);
  }

  /** Every member path, in element order (depth first). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (node: Node, prefix: string[]): void => {
      if (node.member && prefix.length) out.push([...prefix]);
      for (const key of [...node.children.keys()].sort(compareElements)) {
        const child = node.children.get(key);
        if (child) walk(child, [...prefix, key]);
      }
    };
    walk(this.root, []);
    return out;
  }

  isEmpty(): boolean {
    return !hasMemberBelow(this.root);
  }

  has(path: Path): boolean {
    let node: Node | undefined = this.root;
    for (const e of path) {
      node = node.children.get(e);
      if (!node) return false;
    }
    return node.member;
  }

  /** Whether a member lies strictly below `path`. */
  hasBelow(path: Path): boolean {
    let node: Node | undefined = this.root;
    for (const e of path) {
      node = node.children.get(e);
      if (!node) return false;
    }
    const anyMember = (n: Node): boolean => [...n.children.values()].some((c) => c.member || anyMember(c));
    return anyMember(node);
  }

  /*
   * The set operations below work on the trees: the same members as going through paths() and
   * FieldSet.of, without listing and sorting every path (every output sorts on its own).
   */

  union(other: FieldSet): FieldSet {
    const root = copyNode(this.root);
    addMembers(root, other.root);
    return FieldSet.fromTree(root);
  }

  /** Members of this set that are not members of `other` (exact paths, as Set.Difference). */
  difference(other: FieldSet): FieldSet {
    return FieldSet.fromTree(filterNode(this.root, other.root, false));
  }

  intersection(other: FieldSet): FieldSet {
    return FieldSet.fromTree(filterNode(this.root, other.root, true));
  }

  /** Drops every member at or below one of the prefixes (an exclude filter). */
  withoutPrefixes(prefixes: readonly Path[]): FieldSet {
    if (prefixes.length === 0) return FieldSet.fromTree(copyNode(this.root));
    // An empty prefix holds every path.
    if (prefixes.some((p) => p.length === 0)) return FieldSet.empty();
    return FieldSet.fromTree(withoutPrefixesNode(this.root, prefixes, 0));
  }

  /** The FieldsV1 object, keys in element order, `.` for members that also have children. */
  toFieldsV1(): JsonObject {
    return emitFieldsV1(this.root);
  }
}

/** A node's FieldsV1: children with content in element order, after "." when the node is also a member. */
function emitFieldsV1(node: Node): JsonObject {
  const out: JsonObject = {};
  if (node.children.size === 0) return out;
  const keys = [...node.children.keys()];
  if (keys.length > 1) keys.sort(compareElements);
  const emitted: Array<[string, JsonObject]> = [];
  for (const key of keys) {
    const child = node.children.get(key);
    if (child && hasContent(child)) emitted.push([key, emitFieldsV1(child)]);
  }
  if (node.member && emitted.length > 0) out["."] = {};
  for (const [key, value] of emitted) out[key] = value;
  return out;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function hasContent(node: Node | undefined): boolean {
  if (!node) return false;
  return node.member || [...node.children.values()].some(hasContent);
}

/** Whether a node strictly below `node` is a member (the root itself never counts as a path). */
function hasMemberBelow(node: Node): boolean {
  for (const child of node.children.values()) if (child.member || hasMemberBelow(child)) return true;
  return false;
}

/** A copy of the tree, kept to the nodes on some member's path (the shape FieldSet.of makes). */
function copyNode(node: Node): Node {
  // filterNode against no other tree keeps every member, in one pass.
  return filterNode(node, undefined, false) ?? newNode();
}

/** Adds every member path of `from` into `into` (in place). */
function addMembers(into: Node, from: Node): void {
  for (const [key, child] of from.children) {
    if (!child.member && !hasMemberBelow(child)) continue;
    let next = into.children.get(key);
    if (!next) {
      next = newNode();
      into.children.set(key, next);
    }
    if (child.member) next.member = true;
    addMembers(next, child);
  }
}

/**
 * The members of `node`'s tree that are (keep true) or are not (keep false) members of the
 * matching place in `other`; undefined when none is left.
 */
function filterNode(node: Node, other: Node | undefined, keep: boolean): Node | undefined {
  const out = newNode();
  out.member = node.member && (other?.member ?? false) === keep;
  for (const [key, child] of node.children) {
    const kept = filterNode(child, other?.children.get(key), keep);
    if (kept) out.children.set(key, kept);
  }
  return out.member || out.children.size > 0 ? out : undefined;
}

/** The tree below `node` (at depth `depth`) without what lies at or below a prefix; undefined when none is left. */
function withoutPrefixesNode(node: Node, prefixes: readonly Path[], depth: number): Node | undefined {
  const out = newNode();
  out.member = node.member;
  for (const [key, child] of node.children) {
    // Prefixes that still match once this element is taken.
    const matching = prefixes.filter((p) => p[depth] === key);
    if (matching.some((p) => p.length === depth + 1)) continue;
    const kept = matching.length ? withoutPrefixesNode(child, matching, depth + 1) : filterNode(child, undefined, false);
    if (kept) out.children.set(key, kept);
  }
  return out.member || out.children.size > 0 ? out : undefined;
}

function insertInto(root: Node, path: Path): void {
  if (path.length === 0) return;
  let node = root;
  for (const e of path) {
    let next = node.children.get(e);
    if (!next) {
      next = newNode();
      node.children.set(e, next);
    }
    node = next;
  }
  node.member = true;
}

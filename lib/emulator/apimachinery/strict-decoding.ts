/**
 * The strict decoding errors of a request body (doc1 "Field validation behaviour"): unknown and
 * duplicate fields, worded and ordered as the real server's decoder reports them. Under
 * `fieldValidation=Warn` each becomes a Warning item, under `Strict` the 400 lists them all.
 *
 * How the real server finds them (apimachinery serializer/json with Strict set, which it uses for
 * both Warn and Strict, over sigs.k8s.io/json UnmarshalStrict):
 *
 *  - JSON: one pass over the text in document order. Each object key is checked as it is read:
 *    a key the Go struct does not have is `unknown field "<path>"` and its value is skipped
 *    unread (so nothing inside it is reported); a known struct field, map key or key of a
 *    free-form (`interface{}`) object seen before in the same object is
 *    `duplicate field "<path>"`. Equal texts are reported once, and at most 100 in all
 *    (kubernetes_patch.go saveStrictError). Paths join keys with "." and write array positions
 *    as "[i]". So for a ConfigMap with a repeated metadata.name and an unknown top-level `extra`
 *    after it, the order is `duplicate field "metadata.name", unknown field "extra"`.
 *  - YAML: the body is first converted to JSON with duplicates silently resolved (last wins),
 *    so the JSON pass finds no duplicates; its keys come out sorted (the conversion marshals a
 *    Go map), so unknown fields are reported in sorted-key order. Duplicates come from a second,
 *    strict YAML read (sigs.k8s.io/yaml YAMLToJSONStrict → yaml.v2): one error, listed first,
 *    `yaml: unmarshal errors:\n  line N: key "k" already set in map` with one line per
 *    duplicate, N being the line of the repeated key's value (yaml.v2 setMapIndex). The Warn
 *    path splits it into one Warning per line (apiserver handlers/rest.go parseYAMLWarnings).
 *
 * Duplicate detection of JSON text is lib/wire/json-strict.ts's (its paths and wording are the
 * server's); the ordered walk here runs only when that found something to report, or when the
 * shape finds unknown fields, so the common clean body costs one parse.
 */
import { parse as parseAst, type ValueNode } from "@humanwhocodes/momoa";
import { EVENT_ID, getScalarValue, parseEvents, type Event as YamlEvent } from "js-yaml";
import { duplicateFieldMessage } from "../../wire/json-strict.js";
import { goQuote } from "./field-errors.js";
import { isJsonObject, type Json } from "./json.js";
import { ANY, type FieldSpec, type Shape, type StructShape } from "./typed-json.js";

/** sigs.k8s.io/json stops collecting strict errors at 100. */
const MAX_STRICT_ERRORS = 100;

/** The prefix of yaml.v2's strict error, which the Warn path strips before splitting lines. */
const YAML_UNMARSHAL_ERRORS = "yaml: unmarshal errors:\n";

export function unknownFieldMessage(path: string): string {
  return `unknown field ${goQuote(path)}`;
}

/** Strict errors in order, each text once, at most 100 (saveStrictError). */
class StrictErrors {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();

  add(message: string): void {
    if (this.list.length >= MAX_STRICT_ERRORS || this.seen.has(message)) return;
    this.seen.add(message);
    this.list.push(message);
  }
}

const fieldIndex = new WeakMap<StructShape, ReadonlyMap<string, FieldSpec>>();

function fieldsOf(shape: StructShape): ReadonlyMap<string, FieldSpec> {
  let index = fieldIndex.get(shape);
  if (!index) {
    index = new Map(shape.fields.map((f) => [f.name, f]));
    fieldIndex.set(shape, index);
  }
  return index;
}

/** The decoder's strict field stack: "." between keys (none before the first), "[i]" for array items. */
const keyPath = (path: string | undefined, key: string): string => (path === undefined ? key : `${path}.${key}`);
const indexPath = (path: string | undefined, i: number): string => `${path ?? ""}[${i}]`;

/** One JSON value in document order against the Go type it decodes into (sigs.k8s.io/json object()). */
function walkJson(node: ValueNode, shape: Shape, path: string | undefined, out: StrictErrors): void {
  if (node.type === "Array") {
    const items = shape.kind === "list" ? shape.items : shape.kind === "any" ? shape : undefined;
    if (items) for (const [i, el] of node.elements.entries()) walkJson(el.value, items, indexPath(path, i), out);
    return;
  }
  if (node.type !== "Object") return;
  const seen = new Set<string>();
  for (const member of node.members) {
    const key = member.name.type === "String" ? member.name.value : member.name.name;
    const memberPath = keyPath(path, key);
    let valueShape: Shape;
    if (shape.kind === "struct") {
      const spec = fieldsOf(shape).get(key);
      if (!spec && shape.preserveUnknownFields) valueShape = ANY;
      else if (!spec) {
        out.add(unknownFieldMessage(memberPath));
        continue;
      } else valueShape = spec.shape;
    } else if (shape.kind === "map") {
      valueShape = shape.values;
    } else if (shape.kind === "any") {
      valueShape = shape;
    } else {
      // A type mismatch: decoding has already refused the body before strict errors matter.
      return;
    }
    if (seen.has(key)) out.add(duplicateFieldMessage(memberPath));
    else seen.add(key);
    walkJson(member.value, valueShape, memberPath, out);
  }
}

/**
 * The strict errors of a JSON body that decoded into the shape. `duplicates` is what
 * parseJsonStrict found; with none and no unknown fields there is nothing to order.
 */
export function jsonStrictErrors(text: string, shape: StructShape, duplicates: readonly string[], unknownFields: readonly string[]): string[] {
  if (duplicates.length === 0 && unknownFields.length === 0) return [];
  const out = new StrictErrors();
  walkJson(parseAst(text, { mode: "json" }).body, shape, undefined, out);
  return out.list;
}

/**
 * Unknown fields of an already parsed value, visiting object keys in sorted order: the order the
 * server's JSON pass sees after converting YAML (a Go map marshalled with sorted keys).
 */
function walkSortedValue(value: Json, shape: Shape, path: string | undefined, out: StrictErrors): void {
  if (Array.isArray(value)) {
    if (shape.kind === "list") for (const [i, item] of value.entries()) walkSortedValue(item, shape.items, indexPath(path, i), out);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value).sort()) {
    const child = value[key];
    if (child === undefined) continue;
    const memberPath = keyPath(path, key);
    if (shape.kind === "struct") {
      const spec = fieldsOf(shape).get(key);
      if (spec) walkSortedValue(child, spec.shape, memberPath, out);
      else if (!shape.preserveUnknownFields) out.add(unknownFieldMessage(memberPath));
    } else if (shape.kind === "map") {
      walkSortedValue(child, shape.values, memberPath, out);
    }
  }
}

/** Offsets where each line starts, for turning a YAML event offset into yaml.v2's 1-based line. */
function lineOf(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x0a) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid;
    }
    return lo + 1;
  };
}

interface MappingFrame {
  readonly kind: "mapping";
  readonly keys: Set<string>;
  /** True while the next node is a key. */
  expectKey: boolean;
  /** The key whose value is being read, when it repeats an earlier one. */
  repeated?: string;
  /** Line of the value being read (yaml.v2 reports the value node's line). */
  valueLine: number;
}

type Frame = MappingFrame | { readonly kind: "sequence" | "document" };

/**
 * yaml.v2's strict duplicate-key lines (`line N: key "k" already set in map`), in the order its
 * decoder appends them: a duplicate is reported after its value has been read, so duplicates
 * nested inside that value come first. Keys compare by their scalar text.
 */
export function yamlDuplicateLines(text: string): string[] {
  let events: YamlEvent[];
  try {
    // Past js-yaml's default of 100 levels, as go-yaml reads up to 10000 (the decoder already took the body).
    events = parseEvents(text, { maxDepth: 20_000 });
  } catch {
    // Unreadable YAML is reported by the decoder, not here.
    return [];
  }
  const line = lineOf(text);
  const lines: string[] = [];
  const stack: Frame[] = [];
  const top = (): Frame | undefined => stack[stack.length - 1];

  /** A node starts at `offset`; in key position `key` is its scalar text (undefined for a collection key). */
  const begin = (offset: number, key: string | undefined): void => {
    const parent = top();
    if (parent?.kind !== "mapping") return;
    if (parent.expectKey) {
      parent.repeated = undefined;
      if (key !== undefined) {
        if (parent.keys.has(key)) parent.repeated = key;
        else parent.keys.add(key);
      }
    } else {
      parent.valueLine = line(offset);
    }
  };
  /** The node just begun (a scalar, an alias) or just closed (a collection) is complete. */
  const end = (): void => {
    const parent = top();
    if (parent?.kind !== "mapping") return;
    if (!parent.expectKey && parent.repeated !== undefined) {
      lines.push(`line ${parent.valueLine}: key ${goQuote(parent.repeated)} already set in map`);
      parent.repeated = undefined;
    }
    parent.expectKey = !parent.expectKey;
  };

  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        stack.push({ kind: "document" });
        break;
      case EVENT_ID.MAPPING:
        begin(event.start, undefined);
        stack.push({ kind: "mapping", keys: new Set(), expectKey: true, valueLine: 0 });
        break;
      case EVENT_ID.SEQUENCE:
        begin(event.start, undefined);
        stack.push({ kind: "sequence" });
        break;
      case EVENT_ID.SCALAR:
        begin(event.valueStart, getScalarValue(text, event));
        end();
        break;
      case EVENT_ID.ALIAS:
        begin(event.anchorStart, undefined);
        end();
        break;
      case EVENT_ID.POP: {
        const closed = stack.pop();
        if (closed && closed.kind !== "document") end();
        break;
      }
    }
  }
  return lines;
}

/**
 * The strict errors of a YAML body: yaml.v2's duplicate-key error (one error, all lines) first,
 * then the unknown fields of the converted value in sorted-key order.
 */
export function yamlStrictErrors(text: string, value: Json, shape: StructShape, unknownFields: readonly string[]): string[] {
  const out = new StrictErrors();
  const duplicates = yamlDuplicateLines(text);
  if (duplicates.length) out.add(`${YAML_UNMARSHAL_ERRORS}  ${duplicates.join("\n  ")}`);
  if (unknownFields.length) walkSortedValue(value, shape, undefined, out);
  return out.list;
}

/** The Warning texts of strict errors: a yaml.v2 error gives one per line (parseYAMLWarnings). */
export function strictWarnings(errors: readonly string[]): string[] {
  return errors.flatMap((e) =>
    e.startsWith(YAML_UNMARSHAL_ERRORS)
      ? e
          .slice(YAML_UNMARSHAL_ERRORS.length)
          .split("\n")
          .map((s) => s.trim())
      : [e],
  );
}

/**
 * The compiled encoder (fast-encode.ts, behind encodeObject/encodeMessage) against the
 * reference walk it replaces (codec.ts's referenceEncode*): the same bytes for generated
 * objects of several types, long strings included (lengths of two bytes and more), and the
 * same bytes or the same error for objects with one value replaced by anything (wrong types,
 * odd times, bigints, surrogates), so it accepts nothing the walk rejects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeMessage, encodeMessageField, messageLength, referenceEncodeEnveloped, referenceEncodeMessage } from "../../../lib/wire/protobuf/codec.js";
import { messageDesc } from "../../../lib/wire/protobuf/descriptors.js";
import { encodeObject } from "../../../lib/wire/protobuf/index.js";
import { APIEXTENSIONS_PACKAGE, META_PACKAGE } from "../../../lib/wire/protobuf/schema.js";
import { anyObject, microTime, time } from "./arbitraries.js";

type Obj = Record<string, unknown>;

const SEED = Number(process.env["FC_SEED"] ?? Date.now() % 2 ** 31);
console.log(`fast-encode properties: seed ${SEED} (FC_SEED=${SEED} repeats it)`);
const RUNS = { seed: SEED, numRuns: 150 };

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

function varint(n: number): Uint8Array {
  const out: number[] = [];
  for (let v = n; ; v = Math.floor(v / 128)) {
    if (v < 128) return Uint8Array.from([...out, v]);
    out.push((v % 128) | 128);
  }
}

/** Bytes as hex, or the error's class and message. */
function outcome(f: () => Uint8Array): string {
  try {
    return hex(f());
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

const longText = fc.string({ unit: "grapheme", minLength: 40, maxLength: 400 });
const anyText = fc.string({ unit: fc.constantFrom("a", "é", "\u{1F600}", "\ud800", "\udfff", "\uffff", "\u0000", "Z"), maxLength: 60 });

/** A generated object with long strings added where they reach the wire (annotations, a label, the name). */
const withLongText = fc.tuple(anyObject, longText, longText, anyText).map(([o, a, b, c]) => {
  const meta = { ...((o["metadata"] as Obj | undefined) ?? {}) };
  meta["annotations"] = { ...((meta["annotations"] as Obj | undefined) ?? {}), [c]: a, long: b, [`${a}-key`]: c };
  meta["name"] = b;
  return { ...o, metadata: meta };
});

/** Values that may break a field: wrong types, out-of-range numbers, odd times, odd text. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  anyText,
  time,
  microTime,
  fc.constantFrom(
    "2024-01-01T00:00:00.5+01:00",
    "2024-02-30T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "0001-01-01T00:00:00.000000Z",
    "1969-12-31T23:59:59.999999Z",
    "2024-01-01T00:00:00.1234567Z",
    "2024-01-01t00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-01-01T24:00:00Z",
    "AAEC",
    "AAE=",
    "A\nAEC",
    "not base64!",
  ),
  fc.integer(),
  fc.constantFrom(0, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 60), 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.bigInt({ min: -(1n << 64n), max: 1n << 64n }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.oneof(anyText, fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(anyText, fc.oneof(anyText, fc.constant(null), fc.integer()), { maxKeys: 3 }),
);

/** Every place in o (object keys and array elements, nested), as key paths. */
function places(o: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(o)) {
    o.forEach((v, i) => {
      out.push([...at, i]);
      places(v, [...at, i], out);
    });
  } else if (o !== null && typeof o === "object") {
    for (const [k, v] of Object.entries(o)) {
      out.push([...at, k]);
      places(v, [...at, k], out);
    }
  }
  return out;
}

/** A deep copy of o with the value at path set to v. */
function replaced(o: unknown, path: (string | number)[], v: unknown): unknown {
  if (path.length === 0) return v;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(o)) return o.map((el, i) => (i === head ? replaced(el, rest, v) : el));
  const copy: Obj = {};
  for (const [k, el] of Object.entries(o as Obj))
    Object.defineProperty(copy, k, { value: k === head ? replaced(el, rest, v) : el, enumerable: true, writable: true, configurable: true });
  return copy;
}

const SCHEMA = messageDesc(`${APIEXTENSIONS_PACKAGE}.JSONSchemaProps`);
const WATCH_EVENT = messageDesc(`${META_PACKAGE}.WatchEvent`);

/** A small JSONSchemaProps: the unions (items, additionalProperties, dependencies), maps of schemas, JSON values, doubles. */
function schemaOfDepth(depth: number): fc.Arbitrary<Obj> {
  const leaf = fc.record(
    {
      type: fc.constantFrom("object", "string", "array"),
      description: anyText,
      maximum: fc.double({ noNaN: true, noDefaultInfinity: true }),
      default: fc.jsonValue({ maxDepth: 2 }),
      enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }),
      additionalProperties: fc.boolean(),
      "x-kubernetes-int-or-string": fc.boolean(),
    },
    { requiredKeys: [] },
  );
  if (depth === 0) return leaf.map((o) => o as Obj);
  const inner = schemaOfDepth(depth - 1);
  return fc
    .tuple(
      leaf,
      fc.record(
        {
          items: fc.oneof(inner, fc.array(inner, { maxLength: 2 })),
          additionalProperties: fc.oneof(fc.boolean(), inner),
          dependencies: fc.dictionary(anyText, fc.oneof(inner, fc.array(anyText, { maxLength: 2 })), { maxKeys: 2 }),
          properties: fc.dictionary(anyText, inner, { maxKeys: 2 }),
        },
        { requiredKeys: [] },
      ),
    )
    .map(([a, b]) => ({ ...a, ...b }) as Obj);
}
const schema = schemaOfDepth(2);

describe("the compiled protobuf encoder gives the reference walk's bytes", () => {
  it("generated objects of several kinds, enveloped and as bare messages", () => {
    fc.assert(
      fc.property(fc.oneof(anyObject, withLongText), (obj) => {
        const expected = referenceEncodeEnveloped(obj);
        expect(hex(encodeObject(obj))).toBe(hex(expected));
      }),
      RUNS,
    );
  });

  it("watch events embedding them (RawExtension), and JSON schemas (the apiextensions unions)", () => {
    fc.assert(
      fc.property(fc.oneof(anyObject, withLongText), fc.constantFrom("ADDED", "MODIFIED"), schema, (obj, type, s) => {
        const event = { type, object: obj };
        expect(hex(encodeMessage(WATCH_EVENT, event, "WatchEvent"))).toBe(hex(referenceEncodeMessage(WATCH_EVENT, event, "WatchEvent")));
        expect(hex(encodeMessage(SCHEMA, s, "JSONSchemaProps"))).toBe(hex(referenceEncodeMessage(SCHEMA, s, "JSONSchemaProps")));
        // What a list writes per item: the message's length, then field 2 holding it in one piece.
        const message = referenceEncodeMessage(WATCH_EVENT, event, "WatchEvent");
        expect(messageLength(WATCH_EVENT, event, "WatchEvent")).toBe(message.length);
        expect(hex(encodeMessageField(2, WATCH_EVENT, event, "WatchEvent"))).toBe(`12${hex(varint(message.length))}${hex(message)}`);
      }),
      RUNS,
    );
  });

  it("objects with one value replaced by anything: the same bytes, or the same error", () => {
    const target: fc.Arbitrary<Obj> = fc.oneof<fc.Arbitrary<Obj>[]>(
      anyObject,
      withLongText,
      schema.map((s) => ({ apiVersion: "x", kind: "schema", s })),
    );
    fc.assert(
      fc.property(target, fc.nat(), anyValue, (obj, pick, value) => {
        const all = places(obj);
        const path = all.length === 0 ? [] : (all[pick % all.length] as (string | number)[]);
        const broken = replaced(obj, path, value) as Obj;
        if (obj["kind"] === "schema") {
          const s = broken["s"] as Obj;
          // The entry points take an object: only values inside it are replaced.
          if (typeof s !== "object" || s === null || Array.isArray(s)) return;
          expect(outcome(() => encodeMessage(SCHEMA, s, "JSONSchemaProps"))).toBe(outcome(() => referenceEncodeMessage(SCHEMA, s, "JSONSchemaProps")));
          return;
        }
        expect(outcome(() => encodeObject(broken))).toBe(outcome(() => referenceEncodeEnveloped(broken)));
      }),
      { ...RUNS, numRuns: 400 },
    );
  });

  it("an error still names the field's path (the walk reports it)", () => {
    const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", labels: { x: 5 } } };
    expect(() => encodeObject(obj)).toThrow('ConfigMap.metadata.labels["x"]: expected a string, got number');
    expect(() => encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { creationTimestamp: "2024-02-30T00:00:00Z" } })).toThrow(
      'ConfigMap.metadata.creationTimestamp: cannot parse "2024-02-30T00:00:00Z" as Time: day out of range',
    );
  });
});

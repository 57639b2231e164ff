/**
 * The protobuf form of apiextensions.k8s.io/v1 CustomResourceDefinition. Golden: the
 * upstream round-trip fixture of k8s.io/apiextensions-apiserver (pkg/apis/testdata/HEAD at
 * v0.35.7), read at run time from the shared reference folder when it is there (never copied
 * into the repository). By hand: JSONSchemaProps bytes worked out from the field numbers of
 * apiextensions/v1 generated.proto, for the parts whose JSON form is not their message: the
 * JSON values (default, enum, example: raw JSON text), the schema-or-array/bool/string-array
 * unions, the float64 bounds (fixed64), maps of schemas, and the x-kubernetes-* keys.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeFields, encodeMessage } from "../../lib/wire/protobuf/codec.js";
import { messageDesc } from "../../lib/wire/protobuf/descriptors.js";
import { decodeEnvelope, decodeObject, encodeObject, supportsProtobuf } from "../../lib/wire/protobuf/index.js";
import { APIEXTENSIONS_PACKAGE } from "../../lib/wire/protobuf/schema.js";
import { byteDifference, GOLDEN_ROOT } from "./protobuf/golden-files.js";

type Obj = Record<string, unknown>;

const GOLDEN_NAME = "apiextensions.k8s.io.v1.CustomResourceDefinition";
/** The shared folder's v1.35.0 (where kubernetes/api's fixtures are), or a folder named by TOLLGATE_CRD_GOLDEN_DIR. */
const GOLDEN_DIR = process.env["TOLLGATE_CRD_GOLDEN_DIR"] ?? path.join(GOLDEN_ROOT, "v1.35.0");
const GOLDEN_PB = path.join(GOLDEN_DIR, `${GOLDEN_NAME}.pb`);
const GOLDEN_AVAILABLE = existsSync(GOLDEN_PB);
if (!GOLDEN_AVAILABLE) {
  console.warn(`CRD protobuf golden test: skipped, ${GOLDEN_PB} not found (upstream kubernetes/apiextensions-apiserver pkg/apis/testdata/HEAD @ v0.35.7)`);
}

describe.skipIf(!GOLDEN_AVAILABLE)("CustomResourceDefinition golden file (apiextensions-apiserver testdata)", () => {
  const pb = (): Uint8Array => new Uint8Array(readFileSync(GOLDEN_PB));
  const json = (): Obj => JSON.parse(readFileSync(path.join(GOLDEN_DIR, `${GOLDEN_NAME}.json`), "utf8")) as Obj;

  it("golden .pb -> JSON is the golden .json, key order included", () => {
    const decoded = decodeObject(pb());
    expect(decoded).toEqual(json());
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(json()));
  });

  it("decode then re-encode gives the golden bytes, and so does the golden .json", () => {
    const again = byteDifference(encodeObject(decodeObject(pb())), pb());
    if (again !== null) expect.fail(again);
    const fromJson = byteDifference(encodeObject(json()), pb());
    if (fromJson !== null) expect.fail(fromJson);
    const env = decodeEnvelope(pb());
    expect([env.apiVersion, env.kind, env.contentType]).toEqual(["apiextensions.k8s.io/v1", "CustomResourceDefinition", ""]);
  });
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
/** Hex with spaces and comments allowed. */
const h = (s: string): string => s.replace(/#[^\n]*/g, "").replace(/\s+/g, "");
const SCHEMA = messageDesc(`${APIEXTENSIONS_PACKAGE}.JSONSchemaProps`);
const schemaBytes = (o: Obj): string => hex(encodeMessage(SCHEMA, o, "JSONSchemaProps"));
const schemaJson = (bytes: string): Obj => decodeFields(SCHEMA, new Uint8Array(Buffer.from(h(bytes), "hex")), "JSONSchemaProps");

// The non-pointer fields of an empty JSONSchemaProps, always written: strings id 1, $schema 2,
// description 4, type 5, format 6, title 7, pattern 15 (tag + 00); bools exclusiveMaximum 10,
// exclusiveMinimum 12, uniqueItems 18, nullable 37, x-kubernetes-embedded-resource 39,
// x-kubernetes-int-or-string 40 (tag + 00). 30 bytes.
const HEAD = "0a00 1200 2200 2a00 3200 3a00"; // 1..7
const MID = "5000 6000 7a00 900100"; // 10, 12, 15, 18
const TAIL = "a80200 b80200 c00200"; // 37, 39, 40
const EMPTY = `${HEAD} ${MID} ${TAIL}`;
const STRING_TYPE = `0a00 1200 2200 2a06 ${Buffer.from("string").toString("hex")} 3200 3a00 ${MID} ${TAIL}`; // 36 bytes

const CASES: { name: string; json: Obj; bytes: string }[] = [
  { name: "an empty schema", json: {}, bytes: EMPTY },
  {
    name: "additionalProperties false: allows 0 and no schema",
    json: { additionalProperties: false },
    bytes: `${HEAD} ${MID} f20102 0800 ${TAIL}`,
  },
  {
    name: "additionalProperties true",
    json: { additionalProperties: true },
    bytes: `${HEAD} ${MID} f20102 0801 ${TAIL}`,
  },
  {
    name: "additionalProperties as a schema: allows 1 and the schema (field 2)",
    json: { additionalProperties: { type: "string" } },
    bytes: `${HEAD} ${MID} f20128 0801 1224 ${STRING_TYPE} ${TAIL}`,
  },
  {
    name: "items as one schema (field 1 of JSONSchemaPropsOrArray)",
    json: { items: { type: "string" } },
    bytes: `${HEAD} ${MID} c20126 0a24 ${STRING_TYPE} ${TAIL}`,
  },
  {
    name: "items as an array of schemas (field 2, once per schema)",
    json: { items: [{}, {}] },
    bytes: `${HEAD} ${MID} c20140 121e ${EMPTY} 121e ${EMPTY} ${TAIL}`,
  },
  {
    name: "default, enum and example carry raw JSON text; a null enum value is an empty JSON message",
    json: { default: { a: 1 }, enum: ["x", null], example: [true] },
    bytes: `${HEAD} 4209 0a07 ${Buffer.from('{"a":1}').toString("hex")} ${MID} a20105 0a03 227822 a20100 a20208 0a06 ${Buffer.from("[true]").toString("hex")} ${TAIL}`,
  },
  {
    name: "maximum, minimum and multipleOf are float64 (fixed64, little-endian)",
    json: { maximum: 9.5, minimum: -1, multipleOf: 0.5 },
    bytes: `${HEAD} 49 0000000000002340 5000 59 000000000000f0bf 6000 7a00 900100 9901 000000000000e03f ${TAIL}`,
  },
  {
    name: "properties: a map of schemas, entries sorted by key",
    json: { properties: { b: {}, a: {} } },
    bytes: `${HEAD} ${MID} ea0123 0a0161 121e ${EMPTY} ea0123 0a0162 121e ${EMPTY} ${TAIL}`,
  },
  {
    name: "dependencies: a string array (field 2) or a schema (field 1)",
    json: { dependencies: { a: ["b"], c: {} } },
    bytes: `${HEAD} ${MID} 820208 0a0161 1203 120162 820225 0a0163 1220 0a1e ${EMPTY} ${TAIL}`,
  },
  {
    name: "$ref and the x-kubernetes-* keys",
    json: {
      $ref: "#/r",
      "x-kubernetes-preserve-unknown-fields": false,
      "x-kubernetes-list-map-keys": ["k"],
      "x-kubernetes-list-type": "map",
      "x-kubernetes-validations": [{ rule: "self.k > 0", reason: "FieldValueInvalid", optionalOldSelf: true }],
    },
    bytes: `0a00 1200 1a03 232f72 2200 2a00 3200 3a00 ${MID} a80200 b00200 b80200 c00200 ca0201 6b d20203 6d6170 e20227 0a0a ${Buffer.from("self.k > 0").toString("hex")} 1200 1a00 2211 ${Buffer.from("FieldValueInvalid").toString("hex")} 2a00 3001`,
  },
];

describe("JSONSchemaProps in protobuf, worked out by hand", () => {
  for (const c of CASES) {
    it(`${c.name}: JSON -> bytes -> the same JSON`, () => {
      expect(schemaBytes(c.json)).toBe(h(c.bytes));
      const back = schemaJson(c.bytes);
      expect(back).toEqual(c.json);
      expect(Object.keys(back)).toEqual(Object.keys(c.json));
    });
  }

  it("the JSON key order is the Go struct order, not the field numbers", () => {
    const o = { "x-kubernetes-list-type": "set", nullable: true, items: { type: "string" }, $ref: "r", maximum: 2, default: 1 };
    expect(Object.keys(schemaJson(schemaBytes(o)))).toEqual(["$ref", "default", "maximum", "items", "nullable", "x-kubernetes-list-type"]);
  });

  it("reads other JSON values as Go's unmarshallers do: the zero union for items and dependencies, an error for additionalProperties", () => {
    expect(() => schemaBytes({ additionalProperties: "yes" })).toThrow(/boolean or JSON schema expected/);
    expect(() => schemaBytes({ maximum: "1" })).toThrow(/expected a number/);
    // An empty JSONSchemaPropsOrArray (the pointer set, neither side) is written as null.
    expect(schemaBytes({ items: "x" })).toBe(h(`${HEAD} ${MID} c20100 ${TAIL}`));
    expect(schemaJson(schemaBytes({ items: 5 }))).toEqual({ items: null });
    expect(schemaJson(schemaBytes({ dependencies: { a: true } }))).toEqual({ dependencies: { a: null } });
  });
});

describe("CustomResourceDefinition and its list in protobuf", () => {
  const crd: Obj = {
    kind: "CustomResourceDefinition",
    apiVersion: "apiextensions.k8s.io/v1",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } }, subresources: { status: {} } }],
      conversion: { strategy: "None" },
    },
    // conditions and storedVersions have no omitempty: nil is null, as a server writes a new CRD.
    status: { conditions: null, acceptedNames: { plural: "", kind: "" }, storedVersions: ["v1"] },
  };

  it("are served kinds with a protobuf form (custom resources still have none)", () => {
    expect(supportsProtobuf("apiextensions.k8s.io/v1", "CustomResourceDefinition")).toBe(true);
    expect(supportsProtobuf("apiextensions.k8s.io/v1", "CustomResourceDefinitionList")).toBe(true);
    expect(supportsProtobuf("apiextensions.k8s.io/v1", "WatchEvent")).toBe(true);
    expect(supportsProtobuf("example.com/v1", "Widget")).toBe(false);
  });

  it("round-trip JSON -> protobuf -> JSON unchanged, the list too", () => {
    // List items carry no kind/apiVersion (a typed list's items have no TypeMeta of their own).
    const { kind: _k, apiVersion: _a, ...item } = crd;
    for (const o of [crd, { kind: "CustomResourceDefinitionList", apiVersion: "apiextensions.k8s.io/v1", metadata: { resourceVersion: "5" }, items: [item] }]) {
      const back = decodeObject(encodeObject(o));
      expect(back).toEqual(o);
      expect(JSON.stringify(back)).toBe(JSON.stringify(o));
    }
  });
});

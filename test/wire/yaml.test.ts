import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareYamlKeys, formatGoFloat, fromYaml, toYaml, YamlDecodeError } from "../../lib/wire/yaml.js";

const ROOT = resolve(import.meta.dirname, "../..");
const GOLDEN = resolve(ROOT, "../shared/reference/k8s-api-testdata/v1.35.0");
const goldenPairs = existsSync(GOLDEN)
  ? readdirSync(GOLDEN)
      .filter((f) => f.endsWith(".yaml"))
      .sort()
  : [];
if (goldenPairs.length === 0) console.log(`yaml.test: golden files not found at ${GOLDEN}; the golden comparisons are skipped`);

describe("toYaml against the real serializer's golden files (k8s-api-testdata v1.35.0)", () => {
  if (goldenPairs.length === 0) it.skip(`golden files absent (${GOLDEN})`, () => {});
  it.each(goldenPairs)("%s", (file) => {
    const golden = readFileSync(resolve(GOLDEN, file), "utf8");
    const json: unknown = JSON.parse(readFileSync(resolve(GOLDEN, file.replace(/\.yaml$/, ".json")), "utf8"));
    const ours = toYaml(json);
    // Structure first (what matters to a reader), then the exact text.
    expect(fromYaml(ours)).toEqual(fromYaml(golden));
    expect(fromYaml(golden)).toEqual(json);
    expect(ours).toBe(golden);
  });
});

describe("toYaml", () => {
  it("sorts keys at every level, block style, sequences at the key's column", () => {
    expect(toYaml({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "demo", labels: { b: "2", a: "1" } }, items: [{ z: 1, y: [1, 2] }] })).toBe(
      [
        "apiVersion: v1",
        "items:",
        '- "y":',
        "  - 1",
        "  - 2",
        "  z: 1",
        "kind: ConfigMap",
        "metadata:",
        "  labels:",
        '    a: "1"',
        '    b: "2"',
        "  name: demo",
        "",
      ].join("\n"),
    );
  });

  it("writes empty collections and null in flow form", () => {
    expect(toYaml({ a: {}, b: [], c: null })).toBe("a: {}\nb: []\nc: null\n");
  });

  it.each([
    ["a boolean-looking string", "true", 'v: "true"'],
    ["a YAML 1.1 boolean-looking string", "yes", 'v: "yes"'],
    ["a number-looking string", "10", 'v: "10"'],
    ["a YAML 1.1 one-letter boolean", "n", 'v: "n"'],
    ["a timestamp-looking string", "2008-01-01T01:01:01Z", 'v: "2008-01-01T01:01:01Z"'],
    ["an empty string", "", 'v: ""'],
    ["null-looking", "null", 'v: "null"'],
    ["a string unsafe only as plain", "x: y", "v: 'x: y'"],
    ["a leading dash", "- a", "v: '- a'"],
    ["a comment sign", "#c", "v: '#c'"],
    ["a plain string", "hello world", "v: hello world"],
    ["a non-ASCII string", "é", "v: é"],
  ])("quotes %s like the server", (_name, s, line) => {
    expect(toYaml({ v: s })).toBe(`${line}\n`);
  });

  it("writes strings with line breaks as literal blocks", () => {
    expect(toYaml({ v: "a\nb\n" })).toBe("v: |\n  a\n  b\n");
    expect(toYaml({ v: "a\nb" })).toBe("v: |-\n  a\n  b\n");
  });

  it("does not fold long lines and never writes anchors", () => {
    const long = "word ".repeat(40).trim();
    expect(toYaml({ v: long })).toBe(`v: ${long}\n`);
    const shared = { x: 1 };
    expect(toYaml({ a: shared, b: shared })).toBe("a:\n  x: 1\nb:\n  x: 1\n");
  });

  it("follows JSON: undefined members go, Dates become strings, -0 is 0", () => {
    expect(toYaml({ a: undefined, d: new Date(Date.UTC(2020, 0, 1)), z: -0 })).toBe('d: "2020-01-01T00:00:00.000Z"\nz: 0\n');
    expect(() => toYaml(undefined)).toThrow(/no JSON form/);
  });

  it.each([
    [1.5, "1.5"],
    [0.1, "0.1"],
    [1e-7, "1e-07"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [123456.5, "123456.5"],
    [1234567.5, "1.2345675e+06"],
    [-2.5e-10, "-2.5e-10"],
    [1e21, "1e+21"],
  ])("writes the float %d as Go does: %s", (n, text) => {
    expect(formatGoFloat(n)).toBe(text);
    expect(toYaml({ v: n })).toBe(`v: ${text}\n`);
  });

  it("writes integers in full", () => {
    expect(toYaml({ a: 2 ** 40, b: -3 })).toBe("a: 1099511627776\nb: -3\n");
  });

  it("property: toYaml then fromYaml gives back the JSON form", () => {
    const obj = fc.dictionary(fc.string({ unit: "grapheme" }), fc.jsonValue({ stringUnit: "grapheme" }));
    fc.assert(
      fc.property(obj, (o) => {
        const jsonForm = JSON.parse(JSON.stringify(o)) as unknown;
        expect(fromYaml(toYaml(o))).toEqual(jsonForm);
      }),
      { numRuns: 200 },
    );
  });
});

describe("compareYamlKeys (the server's natural key order)", () => {
  const sorted = (keys: string[]): string[] => [...keys].sort(compareYamlKeys);
  it.each([
    [
      ["b", "a", "c"],
      ["a", "b", "c"],
    ],
    [
      ["k10", "k9", "k1"],
      ["k1", "k9", "k10"],
    ],
    [
      ["a10", "a2", "a1"],
      ["a1", "a2", "a10"],
    ],
    [
      ["a01", "a1"],
      ["a1", "a01"],
    ],
    [
      ["ab", "a-b", "a_b"],
      ["a-b", "a_b", "ab"],
    ],
    [
      ["aZ", "a_"],
      ["a_", "aZ"],
    ],
    [
      ["Name", "name", "apiVersion"],
      ["Name", "apiVersion", "name"],
    ],
    [
      ["metadata", "meta"],
      ["meta", "metadata"],
    ],
  ])("orders %j as %j", (input, expected) => {
    expect(sorted(input)).toEqual(expected);
  });

  it("property: a consistent order (antisymmetric, and 0 only for equal keys)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const ab = Math.sign(compareYamlKeys(a, b));
        expect(Math.sign(compareYamlKeys(b, a))).toBe(-ab || 0);
        if (ab === 0) expect(a).toBe(b);
      }),
    );
  });
});

describe("fromYaml", () => {
  it("reads one mapping with the YAML 1.2 core schema", () => {
    expect(fromYaml("a: yes\nb: on\nc: 2020-01-01\nd: 012\ne: 0o17\nf: ~\ng: 1.5\n<<: {x: 1}\n")).toEqual({
      a: "yes",
      b: "on",
      c: "2020-01-01",
      d: 12,
      e: 15,
      f: null,
      g: 1.5,
      "<<": { x: 1 },
    });
    expect(fromYaml("---\nkind: Event\n")).toEqual({ kind: "Event" });
    expect(fromYaml('{"kind": "Event", "n": 1}')).toEqual({ kind: "Event", n: 1 });
  });

  it.each([
    ["two documents", "a: 1\n---\nb: 2\n", /holds 2 documents/],
    ["a document then an empty one", "a: 1\n---\n", /holds 2 documents/],
    ["no document", "", /no document/],
    ["only a comment", "# nothing\n", /no document/],
    ["a sequence root", "- 1\n", /root is a sequence/],
    ["a scalar root", "hello\n", /root is a string/],
    ["a null root", "~\n", /root is null/],
    ["a syntax error", "a: [1,\n", /invalid YAML at line \d+, column \d+/],
    ["an unknown tag", "a: !!binary aGk=\n", /invalid YAML.*unknown/],
  ])("rejects %s", (_name, text, message) => {
    const run = () => fromYaml(text);
    expect(run).toThrow(YamlDecodeError);
    expect(run).toThrow(message);
  });

  it("rejects duplicate keys with their line, or lets the last win on request", () => {
    try {
      fromYaml("a: 1\nb:\n  c: 1\n  c: 2\n");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(YamlDecodeError);
      expect((e as YamlDecodeError).message).toMatch(/duplicate/);
      expect((e as YamlDecodeError).line).toBe(4);
      expect((e as YamlDecodeError).column).toBe(3);
    }
    expect(fromYaml("a: 1\na: 2\n", { allowDuplicateKeys: true })).toEqual({ a: 2 });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { duplicateFieldMessage, JsonSyntaxError, parseJsonStrict } from "../../lib/wire/json-strict.js";

describe("parseJsonStrict: duplicate keys", () => {
  it("finds none in a clean object", () => {
    expect(parseJsonStrict('{"kind":"Event","metadata":{"name":"a"}}')).toEqual({ value: { kind: "Event", metadata: { name: "a" } }, duplicates: [] });
  });

  it("reports the server's example paths in document order, keeping the last value", () => {
    // The body of the Kubernetes field-validation integration test, shortened.
    const body = `{
      "apiVersion": "apps/v1",
      "kind": "Deployment",
      "metadata": { "name": "first", "name": "second" },
      "spec": {
        "paused": true,
        "paused": false,
        "template": { "spec": { "containers": [
          { "name": "nginx", "imagePullPolicy": "Always", "imagePullPolicy": "Never" }
        ] } }
      }
    }`;
    const { value, duplicates } = parseJsonStrict(body);
    expect(duplicates).toEqual(["metadata.name", "spec.paused", "spec.template.spec.containers[0].imagePullPolicy"]);
    expect(duplicates.map(duplicateFieldMessage)).toEqual([
      'duplicate field "metadata.name"',
      'duplicate field "spec.paused"',
      'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    ]);
    expect(value).toMatchObject({ metadata: { name: "second" }, spec: { paused: false } });
  });

  it.each([
    ["at the root", '{"a":1,"a":2}', ["a"]],
    ["three times: one entry per repeat", '{"a":1,"a":2,"a":3}', ["a", "a"]],
    ["in arrays of objects", '{"items":[{"x":1},{"x":1,"x":2}]}', ["items[1].x"]],
    ["under a root array", '[{"x":1,"x":2}]', ["[0].x"]],
    ["in nested arrays", '{"a":[[{"k":1,"k":2}]]}', ["a[0][0].k"]],
    ["same name in different objects is fine", '{"a":{"x":1},"b":{"x":1}}', []],
    ["a repeated key whose first value is an object", '{"m":{"a":1,"a":2},"m":{"b":1}}', ["m.a", "m"]],
    ["escapes name the same key", '{"a":1,"\\u0061":2}', ["a"]],
    ["escaped characters in the path", '{"a\\"b":{"c\\nd":1,"c\\nd":2}}', ['a"b.c\nd']],
    ["case matters", '{"name":1,"Name":2}', []],
    ["keys with dots are joined as they are", '{"k8s.io/x":{"y":1,"y":2}}', ["k8s.io/x.y"]],
    ["empty keys", '{"":1,"":2}', [""]],
    ["__proto__ twice", '{"__proto__":1,"__proto__":2}', ["__proto__"]],
  ])("%s", (_name, text, expected) => {
    expect(parseJsonStrict(text).duplicates).toEqual(expected);
  });

  it("gives the same value as JSON.parse (own __proto__ property, lone surrogate escapes)", () => {
    const text = '{"__proto__":{"x":1},"s":"\\ud800","n":1e400,"e":"\\u00e9\\t"}';
    const { value } = parseJsonStrict(text);
    expect(value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toContain("__proto__");
  });

  it("property: value equals JSON.parse and no duplicates for JSON.stringify output", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "grapheme" }), fc.constantFrom(undefined, 2), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        const r = parseJsonStrict(text);
        expect(r.value).toEqual(JSON.parse(text));
        expect(r.duplicates).toEqual([]);
      }),
    );
  });

  it("property: a key written twice into an object is reported at its path", () => {
    const key = fc.string({ unit: "grapheme", maxLength: 6 });
    fc.assert(
      fc.property(fc.array(key, { minLength: 1, maxLength: 3 }), key, (path, dup) => {
        // {"p0":{"p1":{..."dup":1,"dup":2}}}
        let text = `{${JSON.stringify(dup)}:1,${JSON.stringify(dup)}:2}`;
        for (const p of [...path].reverse()) text = `{${JSON.stringify(p)}:${text}}`;
        expect(parseJsonStrict(text).duplicates).toEqual([[...path, dup].join(".")]);
      }),
    );
  });
});

describe("parseJsonStrict: malformed input", () => {
  it.each([
    ["empty input", "", 0],
    ["whitespace only", "  \n ", 4],
    ["a trailing comma", '{"a":1,}', 7],
    ["a trailing comma in an array", "[1,2,]", 5],
    ["an unquoted key", "{a:1}", 1],
    ["a single-quoted string", "{'a':1}", 1],
    ["a missing colon", '{"a" 1}', 5],
    ["a missing comma", "[1 2]", 3],
    ["an unterminated string", '{"a":"b', 7],
    ["an unterminated object", '{"a":1', 6],
    ["a bad escape", '{"a":"\\x41"}', 6],
    ["a short unicode escape", '{"a":"\\u12"}', 9],
    ["a leading zero", "[01]", 1],
    ["a bare dot number", "[.5]", 1],
    ["a plus sign", "[+1]", 1],
    ["NaN", "[NaN]", 1],
    ["a comment", '{"a":1 // c\n}', 7],
    ["a second value", '{"a":1} {"b":2}', 8],
    ["a byte order mark", '\ufeff{"a":1}', 0],
    ["a non-JSON space", '{"a":\u00a01}', 5],
    ["a raw control character in a string", '{"a":"x\u0001y"}', 7],
    ["a raw line break in a string", '{"a":"x\ny"}', 7],
  ])("%s: a SyntaxError with the position", (_name, text, offset) => {
    let caught: unknown;
    try {
      parseJsonStrict(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SyntaxError);
    expect(caught).toBeInstanceOf(JsonSyntaxError);
    const err = caught as JsonSyntaxError;
    expect(err.offset).toBe(offset);
    expect(err.message).toMatch(new RegExp(`^invalid JSON at line ${err.line}, column ${err.column} \\(offset ${offset}\\): `));
    // Whatever momoa or V8 accepted, JSON.parse agrees that the text is malformed.
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it("counts lines and columns from 1", () => {
    try {
      parseJsonStrict('{\n  "a": 1,\n  "b": ]\n}');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JsonSyntaxError);
      expect((e as JsonSyntaxError).line).toBe(3);
      expect((e as JsonSyntaxError).column).toBe(8);
    }
  });

  it("property: whatever JSON.parse rejects, parseJsonStrict rejects with a position inside the text", () => {
    const nearJson = fc
      .tuple(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.nat(),
        fc.constantFrom("", ",", "}", "]", "{", '"', ":", "x", "\u0001", " ", "0"),
      )
      .map(([t, at, junk]) => {
        const i = at % (t.length + 1);
        return t.slice(0, i) + junk + t.slice(i + 1);
      });
    fc.assert(
      fc.property(nearJson, (text) => {
        let jsonOk = true;
        try {
          JSON.parse(text);
        } catch {
          jsonOk = false;
        }
        if (jsonOk) {
          expect(parseJsonStrict(text).value).toEqual(JSON.parse(text));
          return;
        }
        try {
          parseJsonStrict(text);
          expect.unreachable(`accepted ${JSON.stringify(text)}`);
        } catch (e) {
          expect(e).toBeInstanceOf(JsonSyntaxError);
          const off = (e as JsonSyntaxError).offset;
          expect(off).toBeGreaterThanOrEqual(0);
          expect(off).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * The create path's shortcuts against what they replace, on many generated inputs:
 *  - json.ts jsonDepthIfKeysPlain, which lets a body skip the strict parse: whenever it answers,
 *    that parse finds no duplicate and its depth is jsonDepthExceeded's; it declines any body
 *    with a repeated or escaped key;
 *  - the field sets' tree operations (union, difference, intersection, withoutPrefixes,
 *    isEmpty): the members, paths and FieldsV1 of listing every path and building the set again;
 *  - api-time.ts parseApiTime's shortcut for the canonical form: the general parser's reading.
 */
import { parse as parseAst, type ValueNode } from "@humanwhocodes/momoa";
import { describe, expect, it } from "vitest";
import { parseApiTime, parseApiTimeAnyForm } from "../../lib/emulator/apimachinery/api-time.js";
import { jsonDepthExceeded, jsonDepthIfKeysPlain } from "../../lib/emulator/apimachinery/json.js";
import { FieldSet, type Path } from "../../lib/emulator/apimachinery/managed-fields/field-set.js";
import { parseJsonStrict } from "../../lib/wire/json-strict.js";

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ["a", "b", "name", "na\\u006de", "\\u0061", "é", "", 'a\\"b', "x y", "__proto__", "1", "01"];
const STRINGS = ['"v"', '"\\"}{[],:"', '"a\\\\"', '"ü\\n"', '"{\\"a\\":1,\\"a\\":2}"', '""'];
const SPACE = ["", " ", "\n\t", "\r\n  "];

/** JSON text with repeated and escaped keys now and then, nested up to `depth`. */
function jsonText(next: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const sp = () => pick(SPACE);
  const r = next();
  if (depth <= 0 || r < 0.3) return pick([...STRINGS, "1", "-0.5e3", "true", "false", "null"]);
  if (r < 0.5) {
    const n = Math.floor(next() * 4);
    return `[${sp()}${Array.from({ length: n }, () => jsonText(next, depth - 1)).join(`${sp()},${sp()}`)}${sp()}]`;
  }
  const n = Math.floor(next() * 5);
  const used: string[] = [];
  const members = Array.from({ length: n }, () => {
    // Mostly distinct keys, so that plain objects are common.
    let key = pick(KEYS);
    if (next() < 0.8) for (let i = 0; used.includes(key) && i < 5; i++) key = pick(KEYS);
    used.push(key);
    return `"${key}"${sp()}:${sp()}${jsonText(next, depth - 1)}`;
  });
  return `{${sp()}${members.join(`${sp()},${sp()}`)}${sp()}}`;
}

/** How many object keys are written with an escape, read from momoa's syntax tree. */
function escapedKeys(text: string): number {
  let count = 0;
  const walk = (node: ValueNode): void => {
    if (node.type === "Array") for (const el of node.elements) walk(el.value);
    if (node.type !== "Object") return;
    for (const member of node.members) {
      if (text.slice(member.name.loc.start.offset, member.name.loc.end.offset).includes("\\")) count++;
      walk(member.value);
    }
  };
  walk(parseAst(text, { mode: "json" }).body);
  return count;
}

describe("jsonDepthIfKeysPlain", () => {
  it("answers only for text whose strict parse finds no duplicate, with jsonDepthExceeded's depth, and declines escaped or repeated keys", () => {
    let answered = 0;
    let declined = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const text = jsonText(rng(seed), 1 + (seed % 6));
      const depth = jsonDepthIfKeysPlain(text);
      const strict = parseJsonStrict(text);
      if (depth === undefined) {
        declined++;
        continue;
      }
      answered++;
      expect({ seed, text, duplicates: strict.duplicates }).toEqual({ seed, text, duplicates: [] });
      expect({ seed, text, escapedKeys: escapedKeys(text) }).toEqual({ seed, text, escapedKeys: 0 });
      expect(jsonDepthExceeded(text, depth)).toBeUndefined();
      if (depth > 0) expect(jsonDepthExceeded(text, depth - 1)).toBeDefined();
    }
    // Both answers are common in the sample, so both are exercised.
    expect(answered).toBeGreaterThan(500);
    expect(declined).toBeGreaterThan(500);
  });

  it("declines each way a key can repeat or hide behind an escape", () => {
    expect(jsonDepthIfKeysPlain('{"a":1,"b":{"c":[{"d":1,"e":2}]}}')).toBe(4);
    expect(jsonDepthIfKeysPlain("[]")).toBe(1);
    expect(jsonDepthIfKeysPlain('"s"')).toBe(0);
    expect(jsonDepthIfKeysPlain('{"a":1,"a":2}')).toBeUndefined();
    expect(jsonDepthIfKeysPlain('{"a":1,"b":2,"c":3,"b":4}')).toBeUndefined();
    expect(jsonDepthIfKeysPlain('{"m":{"a":1},"n":{"a":1,"x":{},"a":2}}')).toBeUndefined();
    expect(jsonDepthIfKeysPlain('[{"a":1},{"a":1,"a":1}]')).toBeUndefined();
    expect(jsonDepthIfKeysPlain('{"a":1,"\\u0061":2}')).toBeUndefined();
    expect(jsonDepthIfKeysPlain('{"a\\"b":1}')).toBeUndefined();
    // Values that look like keys or hold escapes are not keys.
    expect(jsonDepthIfKeysPlain('{"a":"a","b":["a","a"],"c":"\\"a\\":1,\\"a\\":2"}')).toBe(2);
    // The same key in sibling or nested objects is no duplicate.
    expect(jsonDepthIfKeysPlain('{"a":{"a":{"a":1}},"b":{"a":1}}')).toBe(3);
  });
});

const ELEMENTS = ["f:a", "f:b", "f:metadata", "f:name", 'k:{"uid":"1"}', 'v:"x"', "i:2", "i:10", "f:"];

function randomPaths(next: () => number): Path[] {
  const n = Math.floor(next() * 8);
  return Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => ELEMENTS[Math.floor(next() * ELEMENTS.length)] as string));
}

/** What the operations used to do: list every member path and build the set again. */
const reference = {
  union: (a: FieldSet, b: FieldSet) => FieldSet.of([...a.paths(), ...b.paths()]),
  difference: (a: FieldSet, b: FieldSet) => FieldSet.of(a.paths().filter((p) => !b.has(p))),
  intersection: (a: FieldSet, b: FieldSet) => FieldSet.of(a.paths().filter((p) => b.has(p))),
  withoutPrefixes: (a: FieldSet, prefixes: readonly Path[]) =>
    FieldSet.of(a.paths().filter((p) => !prefixes.some((prefix) => prefix.length <= p.length && prefix.every((e, i) => p[i] === e)))),
};

const view = (s: FieldSet) => ({ paths: s.paths(), fieldsV1: s.toFieldsV1(), empty: s.isEmpty(), root: s.has([]) });

/** PathElement.Compare as field-set.ts wrote it before its shortcut: rank, then index number, then the body. */
function compareElementsBefore(a: string, b: string): number {
  const rank: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };
  const ra = rank[a[0] ?? ""] ?? 4;
  const rb = rank[b[0] ?? ""] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === "i") return Number(a.slice(2)) - Number(b.slice(2));
  const x = a.slice(2);
  const y = b.slice(2);
  return x < y ? -1 : x > y ? 1 : 0;
}

describe("FieldSet operations on trees", () => {
  it("orders elements as PathElement.Compare: fields, keys, values, indexes by number, bodies by code unit", () => {
    const elements = ["f:b", "f:a", "f:", "f:a.b", "f:Z", "f:é", "f:\u{1F98A}", 'k:{"uid":"2"}', 'k:{"uid":"10"}', 'v:"x"', "v:1", "i:10", "i:2", "i:0"];
    const next = rng(7);
    for (let round = 0; round < 50; round++) {
      const shuffled = [...elements].sort(() => next() - 0.5);
      const set = FieldSet.of(shuffled.map((e) => [e]));
      expect(set.paths().map((p) => p[0])).toEqual([...elements].sort(compareElementsBefore));
    }
  });

  it("give the members, paths and FieldsV1 of the path-by-path operations", () => {
    for (let seed = 1; seed <= 1500; seed++) {
      const next = rng(seed);
      const sets = [0, 1].map(() => {
        const set = FieldSet.of(randomPaths(next));
        // Some sets come from FieldsV1 with a member root ("." at the top) and members with children.
        return next() < 0.3 ? FieldSet.fromFieldsV1({ ".": {}, ...set.toFieldsV1() }) : set;
      });
      const [a, b] = sets as [FieldSet, FieldSet];
      const prefixes = randomPaths(next).slice(0, 3);
      expect({ seed, op: "union", ...view(a.union(b)) }).toEqual({ seed, op: "union", ...view(reference.union(a, b)) });
      expect({ seed, op: "difference", ...view(a.difference(b)) }).toEqual({ seed, op: "difference", ...view(reference.difference(a, b)) });
      expect({ seed, op: "intersection", ...view(a.intersection(b)) }).toEqual({ seed, op: "intersection", ...view(reference.intersection(a, b)) });
      expect({ seed, op: "withoutPrefixes", ...view(a.withoutPrefixes(prefixes)) }).toEqual({
        seed,
        op: "withoutPrefixes",
        ...view(reference.withoutPrefixes(a, prefixes)),
      });
      expect(a.isEmpty()).toBe(a.paths().length === 0);
    }
    // An empty prefix drops everything; no prefix keeps everything.
    const s = FieldSet.of([["f:a"], ["f:b", "f:c"]]);
    expect(s.withoutPrefixes([[]]).paths()).toEqual([]);
    expect(s.withoutPrefixes([]).paths()).toEqual([["f:a"], ["f:b", "f:c"]]);
  });
});

describe("parseApiTime", () => {
  it("reads every time as the general parser does: canonical forms in and out of range, the zero time, other forms", () => {
    const next = rng(11);
    const two = (max: number) => String(Math.floor(next() * max)).padStart(2, "0");
    const cases = [
      "0001-01-01T00:00:00Z",
      "0001-01-01T00:00:00.000000Z",
      "0001-01-01T00:00:00.000001Z",
      "0000-02-29T00:00:00Z",
      "1900-02-29T00:00:00Z",
      "2000-02-29T23:59:59Z",
      "2024-02-30T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-10T00:00:00Z",
      "2026-01-00T00:00:00Z",
      "2026-01-02T24:00:00Z",
      "2026-01-02T03:60:00Z",
      "2026-01-02T03:04:60Z",
      "2026-01-02T03:04:05.123Z",
      "2026-01-02T03:04:05,123456Z",
      "2026-01-02T03:04:05+01:00",
      "2026-01-02T03:04:05.123456+01:00",
      "2026-01-02 03:04:05Z",
      "2026-01-02T03:04:05z",
      "2026-01-02T03:04:05Zx",
      "9999-12-31T23:59:59.999999Z",
      "",
    ];
    for (let i = 0; i < 2000; i++) {
      const base = `${String(Math.floor(next() * 10000)).padStart(4, "0")}-${two(14)}-${two(33)}T${two(26)}:${two(62)}:${two(62)}`;
      cases.push(`${base}Z`, `${base}.${String(Math.floor(next() * 1e6)).padStart(6, "0")}Z`);
    }
    for (const text of cases) {
      for (const micro of [false, true])
        expect({ text, micro, parsed: parseApiTime(text, micro) }).toEqual({ text, micro, parsed: parseApiTimeAnyForm(text, micro) });
    }
  });
});

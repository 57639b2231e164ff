import { Encoder, Tag } from "cbor-x";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborDecodeError, CborSeqReader, decodeCbor, encodeCbor, encodeCborSeq, encodeWatchEventCbor } from "../../lib/wire/cbor.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));

/** JSON-like values as they survive JSON: no -0 (JSON writes 0), nothing non-finite. */
const jsonLike = fc.jsonValue({ stringUnit: "grapheme" }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** A reference encoder with text strings, to check that decoding accepts both forms. */
const textEncoder = new Encoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true, tagUint8Array: false, useSelfDescribedHeader: true });

describe("encodeCbor: the server's byte form", () => {
  it("writes {a:1} as d9d9f7 a1 41 61 01 (byte-string key)", () => {
    expect(hex(encodeCbor({ a: 1 }))).toBe("d9d9f7a1416101");
  });

  it.each([
    ["null", null, "f6"],
    ["true", true, "f5"],
    ["a small negative", -1, "20"],
    ["a string as a byte string", "ab", "426162"],
    ["an empty string", "", "40"],
    ["a UTF-8 string", "é", "42c3a9"],
    ["an array", [1, "x", null], "83014178f6"],
    ["an empty object", {}, "a0"],
    ["an empty array", [], "80"],
    ["2^32 - 1 (uint32)", 2 ** 32 - 1, "1affffffff"],
    ["2^40 as an integer, not a float", 2 ** 40, "1b0000010000000000"],
    ["-2^40 as an integer", -(2 ** 40), "3b000000ffffffffff"],
    ["2^53 - 1", Number.MAX_SAFE_INTEGER, "1b001fffffffffffff"],
    ["a BigInt", 2n ** 63n - 1n, "1b7fffffffffffffff"],
    ["a non-integer as float64", 1.5, "fb3ff8000000000000"],
    ["an integer beyond int64 stays a float", 2 ** 64, "fb43f0000000000000"],
    ["a Uint8Array as a Go []byte (tag 22)", Uint8Array.of(1, 2), "d6420102"],
  ])("%s", (_name, value, expected) => {
    expect(hex(encodeCbor(value))).toBe(`d9d9f7${expected}`);
  });

  it("nests byte-string keys and drops undefined members like JSON", () => {
    expect(hex(encodeCbor({ m: { n: "v" }, u: undefined }))).toBe("d9d9f7a1416da1416e4176");
  });

  it("uses definite lengths for long maps, arrays and strings", () => {
    const obj = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
    const out = encodeCbor({ obj, arr: Array.from({ length: 300 }, () => 0), s: "x".repeat(70000) });
    // No indefinite-length header (major type 2-5 with additional info 31) appears as the
    // start of those items: a1 (outer map), then b8 1e (map of 30), 99 012c (array of 300),
    // 5a 00011170 (byte string of 70000).
    const h = hex(out);
    expect(h).toContain("b81e");
    expect(h).toContain("99012c");
    expect(h).toContain("5a00011170");
    expect(out).not.toContain(0x5f);
    expect(out).not.toContain(0xbf);
    expect(out).not.toContain(0x9f);
  });

  it("keeps key order by default, sorts like the deterministic mode on request", () => {
    expect(hex(encodeCbor({ bb: 1, a: 2, c: 3 }))).toBe("d9d9f7a3" + "42626201" + "416102" + "416303");
    expect(hex(encodeCbor({ bb: 1, a: 2, c: 3 }, { deterministic: true }))).toBe("d9d9f7a3" + "416102" + "416303" + "42626201");
  });

  it.each([
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a function", () => 1],
    ["a Date", new Date(0)],
    ["a Map", new Map()],
    ["a symbol", Symbol("s")],
  ])("refuses %s", (_name, value) => {
    expect(() => encodeCbor({ x: [value] })).toThrow(/encodeCbor: .* at x\[0\]/);
  });
});

describe("decodeCbor", () => {
  it("decodes with or without the self-described prefix", () => {
    expect(decodeCbor(bytes("d9d9f7a1416101"))).toEqual({ a: 1 });
    expect(decodeCbor(bytes("a1416101"))).toEqual({ a: 1 });
  });

  it("accepts text-string keys and strings as well", () => {
    expect(decodeCbor(bytes("a1 6161 626263"))).toEqual({ a: "bc" });
    expect(decodeCbor(new Uint8Array(textEncoder.encode({ kind: "Event", metadata: { name: "n" } })))).toEqual({ kind: "Event", metadata: { name: "n" } });
  });

  it("turns tagged byte strings into their JSON text: 22 base64, 21 base64url, 23 hex", () => {
    expect(decodeCbor(bytes("a1 41 62 d6 43 fbff01"))).toEqual({ b: "+/8B" });
    expect(decodeCbor(bytes("a1 41 62 d5 43 fbff01"))).toEqual({ b: "-_8B" });
    expect(decodeCbor(bytes("a1 41 62 d7 43 fbff01"))).toEqual({ b: "fbff01" });
    expect(decodeCbor(encodeCbor({ binaryData: { k: Uint8Array.of(3) } }))).toEqual({ binaryData: { k: "Aw==" } });
  });

  it("returns integers beyond 2^53 as numbers by default, exactly as BigInt on request", () => {
    expect(decodeCbor(bytes("1b7fffffffffffffff"))).toBe(2 ** 63);
    expect(decodeCbor(bytes("1b7fffffffffffffff"), { bigIntegers: "bigint" })).toBe(2n ** 63n - 1n);
    expect(decodeCbor(bytes("1b0000010000000000"), { bigIntegers: "bigint" })).toBe(2 ** 40);
  });

  it("keeps a __proto__ key as an own property, like JSON.parse", () => {
    const v = decodeCbor(encodeCbor(JSON.parse('{"__proto__":{"x":1}}'))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__"]);
  });

  it.each([
    ["empty input", "", /empty CBOR input/],
    ["trailing garbage", "d9d9f7a1416101ff", /trailing bytes after the CBOR data item: 1 byte\(s\) at offset 7/],
    ["a second item", "a1416101 01", /trailing bytes .* 1 more item/],
    ["a truncated map", "d9d9f7a14161", /truncated CBOR/],
    ["a truncated string", "d9d9f7a1416145616263", /truncated CBOR/],
    ["a reserved additional info", "1c", /malformed CBOR/],
    ["a byte string that is not UTF-8", "a1416142c328", /not valid UTF-8/],
    ["a byte-string key that is not UTF-8", "a141ff01", /a key in <root>.*not valid UTF-8/],
    ["an integer key", "a10101", /keys must be strings/],
    ["the same key as bytes and text", "a2416101616102", /has the key "a" twice/],
    ["a date tag", "a14174c074323031332d30332d32315432303a30343a30305a", /CBOR Date at t/],
    ["an unknown tag", "a14174d9ffff01", /tag 65535 at t/],
    ["NaN", "a1416ef97e00", /NaN at n has no JSON form/],
    ["undefined", "a14175f7", /undefined at u/],
  ])("rejects %s with a clear error", (_name, h, message) => {
    const run = () => decodeCbor(bytes(h));
    expect(run).toThrow(CborDecodeError);
    expect(run).toThrow(message);
  });

  it("property: JSON-like values round-trip", () => {
    fc.assert(
      fc.property(jsonLike, (v) => {
        expect(decodeCbor(encodeCbor(v))).toEqual(v);
        expect(decodeCbor(encodeCbor(v, { deterministic: true }))).toEqual(v);
      }),
      { numRuns: 300 },
    );
  });

  it("property: every string in the output is a byte string (no major type 3 after encoding)", () => {
    // Walks the CBOR item structure; only the shapes encodeCbor writes are handled.
    const majors = (b: Uint8Array): number[] => {
      const seen: number[] = [];
      let p = 0;
      const arg = (info: number): number => {
        if (info < 24) return info;
        const n = 2 ** (info - 24);
        let v = 0;
        for (let i = 0; i < n; i++) v = v * 256 + (b[p++] as number);
        return v;
      };
      const item = (): void => {
        const ib = b[p++] as number;
        const major = ib >> 5;
        const info = ib & 31;
        seen.push(major);
        if (major === 7) {
          p += info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
          return;
        }
        const n = arg(info);
        if (major === 2 || major === 3) p += n;
        else if (major === 4) for (let i = 0; i < n; i++) item();
        else if (major === 5) for (let i = 0; i < 2 * n; i++) item();
        else if (major === 6) item();
      };
      item();
      expect(p).toBe(b.length);
      return seen;
    };
    fc.assert(
      fc.property(jsonLike, (v) => {
        expect(majors(encodeCbor(v))).not.toContain(3);
      }),
    );
  });
});

describe("application/cbor-seq watch streams", () => {
  const events = [
    { type: "ADDED", object: { kind: "Event", apiVersion: "events.k8s.io/v1", metadata: { name: "a", resourceVersion: "5" } } },
    { type: "MODIFIED", object: { kind: "Event", apiVersion: "events.k8s.io/v1", metadata: { name: "a", resourceVersion: "6" }, deprecatedCount: 2 ** 40 } },
    { type: "ERROR", object: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 410 } },
  ];

  it("writes each event as d9d9f7 + map{type, object} with the object carrying its own d9d9f7", () => {
    const b = encodeWatchEventCbor({ type: "ADDED", object: { a: 1 } });
    const ascii = (s: string): string => Buffer.from(s, "latin1").toString("hex");
    expect(hex(b)).toBe(`d9d9f7a2 44${ascii("type")} 45${ascii("ADDED")} 46${ascii("object")} d9d9f7a1416101`.replace(/ /g, ""));
    expect(hex(encodeCborSeq([{ type: "ADDED", object: { a: 1 } }]))).toBe(hex(b));
  });

  it("concatenates items with no framing", () => {
    const seq = encodeCborSeq(events);
    const parts = events.map((e) => encodeWatchEventCbor(e));
    expect(seq.length).toBe(parts.reduce((n, p) => n + p.length, 0));
    expect(hex(seq)).toBe(parts.map(hex).join(""));
    expect(hex(encodeCborSeq([1, "x"]))).toBe("d9d9f701d9d9f74178");
  });

  it("reads a whole stream in one push", () => {
    const r = new CborSeqReader();
    expect(r.push(encodeCborSeq(events))).toEqual(events);
    expect(() => r.end()).not.toThrow();
  });

  it("property: the reader returns the same events whatever the chunk boundaries", () => {
    const seq = encodeCborSeq(events);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: seq.length - 1 }), { maxLength: 20 }), (cuts) => {
        const bounds = [0, ...cuts.sort((a, b) => a - b), seq.length];
        const r = new CborSeqReader();
        const out: unknown[] = [];
        for (let i = 0; i + 1 < bounds.length; i++) out.push(...r.push(seq.subarray(bounds[i], bounds[i + 1])));
        r.end();
        expect(out).toEqual(events);
      }),
    );
  });

  it("property: byte-at-a-time reading of arbitrary JSON-like items", () => {
    fc.assert(
      fc.property(fc.array(jsonLike, { maxLength: 4 }), (items) => {
        const seq = encodeCborSeq(items);
        const r = new CborSeqReader();
        const out: unknown[] = [];
        for (let i = 0; i < seq.length; i++) out.push(...r.push(seq.subarray(i, i + 1)));
        r.end();
        expect(out).toEqual(items);
      }),
      { numRuns: 50 },
    );
  });

  it("reports a stream that ends inside an item", () => {
    const seq = encodeCborSeq(events);
    const r = new CborSeqReader();
    expect(r.push(seq.subarray(0, seq.length - 3))).toHaveLength(2);
    expect(r.bufferedBytes).toBeGreaterThan(0);
    expect(() => r.end()).toThrow(/ended inside an item/);
  });

  it("reports garbage in the stream with its offset and stays failed", () => {
    const first = encodeWatchEventCbor(events[0] as (typeof events)[0]);
    const r = new CborSeqReader();
    expect(r.push(first)).toEqual([events[0]]);
    expect(() => r.push(Uint8Array.of(0x1c))).toThrow(new RegExp(`malformed CBOR in the sequence at stream offset ${first.length}`));
    expect(() => r.push(first)).toThrow(CborDecodeError);
  });

  it("decodes a sequence written by another encoder (text strings, no inner tag)", () => {
    const other = Buffer.concat([
      textEncoder.encode({ type: "ADDED", object: { a: 1 } }),
      textEncoder.encode({ type: "DELETED", object: new Tag({ a: 2 }, 55799) }),
    ]);
    expect(new CborSeqReader().push(new Uint8Array(other))).toEqual([
      { type: "ADDED", object: { a: 1 } },
      { type: "DELETED", object: { a: 2 } },
    ]);
  });
});

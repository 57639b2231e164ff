// biome-ignore-all lint/style/useTemplate: expected bytes are written one protobuf field (tag, length, value) per string, joined with +, to read as the wire layout
/**
 * The envelope, the prefix check, and the emission rules of wire-facts §1.0-§1.2, each with
 * bytes written out by hand from the fact sheet (not produced by the codec itself).
 */
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { decodeEnvelope, decodeObject, encodeObject, PROTOBUF_MAGIC, ProtobufFormatError, supportsProtobuf } from "../../../lib/wire/protobuf/index.js";
import { anyObject } from "./arbitraries.js";

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** magic + Unknown{typeMeta{apiVersion, kind}, raw, "", ""}, assembled independently of the codec. */
function envelopeOf(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).bytes(raw).uint32(0x1a).string("").uint32(0x22).string("");
  return Uint8Array.from([...PROTOBUF_MAGIC, ...w.finish()]);
}

const rawOf = (obj: Record<string, unknown>): string => toHex(decodeEnvelope(encodeObject(obj)).raw);

/** An empty ObjectMeta: fields 1-6 as empty strings, generation 0, zero creationTimestamp. */
const EMPTY_OBJECT_META = "0a10 0a00 1200 1a00 2200 2a00 3200 3800 4200".replace(/\s/g, "");

describe("protobuf envelope and prefix", () => {
  it("PROTOBUF_MAGIC is 6b 38 73 00", () => {
    expect(toHex(PROTOBUF_MAGIC)).toBe("6b387300");
  });

  it("writes magic + Unknown{typeMeta{apiVersion=1, kind=2}, raw, contentEncoding '', contentType ''}", () => {
    const bytes = encodeObject({ kind: "GetOptions", apiVersion: "v1", resourceVersion: "5" });
    // GetOptions{1: "5"} = 0a 01 35
    expect(toHex(bytes)).toBe(toHex(envelopeOf("v1", "GetOptions", hex("0a0135"))));
    expect(toHex(bytes)).toBe("6b387300" + "0a10" + "0a027631" + "120a" + Buffer.from("GetOptions").toString("hex") + "1203" + "0a0135" + "1a00" + "2200");
  });

  it("property: corrupting any of the 4 prefix bytes makes decodeObject throw ProtobufFormatError", () => {
    fc.assert(
      fc.property(anyObject, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 255 }), (obj, index, delta) => {
        const bytes = encodeObject(obj);
        expect(() => decodeObject(bytes)).not.toThrow();
        const bad = bytes.slice();
        bad[index] = ((bad[index] as number) + delta) & 0xff; // delta 1..255: always a different byte
        expect(() => decodeObject(bad)).toThrow(ProtobufFormatError);
        expect(() => decodeObject(bad)).toThrow(/prefix/);
      }),
      { numRuns: 200 },
    );
  });

  it("rejects bodies shorter than the prefix, and plain JSON", () => {
    for (const b of [new Uint8Array(0), hex("6b"), hex("6b3873"), new TextEncoder().encode('{"kind":"Status"}')]) {
      expect(() => decodeObject(b)).toThrow(/prefix/);
    }
  });

  it("rejects a truncated or malformed body after a valid prefix", () => {
    const bytes = encodeObject({ kind: "ConfigMap", apiVersion: "v1", data: { a: "b" } });
    for (let cut = 5; cut < bytes.length - 4; cut += 7) {
      expect(() => decodeObject(bytes.subarray(0, cut))).toThrow(ProtobufFormatError);
    }
    // field 2 of a ConfigMap (data) with varint wire type
    expect(() => decodeObject(envelopeOf("v1", "ConfigMap", hex("1001")))).toThrow(/wire type/);
    // a length running past the end of the message
    expect(() => decodeObject(envelopeOf("v1", "ConfigMap", hex("0a7f00")))).toThrow(ProtobufFormatError);
  });

  it("refuses kinds without protobuf: encode and decode (the server answers 406)", () => {
    for (const [apiVersion, kind] of [
      ["meta.k8s.io/v1", "Table"],
      ["example.com/v1", "CustomType"],
      ["v1", "Pod"],
      ["events.k8s.io/v1", "ConfigMap"],
    ] as const) {
      expect(supportsProtobuf(apiVersion, kind)).toBe(false);
      expect(() => encodeObject({ apiVersion, kind })).toThrow(ProtobufFormatError);
      expect(() => decodeObject(envelopeOf(apiVersion, kind, new Uint8Array(0)))).toThrow(ProtobufFormatError);
    }
    expect(() => encodeObject({ metadata: {} })).toThrow(/Kind' is missing/);
  });

  it("knows the kinds of the brief", () => {
    const kinds: [string, string][] = [
      ["events.k8s.io/v1", "Event"],
      ["events.k8s.io/v1", "EventList"],
      ["events.k8s.io/v1beta1", "Event"],
      ["v1", "Event"],
      ["v1", "EventList"],
      ["v1", "Namespace"],
      ["v1", "NamespaceList"],
      ["v1", "ConfigMap"],
      ["v1", "ConfigMapList"],
      ["coordination.k8s.io/v1", "Lease"],
      ["coordination.k8s.io/v1", "LeaseList"],
      ["v1", "Status"],
      ["meta.k8s.io/v1", "WatchEvent"],
      ["v1", "WatchEvent"],
      ["v1", "APIGroup"],
      ["v1", "APIVersions"],
      ["meta.k8s.io/v1", "PartialObjectMetadata"],
      ["meta.k8s.io/v1", "PartialObjectMetadataList"],
    ];
    for (const o of ["DeleteOptions", "ListOptions", "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions"]) {
      kinds.push(["v1", o], ["meta.k8s.io/v1", o]);
    }
    for (const [apiVersion, kind] of kinds) {
      expect(supportsProtobuf(apiVersion, kind), `${apiVersion} ${kind}`).toBe(true);
      const back = decodeObject(encodeObject({ apiVersion, kind }));
      if (kind !== "WatchEvent") expect([back.kind, back.apiVersion]).toEqual([kind, apiVersion]);
    }
  });

  it("refuses an envelope with a content encoding", () => {
    const w = protobuf.Writer.create();
    w.uint32(0x0a).fork().uint32(0x0a).string("v1").uint32(0x12).string("GetOptions").ldelim();
    w.uint32(0x12).bytes(new Uint8Array(0)).uint32(0x1a).string("gzip").uint32(0x22).string("");
    expect(() => decodeObject(Uint8Array.from([...PROTOBUF_MAGIC, ...w.finish()]))).toThrow(/contentEncoding/);
  });
});

describe("protobuf emission rules (wire-facts §1.0)", () => {
  it("an empty events.k8s.io Event carries fields 1,2,4,5,6,7,8,10,11,12,13,14,15 with zero values", () => {
    const obj = { kind: "Event", apiVersion: "events.k8s.io/v1" };
    expect(rawOf(obj)).toBe(
      EMPTY_OBJECT_META + // 1 metadata
        "1200" + // 2 eventTime: zero MicroTime = empty message
        "2200" +
        "2a00" +
        "3200" +
        "3a00" + // 4-7 strings
        "420e" +
        "0a00" +
        "1200" +
        "1a00" +
        "2200" +
        "2a00" +
        "3200" +
        "3a00" + // 8 regarding: 7 empty strings, 16 bytes
        "5200" +
        "5a00" + // 10 note, 11 type
        "6204" +
        "0a001200" + // 12 deprecatedSource
        "6a00" +
        "7200" + // 13, 14 zero Times
        "7800", // 15 deprecatedCount 0
    );
    // The JSON form: the bookmark shape of wire-facts §2.
    expect(JSON.stringify(decodeObject(encodeObject(obj)))).toBe(
      '{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{},"eventTime":null,"regarding":{},"deprecatedSource":{},' +
        '"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}',
    );
  });

  it("pointer fields stay out when unset and are written when set, even to a zero value", () => {
    expect(rawOf({ kind: "ConfigMap", apiVersion: "v1" })).toBe(EMPTY_OBJECT_META);
    expect(rawOf({ kind: "ConfigMap", apiVersion: "v1", immutable: false })).toBe(EMPTY_OBJECT_META + "2000");
    expect(decodeObject(encodeObject({ kind: "ConfigMap", apiVersion: "v1", immutable: false }))).toEqual({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: {},
      immutable: false,
    });
    expect(rawOf({ kind: "DeleteOptions", apiVersion: "v1" })).toBe("");
    expect(rawOf({ kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, propagationPolicy: "" })).toBe("0800" + "2200");
    expect(rawOf({ kind: "Lease", apiVersion: "coordination.k8s.io/v1", spec: { holderIdentity: "" } })).toBe(EMPTY_OBJECT_META + "1202" + "0a00");
  });

  it("fields go out in ascending number order, whatever the JSON order", () => {
    // OwnerReference: JSON apiVersion(5) first; wire 1, 3, 4, 5.
    const raw = rawOf({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: { ownerReferences: [{ apiVersion: "a", kind: "k", name: "n", uid: "u" }] },
    });
    expect(raw).toContain("6a0c" + "0a016b" + "1a016e" + "220175" + "2a0161");
    // ConfigMap: JSON immutable(4) first; wire 1, 2, 3, 4.
    expect(rawOf({ kind: "ConfigMap", apiVersion: "v1", immutable: true, data: { k: "v" }, binaryData: { b: "AQ==" } })).toBe(
      EMPTY_OBJECT_META + "1206" + "0a016b" + "120176" + "1a06" + "0a0162" + "120101" + "2001",
    );
  });

  it("map entries are sorted by the UTF-8 bytes of the key (Go sort.Strings), not by UTF-16", () => {
    // UTF-16 order puts U+10000 (surrogates d800 dc00) before U+FFFF; UTF-8 byte order puts
    // U+FFFF (ef bf bf) before U+10000 (f0 90 80 80).
    const labels = { "\u{10000}": "", b: "", "\uffff": "", a: "" };
    const bytes = encodeObject({ kind: "Namespace", apiVersion: "v1", metadata: { labels } });
    const raw = toHex(decodeEnvelope(bytes).raw);
    const order = ["0a0161", "0a0162", "0a03efbfbf", "0a04f0908080"].map((k) => raw.indexOf(k));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    const back = decodeObject(bytes) as { metadata: { labels: Record<string, string> } };
    expect(Object.keys(back.metadata.labels)).toEqual(["a", "b", "\uffff", "\u{10000}"]);
  });

  it("a __proto__ map key is an ordinary key", () => {
    const labels: Record<string, unknown> = {};
    Object.defineProperty(labels, "__proto__", { value: "x", enumerable: true, writable: true, configurable: true });
    const back = decodeObject(encodeObject({ kind: "Namespace", apiVersion: "v1", metadata: { labels } })) as { metadata: { labels: object } };
    expect(Object.getPrototypeOf(back.metadata.labels)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(back.metadata.labels, "__proto__")?.value).toBe("x");
  });

  it("negative int32 is a 10-byte varint; int64 beyond 2^53 decodes to a bigint", () => {
    expect(rawOf({ kind: "Status", apiVersion: "v1", code: -1 })).toBe("0a06" + "0a0012001a00" + "1200" + "1a00" + "2200" + "30ffffffffffffffffff01");
    expect(decodeObject(encodeObject({ kind: "Status", apiVersion: "v1", code: -1 })).code).toBe(-1);
    const big = 2n ** 62n + 1n;
    const back = decodeObject(encodeObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { generation: big } })) as { metadata: { generation: unknown } };
    expect(back.metadata.generation).toBe(big);
  });

  it("rejects JSON values the server could not decode", () => {
    const bad: Record<string, unknown>[] = [
      { kind: "ConfigMap", apiVersion: "v1", data: { a: 1 } },
      { kind: "ConfigMap", apiVersion: "v1", binaryData: { a: "not base64!" } },
      { kind: "ConfigMap", apiVersion: "v1", immutable: "yes" },
      { kind: "ConfigMap", apiVersion: "v1", metadata: { generation: 1.5 } },
      { kind: "ConfigMap", apiVersion: "v1", metadata: { finalizers: "x" } },
      { kind: "Status", apiVersion: "v1", code: 2 ** 31 },
      { kind: "Namespace", apiVersion: "v1", spec: [] },
    ];
    for (const obj of bad) expect(() => encodeObject(obj), JSON.stringify(obj)).toThrow(ProtobufFormatError);
  });

  it("skips unknown field numbers when decoding", () => {
    // GetOptions{1: "5", 99: "x", 100: varint 7}
    const raw = hex("0a0135" + "9a0601" + "78" + "a00607");
    expect(decodeObject(envelopeOf("v1", "GetOptions", raw))).toEqual({ kind: "GetOptions", apiVersion: "v1", resourceVersion: "5" });
  });

  it("lists write items as [] when empty, and list metadata always", () => {
    expect(rawOf({ kind: "EventList", apiVersion: "events.k8s.io/v1" })).toBe("0a06" + "0a0012001a00");
    expect(decodeObject(encodeObject({ kind: "EventList", apiVersion: "events.k8s.io/v1" }))).toEqual({
      kind: "EventList",
      apiVersion: "events.k8s.io/v1",
      metadata: {},
      items: [],
    });
  });

  it("a successful delete Status keeps the real JSON shape (no code)", () => {
    const status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "x", group: "events.k8s.io", kind: "events", uid: "u-1" },
    };
    const back = decodeObject(encodeObject(status));
    expect(JSON.stringify(back)).toBe(JSON.stringify(status));
  });
});

describe("protobuf Time and MicroTime (wire-facts §1.2)", () => {
  const meta = (creationTimestamp: unknown) => ({ kind: "ConfigMap", apiVersion: "v1", metadata: { creationTimestamp } });

  it("Time: seconds only, nanos written as 0 and ignored; UTC output without fraction", () => {
    // 2008-01-01T01:01:01Z = 1199149261 = varint cd a1 e6 bb 04
    const raw = rawOf(meta("2008-01-01T03:01:01.987654321+02:00"));
    expect(raw).toContain("4208" + "08cda1e6bb04" + "1000");
    expect((decodeObject(encodeObject(meta("2008-01-01T03:01:01.987654321+02:00"))).metadata as { creationTimestamp: string }).creationTimestamp).toBe(
      "2008-01-01T01:01:01Z",
    );
  });

  it("Time: nanos present on the wire are ignored when read", () => {
    // ObjectMeta with creationTimestamp {1: 1199149261, 2: 999} (written by some other peer)
    const om = "0a00" + "1200" + "1a00" + "2200" + "2a00" + "3200" + "3800" + "4209" + "08cda1e6bb04" + "10e707";
    const raw = hex("0a" + (om.length / 2).toString(16).padStart(2, "0") + om);
    const back = decodeObject(envelopeOf("v1", "ConfigMap", raw)) as { metadata: { creationTimestamp: string } };
    expect(back.metadata.creationTimestamp).toBe("2008-01-01T01:01:01Z");
  });

  it("zero creationTimestamp: 42 00 on the wire, left out of JSON (omitzero since 1.34)", () => {
    for (const zero of [undefined, null, "0001-01-01T00:00:00Z"]) {
      expect(rawOf(meta(zero))).toBe(EMPTY_OBJECT_META);
      expect(decodeObject(encodeObject(meta(zero)))).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: {} });
    }
    // Go's IsZero looks at the whole time, fraction included, before nanos are dropped.
    expect(rawOf(meta("0001-01-01T00:00:00.5Z"))).toContain("420d08");
  });

  it("times before 1970 are negative varints", () => {
    const obj = meta("1969-12-31T23:59:59Z");
    expect(rawOf(obj)).toContain("420d" + "08ffffffffffffffffff01" + "1000");
    expect(decodeObject(encodeObject(obj))).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { creationTimestamp: "1969-12-31T23:59:59Z" } });
  });

  it("MicroTime: exactly 6 fractional digits in, nanos as microseconds on the wire", () => {
    const ev = (eventTime: unknown) => ({ kind: "Event", apiVersion: "events.k8s.io/v1", eventTime });
    // 2002-01-01T01:01:01.000002Z = {1: 1009846861, 2: 2000} (golden events.k8s.io.v1.Event.pb)
    expect(rawOf(ev("2002-01-01T01:01:01.000002Z"))).toContain("1209" + "08cd94c4e103" + "10d00f");
    expect(decodeObject(encodeObject(ev("2002-01-01T03:01:01.000002+02:00"))).eventTime).toBe("2002-01-01T01:01:01.000002Z");
    for (const bad of ["2002-01-01T01:01:01Z", "2002-01-01T01:01:01.123Z", "2002-01-01T01:01:01.123456789Z", "2002-13-01T01:01:01.000000Z", "yesterday"]) {
      expect(() => encodeObject(ev(bad)), bad).toThrow(ProtobufFormatError);
    }
  });

  it("MicroTime: nanos on the wire are truncated to microseconds when read", () => {
    // events Event with only eventTime = {1: 1009846861, 2: 123456789}, the rest left to defaults
    const raw = hex("120b" + "08cd94c4e103" + "10959aef3a");
    expect(decodeObject(envelopeOf("events.k8s.io/v1", "Event", raw)).eventTime).toBe("2002-01-01T01:01:01.123456Z");
  });

  it("Time rejects what Go's RFC 3339 parser rejects", () => {
    for (const bad of ["2008-01-01", "2008-01-01T01:01:01", "2008-02-30T00:00:00Z", "2008-01-01T24:00:00Z", "2008-01-01t01:01:01z", "2008-01-01T01:01:60Z"]) {
      expect(() => encodeObject(meta(bad)), bad).toThrow(ProtobufFormatError);
    }
  });
});

describe("protobuf WatchEvent as an object", () => {
  it("embeds a kind with protobuf as a full enveloped body, and reads it back", () => {
    const cm = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a", resourceVersion: "7" }, data: { k: "v" } };
    const bytes = encodeObject({ kind: "WatchEvent", apiVersion: "meta.k8s.io/v1", type: "ADDED", object: cm });
    const env = decodeEnvelope(bytes);
    // Go's WatchEvent has no TypeMeta: the envelope's is empty, whatever the object said.
    expect([env.apiVersion, env.kind]).toEqual(["", ""]);
    const inner = protobuf.Reader.create(env.raw);
    expect(inner.uint32()).toBe(0x0a);
    expect(inner.string()).toBe("ADDED");
    expect(inner.uint32()).toBe(0x12);
    const ext = protobuf.Reader.create(inner.bytes());
    expect(ext.uint32()).toBe(0x0a);
    expect(toHex(ext.bytes())).toBe(toHex(encodeObject(cm)));
    expect(decodeObject(bytes)).toEqual({ type: "ADDED", object: cm });
  });

  it("refuses objects nested without bound in RawExtensions", () => {
    let obj: Record<string, unknown> = { kind: "Status", apiVersion: "v1", metadata: {} };
    for (let i = 0; i < 15; i++) obj = { kind: "WatchEvent", apiVersion: "v1", type: "ADDED", object: obj };
    expect(() => decodeObject(encodeObject(obj))).not.toThrow();
    for (let i = 0; i < 5; i++) obj = { kind: "WatchEvent", apiVersion: "v1", type: "ADDED", object: obj };
    expect(() => decodeObject(encodeObject(obj))).toThrow(/nested/);
  });
});

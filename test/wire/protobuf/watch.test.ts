/**
 * Protobuf watch framing (wire-facts §2): 4-byte big-endian length + raw meta.v1 WatchEvent
 * {1: type, 2: RawExtension{1: raw = the enveloped object}}, no magic on the frame.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { decodeEnvelope, encodeObject, encodeWatchFrame, ProtobufFormatError, WatchFrameReader } from "../../../lib/wire/protobuf/index.js";
import { anyObject, configMap, status } from "./arbitraries.js";
import { GOLDEN_AVAILABLE, GOLDEN_ROOT, warnIfMissing } from "./golden-files.js";

const eventType = fc.constantFrom("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR");

function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** Cuts bytes at the given (sorted, deduplicated) offsets. */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.slice(from, p));
    from = p;
  }
  return out;
}

/** A frame around any body, built without the codec. */
function frameOf(body: Uint8Array): Uint8Array {
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, body.length, false);
  return concat([head, body]);
}

describe("protobuf watch frames", () => {
  it("a frame is a big-endian length and a raw WatchEvent whose object is the enveloped body", () => {
    const obj = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" } };
    const frame = encodeWatchFrame("ADDED", obj);
    const n = new DataView(frame.buffer, frame.byteOffset).getUint32(0, false);
    expect(n).toBe(frame.length - 4);
    // The frame body is the raw WatchEvent: no magic of its own.
    expect(frame[4]).toBe(0x0a);
    const r = protobuf.Reader.create(frame.subarray(4));
    expect(r.uint32()).toBe(0x0a);
    expect(r.string()).toBe("ADDED");
    expect(r.uint32()).toBe(0x12);
    const ext = protobuf.Reader.create(r.bytes());
    expect(ext.uint32()).toBe(0x0a);
    expect(Buffer.from(ext.bytes())).toEqual(Buffer.from(encodeObject(obj)));
    expect(r.pos).toBe(r.len);
    // Same bytes as the body of an enveloped WatchEvent holding the same event.
    const asObject = decodeEnvelope(encodeObject({ kind: "WatchEvent", apiVersion: "meta.k8s.io/v1", type: "ADDED", object: obj }));
    expect(Buffer.from(frame.subarray(4))).toEqual(Buffer.from(asObject.raw));
  });

  it("property: events survive any split of the stream into chunks", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(eventType, fc.oneof(anyObject, configMap, status)), { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, cuts) => {
          const stream = concat(events.map(([type, obj]) => encodeWatchFrame(type, obj)));
          const reader = new WatchFrameReader();
          const got = split(stream, cuts).flatMap((chunk) => reader.push(chunk));
          reader.end();
          expect(reader.bufferedBytes).toBe(0);
          expect(got).toEqual(events.map(([type, object]) => ({ type, object })));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("byte-at-a-time feeding and an empty chunk work", () => {
    const frames = [
      encodeWatchFrame("ADDED", { kind: "Namespace", apiVersion: "v1", metadata: { name: "n" } }),
      encodeWatchFrame("DELETED", { kind: "Namespace", apiVersion: "v1", metadata: { name: "n" } }),
    ];
    const reader = new WatchFrameReader();
    const got = [new Uint8Array(0), ...concat(frames)].flatMap((b) => reader.push(typeof b === "number" ? Uint8Array.of(b) : b));
    expect(got.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
  });

  it("refuses objects without protobuf", () => {
    expect(() => encodeWatchFrame("ADDED", { kind: "Table", apiVersion: "meta.k8s.io/v1" })).toThrow(ProtobufFormatError);
    expect(() => encodeWatchFrame("ADDED", { metadata: {} })).toThrow(ProtobufFormatError);
  });

  it("throws ProtobufFormatError on a malformed frame, and stays failed", () => {
    const malformed: Uint8Array[] = [
      frameOf(Uint8Array.of(0x0a, 0x7f)), // a length past the end of the frame
      frameOf(Uint8Array.of(0x08, 0x01)), // type with a varint wire type
      frameOf(Uint8Array.of(0x0a, 0x01, 0x41)), // no object
      frameOf(Uint8Array.of(0x0a, 0x01, 0x41, 0x12, 0x03, 0x0a, 0x01, 0x7b)), // raw is neither protobuf nor JSON ("{")
      frameOf(Uint8Array.of(0x0a, 0x01, 0x41, 0x12, 0x06, 0x0a, 0x04, 0x6b, 0x38, 0x73, 0x01)), // a wrong magic inside
    ];
    for (const frame of malformed) {
      const reader = new WatchFrameReader();
      expect(() => reader.push(frame), Buffer.from(frame).toString("hex")).toThrow(ProtobufFormatError);
      expect(() => reader.push(new Uint8Array(0))).toThrow(ProtobufFormatError);
    }
  });

  it("reports a stream that ends inside a frame, and a frame over the size limit", () => {
    const frame = encodeWatchFrame("ADDED", { kind: "ConfigMap", apiVersion: "v1" });
    const reader = new WatchFrameReader();
    expect(reader.push(frame.subarray(0, frame.length - 1))).toEqual([]);
    expect(reader.bufferedBytes).toBe(frame.length - 1);
    expect(() => reader.end()).toThrow(/inside a frame/);
    const small = new WatchFrameReader({ maxFrameBytes: 8 });
    expect(() => small.push(frame)).toThrow(/exceeds/);
  });
});

warnIfMissing("protobuf watch golden cross-check");

describe.skipIf(!GOLDEN_AVAILABLE)("protobuf watch frame: golden core.v1.WatchEvent cross-check (wire-facts §2)", () => {
  it("the golden WatchEvent is 113 bytes, so its frame is 00 00 00 71 + those bytes, and reads back", () => {
    const dir = path.join(GOLDEN_ROOT, "v1.35.0");
    const golden = new Uint8Array(readFileSync(path.join(dir, "core.v1.WatchEvent.pb")));
    const json = JSON.parse(readFileSync(path.join(dir, "core.v1.WatchEvent.json"), "utf8")) as { type: string; object: unknown };
    const body = decodeEnvelope(golden).raw;
    expect(body.length).toBe(113);
    const frame = frameOf(body);
    expect(Buffer.from(frame.subarray(0, 4)).toString("hex")).toBe("00000071");
    // Its object is JSON text in RawExtension.raw (allowed by RawExtension), read as such.
    const reader = new WatchFrameReader();
    const events = split(frame, [1, 3, 50]).flatMap((c) => reader.push(c));
    reader.end();
    expect(events).toEqual([{ type: json.type, object: json.object }]);
  });
});

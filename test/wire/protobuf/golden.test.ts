/**
 * The codec against the upstream golden files (kubernetes/api testdata, written by the real
 * serializer): JSON -> protobuf must give the .pb byte for byte, and .pb -> JSON must give the
 * .json object, with the same key order.
 *
 * Normalisation of the fixture JSON: none is needed. The fixtures are "filled" objects whose
 * values are already in the form the server serves (Times on whole seconds, MicroTimes with
 * 6 digits, every string non-empty, every pointer set), so they are compared as they are.
 * The one unusual fixture, core.v1.WatchEvent, embeds JSON text (not a protobuf body) in
 * RawExtension.raw; the codec keeps raw as bytes and reads them as JSON, which is exactly
 * what the .json fixture shows, and its envelope TypeMeta is empty because Go's WatchEvent
 * has none.
 */
import { describe, expect, it } from "vitest";
import { decodeEnvelope, decodeObject, encodeObject, supportsProtobuf } from "../../../lib/wire/protobuf/index.js";
import { byteDifference, GOLDEN_AVAILABLE, goldenCases, readJson, readPb, warnIfMissing } from "./golden-files.js";

warnIfMissing("protobuf golden tests");

/** The types the brief names for v1.35.0; a missing file must fail, not silently pass. */
const EXPECTED_V135 = [
  "coordination.k8s.io.v1.Lease",
  "core.v1.APIGroup",
  "core.v1.APIVersions",
  "core.v1.ConfigMap",
  "core.v1.CreateOptions",
  "core.v1.DeleteOptions",
  "core.v1.Event",
  "core.v1.GetOptions",
  "core.v1.ListOptions",
  "core.v1.Namespace",
  "core.v1.PatchOptions",
  "core.v1.Status",
  "core.v1.UpdateOptions",
  "core.v1.WatchEvent",
  "events.k8s.io.v1.Event",
  "events.k8s.io.v1beta1.Event",
];

const cases = goldenCases();

describe.skipIf(!GOLDEN_AVAILABLE)("protobuf golden files (kubernetes/api testdata)", () => {
  it("has every expected fixture, plus the 1.33/1.34 Event files", () => {
    const names = cases.map((c) => c.name);
    for (const t of EXPECTED_V135) expect(names).toContain(`v1.35.0/${t}`);
    expect(names).toContain("v1.34.0/events.k8s.io.v1.Event");
    expect(names).toContain("v1.33.0/events.k8s.io.v1.Event");
  });

  describe.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    it("JSON -> protobuf is byte for byte the golden .pb", () => {
      const encoded = encodeObject(readJson(c));
      const diff = byteDifference(encoded, readPb(c));
      if (diff !== null) expect.fail(`${c.name}: ${diff}`);
    });

    it("golden .pb -> JSON is the golden .json (same values, same key order)", () => {
      const decoded = decodeObject(readPb(c));
      const expected = readJson(c);
      expect(decoded).toEqual(expected);
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(expected));
    });

    it("the envelope names a kind the codec supports", () => {
      const env = decodeEnvelope(readPb(c));
      expect(env.contentEncoding).toBe("");
      expect(env.contentType).toBe("");
      if (c.type === "core.v1.WatchEvent") {
        // Go's WatchEvent has no TypeMeta: the real serializer writes it empty.
        expect([env.apiVersion, env.kind]).toEqual(["", ""]);
      } else {
        const json = readJson(c);
        expect([env.apiVersion, env.kind]).toEqual([json.apiVersion, json.kind]);
        expect(supportsProtobuf(env.apiVersion, env.kind)).toBe(true);
      }
    });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeObject, encodeObject } from "../../../lib/wire/protobuf/index.js";
import { configMap, coreEvent, eventsEvent, lease, namespace, status } from "./arbitraries.js";

/** encode -> decode gives the object back (values and key order), and re-encoding is byte-stable. */
function roundTrips(obj: Record<string, unknown>): void {
  const bytes = encodeObject(obj);
  const back = decodeObject(bytes);
  expect(back).toEqual(obj);
  expect(JSON.stringify(back)).toBe(JSON.stringify(obj));
  expect(encodeObject(back)).toEqual(bytes);
}

describe("protobuf round trip of random valid JSON-form objects", () => {
  it("events.k8s.io Event", () => fc.assert(fc.property(eventsEvent, roundTrips), { numRuns: 200 }));
  it("core v1 Event", () => fc.assert(fc.property(coreEvent, roundTrips), { numRuns: 200 }));
  it("ConfigMap", () => fc.assert(fc.property(configMap, roundTrips), { numRuns: 200 }));
  it("Namespace", () => fc.assert(fc.property(namespace, roundTrips), { numRuns: 200 }));
  it("Lease", () => fc.assert(fc.property(lease, roundTrips), { numRuns: 200 }));
  it("Status", () => fc.assert(fc.property(status, roundTrips), { numRuns: 200 }));

  it("lists of them, with items always written", () => {
    fc.assert(
      fc.property(fc.array(configMap, { maxLength: 3 }), fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (items, rv) => {
        const list = {
          kind: "ConfigMapList",
          apiVersion: "v1",
          metadata: rv === undefined ? {} : { resourceVersion: rv },
          // List items carry no kind/apiVersion in the served JSON.
          items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest),
        };
        roundTrips(list);
      }),
      { numRuns: 100 },
    );
  });
});

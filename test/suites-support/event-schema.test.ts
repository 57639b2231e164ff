import { describe, expect, it } from "vitest";
import { eventListSchemaErrors, eventSchemaErrors } from "../../suites/support/schemas.js";
import { clientDuty } from "../support/client-duty.js";

const valid = (): Record<string, unknown> => ({
  kind: "Event",
  apiVersion: "events.k8s.io/v1",
  metadata: { name: "e-1", namespace: "tollgate-x", resourceVersion: "12", uid: "u", creationTimestamp: "2026-01-01T00:00:00Z" },
  eventTime: "2026-01-01T00:00:00.123456Z",
  series: { count: 2, lastObservedTime: "2026-01-01T00:00:01.000000Z" },
  reportingController: "tollgate.dev/suite",
  reportingInstance: "i-1",
  action: "Check",
  reason: "Because",
  regarding: { apiVersion: "v1", kind: "Pod", namespace: "tollgate-x", name: "p" },
  related: { kind: "Pod", namespace: "tollgate-x", name: "q" },
  note: "fine",
  type: "Normal",
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
});
const list = (items: unknown[]): Record<string, unknown> => ({ kind: "EventList", apiVersion: "events.k8s.io/v1", metadata: { resourceVersion: "12" }, items });

// First in the file: the validators are compiled once, on the first call, so only the first test
// sees how they are compiled (every error reported, not just the first).
describe("Event schema errors", () => {
  it("are all reported, each with its path, / for the document itself, and the name of an unknown field", () => {
    expect(eventSchemaErrors({ ...valid(), reason: 5, action: 6 })).toEqual(["/action must be string", "/reason must be string"]);
    const { items: _items, ...noItems } = list([]);
    expect(eventListSchemaErrors(noItems)).toEqual(["/ must have required property 'items'"]);
    expect(eventSchemaErrors({ ...valid(), message: "core name" })).toEqual(["/ must NOT have additional properties (message)"]);
  });
});

describe("Event schemas", () => {
  it("accept a valid Event, an old one with eventTime null, and EventLists with and without items", () => {
    expect(eventSchemaErrors(valid())).toEqual([]);
    expect(eventSchemaErrors({ ...valid(), eventTime: null, series: undefined, deprecatedCount: 3, deprecatedFirstTimestamp: "2025-12-31T23:00:00Z" })).toEqual(
      [],
    );
    expect(eventListSchemaErrors(list([valid()]))).toEqual([]);
    expect(eventListSchemaErrors({ ...list([]), metadata: { resourceVersion: "9", continue: "abc", remainingItemCount: 4 } })).toEqual([]);
  });

  it("reject eventTime with three fractional digits (or none, or a local offset)", () => {
    for (const t of ["2026-01-01T00:00:00.123Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123456+01:00"]) {
      expect(eventSchemaErrors({ ...valid(), eventTime: t }).join("\n"), t).toMatch(/\/eventTime/);
    }
    expect(eventSchemaErrors({ ...valid(), eventTime: undefined }).join("\n")).toMatch(/eventTime/);
  });

  it("reject a series with count as a string, beyond int32, or without lastObservedTime", () => {
    expect(eventSchemaErrors({ ...valid(), series: { count: "2", lastObservedTime: "2026-01-01T00:00:01.000000Z" } }).join("\n")).toMatch(
      /\/series\/count must be integer/,
    );
    expect(eventSchemaErrors({ ...valid(), series: { count: 2 ** 31, lastObservedTime: "2026-01-01T00:00:01.000000Z" } }).join("\n")).toMatch(
      /\/series\/count/,
    );
    expect(eventSchemaErrors({ ...valid(), series: { count: 2 } }).join("\n")).toMatch(/lastObservedTime/);
  });

  it("reject non-string reference fields, unknown fields and a bad deprecated timestamp", () => {
    expect(eventSchemaErrors({ ...valid(), regarding: { kind: "Pod", name: 7 } }).join("\n")).toMatch(/\/regarding\/name must be string/);
    expect(eventSchemaErrors({ ...valid(), message: "core name" }).join("\n")).toMatch(/additional properties \(message\)/);
    expect(eventSchemaErrors({ ...valid(), deprecatedLastTimestamp: "yesterday" }).join("\n")).toMatch(/deprecatedLastTimestamp/);
  });

  it("reject an EventList without items, with a wrong kind, without resourceVersion, or with a bad item", () => {
    const { items: _items, ...noItems } = list([]);
    expect(eventListSchemaErrors(noItems).join("\n")).toMatch(/must have required property 'items'/);
    expect(eventListSchemaErrors({ ...list([]), kind: "List" }).join("\n")).toMatch(/\/kind/);
    expect(eventListSchemaErrors({ ...list([]), metadata: {} }).join("\n")).toMatch(/resourceVersion/);
    expect(eventListSchemaErrors(list([{ ...valid(), eventTime: "2026-01-01T00:00:00.123Z" }])).join("\n")).toMatch(/\/items\/0\/eventTime/);
  });
});

describe("Event schemas as a reader", () => {
  clientDuty({ title: "tolerate type values added after Normal and Warning, while still requiring a string", rules: ["doc2.event.type-open-set"] }, () => {
    for (const type of ["Info", "Critical", "Normal", "Warning"]) expect(eventSchemaErrors({ ...valid(), type }), type).toEqual([]);
    expect(eventSchemaErrors({ ...valid(), type: 3 }).join("\n")).toMatch(/\/type/);
  });
});

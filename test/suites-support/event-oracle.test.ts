import { describe, expect, it } from "vitest";
import { expectedCreateViolations, isQualifiedName, violatedFields } from "../../suites/support/event-oracle.js";

const NS = "tollgate-x";
const valid = (): Record<string, unknown> => ({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name: "e-1", namespace: NS },
  eventTime: "2026-01-01T00:00:00.000000Z",
  reportingController: "tollgate.dev/suite",
  reportingInstance: "i-1",
  action: "Check",
  reason: "Because",
  type: "Normal",
  regarding: { kind: "Pod", namespace: NS, name: "p" },
  note: "fine",
});
const fields = (patch: Record<string, unknown>, ns = NS): string[] => violatedFields(expectedCreateViolations({ ...valid(), ...patch }, ns));
const rules = (patch: Record<string, unknown>, ns = NS): string[] => expectedCreateViolations({ ...valid(), ...patch }, ns).map((v) => v.rule);

describe("Event validation oracle", () => {
  it("accepts a valid event, with or without a well-formed series", () => {
    expect(fields({})).toEqual([]);
    expect(fields({ series: { count: 2, lastObservedTime: "2026-01-01T00:00:01.000000Z" } })).toEqual([]);
  });

  it("eventTime missing: only the eventTime error plus the zero-time namespace rules (L1, L2)", () => {
    expect(fields({ eventTime: undefined, action: "" })).toEqual(["eventTime"]);
    expect(rules({ eventTime: null, regarding: { namespace: "other" } })).toEqual(["doc2.event.event-time-required", "doc2.event.namespace-l2"]);
    expect(rules({ eventTime: null, regarding: {} })).toContain("doc2.event.namespace-l1");
    expect(fields({ eventTime: null, regarding: {} }, "default")).toEqual(["eventTime"]);
  });

  it("eventTime set: an empty regarding.namespace only in default or kube-system (L3), another namespace is not compared", () => {
    expect(rules({ regarding: { kind: "Node", name: "n" } })).toEqual(["doc2.event.namespace-l3"]);
    expect(fields({ regarding: { kind: "Node", name: "n" } }, "kube-system")).toEqual([]);
    expect(fields({ regarding: { namespace: "elsewhere" } })).toEqual([]);
  });

  it("reportingController is required and a qualified name", () => {
    expect(rules({ reportingController: "" })).toEqual(["doc2.event.reporting-controller-required"]);
    for (const bad of ["a/b/c", "Upper.Domain/x", "x/-bad-", "/x", "x/", "x".repeat(64)])
      expect(rules({ reportingController: bad }), bad).toEqual(["doc2.event.reporting-controller-form"]);
    for (const good of ["kubelet", "example.com/my-controller", "a/B.c_d-1"]) expect(isQualifiedName(good), good).toBe(true);
  });

  it("reportingInstance, action and reason are required and at most 128 bytes, multibyte characters counted as bytes", () => {
    for (const key of ["reportingInstance", "action", "reason"]) {
      expect(fields({ [key]: "" }), key).toEqual([key]);
      expect(fields({ [key]: "x".repeat(128) }), key).toEqual([]);
      expect(fields({ [key]: "x".repeat(129) }), key).toEqual([key]);
      expect(fields({ [key]: "é".repeat(64) }), `${key} 128 bytes`).toEqual([]);
      expect(fields({ [key]: `${"é".repeat(64)}x` }), `${key} 129 bytes`).toEqual([key]);
    }
  });

  it("note is at most 1024 bytes and is reported as message", () => {
    expect(fields({ note: "n".repeat(1024) })).toEqual([]);
    expect(fields({ note: "n".repeat(1025) })).toEqual(["message"]);
    expect(fields({ note: "€".repeat(342) })).toEqual(["message"]);
  });

  it("type is exactly Normal or Warning", () => {
    expect(rules({ type: "" })).toEqual(["doc2.event.type-required"]);
    expect(rules({ type: "normal" })).toEqual(["doc2.event.type-normal-warning"]);
  });

  it("a series needs count of at least 2 and a lastObservedTime", () => {
    expect(fields({ series: { count: 1, lastObservedTime: "2026-01-01T00:00:01.000000Z" } })).toEqual(["series.count"]);
    expect(fields({ series: { count: 5 } })).toEqual(["series.lastObservedTime"]);
    expect(fields({ series: {} })).toEqual(["series.count", "series.lastObservedTime"]);
  });

  it("the deprecated fields must be unset, under their core names", () => {
    expect(
      fields({
        deprecatedFirstTimestamp: "2026-01-01T00:00:00Z",
        deprecatedLastTimestamp: "2026-01-01T00:00:00Z",
        deprecatedCount: 3,
        deprecatedSource: { host: "h" },
      }),
    ).toEqual(["count", "firstTimestamp", "lastTimestamp", "source"]);
    expect(fields({ deprecatedCount: 0, deprecatedSource: {} })).toEqual([]);
  });

  it("the name is a DNS-1123 subdomain", () => {
    expect(fields({ metadata: { name: "Bad_Name", namespace: NS } })).toEqual(["metadata.name"]);
    expect(fields({ metadata: { name: "a.b-c", namespace: NS } })).toEqual([]);
  });
});

describe("Event validation oracle, edges", () => {
  it("Warning is the other accepted type", () => {
    expect(fields({ type: "Warning" })).toEqual([]);
    expect(rules({ type: 3 })).toEqual(["doc2.event.type-required"]);
  });

  it("without eventTime, an empty regarding.namespace fits the empty and the default namespace only", () => {
    expect(fields({ eventTime: undefined, regarding: {} }, "")).toEqual(["eventTime"]);
    expect(rules({ eventTime: undefined, regarding: {} }, "kube-system")).toEqual(["doc2.event.event-time-required", "doc2.event.namespace-l1"]);
    expect(rules({ eventTime: undefined, regarding: { namespace: NS } })).toEqual(["doc2.event.event-time-required"]);
  });

  it("with eventTime, an empty regarding.namespace is fine in default, and a missing or null regarding counts as empty", () => {
    expect(fields({ regarding: {} }, "default")).toEqual([]);
    expect(rules({ regarding: null })).toEqual(["doc2.event.namespace-l3"]);
    expect(rules({ regarding: undefined })).toEqual(["doc2.event.namespace-l3"]);
  });

  it("strings that are not strings count as empty", () => {
    expect(rules({ reportingController: 7, reportingInstance: 7, action: ["x"], reason: {} })).toEqual([
      "doc2.event.reporting-controller-required",
      "doc2.event.reporting-instance-required",
      "doc2.event.action-required",
      "doc2.event.reason-required",
    ]);
    expect(rules({ metadata: null })).toEqual(["doc2.event.name-dns-subdomain"]);
  });

  it("the name is at most 253 characters, made of DNS labels", () => {
    expect(fields({ metadata: { name: "a".repeat(253) } })).toEqual([]);
    expect(fields({ metadata: { name: "a".repeat(254) } })).toEqual(["metadata.name"]);
    for (const bad of ["", "-a", "a-", "a..b", ".a", "a.", "a_b"]) expect(fields({ metadata: { name: bad } }), bad).toEqual(["metadata.name"]);
    for (const good of ["a", "0", "a-b.c-d", "a.b.c"]) expect(fields({ metadata: { name: good } }), good).toEqual([]);
  });

  it("a qualified name: a name part of at most 63 characters, after an optional DNS-subdomain prefix", () => {
    for (const good of ["x".repeat(63), "a", "a.b/x", "x_y.z-1", "A"]) expect(isQualifiedName(good), good).toBe(true);
    for (const bad of ["", "x".repeat(64), "-x", "x-", "_x", "x.", "a b", "a/b/c", "-a/x", "/x", "x/"]) expect(isQualifiedName(bad), bad).toBe(false);
    expect(isQualifiedName(`${"a".repeat(253)}/x`)).toBe(true);
    expect(isQualifiedName(`${"a".repeat(254)}/x`)).toBe(false);
  });

  it("a series count must be a number of at least 2", () => {
    expect(fields({ series: { count: "5", lastObservedTime: "2026-01-01T00:00:01.000000Z" } })).toEqual(["series.count"]);
    expect(fields({ series: { count: 2, lastObservedTime: null } })).toEqual(["series.lastObservedTime"]);
    expect(rules({ series: null })).toEqual([]);
  });

  it("a deprecated source with only a component, and a count given as 1, are refused", () => {
    expect(rules({ deprecatedSource: { component: "c" } })).toEqual(["doc2.event.deprecated-source"]);
    expect(rules({ deprecatedCount: 1 })).toEqual(["doc2.event.deprecated-count"]);
    expect(rules({ deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null })).toEqual([]);
  });

  it("a note is counted in bytes and only when it is a string", () => {
    expect(fields({ note: "é".repeat(512) })).toEqual([]);
    expect(fields({ note: `${"é".repeat(512)}x` })).toEqual(["message"]);
    expect(fields({ note: 5 })).toEqual([]);
  });

  it("the violated fields are distinct and sorted", () => {
    expect(
      violatedFields([
        { field: "type", rule: "r1" },
        { field: "action", rule: "r2" },
        { field: "type", rule: "r3" },
      ]),
    ).toEqual(["action", "type"]);
  });
});

describe("Event validation oracle, fields and rules together", () => {
  const all = (patch: Record<string, unknown>, ns = NS) => expectedCreateViolations({ ...valid(), ...patch }, ns);

  it("names each violation's field and rule, in the order the server checks", () => {
    const long = "x".repeat(129);
    expect(
      all({
        metadata: { name: "Bad" },
        regarding: {},
        reportingController: "a/b/c",
        reportingInstance: long,
        action: long,
        reason: long,
        note: "n".repeat(1025),
        series: { count: 1 },
        type: "bad",
        deprecatedFirstTimestamp: "t",
        deprecatedLastTimestamp: "t",
        deprecatedCount: 2,
        deprecatedSource: { host: "h" },
      }),
    ).toEqual([
      { field: "involvedObject.namespace", rule: "doc2.event.namespace-l3" },
      { field: "reportingController", rule: "doc2.event.reporting-controller-form" },
      { field: "reportingInstance", rule: "doc2.event.reporting-instance-max-128" },
      { field: "action", rule: "doc2.event.action-max-128" },
      { field: "reason", rule: "doc2.event.reason-max-128" },
      { field: "message", rule: "doc2.event.note-max-1kb" },
      { field: "metadata.name", rule: "doc2.event.name-dns-subdomain" },
      { field: "series.count", rule: "doc2.event.series-count-min-2" },
      { field: "series.lastObservedTime", rule: "doc2.event.series-last-observed-required" },
      { field: "type", rule: "doc2.event.type-normal-warning" },
      { field: "firstTimestamp", rule: "doc2.event.deprecated-first-timestamp" },
      { field: "lastTimestamp", rule: "doc2.event.deprecated-last-timestamp" },
      { field: "count", rule: "doc2.event.deprecated-count" },
      { field: "source", rule: "doc2.event.deprecated-source" },
    ]);
  });

  it("the zero-time and required cases, with their fields", () => {
    expect(all({ eventTime: null, regarding: { namespace: "other" } })).toEqual([
      { field: "eventTime", rule: "doc2.event.event-time-required" },
      { field: "involvedObject.namespace", rule: "doc2.event.namespace-l2" },
    ]);
    expect(all({ eventTime: null, regarding: {} })).toEqual([
      { field: "eventTime", rule: "doc2.event.event-time-required" },
      { field: "involvedObject.namespace", rule: "doc2.event.namespace-l1" },
    ]);
    expect(all({ reportingController: "", type: "" })).toEqual([
      { field: "reportingController", rule: "doc2.event.reporting-controller-required" },
      { field: "type", rule: "doc2.event.type-required" },
    ]);
  });
});

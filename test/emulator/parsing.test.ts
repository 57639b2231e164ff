/** Selectors, continue tokens, name rules and time text: the small parsers behind the handlers. */
import { describe, expect, it } from "vitest";
import { parseApiTime } from "../../lib/emulator/apimachinery/api-time.js";
import { aggregateMessage, invalid, required } from "../../lib/emulator/apimachinery/field-errors.js";
import { parseFieldSelector } from "../../lib/emulator/apimachinery/field-selector.js";
import { parseLabelSelector } from "../../lib/emulator/apimachinery/label-selector.js";
import { configMapKey, dns1123Label, qualifiedName } from "../../lib/emulator/apimachinery/name-validation.js";
import { decodeContinue, encodeContinue } from "../../lib/emulator/storage/continue-token.js";

describe("label selectors", () => {
  const labels = { app: "web", tier: "front", n: "5" };
  it.each([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app!=web", false],
    ["missing!=x", true],
    ["app", true],
    ["!app", false],
    ["!missing", true],
    ["app in (web, db)", true],
    ["app notin (web)", false],
    ["missing notin (web)", true],
    ["app=web,tier=back", false],
    ["app=web, tier = front", true],
    ["n>4", true],
    ["n<4", false],
  ])("%j matches: %s", (sel, expected) => {
    expect(parseLabelSelector(sel).matches(labels)).toBe(expected);
  });

  it.each(["app in", "app in (", "=x", "app=web,", "a b", "app notin ()", "bad key!=x", "n>x"])("%j is rejected", (sel) => {
    expect(() => parseLabelSelector(sel)).toThrow();
  });
});

describe("field selectors", () => {
  const allowed = ["metadata.name", "metadata.namespace"];
  it("matches =, == and != and unescapes values", () => {
    const fields = { "metadata.name": "a,b", "metadata.namespace": "ns" };
    expect(parseFieldSelector("metadata.name=a\\,b", allowed).matches(fields)).toBe(true);
    expect(parseFieldSelector("metadata.namespace==ns,metadata.name!=x", allowed).matches(fields)).toBe(true);
    expect(parseFieldSelector("metadata.namespace!=ns", allowed).matches(fields)).toBe(false);
  });
  it("rejects unknown labels and terms without an operator", () => {
    expect(() => parseFieldSelector("spec.x=1", allowed)).toThrow("field label not supported: spec.x");
    expect(() => parseFieldSelector("metadata.name", allowed)).toThrow(/can't understand/);
  });
});

describe("continue tokens", () => {
  it("encodes the wire-facts §9 example byte for byte", () => {
    expect(encodeContinue("/registry/events/default/demo-1", "/registry/events/default/", 12345)).toBe(
      "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0IjoiZGVtby0xXHUwMDAwIn0",
    );
  });
  it("decodes back to the absolute start key and revision", () => {
    const token = encodeContinue("/registry/events/default/demo-1", "/registry/events/", 7);
    expect(decodeContinue(token, "/registry/events/")).toEqual({ rv: 7, startKey: "/registry/events/default/demo-1\u0000" });
  });
  it.each([
    ["not base64", "!!!"],
    ["not JSON", Buffer.from("nope").toString("base64url")],
    ["rv 0", Buffer.from('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}').toString("base64url")],
    ["empty start", Buffer.from('{"v":"meta.k8s.io/v1","rv":3,"start":""}').toString("base64url")],
    ["unknown version", Buffer.from('{"v":"x/v9","rv":3,"start":"a"}').toString("base64url")],
    ["path escape", Buffer.from('{"v":"meta.k8s.io/v1","rv":3,"start":"../b"}').toString("base64url")],
  ])("rejects %s", (_label, token) => {
    expect(() => decodeContinue(token, "/registry/configmaps/")).toThrow(/continue key is not valid/);
  });
});

describe("name rules and error text", () => {
  it("reports DNS label problems like the server", () => {
    expect(dns1123Label("a".repeat(64))).toEqual(["must be no more than 63 characters"]);
    expect(dns1123Label("Bad")[0]).toContain("(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  });
  it("gives three problems for an empty qualified name once Required is added", () => {
    expect(qualifiedName("")).toHaveLength(2);
    expect(qualifiedName("example.com/ok")).toEqual([]);
  });
  it("checks config keys", () => {
    expect(configMapKey("good.key_1")).toEqual([]);
    expect(configMapKey("..x")).toEqual(["must not start with '..'"]);
    expect(configMapKey("a b")).toHaveLength(1);
  });
  it("aggregates one error without brackets and several with", () => {
    expect(aggregateMessage([required("eventTime")])).toBe("eventTime: Required value");
    expect(aggregateMessage([required("a"), invalid("b", "x", "bad"), required("a")])).toBe('[a: Required value, b: Invalid value: "x": bad]');
  });
});

describe("API time text", () => {
  it("normalises Time to UTC without a fraction", () => {
    expect(parseApiTime("2024-02-03T04:05:06.789+02:00", false)).toEqual({ ok: true, text: "2024-02-03T02:05:06Z" });
  });
  it("requires exactly six fractional digits for MicroTime", () => {
    expect(parseApiTime("2024-02-03T04:05:06.000001Z", true)).toEqual({ ok: true, text: "2024-02-03T04:05:06.000001Z" });
    for (const bad of ["2024-02-03T04:05:06Z", "2024-02-03T04:05:06.123Z", "2024-02-03T04:05:06.123456789Z"]) {
      expect(parseApiTime(bad, true).ok).toBe(false);
    }
    expect(parseApiTime("2024-02-03T04:05:06Z", true)).toMatchObject({ error: expect.stringContaining('cannot parse "Z" as ".000000"') });
  });
  it("treats Go's zero time as the zero value", () => {
    expect(parseApiTime("0001-01-01T00:00:00Z", false)).toEqual({ ok: true, text: null });
  });
});

/**
 * The suites' assertion helpers (suites/support/conformance.ts) are oracles too: each must fail
 * on the answer it exists to refuse, with a message that says what was wrong, and pass the right
 * one. The declaration half (check, offers, useSuite) needs run settings and is exercised by the
 * suites themselves (suites/daemons/flags.test.ts in the mutation runs).
 */
import { describe, expect, it } from "vitest";
import type { ApiResponse } from "../../lib/harness/client.js";
import { ApiError } from "../../lib/harness/errors.js";
import { expectFailure, expectListOptionsInvalid, expectNotAcceptable, uniqueName, warnings } from "../../suites/support/conformance.js";

const answer = (code: number, json: unknown, text = JSON.stringify(json), headers: Record<string, string> = {}): ApiResponse => ({
  code,
  headers,
  bytes: new TextEncoder().encode(text),
  text,
  json,
});

const invalid = (field: string) =>
  answer(422, {
    kind: "Status",
    status: "Failure",
    reason: "Invalid",
    code: 422,
    details: { kind: "ListOptions", group: "meta.k8s.io", causes: [{ field: "other" }, { field }] },
  });

const notAcceptable = (message = "only the following media types are accepted: application/json, application/yaml") => {
  const body = { kind: "Status", status: "Failure", reason: "NotAcceptable", code: 406, message };
  return answer(406, body, JSON.stringify(body, null, 2));
};

describe("expectFailure", () => {
  it("returns the ApiError of the expected code", async () => {
    const e = new ApiError("GET", "/api/v1/x", 404, undefined, "not found");
    await expect(expectFailure(Promise.reject(e), 404)).resolves.toBe(e);
  });

  it("fails on another code, naming the error", async () => {
    const e = new ApiError("GET", "/api/v1/x", 409, undefined, "conflict");
    await expect(expectFailure(Promise.reject(e), 404)).rejects.toThrow(/GET \/api\/v1\/x → 409: conflict/);
  });

  it("fails on a success, showing the start of what came back", async () => {
    await expect(expectFailure(Promise.resolve({ kind: "ConfigMap", data: "x".repeat(400) }), 422)).rejects.toThrow(
      /^expected HTTP 422, but the request succeeded with \{"kind":"ConfigMap","data":"x+$/,
    );
    const e = await expectFailure(Promise.resolve({ data: "y".repeat(400) }), 422).catch((x: Error) => x);
    expect((e as Error).message).toHaveLength("expected HTTP 422, but the request succeeded with ".length + 300);
  });

  it("passes on any other error as it is", async () => {
    const other = new TypeError("boom");
    await expect(expectFailure(Promise.reject(other), 404)).rejects.toBe(other);
  });
});

describe("uniqueName", () => {
  it("gives distinct DNS-1123 labels with the prefix", () => {
    const a = uniqueName("cm");
    const b = uniqueName("cm");
    expect(a).not.toBe(b);
    for (const n of [a, b]) expect(n).toMatch(/^cm-[0-9a-z]+-[0-9]+$/);
    expect(Number(b.split("-").at(-1))).toBe(Number(a.split("-").at(-1)) + 1);
  });
});

describe("expectListOptionsInvalid", () => {
  it("passes a 422 Invalid on ListOptions that names the field", () => {
    expect(() => expectListOptionsInvalid(invalid("resourceVersionMatch"), "resourceVersionMatch")).not.toThrow();
  });

  it("fails when the field is not among the causes", () => {
    expect(() => expectListOptionsInvalid(invalid("limit"), "resourceVersionMatch")).toThrow(/resourceVersionMatch/);
    const none = answer(422, { kind: "Status", status: "Failure", reason: "Invalid", code: 422, details: { kind: "ListOptions", group: "meta.k8s.io" } });
    expect(() => expectListOptionsInvalid(none, "limit")).toThrow(/limit/);
  });

  it("fails on another code, showing the body", () => {
    expect(() => expectListOptionsInvalid(answer(400, { kind: "Status", code: 400 }), "limit")).toThrow(/"code":400/);
  });

  it("fails on a 422 about another kind", () => {
    const pod = answer(422, { kind: "Status", status: "Failure", reason: "Invalid", code: 422, details: { kind: "Pod", causes: [{ field: "limit" }] } });
    expect(() => expectListOptionsInvalid(pod, "limit")).toThrow();
  });
});

describe("expectNotAcceptable", () => {
  it("passes a pretty-printed 406 NotAcceptable with the default message", () => {
    expect(() => expectNotAcceptable(notAcceptable())).not.toThrow();
  });

  it("fails on a 406 written compactly", () => {
    const r = notAcceptable();
    expect(() => expectNotAcceptable({ ...r, text: JSON.stringify(r.json) })).toThrow(/a 406 body is pretty-printed JSON/);
  });

  it("fails on another message, or one the caller did not expect", () => {
    expect(() => expectNotAcceptable(notAcceptable("the media type is not supported"))).toThrow();
    expect(() => expectNotAcceptable(notAcceptable("only the following media types are accepted: application/yaml"))).toThrow();
    expect(() => expectNotAcceptable(notAcceptable("no"), /^no$/)).not.toThrow();
    expect(() => expectNotAcceptable(notAcceptable(), /^no$/)).toThrow();
  });

  it("fails on another code or reason", () => {
    const r = notAcceptable();
    expect(() => expectNotAcceptable({ ...r, code: 415 })).toThrow(/"kind": "Status"/);
    expect(() => expectNotAcceptable({ ...r, json: { ...(r.json as object), reason: "UnsupportedMediaType" } })).toThrow();
  });
});

describe("warnings", () => {
  it("reads each 299 item of a folded header, unescaping quotes and backslashes", () => {
    const res = answer(200, {}, "{}", { warning: '299 - "unknown field \\"spec.x\\"", 299 - "a \\\\ b", 199 - "not a 299"' });
    expect(warnings(res)).toEqual(['unknown field "spec.x"', "a \\ b"]);
  });

  it("is empty without the header", () => {
    expect(warnings(answer(200, {}))).toEqual([]);
  });
});

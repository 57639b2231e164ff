/**
 * The suites' assertion helpers (suites/support/conformance.ts) are oracles too: each must fail
 * on the answer it exists to refuse, with a message that says what was wrong, and pass the right
 * one. useSuite runs here against the emulator; check and offers read the run's settings and are
 * exercised by the suites themselves (suites/daemons/flags.test.ts in the mutation runs).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import type { ApiResponse } from "../../lib/harness/client.js";
import { ApiError, UnreachableError } from "../../lib/harness/errors.js";
import { type RunSettings, Session, SUITE_LABEL } from "../../lib/harness/session.js";
import { expectFailure, expectListOptionsInvalid, expectNotAcceptable, uniqueName, useSuite, warnings } from "../../suites/support/conformance.js";

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

describe("the helpers' messages", () => {
  const long = (code: number) => answer(code, { kind: "Status", code }, `${"b".repeat(300)}BEYOND`);

  it("show at most 300 characters of a body", () => {
    for (const check of [() => expectListOptionsInvalid(long(400), "limit"), () => expectNotAcceptable(long(400))]) {
      let message = "";
      try {
        check();
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toContain("b".repeat(300));
      expect(message).not.toContain("BEYOND");
    }
  });

  it("a 406 body starts with the Status, and its message with the list of accepted types", () => {
    const r = notAcceptable();
    expect(() => expectNotAcceptable({ ...r, text: ` ${r.text}` })).toThrow(/a 406 body is pretty-printed JSON/);
    expect(() => expectNotAcceptable(notAcceptable("so: only the following media types are accepted: application/json, application/yaml"))).toThrow();
  });
});

const settingsFor = (url: string): RunSettings => ({
  target: { url, credentials: {}, source: "test" },
  runId: `use-suite-${Math.random().toString(36).slice(2, 8)}`,
  spec: { groupDomain: "k8s.io", vendor: "kubernetes" },
});

/** A handle whose hooks never run: its block is skipped. */
let idleSuite: ReturnType<typeof useSuite> | undefined;
describe.skip("a suite whose hooks never run", () => {
  idleSuite = useSuite("idle", () => settingsFor("http://127.0.0.1:1"));
  it("is not run", () => undefined);
});

describe("useSuite", () => {
  let emulator: RunningEmulator | undefined;
  let made: { settings: RunSettings; ns: string } | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  describe("a suite", () => {
    let settings: RunSettings | undefined;
    const suite = useSuite("use-suite", () => {
      settings = settingsFor(emulator?.url ?? "");
      return settings;
    });

    it("has neither session nor namespace outside tests and hooks", () => {
      const idle = idleSuite as ReturnType<typeof useSuite>;
      expect(() => idle.session).toThrow(/^the suite session is only available inside tests and hooks$/);
      expect(() => idle.ns).toThrow(/^the suite namespace is only available inside tests and hooks$/);
    });

    it("opens a session on the target and makes its one namespace, labelled with the suite", async () => {
      expect(suite.ns).toMatch(/^tollgate-[0-9a-z]+$/);
      const got = await suite.session.client.get(suite.session.types.namespaces, undefined, suite.ns);
      expect(got.metadata.labels?.[SUITE_LABEL]).toBe("use-suite");
      made = { settings: settings as RunSettings, ns: suite.ns };
    });
  });

  it("removes the namespace after the suite", async () => {
    expect(made).toBeDefined();
    const { settings, ns } = made as { settings: RunSettings; ns: string };
    const check = new Session(settings);
    try {
      const gone = await check.client
        .get(check.types.namespaces, undefined, ns)
        .then((n) => n.metadata.deletionTimestamp !== undefined)
        .catch((e: unknown) => e instanceof ApiError && e.code === 404);
      expect(gone).toBe(true);
    } finally {
      await check.client.close();
    }
  });

  describe("a suite whose target does not answer", () => {
    const suite = useSuite("silent", () => settingsFor("http://127.0.0.1:1"));

    it("gives the target's error for its namespace, and its session still exists", () => {
      expect(() => suite.ns).toThrow(UnreachableError);
      expect(suite.session).toBeInstanceOf(Session);
    });
  });
});

/** doc1 "Field validation behaviour": Ignore, Warn (the default) and Strict, for unknown and duplicate fields and type errors. */
import { describe, expect } from "vitest";
import type { ApiResponse } from "../lib/harness/client.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite, warnings } from "./support/conformance.js";

const suite = useSuite("field-validation");

/** A ConfigMap body as text, so it can carry a duplicate key. */
function body(name: string, ns: string, extra = ""): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","namespace":"${ns}"},"data":{"k":"v"}${extra}}`;
}

async function post(text: string, level?: string): Promise<ApiResponse> {
  const { session, ns } = suite;
  return session.client.raw("POST", resourcePath(session.types.configmaps, ns), {
    rawBody: text,
    contentType: "application/json",
    query: level ? { fieldValidation: level } : undefined,
  });
}

describe("field validation", () => {
  check(
    {
      title: "Warn is the default: a create without fieldValidation succeeds with Warnings about its unknown fields",
      rules: ["doc1.field-validation.warn-default", "doc1.versioning.cap-field-validation"],
    },
    async () => {
      const res = await post(body(uniqueName("warn"), suite.ns, ',"spex":{"a":1},"extra":true'));
      expect(res.code).toBe(201);
      expect(warnings(res).sort()).toEqual(['unknown field "extra"', 'unknown field "spex"']);
    },
  );

  check(
    {
      title: "Warn lets the create succeed with one Warning item per unknown field, each naming its field",
      rules: ["doc1.field-validation.warn-succeeds", "doc1.headers.warning-per-field", "doc1.field-validation.unknown-definition"],
    },
    async () => {
      const name = uniqueName("warn");
      const res = await post(body(name, suite.ns, ',"spex":{"a":1},"extra":true'), "Warn");
      expect(res.code).toBe(201);
      expect(warnings(res).sort()).toEqual(['unknown field "extra"', 'unknown field "spex"']);
      const { session, ns } = suite;
      const stored = await session.client.get(session.types.configmaps, ns, name);
      expect(stored.data, "the known fields are stored").toEqual({ k: "v" });
    },
  );

  check({ title: "Ignore drops unknown fields silently", rules: ["doc1.field-validation.ignore", "doc1.query.field-validation-values"] }, async () => {
    const name = uniqueName("ign");
    const res = await post(body(name, suite.ns, ',"extra":true'), "Ignore");
    expect(res.code).toBe(201);
    expect(warnings(res)).toEqual([]);
    expect((res.json as Record<string, unknown>).extra).toBeUndefined();
  });

  check(
    {
      title: "Strict refuses with 400 listing every unknown field, and stores nothing",
      rules: ["doc1.field-validation.strict-400", "doc1.errors.400-strict-unknown-fields", "doc1.versioning.cap-field-validation"],
    },
    async () => {
      const name = uniqueName("strict");
      const res = await post(body(name, suite.ns, ',"spex":1,"extra":true'), "Strict");
      expect(res.code).toBe(400);
      expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      const message = (res.json as { message?: string }).message ?? "";
      // A real server words it `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: …`.
      expect(message).toContain("strict decoding error: ");
      expect(message).toContain('unknown field "spex"');
      expect(message).toContain('unknown field "extra"');
      const { session, ns } = suite;
      expect((await session.client.raw("GET", resourcePath(session.types.configmaps, ns, name))).code).toBe(404);
    },
  );

  check(
    {
      title: "duplicate fields: a Warning under Warn, a 400 under Strict, silence under Ignore",
      rules: ["doc1.field-validation.unknown-definition", "doc1.headers.warning-per-field", "doc1.field-validation.strict-400"],
    },
    async () => {
      const dup = (name: string): string =>
        `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","namespace":"${suite.ns}","name":"${name}"},"data":{"k":"v"}}`;
      const warn = await post(dup(uniqueName("dup")));
      expect(warn.code).toBe(201);
      expect(warnings(warn)).toEqual(['duplicate field "metadata.name"']);
      const strict = await post(dup(uniqueName("dup")), "Strict");
      expect(strict.code).toBe(400);
      expect((strict.json as { message?: string }).message).toContain('duplicate field "metadata.name"');
      const ignore = await post(dup(uniqueName("dup")), "Ignore");
      expect(ignore.code).toBe(201);
      expect(warnings(ignore)).toEqual([]);
    },
  );

  check(
    {
      title: "a type error is a 400 at every level, and then nothing is said about unknown fields",
      rules: ["doc1.field-validation.types-always", "doc1.errors.400-fatal-validation"],
    },
    async () => {
      for (const level of ["Ignore", "Warn", "Strict"]) {
        const res = await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${uniqueName("type")}"},"data":{"k":5},"extra":true}`, level);
        expect(res.code, level).toBe(400);
        expect(warnings(res), level).toEqual([]);
        const message = (res.json as { message?: string }).message ?? "";
        expect(message, level).toMatch(/cannot be handled as a ConfigMap/);
        expect(message, level).not.toContain("unknown field");
      }
    },
  );

  check({ title: "an unknown fieldValidation value is refused with 422 on the request options", rules: ["doc1.query.field-validation-values"] }, async () => {
    const res = await post(body(uniqueName("bad"), suite.ns), "Loose");
    expect(res.code).toBe(422);
    expect(res.json).toMatchObject({
      kind: "Status",
      reason: "Invalid",
      details: { kind: "CreateOptions", group: "meta.k8s.io", causes: [{ reason: "FieldValueNotSupported", field: "fieldValidation" }] },
    });
    const message = (res.json as { message?: string }).message ?? "";
    expect(message).toMatch(/^CreateOptions\.meta\.k8s\.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: /);
    for (const v of ["Ignore", "Strict", "Warn"]) expect(message).toContain(`"${v}"`);
  });
});

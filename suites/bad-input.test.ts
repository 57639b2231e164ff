/**
 * Bad requests get a 4xx Status that says what is wrong, never a 5xx (doc1 "Errors"; the
 * body shapes and messages are the real server's, wire-facts §4 and §7).
 */
import { describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { isStatus } from "../lib/wire/status.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("bad-input");

describe("bad input", () => {
  check({ title: "a body that is not JSON is a 400 BadRequest Status", rules: ["doc1.errors.400-fatal-validation", "doc1.errors.status-body"] }, async () => {
    const { session, ns } = suite;
    const res = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), {
      rawBody: '{"apiVersion":"v1",',
      contentType: "application/json",
    });
    expect(res.code).toBe(400);
    expect(isStatus(res.json), res.text).toBe(true);
    expect(res.json).toMatchObject({ status: "Failure", reason: "BadRequest", code: 400 });
  });

  check(
    { title: "a body of another kind is refused with 400", rules: ["doc1.errors.400-fatal-validation", "doc1.fields.kind-api-version-present"] },
    async () => {
      const { session, ns } = suite;
      const wrong = { ...configMap(session.types, ns, uniqueName("kind")), kind: "Secret" };
      const res = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), { body: wrong });
      expect(res.code).toBe(400);
      expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      const name = wrong.metadata.name as string;
      expect((await session.client.raw("GET", resourcePath(session.types.configmaps, ns, name))).code, "nothing was stored").toBe(404);
    },
  );

  check(
    {
      title: "a body whose namespace differs from the URL's is refused with 400 before validation",
      rules: ["doc2.endpoints.create-namespace-mismatch", "doc1.errors.status-body"],
    },
    async () => {
      const { session, ns } = suite;
      const other = await session.createNamespace("bad-input");
      const res = await session.client.raw("POST", resourcePath(session.types.events, ns), { body: event(session.types, other, uniqueName("ns")) });
      expect(res.code).toBe(400);
      expect(res.json).toMatchObject({
        kind: "Status",
        reason: "BadRequest",
        message: "the namespace of the provided object does not match the namespace sent on the request",
      });
    },
  );

  check({ title: "an unknown path is a 404 NotFound Status", rules: ["doc1.paths.unknown-path-404", "doc1.errors.status-body"] }, async () => {
    const { session } = suite;
    for (const path of [`/apis/nonexistent.${session.settings.spec.groupDomain}/v1/widgets`, "/api/v1/nonexistents"]) {
      const res = await session.client.raw("GET", path);
      expect(res.code, path).toBe(404);
      expect(res.json, path).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
    }
  });
});

/**
 * doc1 "Errors": the status codes and Status bodies of the failures any client meets, as
 * a real 1.35 server writes them (wire-facts §4).
 */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { ApiClient } from "../lib/harness/client.js";
import { asIdentity } from "../lib/harness/credentials/identity.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, expectFailure, expectNotAcceptable, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("errors");

describe("errors", () => {
  check(
    {
      title: "a PUT with a stale resourceVersion gets 409 Conflict and changes nothing",
      rules: ["doc1.errors.409-stale-put", "doc1.put.stale-rv-409", "doc1.put.client-sends-rv", "doc1.put.conditional-write"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("stale");
      const v1 = await session.client.create(t, ns, configMap(session.types, ns, name, { v: "1" }));
      await session.client.update(t, ns, { ...v1, data: { v: "2" } });
      const err = await expectFailure(session.client.update(t, ns, { ...v1, data: { v: "3" } }), 409);
      expect(err.status).toMatchObject({
        reason: "Conflict",
        code: 409,
        message: `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details: { name, kind: "configmaps" },
      });
      expect((await session.client.get(t, ns, name)).data).toEqual({ v: "2" });
    },
  );

  check(
    { title: "an invalid object gets 422 Invalid with one cause per problem", rules: ["doc1.errors.422-invalid", "doc1.errors.status-details"] },
    async () => {
      const { session, ns } = suite;
      const bad = "Not_A_Valid_Name";
      const err = await expectFailure(session.client.create(session.types.configmaps, ns, configMap(session.types, ns, bad)), 422);
      expect(err.status).toMatchObject({ kind: "Status", status: "Failure", reason: "Invalid", code: 422, details: { name: bad, kind: "ConfigMap" } });
      expect(err.status?.message).toMatch(new RegExp(`^ConfigMap "${bad}" is invalid: metadata.name: Invalid value: "${bad}": `));
      expect(err.status?.details?.causes?.[0]).toMatchObject({ reason: "FieldValueInvalid", field: "metadata.name" });
    },
  );

  check({ title: "omitting a required field is an error", rules: ["doc1.errors.missing-required-field"] }, async () => {
    const { session, ns } = suite;
    const err = await expectFailure(
      session.client.create(session.types.configmaps, ns, { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: ns } }),
      422,
    );
    expect(err.status?.details?.causes).toContainEqual(expect.objectContaining({ reason: "FieldValueRequired", field: "metadata.name" }));
  });

  check(
    { title: "an Accept header naming only unsupported types gets 406", rules: ["doc1.errors.406-not-acceptable", "doc1.media.rule1-none-supported-406"] },
    async () => {
      const { session, ns } = suite;
      const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { accept: "application/x-unknown-type" });
      expectNotAcceptable(res);
    },
  );

  check(
    {
      title: "several Accept types with q values: the server answers with one it supports",
      rules: ["doc1.headers.accept-negotiation", "doc1.media.json-default"],
    },
    async () => {
      const { session, ns } = suite;
      const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { accept: "application/x-unknown-type, application/json;q=0.5" });
      expect(res.code).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      const plain = await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { headers: { accept: "*/*" } });
      expect(plain.headers["content-type"]).toMatch(/^application\/json/);
    },
  );

  check({ title: "a request body in an unsupported media type gets 415", rules: ["doc1.errors.415-unsupported-media-type"] }, async () => {
    const { session, ns } = suite;
    const res = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), {
      rawBody: "name=x",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(res.code).toBe(415);
    expect(res.json).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType", code: 415 });
    expect((res.json as { message?: string }).message).toMatch(/^the body of the request was in an unknown format - accepted media types include: /);
  });

  check({ title: "an oversized request body gets 413, and nothing is stored", rules: ["doc1.limits.request-too-large"] }, async () => {
    const { session, ns } = suite;
    const name = uniqueName("big");
    const body = configMap(session.types, ns, name, { blob: "x".repeat(4 * 1024 * 1024) });
    const res = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), { body });
    expect(res.code, res.text.slice(0, 200)).toBe(413);
    expect(res.json).toMatchObject({ kind: "Status", reason: "RequestEntityTooLarge", code: 413, message: "Request entity too large: limit is 3145728" });
    expect((await session.client.raw("GET", resourcePath(session.types.configmaps, ns, name))).code).toBe(404);
  });

  check(
    {
      title: "a request with an invalid bearer token gets 401 Unauthorized",
      rules: ["doc1.errors.401-unauthenticated", "doc1.auth.unauthenticated-401"],
      needs: ["authentication"],
    },
    async () => {
      const { session, ns } = suite;
      const stranger = new ApiClient(asIdentity(session.settings.target, "tollgate-invalid-token"), { suite: "errors" });
      try {
        const res = await stranger.raw("GET", resourcePath(session.types.configmaps, ns));
        expect(res.code, res.text.slice(0, 300)).toBe(401);
        expect(res.json).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
      } finally {
        await stranger.close();
      }
    },
  );
});

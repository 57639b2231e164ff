/** doc1 "Patch content types": the four patch types, on built-in types, with their failure modes. */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse } from "../lib/harness/client.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";
import { assertProperty } from "./support/properties.js";

const suite = useSuite("patch");

async function fresh(data: Record<string, string> = { a: "1", b: "2" }, labels?: Record<string, string>): Promise<KubeObject> {
  const { session, ns } = suite;
  const name = uniqueName("p");
  return session.client.create(session.types.configmaps, ns, {
    ...configMap(session.types, ns, name, data),
    metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
  });
}

function patch(name: string, body: unknown, contentType: string, query?: Record<string, string>): Promise<ApiResponse> {
  const { session, ns } = suite;
  return session.client.raw("PATCH", resourcePath(session.types.configmaps, ns, name), {
    rawBody: typeof body === "string" ? body : JSON.stringify(body),
    contentType,
    query,
  });
}

const current = (name: string): Promise<KubeObject> => suite.session.client.get(suite.session.types.configmaps, suite.ns, name);

describe("patch types", () => {
  check(
    {
      title: "json-patch applies every RFC 6902 operation in order",
      rules: ["doc1.patch.json-patch", "doc1.verbs.patch-distinct", "doc1.paths.patch-resource"],
    },
    async () => {
      const o = await fresh({ a: "1", b: "2", c: "3" });
      const name = o.metadata.name as string;
      const res = await patch(
        name,
        [
          { op: "test", path: "/data/a", value: "1" },
          { op: "add", path: "/data/d", value: "4" },
          { op: "remove", path: "/data/b" },
          { op: "replace", path: "/data/c", value: "30" },
          { op: "copy", from: "/data/a", path: "/data/e" },
          { op: "move", from: "/data/e", path: "/data/f" },
        ],
        "application/json-patch+json",
      );
      expect(res.code, res.text.slice(0, 300)).toBe(200);
      expect((await current(name)).data).toEqual({ a: "1", c: "30", d: "4", f: "1" });
      expect((res.json as KubeObject).metadata.resourceVersion).not.toBe(o.metadata.resourceVersion);
    },
  );

  check(
    { title: "a json-patch whose test fails changes nothing, not even the operations before it", rules: ["doc1.patch.json-patch-test-fails"] },
    async () => {
      const o = await fresh();
      const name = o.metadata.name as string;
      const res = await patch(
        name,
        [
          { op: "add", path: "/data/z", value: "26" },
          { op: "test", path: "/data/a", value: "not-1" },
        ],
        "application/json-patch+json",
      );
      expect(res.code, res.text.slice(0, 300)).toBe(422);
      expect(res.json).toMatchObject({ kind: "Status", status: "Failure" });
      const now = await current(name);
      expect(now.data).toEqual({ a: "1", b: "2" });
      expect(now.metadata.resourceVersion).toBe(o.metadata.resourceVersion);
    },
  );

  check({ title: "merge-patch merges maps and deletes keys set to null", rules: ["doc1.patch.merge-patch"] }, async () => {
    const o = await fresh({ a: "1", b: "2" }, { keep: "k", drop: "d" });
    const name = o.metadata.name as string;
    const res = await patch(name, { data: { a: null, c: "3" }, metadata: { labels: { drop: null, add: "x" } } }, "application/merge-patch+json");
    expect(res.code, res.text.slice(0, 300)).toBe(200);
    const now = await current(name);
    expect(now.data).toEqual({ b: "2", c: "3" });
    expect(now.metadata.labels).toEqual({ keep: "k", add: "x" });
  });

  check(
    { title: "strategic-merge-patch on a built-in type merges maps and treats finalizers as a set", rules: ["doc1.patch.strategic-merge-builtin"] },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("smp");
      await session.client.create(session.types.configmaps, ns, {
        ...configMap(session.types, ns, name, { a: "1" }),
        metadata: { name, namespace: ns, finalizers: ["tollgate.dev/one"] },
      });
      const res = await patch(name, { data: { b: "2" }, metadata: { finalizers: ["tollgate.dev/two"] } }, "application/strategic-merge-patch+json");
      expect(res.code, res.text.slice(0, 300)).toBe(200);
      const now = await current(name);
      expect(now.data).toEqual({ a: "1", b: "2" });
      expect([...(now.metadata.finalizers ?? [])].sort()).toEqual(["tollgate.dev/one", "tollgate.dev/two"]);
      const removed = await patch(
        name,
        { metadata: { "$deleteFromPrimitiveList/finalizers": ["tollgate.dev/one", "tollgate.dev/two"] } },
        "application/strategic-merge-patch+json",
      );
      expect(removed.code, removed.text.slice(0, 300)).toBe(200);
      expect((await current(name)).metadata.finalizers ?? []).toEqual([]);
    },
  );

  const UNKNOWN_FORMAT =
    /^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml/;

  check(
    {
      title: "a patch with an unknown content type gets 415 listing the patch types, and changes nothing",
      rules: ["doc1.patch.unsupported-type-415", "doc1.errors.415-unsupported-media-type"],
    },
    async () => {
      const o = await fresh();
      for (const ct of ["application/json", "text/plain"]) {
        const res = await patch(o.metadata.name as string, { data: { a: "2" } }, ct);
        expect(res.code, ct).toBe(415);
        expect(res.json, ct).toMatchObject({ kind: "Status", status: "Failure", reason: "UnsupportedMediaType", code: 415 });
        expect((res.json as { message?: string }).message, ct).toMatch(UNKNOWN_FORMAT);
      }
      expect((await current(o.metadata.name as string)).metadata.resourceVersion).toBe(o.metadata.resourceVersion);
    },
  );

  check(
    { title: "there is no CBOR form of json-patch, merge-patch or strategic-merge-patch: each is a 415", rules: ["doc1.media.rule5-no-cbor-patch"] },
    async () => {
      const o = await fresh();
      for (const [ct, body] of [
        ["application/merge-patch+cbor", { data: { a: "2" } }],
        ["application/strategic-merge-patch+cbor", { data: { a: "2" } }],
        ["application/json-patch+cbor", [{ op: "replace", path: "/data/a", value: "2" }]],
      ] as const) {
        const res = await patch(o.metadata.name as string, body, ct);
        expect(res.code, ct).toBe(415);
        expect((res.json as { message?: string }).message, ct).toMatch(UNKNOWN_FORMAT);
      }
      expect((await current(o.metadata.name as string)).data).toEqual({ a: "1", b: "2" });
    },
  );

  check(
    {
      title: "a patch that sets a stale resourceVersion is a 409 Conflict; a patch that makes the object invalid is a 422",
      rules: ["doc1.put.conditional-write", "doc1.errors.422-invalid"],
    },
    async () => {
      const o = await fresh();
      const name = o.metadata.name as string;
      await patch(name, { data: { a: "moved-on" } }, "application/merge-patch+json");
      const stale = await patch(name, { metadata: { resourceVersion: o.metadata.resourceVersion }, data: { a: "late" } }, "application/merge-patch+json");
      expect(stale.code).toBe(409);
      expect(stale.json).toMatchObject({
        reason: "Conflict",
        message: `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        details: { name, kind: "configmaps" },
      });
      expect((await current(name)).data).toMatchObject({ a: "moved-on" });
      const invalid = await patch(name, { data: { "bad key!": "x" } }, "application/merge-patch+json");
      expect(invalid.code).toBe(422);
      expect(invalid.json).toMatchObject({
        reason: "Invalid",
        details: { name, kind: "ConfigMap", causes: [{ reason: "FieldValueInvalid", field: "data[bad key!]" }] },
      });
      expect((invalid.json as { message?: string }).message).toMatch(
        new RegExp(`^ConfigMap "${name}" is invalid: data\\[bad key!\\]: Invalid value: "bad key!": `),
      );
    },
  );

  check({ title: "patching a missing object is a 404 for every type but apply", rules: ["doc1.errors.404-not-found"] }, async () => {
    const name = uniqueName("missing");
    for (const [ct, body] of [
      ["application/merge-patch+json", { data: {} }],
      ["application/json-patch+json", []],
      ["application/strategic-merge-patch+json", { data: {} }],
    ] as const) {
      expect((await patch(name, body, ct)).code, ct).toBe(404);
    }
  });
});

describe("server-side apply", () => {
  const apply = (name: string, body: unknown, manager: string, extra: Record<string, string> = {}) =>
    patch(name, body, "application/apply-patch+yaml", { fieldManager: manager, ...extra });

  const yamlOf = (name: string, data: Record<string, string>): string =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${suite.ns}\ndata:\n${Object.entries(data)
      .map(([k, v]) => `  ${k}: "${v}"\n`)
      .join("")}`;

  check(
    {
      title: "apply to a missing object creates it (201) with the applied content",
      rules: ["doc1.patch.apply-create-or-patch", "doc1.verbs.create-apply-absent"],
    },
    async () => {
      const name = uniqueName("ssa");
      const created = await apply(name, yamlOf(name, { a: "1" }), "tollgate-a");
      expect(created.code, created.text.slice(0, 300)).toBe(201);
      expect((created.json as KubeObject).metadata.name).toBe(name);
      expect((await current(name)).data).toEqual({ a: "1" });
    },
  );

  check(
    { title: "apply to an existing object patches it (200): the applied fields are set, the others kept", rules: ["doc1.patch.apply-create-or-patch"] },
    async () => {
      const o = await fresh({ x: "0" });
      const name = o.metadata.name as string;
      const updated = await apply(name, yamlOf(name, { a: "2", b: "3" }), "tollgate-a");
      expect(updated.code, updated.text.slice(0, 300)).toBe(200);
      expect((await current(name)).data).toEqual({ x: "0", a: "2", b: "3" });
    },
  );

  check({ title: "an apply body may be JSON: it creates and then updates the object", rules: ["doc1.patch.apply-accepts-json"] }, async () => {
    const { session, ns } = suite;
    const name = uniqueName("ssa-json");
    const created = await apply(name, configMap(session.types, ns, name, { a: "1" }), "tollgate-a");
    expect(created.code, created.text.slice(0, 300)).toBe(201);
    const updated = await apply(name, configMap(session.types, ns, name, { a: "2" }), "tollgate-a");
    expect(updated.code, updated.text.slice(0, 300)).toBe(200);
    expect((await current(name)).data).toEqual({ a: "2" });
  });

  check({ title: "application/apply-patch+yaml carries a YAML document: block style is read", rules: ["doc1.media.apply-patch-yaml"] }, async () => {
    const o = await fresh({ a: "1" });
    const name = o.metadata.name as string;
    const res = await apply(name, yamlOf(name, { c: "yaml" }), "tollgate-a");
    expect(res.code, res.text.slice(0, 300)).toBe(200);
    expect((await current(name)).data).toEqual({ a: "1", c: "yaml" });
  });

  check({ title: "an apply records the manager's fields in managedFields (operation Apply, FieldsV1)", rules: ["doc1.patch.ssa-managed-fields"] }, async () => {
    const name = uniqueName("ssa");
    await apply(name, yamlOf(name, { a: "1" }), "tollgate-a");
    await apply(name, yamlOf(name, { a: "2", b: "3" }), "tollgate-a");
    const now = await current(name);
    const entries = (now.metadata.managedFields ?? []) as { manager?: string; operation?: string; fieldsType?: string; fieldsV1?: Record<string, unknown> }[];
    const mine = entries.find((e) => e.manager === "tollgate-a");
    expect(mine, JSON.stringify(entries)).toMatchObject({ operation: "Apply", fieldsType: "FieldsV1" });
    expect(mine?.fieldsV1).toMatchObject({ "f:data": { "f:a": {}, "f:b": {} } });
  });

  check(
    {
      title: "apply of a body that is no object (a sequence, a string, a number) is refused with 400, creating or changing nothing",
      rules: ["doc1.patch.ssa-objects-only"],
    },
    async () => {
      const o = await fresh({ a: "1" });
      const name = o.metadata.name as string;
      const absent = uniqueName("ssa-none");
      for (const body of ["- a\n- b\n", "[1, 2]", '"just text"', "42"]) {
        for (const target of [name, absent]) {
          const res = await apply(target, body, "tollgate-a");
          expect(res.code, `${JSON.stringify(body)} on ${target}: ${res.text.slice(0, 300)}`).toBe(400);
          expect(res.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
        }
      }
      expect((await current(name)).metadata.resourceVersion, "the refused applies changed nothing").toBe(o.metadata.resourceVersion);
      const { session, ns } = suite;
      expect((await session.client.raw("GET", resourcePath(session.types.configmaps, ns, absent))).code, "nor created anything").toBe(404);
    },
  );

  check(
    {
      title: "a second manager changing an owned field gets 409 with one cause per field, and force takes ownership",
      rules: ["doc1.patch.ssa-conflicts", "doc1.patch.ssa-force"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("ssa");
      await apply(name, configMap(session.types, ns, name, { a: "1", b: "1" }), "owner");
      const clash = await apply(name, configMap(session.types, ns, name, { a: "2", b: "2" }), "intruder");
      expect(clash.code, clash.text.slice(0, 300)).toBe(409);
      const causes = ((clash.json as { details?: { causes?: { reason?: string; field?: string }[] } }).details?.causes ?? []).filter(
        (c) => c.reason === "FieldManagerConflict",
      );
      expect(causes.map((c) => c.field).sort()).toEqual([".data.a", ".data.b"]);
      expect((await current(name)).data).toEqual({ a: "1", b: "1" });
      const forced = await apply(name, configMap(session.types, ns, name, { a: "2", b: "2" }), "intruder", { force: "true" });
      expect(forced.code, forced.text.slice(0, 300)).toBe(200);
      expect((await current(name)).data).toEqual({ a: "2", b: "2" });
    },
  );

  check(
    {
      title: "fields set by a plain create and update are owned too: an apply changing them conflicts with that manager",
      rules: ["doc1.patch.ssa-managed-fields", "doc1.patch.ssa-conflicts"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("owned");
      const made = await session.client.create(t, ns, configMap(session.types, ns, name, { a: "1" }), { fieldManager: "tollgate-creator" });
      const entry = ((made.metadata.managedFields ?? []) as { manager?: string; operation?: string; fieldsV1?: Record<string, unknown> }[]).find(
        (e) => e.manager === "tollgate-creator",
      );
      expect(entry, "the create recorded its manager").toMatchObject({ operation: "Update" });
      expect(entry?.fieldsV1).toMatchObject({ "f:data": { "f:a": {} } });
      await session.client.update(t, ns, { ...made, data: { a: "1", b: "1" } }, { fieldManager: "tollgate-updater" });
      const clash = await apply(name, configMap(session.types, ns, name, { a: "2", b: "2" }), "tollgate-applier");
      expect(clash.code, clash.text.slice(0, 300)).toBe(409);
      const message = (clash.json as { message?: string }).message ?? "";
      expect(message).toContain('conflicts with "tollgate-creator"');
      expect(message).toContain('conflicts with "tollgate-updater"');
    },
  );

  check(
    {
      title: "property: an apply states values, not changes: whatever the current values, the applied fields end up as sent, and a repeat changes nothing",
      rules: ["doc1.patch.ssa-no-value-dependent", "doc1.patch.ssa-force"],
      timeout: 60_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      let n = 0;
      await assertProperty(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom("count", "mode", "other"), fc.stringMatching(/^[a-z0-9]{0,6}$/), { maxKeys: 3 }),
          fc.stringMatching(/^[0-9]{1,3}$/),
          async (before, wanted) => {
            const name = `vd-${uniqueName("p")}-${++n}`;
            await session.client.create(t, ns, configMap(session.types, ns, name, before), { fieldManager: "tollgate-writer" });
            const body = configMap(session.types, ns, name, { count: wanted });
            const first = await apply(name, body, "tollgate-declarer", { force: "true" });
            expect(first.code, first.text.slice(0, 300)).toBe(200);
            const after = (first.json as KubeObject).data as Record<string, string>;
            expect(after.count, `count was ${JSON.stringify(before.count)}`).toBe(wanted);
            for (const [k, v] of Object.entries(before)) if (k !== "count") expect(after[k], `${k} belongs to another manager`).toBe(v);
            const again = await apply(name, body, "tollgate-declarer");
            expect(again.code).toBe(200);
            expect((again.json as KubeObject).metadata.resourceVersion, "the same apply again is a no-op").toBe(
              (first.json as KubeObject).metadata.resourceVersion,
            );
          },
        ),
        { numRuns: 8 },
      );
    },
  );

  check({ title: "a field the applier owned and now leaves out is removed", rules: ["doc1.patch.ssa-managed-fields"] }, async () => {
    const { session, ns } = suite;
    const name = uniqueName("ssa");
    await apply(name, configMap(session.types, ns, name, { keep: "1", drop: "1" }), "shrinker");
    const res = await apply(name, configMap(session.types, ns, name, { keep: "1" }), "shrinker");
    expect(res.code).toBe(200);
    expect((await current(name)).data).toEqual({ keep: "1" });
  });

  check({ title: "apply without a fieldManager is refused as invalid PatchOptions (422)", rules: ["doc1.patch.ssa-managed-fields"] }, async () => {
    const { session, ns } = suite;
    const name = uniqueName("ssa");
    const res = await patch(name, configMap(session.types, ns, name), "application/apply-patch+yaml");
    expect(res.code).toBe(422);
    expect(res.json).toMatchObject({ reason: "Invalid", details: { kind: "PatchOptions", group: "meta.k8s.io" } });
  });
});

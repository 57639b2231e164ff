/** doc1 "Updates with PUT" and "Verbs": what a replace may and may not do. */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";
import { assertProperty } from "./support/properties.js";

const suite = useSuite("updates");

describe("updates", () => {
  check(
    {
      title: "an update that changes nothing keeps the resourceVersion and emits no event",
      rules: ["doc1.verbs.update-put-existing", "doc1.fields.rv-last-modified"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const o = await session.client.create(t, ns, configMap(session.types, ns, uniqueName("noop"), { a: "1" }));
      const w = await session.client.watch(t, ns, { resourceVersion: o.metadata.resourceVersion, fieldSelector: `metadata.name=${o.metadata.name}` });
      try {
        const same = await session.client.update(t, ns, o);
        expect(same.metadata.resourceVersion).toBe(o.metadata.resourceVersion);
        await expect(w.next(300)).rejects.toThrow(/no watch event/);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "property: whatever a client sends, an update keeps uid and creationTimestamp",
      rules: ["doc1.fields.uid-unique", "doc1.fields.creation-timestamp", "doc1.put.client-sends-rv"],
      timeout: 60_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      await assertProperty(
        fc.asyncProperty(
          fc.uuid(),
          fc.date({ min: new Date("2000-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }),
          fc.string({ maxLength: 6 }),
          async (uid, when, v) => {
            const o = await session.client.create(t, ns, configMap(session.types, ns, uniqueName("keep")));
            const sent = {
              ...o,
              data: { v },
              metadata: { ...o.metadata, uid: o.metadata.uid, creationTimestamp: when.toISOString().replace(/\.\d{3}Z$/, "Z") },
            };
            const res = await session.client.raw("PUT", resourcePath(t, ns, o.metadata.name), { body: sent });
            // A real server either ignores a changed creationTimestamp or refuses the update; it never stores it.
            expect([200, 422]).toContain(res.code);
            const now = await session.client.get(t, ns, o.metadata.name as string);
            expect(now.metadata.uid).toBe(o.metadata.uid);
            expect(now.metadata.creationTimestamp).toBe(o.metadata.creationTimestamp);
            const changedUid = await session.client.raw("PUT", resourcePath(t, ns, o.metadata.name), { body: { ...now, metadata: { ...now.metadata, uid } } });
            expect(changedUid.code, "a different uid in a PUT is refused").toBe(422);
            expect((await session.client.get(t, ns, o.metadata.name as string)).metadata.uid).toBe(o.metadata.uid);
          },
        ),
        { numRuns: 10 },
      );
    },
  );

  check(
    {
      title: "a PUT to a missing ConfigMap is a 404: only types that allow it create on update",
      rules: ["doc1.verbs.create-put-absent", "doc1.verbs.update-put-existing"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("absent");
      const res = await session.client.raw("PUT", resourcePath(session.types.configmaps, ns, name), { body: configMap(session.types, ns, name) });
      expect(res.code).toBe(404);
      expect(res.json).toMatchObject({
        kind: "Status",
        reason: "NotFound",
        code: 404,
        message: `configmaps "${name}" not found`,
        details: { name, kind: "configmaps" },
      });
      expect((await session.client.raw("GET", resourcePath(session.types.configmaps, ns, name))).code, "nothing was created").toBe(404);
    },
  );

  check({ title: "a PUT whose body names another object is a 400", rules: ["doc1.paths.replace-put-resource"] }, async () => {
    const { session, ns } = suite;
    const o = await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, uniqueName("named")));
    const res = await session.client.raw("PUT", resourcePath(session.types.configmaps, ns, o.metadata.name), {
      body: { ...o, metadata: { ...o.metadata, name: "someone-else" } },
    });
    expect(res.code).toBe(400);
    expect(res.json).toMatchObject({
      kind: "Status",
      reason: "BadRequest",
      code: 400,
      message: `the name of the object (someone-else) does not match the name on the URL (${o.metadata.name})`,
    });
  });
});

/** doc1 "Versioning": the form and order of resourceVersion, checked on every write a suite makes. */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import { ApiError } from "../lib/harness/client.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { compareResourceVersions, isDecimalResourceVersion } from "../lib/wire/resource-version.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";
import { assertProperty } from "./support/properties.js";
import { type VersionedWrite, versionOrderProblems } from "./support/version-order.js";

const suite = useSuite("resource-version");

function rvOf(o: KubeObject): string {
  const rv = o.metadata.resourceVersion;
  if (typeof rv !== "string") throw new Error(`object without metadata.resourceVersion: ${JSON.stringify(o).slice(0, 200)}`);
  return rv;
}

describe("resourceVersion", () => {
  check(
    { title: "every object and list version is a decimal with first digit 1-9", rules: ["doc1.versioning.rv-decimal-form", "doc1.versioning.rv-string"] },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const o = await session.client.create(t, ns, configMap(session.types, ns, uniqueName("form")));
      const list = await session.client.list(t, ns);
      // A JSON string, not a number that happens to print as one.
      expect(typeof list.metadata.resourceVersion, "the list's resourceVersion").toBe("string");
      for (const rv of [rvOf(o), list.metadata.resourceVersion ?? "", ...list.items.map(rvOf)]) {
        expect(isDecimalResourceVersion(rv), `resourceVersion ${JSON.stringify(rv)}`).toBe(true);
      }
    },
  );

  check(
    {
      title: "successive writes of one resource type get strictly increasing versions, across namespaces",
      rules: ["doc1.versioning.rv-ordered-per-type", "doc1.versioning.rv-compare"],
    },
    async () => {
      const { session, ns } = suite;
      const other = await session.createNamespace("resource-version");
      const t = session.types.configmaps;
      const seen: string[] = [];
      const name = uniqueName("order");
      for (const n of [ns, other, ns, other]) {
        const made = await session.client.create(t, n, configMap(session.types, n, `${name}-${seen.length}`));
        seen.push(rvOf(made));
        const changed = await session.client.update(t, n, { ...made, data: { x: "1" } });
        seen.push(rvOf(changed));
      }
      for (let i = 1; i < seen.length; i++) {
        expect(compareResourceVersions(seen[i] as string, seen[i - 1] as string), `write ${i}: ${seen[i - 1]} then ${seen[i]}`).toBeGreaterThan(0);
      }
    },
  );

  check(
    {
      title: "writes of two resource types interleaved: each type's versions increase, and no order across types is assumed",
      rules: ["doc1.versioning.rv-ordered-per-type", "doc1.versioning.rv-cross-type-incomparable"],
    },
    async () => {
      const { session, ns } = suite;
      const writes: VersionedWrite[] = [];
      const name = uniqueName("types");
      for (let i = 0; i < 4; i++) {
        const cm = await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, `${name}-${i}`));
        writes.push({ type: "configmaps", rv: rvOf(cm), what: `create configmap ${i}` });
        const ev = await session.client.create(session.types.events, ns, event(session.types, ns, `${name}-${i}`));
        writes.push({ type: "events", rv: rvOf(ev), what: `create event ${i}` });
      }
      expect(versionOrderProblems(writes)).toEqual([]);
    },
  );

  check(
    {
      title: "no item of a list is newer than the list, and each item's version is that of its last write",
      rules: ["doc1.fields.list-rv", "doc1.fields.rv-last-modified", "doc1.list-rv.client-item-rv-meaning"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const written = new Map<string, string>();
      for (let i = 0; i < 3; i++) {
        const o = await session.client.create(t, ns, configMap(session.types, ns, uniqueName("item")));
        written.set(o.metadata.name ?? "", rvOf(o));
      }
      const list = await session.client.list(t, ns);
      const listRv = list.metadata.resourceVersion ?? "";
      for (const item of list.items) {
        expect(compareResourceVersions(rvOf(item), listRv)).toBeLessThanOrEqual(0);
        const w = written.get(item.metadata.name ?? "");
        if (w) expect(rvOf(item), "the item says when it last changed, not how current the list is").toBe(w);
      }
    },
  );

  type Op = { op: "create" | "update" | "delete"; key: number; value: string };
  const opArb: fc.Arbitrary<Op> = fc.record({
    op: fc.constantFrom("create", "update", "delete"),
    key: fc.integer({ min: 0, max: 3 }),
    value: fc.string({ maxLength: 8 }),
  }) as fc.Arbitrary<Op>;

  check(
    {
      title: "property: after random creates, updates and deletes the list equals the model, and every write's version is newer than the last",
      rules: [
        "doc1.versioning.rv-ordered-per-type",
        "doc1.versioning.rv-orderable-conformance",
        "doc1.names.unique-in-namespace",
        "doc1.names.reuse-after-delete",
      ],
      timeout: 120_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      let run = 0;
      await assertProperty(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
          run += 1;
          const prefix = `${uniqueName("p")}-${run}`;
          const model = new Map<string, string>();
          let last: string | undefined;
          const expectNewer = (o: KubeObject, what: string): void => {
            const rv = rvOf(o);
            if (last !== undefined && compareResourceVersions(rv, last) <= 0) {
              throw new Error(`${what} returned resourceVersion ${rv}, not newer than the previous write's ${last}`);
            }
            last = rv;
          };
          for (const { op, key, value } of ops) {
            const name = `${prefix}-${key}`;
            const exists = model.has(name);
            try {
              if (op === "create") {
                const o = await session.client.create(t, ns, configMap(session.types, ns, name, { v: value }));
                if (exists) throw new Error(`create of existing ${name} succeeded`);
                expectNewer(o, `create ${name}`);
                model.set(name, value);
              } else if (op === "update") {
                const cur = await session.client.get(t, ns, name).catch((e: unknown) => {
                  if (e instanceof ApiError && e.code === 404 && !exists) return undefined;
                  throw e;
                });
                if (!cur) continue;
                const o = await session.client.update(t, ns, { ...cur, data: { v: value } });
                // A no-op update may keep the version; any real change must move it forward.
                if (model.get(name) !== value) expectNewer(o, `update ${name}`);
                model.set(name, value);
              } else {
                await session.client.delete(t, ns, name);
                if (!exists) throw new Error(`delete of missing ${name} succeeded`);
                model.delete(name);
              }
            } catch (e) {
              const expected = e instanceof ApiError && ((op === "create" && exists && e.code === 409) || (op !== "create" && !exists && e.code === 404));
              if (!expected) throw e;
            }
          }
          const list = await session.client.list(t, ns);
          const actual = new Map(
            list.items
              .filter((i) => i.metadata.name?.startsWith(`${prefix}-`))
              .map((i) => [i.metadata.name as string, (i.data as Record<string, string> | undefined)?.v ?? ""]),
          );
          expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(model));
        }),
        { numRuns: 15 },
      );
    },
  );
});

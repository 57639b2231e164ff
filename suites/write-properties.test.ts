/**
 * Properties of the write path (doc1 "Patch content types", "Field validation behaviour",
 * "States and transitions"), each against a model written here: random merge patches and
 * json-patch sequences, random unknown fields, random finalizer sets removed in random order.
 */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse } from "../lib/harness/client.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";
import { assertProperty } from "./support/properties.js";

const suite = useSuite("write-properties");
const key = fc.constantFrom("k0", "k1", "k2", "k3");
const value = fc.stringMatching(/^[a-z0-9]{0,6}$/);

async function freshMap(data: Record<string, string>, finalizers?: string[]): Promise<string> {
  const { session, ns } = suite;
  const name = uniqueName("wp");
  await session.client.create(session.types.configmaps, ns, {
    ...configMap(session.types, ns, name, data),
    metadata: { name, namespace: ns, ...(finalizers ? { finalizers } : {}) },
  });
  return name;
}

const patch = (name: string, body: unknown, contentType: string): Promise<ApiResponse> =>
  suite.session.client.raw("PATCH", resourcePath(suite.session.types.configmaps, suite.ns, name), { rawBody: JSON.stringify(body), contentType });
const dataOf = async (name: string): Promise<Record<string, string>> =>
  ((await suite.session.client.get(suite.session.types.configmaps, suite.ns, name)).data as Record<string, string> | undefined) ?? {};

describe("write-path properties", () => {
  check(
    { title: "property: a merge patch sets the keys it names and deletes those set to null (RFC 7386 model)", rules: ["doc1.patch.merge-patch"] },
    async () => {
      await assertProperty(
        fc.asyncProperty(fc.dictionary(key, value), fc.dictionary(key, fc.option(value, { nil: null })), async (initial, changes) => {
          const name = await freshMap(initial);
          const res = await patch(name, { data: changes }, "application/merge-patch+json");
          expect(res.code, res.text.slice(0, 200)).toBe(200);
          const model: Record<string, string> = { ...initial };
          for (const [k, v] of Object.entries(changes)) {
            if (v === null) delete model[k];
            else model[k] = v;
          }
          expect(await dataOf(name)).toEqual(model);
        }),
        { numRuns: 15 },
      );
    },
  );

  type Op = { op: "add" | "replace" | "remove"; k: string; v: string };
  const opArb: fc.Arbitrary<Op> = fc.record({ op: fc.constantFrom("add" as const, "replace" as const, "remove" as const), k: key, v: value });

  check(
    {
      title: "property: a json-patch applies all its operations in order, or none when one of them cannot apply",
      rules: ["doc1.patch.json-patch", "doc1.patch.json-patch-test-fails"],
    },
    async () => {
      await assertProperty(
        fc.asyncProperty(fc.dictionary(key, value, { minKeys: 1 }), fc.array(opArb, { minLength: 1, maxLength: 5 }), async (initial, ops) => {
          const name = await freshMap(initial);
          const model: Record<string, string> = { ...initial };
          let applies = true;
          for (const { op, k, v } of ops) {
            // RFC 6902 has replace and remove need the member; a real 1.35 server (evanphx/json-patch
            // v4) lets replace create a missing object member, so only remove fails here.
            if (op === "remove" && !Object.hasOwn(model, k)) {
              applies = false;
              break;
            }
            if (op === "remove") delete model[k];
            else model[k] = v;
          }
          const body = ops.map(({ op, k, v }) => (op === "remove" ? { op, path: `/data/${k}` } : { op, path: `/data/${k}`, value: v }));
          const res = await patch(name, body, "application/json-patch+json");
          if (applies) {
            expect(res.code, res.text.slice(0, 200)).toBe(200);
            expect(await dataOf(name)).toEqual(model);
          } else {
            expect(res.code, `should fail: ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
            expect(res.code).toBeLessThan(500);
            expect(await dataOf(name), "a failed json-patch changes nothing").toEqual(initial);
          }
        }),
        { numRuns: 20 },
      );
    },
  );

  check(
    {
      title: "property: under Warn each unknown field gets one Warning; under Strict the 400 names them all",
      rules: ["doc1.field-validation.warn-succeeds", "doc1.field-validation.strict-400", "doc1.headers.warning-per-field"],
    },
    async () => {
      const fieldArb = fc.uniqueArray(fc.stringMatching(/^x[a-z]{1,8}$/), { minLength: 1, maxLength: 4 });
      await assertProperty(
        fc.asyncProperty(fieldArb, async (fields) => {
          const { session, ns } = suite;
          const body = (name: string): Record<string, unknown> => ({ ...configMap(session.types, ns, name), ...Object.fromEntries(fields.map((f) => [f, 1])) });
          const warn = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), { body: body(uniqueName("wp")) });
          expect(warn.code).toBe(201);
          const items = [...(warn.headers.warning ?? "").matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1] as string}"`) as string);
          expect(items.sort()).toEqual(fields.map((f) => `unknown field "${f}"`).sort());
          const strict = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), {
            body: body(uniqueName("wp")),
            query: { fieldValidation: "Strict" },
          });
          expect(strict.code).toBe(400);
          for (const f of fields) expect((strict.json as { message?: string }).message).toContain(`unknown field "${f}"`);
        }),
        { numRuns: 10 },
      );
    },
  );

  check(
    {
      title: "property: an object with finalizers stays, terminating, until the last one is removed, in any order",
      rules: ["doc1.deletion.last-finalizer-removes", "doc1.deletion.finalizers-any-order", "doc1.deletion.live-to-terminating"],
      timeout: 120_000,
    },
    async () => {
      const finArb = fc.uniqueArray(fc.stringMatching(/^tollgate\.dev\/[a-z]{1,6}$/), { minLength: 1, maxLength: 3 });
      await assertProperty(
        fc.asyncProperty(
          finArb.chain((fins) => fc.tuple(fc.constant(fins), fc.shuffledSubarray(fins, { minLength: fins.length, maxLength: fins.length }))),
          async ([fins, order]) => {
            const { session, ns } = suite;
            const t = session.types.configmaps;
            const name = await freshMap({}, fins);
            await session.client.delete(t, ns, name);
            let left = [...fins];
            for (const f of order) {
              const cur = await session.client.get(t, ns, name);
              expect(cur.metadata.deletionTimestamp, "terminating while finalizers remain").toBeTruthy();
              left = left.filter((x) => x !== f);
              await session.client.update(t, ns, { ...cur, metadata: { ...cur.metadata, finalizers: left } });
            }
            const deadline = Date.now() + 10_000;
            let code = 200;
            while (Date.now() < deadline && (code = (await session.client.raw("GET", resourcePath(t, ns, name))).code) !== 404)
              await new Promise((r) => setTimeout(r, 100));
            expect(code, "gone once the last finalizer is removed").toBe(404);
          },
        ),
        { numRuns: 10 },
      );
    },
  );
});

/**
 * Label and field selectors on list and watch. doc1 names them only through
 * remainingItemCount; the selectable fields are the real server's (metadata.name and
 * metadata.namespace everywhere, plus the indexed Event fields, wire-facts §7).
 */
import { beforeAll, describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, useSuite } from "./support/conformance.js";

const suite = useSuite("selectors");

beforeAll(async () => {
  const { session, ns } = suite;
  const cm = (name: string, labels: Record<string, string>): KubeObject => ({
    ...configMap(session.types, ns, name),
    metadata: { name, namespace: ns, labels },
  });
  await session.client.create(session.types.configmaps, ns, cm("red-1", { color: "red", size: "s" }));
  await session.client.create(session.types.configmaps, ns, cm("red-2", { color: "red" }));
  await session.client.create(session.types.configmaps, ns, cm("blue-1", { color: "blue", size: "l" }));
  const ev = (name: string, patch: Record<string, unknown>): KubeObject => ({ ...event(session.types, ns, name), ...patch });
  await session.client.create(session.types.events, ns, ev("ev-warn", { type: "Warning", reason: "Failed" }));
  await session.client.create(
    session.types.events,
    ns,
    ev("ev-norm", { type: "Normal", reason: "Started", regarding: { apiVersion: "v1", kind: "Pod", namespace: ns, name: "web-0" } }),
  );
});

const names = (items: KubeObject[]): string[] => items.map((i) => i.metadata.name ?? "").sort();

describe("label selectors", () => {
  const cases: [string, string[]][] = [
    ["color=red", ["red-1", "red-2"]],
    ["color==red", ["red-1", "red-2"]],
    ["color!=red", ["blue-1"]],
    ["size", ["blue-1", "red-1"]],
    ["!size", ["red-2"]],
    ["color in (blue,green)", ["blue-1"]],
    ["color notin (blue)", ["red-1", "red-2"]],
    ["color=red,size=s", ["red-1"]],
  ];
  check({ title: "list filters by every selector form (=, ==, !=, exists, !exists, in, notin, and)", rules: ["doc1.verbs.list-collection"] }, async () => {
    const { session, ns } = suite;
    for (const [sel, want] of cases) {
      const l = await session.client.list(session.types.configmaps, ns, { labelSelector: sel });
      expect(names(l.items), sel).toEqual(want);
    }
  });

  check({ title: "a malformed label selector is a 400, not a server error", rules: ["doc1.errors.status-body"] }, async () => {
    const { session, ns } = suite;
    for (const sel of ["color in (", "=red", "a b"]) {
      const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { query: { labelSelector: sel } });
      expect(res.code, sel).toBe(400);
      expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest" });
    }
  });
});

describe("field selectors", () => {
  check(
    { title: "metadata.name and metadata.namespace select on any type, on the all-namespaces path too", rules: ["doc1.paths.list-all-namespaces"] },
    async () => {
      const { session, ns } = suite;
      expect(names((await session.client.list(session.types.configmaps, ns, { fieldSelector: "metadata.name=red-2" })).items)).toEqual(["red-2"]);
      expect(names((await session.client.list(session.types.configmaps, ns, { fieldSelector: "metadata.name!=red-2" })).items)).toEqual(["blue-1", "red-1"]);
      const all = await session.client.list(session.types.configmaps, undefined, { fieldSelector: `metadata.namespace=${ns},metadata.name=blue-1` });
      expect(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual([`${ns}/blue-1`]);
    },
  );

  check(
    { title: "Events select on type, reason and regarding fields; other fields are refused with 400", rules: ["doc2.endpoints.list-field-selectors"] },
    async () => {
      const { session, ns } = suite;
      const t = session.types.events;
      expect(names((await session.client.list(t, ns, { fieldSelector: "type=Warning" })).items)).toEqual(["ev-warn"]);
      expect(names((await session.client.list(t, ns, { fieldSelector: "reason=Started" })).items)).toEqual(["ev-norm"]);
      expect(names((await session.client.list(t, ns, { fieldSelector: "regarding.kind=Pod,regarding.name=web-0" })).items)).toEqual(["ev-norm"]);
      expect(names((await session.client.list(t, ns, { fieldSelector: "reportingController=tollgate.dev/conformance" })).items)).toEqual([
        "ev-norm",
        "ev-warn",
      ]);
      const res = await session.client.raw("GET", resourcePath(t, ns), { query: { fieldSelector: "note=x" } });
      expect(res.code).toBe(400);
      expect((res.json as { message?: string }).message).toMatch(/field label not supported: note/);
    },
  );

  check(
    { title: "a watch with an Event field selector sees only matching events", rules: ["doc2.endpoints.list-field-selectors", "doc1.watch-events.added"] },
    async () => {
      const { session, ns } = suite;
      const t = session.types.events;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: rv, fieldSelector: "type=Warning" });
      try {
        await session.client.create(t, ns, { ...event(session.types, ns, "ev-later-normal"), type: "Normal" });
        await session.client.create(t, ns, { ...event(session.types, ns, "ev-later-warn"), type: "Warning" });
        const ev = await w.next();
        expect([ev?.type, ev?.object.metadata.name]).toEqual(["ADDED", "ev-later-warn"]);
      } finally {
        w.close();
      }
    },
  );
});

/**
 * doc2 "Event" and "EventList" as JSON Schemas (fixtures/schemas, written from doc2): every
 * Event the target returns from get, list (one namespace and all namespaces) and watch conforms,
 * for a single Event, one with a series and one with a related object.
 */
import { describe, expect } from "vitest";
import { event, microTime } from "../../fixtures/objects.js";
import type { KubeObject } from "../../lib/harness/objects.js";
import { resourcePath } from "../../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "../support/conformance.js";
import { eventListSchemaErrors, eventSchemaErrors } from "../support/schemas.js";

const suite = useSuite("event-schema");
const t = () => suite.session.types.events;

/** A single Event, one in a series, and one with a related object. */
function samples(ns: string): KubeObject[] {
  const { types } = suite.session;
  const single = event(types, ns, uniqueName("single"));
  const series = { ...event(types, ns, uniqueName("series")), series: { count: 3, lastObservedTime: microTime(new Date()) } };
  const related = { ...event(types, ns, uniqueName("related")), related: { apiVersion: "v1", kind: "Pod", namespace: ns, name: "secondary" } };
  return [single, series, related];
}

const SHAPE_RULES = [
  "doc2.event.event-time-microtime",
  "doc2.event.regarding-reference",
  "doc2.event.related-reference",
  "doc2.event.series-count-required",
  "doc2.event.series-last-observed-required",
] as const;

function expectEvent(doc: unknown, where: string): void {
  expect(eventSchemaErrors(doc), `${where}: ${JSON.stringify(doc).slice(0, 400)}`).toEqual([]);
}

/** The schema allows an Event without regarding; the rule asks that the reference written is the one returned. */
function expectReferences(doc: unknown, bodies: KubeObject[], where: string): void {
  const got = doc as KubeObject;
  const body = bodies.find((b) => b.metadata.name === got.metadata.name);
  expect(body, `${where}: an Event that was not written: ${got.metadata.name}`).toBeDefined();
  expect(got["regarding"], `${where}: regarding of ${got.metadata.name}`).toEqual(body?.["regarding"]);
  expect(got["related"], `${where}: related of ${got.metadata.name}`).toEqual(body?.["related"]);
}

describe("Event and EventList schemas", () => {
  check(
    {
      title: "create and get answer Events that conform to the Event schema",
      rules: [...SHAPE_RULES, "doc2.endpoints.get-200", "doc2.endpoints.create-success"],
    },
    async () => {
      const { session, ns } = suite;
      for (const body of samples(ns)) {
        const made = await session.client.create(t(), ns, body);
        expectEvent(made, "create");
        expectReferences(made, [body], "create");
        const got = await session.client.raw("GET", resourcePath(t(), ns, made.metadata.name as string));
        expect(got.code).toBe(200);
        expectEvent(got.json, "get");
        expectReferences(got.json, [body], "get");
        expect(got.json).toMatchObject({ kind: "Event", eventTime: body["eventTime"] });
      }
    },
  );

  check(
    {
      title: "lists in one namespace and across namespaces (fieldSelector on the namespace) conform to the EventList schema",
      rules: [
        ...SHAPE_RULES,
        "doc2.list.items-required",
        "doc2.list.standard-metadata",
        "doc2.service.list-kind",
        "doc2.endpoints.list-ns-200",
        "doc2.endpoints.list-all-200",
      ],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("event-schema");
      const bodies = samples(ns);
      const names: string[] = [];
      for (const body of bodies) names.push((await session.client.create(t(), ns, body)).metadata.name as string);
      const one = await session.client.raw("GET", resourcePath(t(), ns));
      const all = await session.client.raw("GET", resourcePath(t()), { query: { fieldSelector: `metadata.namespace=${ns}` } });
      const paged = await session.client.raw("GET", resourcePath(t(), ns), { query: { limit: 1 } });
      const empty = await session.client.raw("GET", resourcePath(t(), await session.createNamespace("event-schema")));
      for (const [where, res] of [
        ["namespaced list", one],
        ["all-namespaces list", all],
        ["paged list", paged],
        ["empty list", empty],
      ] as const) {
        expect(res.code, where).toBe(200);
        expect(eventListSchemaErrors(res.json), `${where}: ${res.text.slice(0, 400)}`).toEqual([]);
      }
      for (const res of [one, all]) {
        const items = (res.json as { items: KubeObject[] }).items;
        expect(items.map((i) => i.metadata.name).sort()).toEqual([...names].sort());
        for (const i of items) expectReferences(i, bodies, "list");
      }
      expect((paged.json as { metadata: { continue?: string } }).metadata.continue, "a paged list carries continue").toBeTruthy();
      expect((empty.json as { items: unknown[] }).items).toEqual([]);
    },
  );

  check(
    {
      title: "watch events carry Events that conform to the Event schema",
      rules: [...SHAPE_RULES, "doc2.endpoints.list-ns-params", "doc2.endpoints.list-all-params"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("event-schema");
      const rv = (await session.client.list(t(), ns)).metadata.resourceVersion;
      const one = await session.client.watch(t(), ns, { resourceVersion: rv });
      const all = await session.client.watch(t(), undefined, { resourceVersion: rv, fieldSelector: `metadata.namespace=${ns}` });
      try {
        const bodies = samples(ns);
        for (const body of bodies) await session.client.create(t(), ns, body);
        for (const [where, w] of [
          ["namespaced watch", one],
          ["all-namespaces watch", all],
        ] as const) {
          const seen = (await w.take(bodies.length, 10_000)).filter((e) => e.type !== "BOOKMARK");
          while (seen.length < bodies.length) {
            const e = await w.next(10_000);
            if (!e) break;
            if (e.type !== "BOOKMARK") seen.push(e);
          }
          expect(
            seen.map((e) => [e.type, e.object.metadata.name]),
            where,
          ).toEqual(bodies.map((b) => ["ADDED", b.metadata.name]));
          for (const e of seen) {
            expectEvent(e.object, where);
            expectReferences(e.object, bodies, where);
          }
        }
      } finally {
        one.close();
        all.close();
      }
    },
  );
});

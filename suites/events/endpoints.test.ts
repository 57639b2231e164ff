/** doc2 "Endpoints": every Event operation on its path, with the parameters doc2 lists. */
import { describe, expect } from "vitest";
import { event } from "../../fixtures/objects.js";
import { ApiClient, type ApiResponse } from "../../lib/harness/client.js";
import { asIdentity } from "../../lib/harness/credentials/identity.js";
import type { KubeList, KubeObject } from "../../lib/harness/objects.js";
import { resourcePath } from "../../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "../support/conformance.js";

const suite = useSuite("event-endpoints");

const t = () => suite.session.types.events;
const group = () => `events.${suite.session.settings.spec.groupDomain}`;

async function make(ns = suite.ns, name = uniqueName("ep")): Promise<KubeObject> {
  return suite.session.client.create(t(), ns, event(suite.session.types, ns, name));
}

describe("Event endpoints", () => {
  check(
    {
      title: "get: 200 with the Event, and pretty=true indents it",
      rules: [
        "doc2.endpoints.get-path",
        "doc2.endpoints.get-params",
        "doc2.endpoints.get-200",
        "doc2.endpoints.pretty-string",
        "doc2.service.api-version-kind",
        "doc2.service.namespaced",
      ],
    },
    async () => {
      const { session, ns } = suite;
      const made = await make();
      const name = made.metadata.name as string;
      expect(resourcePath(t(), ns, name)).toBe(`/apis/${group()}/v1/namespaces/${ns}/events/${name}`);
      const res = await session.client.raw("GET", resourcePath(t(), ns, name));
      expect(res.code).toBe(200);
      expect(res.json).toEqual(made);
      const pretty = await session.client.raw("GET", resourcePath(t(), ns, name), { query: { pretty: "true" } });
      expect(pretty.text).toMatch(/^\{\n {2}"kind": "Event",\n/);
      expect(JSON.parse(pretty.text)).toEqual(made);
    },
  );

  check(
    {
      title: "list in one namespace and across namespaces: 200 with an EventList, paged with limit and continue",
      rules: [
        "doc2.endpoints.list-ns-path",
        "doc2.endpoints.list-ns-params",
        "doc2.endpoints.list-ns-200",
        "doc2.endpoints.list-all-path",
        "doc2.endpoints.list-all-params",
        "doc2.endpoints.list-all-200",
        "doc2.service.list-kind",
        "doc2.list.items-required",
        "doc2.list.standard-metadata",
      ],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("event-endpoints");
      const names = ["a", "b", "c"];
      for (const n of names) await make(ns, n);
      const first = await session.client.list(t(), ns, { limit: 2 });
      expect(first.kind).toBe("EventList");
      expect(first.items.map((i) => i.metadata.name)).toEqual(["a", "b"]);
      expect(first.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
      const rest = await session.client.list(t(), ns, { limit: 2, continue: first.metadata.continue, pretty: "false" });
      expect(rest.items.map((i) => i.metadata.name)).toEqual(["c"]);
      const empty = await session.client.list(t(), await session.createNamespace("event-endpoints"));
      expect(empty.items, "items is always present").toEqual([]);
      const all = await session.client.list(t(), undefined, { fieldSelector: `metadata.namespace=${ns}`, limit: 500 });
      expect(all.kind).toBe("EventList");
      expect(all.items.map((i) => i.metadata.name)).toEqual(names);
    },
  );

  check({ title: "watch on both list paths", rules: ["doc2.endpoints.list-ns-params", "doc2.endpoints.list-all-params"] }, async () => {
    const { session, ns } = suite;
    const rv = (await session.client.list(t(), ns)).metadata.resourceVersion;
    const one = await session.client.watch(t(), ns, { resourceVersion: rv });
    const all = await session.client.watch(t(), undefined, { resourceVersion: rv, fieldSelector: `metadata.namespace=${ns}` });
    try {
      const made = await make();
      for (const w of [one, all]) {
        const ev = await w.next();
        expect([ev?.type, ev?.object.metadata.name]).toEqual(["ADDED", made.metadata.name]);
      }
    } finally {
      one.close();
      all.close();
    }
  });

  check(
    {
      title: "create: 201 with the Event; dryRun=All answers as a create would and stores nothing",
      rules: ["doc2.endpoints.create-path", "doc2.endpoints.create-params", "doc2.endpoints.create-success", "doc2.event.generation-unset"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("cr");
      const dry = await session.client.raw("POST", resourcePath(t(), ns), { body: event(session.types, ns, name), query: { dryRun: "All" } });
      expect([200, 201]).toContain(dry.code);
      expect((dry.json as KubeObject).metadata.name).toBe(name);
      expect((await session.client.raw("GET", resourcePath(t(), ns, name))).code).toBe(404);
      const res = await session.client.raw("POST", resourcePath(t(), ns), { body: event(session.types, ns, name) });
      expect(res.code).toBe(201);
      expect((res.json as KubeObject).metadata.generation).toBeUndefined();
    },
  );

  check(
    {
      title: "update: 200; a PUT without resourceVersion is accepted; a PUT to a missing name creates it (201); dryRun stores nothing",
      rules: [
        "doc2.endpoints.update-path",
        "doc2.endpoints.update-params",
        "doc2.endpoints.update-success",
        "doc2.endpoints.update-unconditional",
        "doc2.endpoints.update-creates-missing",
        "doc2.event.update-mutable-fields",
      ],
    },
    async () => {
      const { session, ns } = suite;
      const made = await make();
      const name = made.metadata.name as string;
      const labelled = { ...made, metadata: { ...made.metadata, labels: { seen: "1" } } };
      const dry = await session.client.raw("PUT", resourcePath(t(), ns, name), { body: labelled, query: { dryRun: "All" } });
      expect(dry.code).toBe(200);
      expect((dry.json as KubeObject).metadata, "a dry run answers with the Event as it would be").toMatchObject({ name, labels: { seen: "1" } });
      expect((await session.client.get(t(), ns, name)).metadata.labels).toBeUndefined();
      const { resourceVersion: _rv, ...metaWithoutRv } = labelled.metadata;
      const res = await session.client.raw("PUT", resourcePath(t(), ns, name), { body: { ...labelled, metadata: metaWithoutRv } });
      expect(res.code).toBe(200);
      expect((res.json as KubeObject).metadata.labels).toEqual({ seen: "1" });
      const fresh = uniqueName("put");
      const created = await session.client.raw("PUT", resourcePath(t(), ns, fresh), { body: event(session.types, ns, fresh) });
      expect(created.code).toBe(201);
      expect(created.json).toMatchObject({ kind: "Event", metadata: { name: fresh, namespace: ns } });
    },
  );

  check(
    {
      title: "delete: 200 with the Success Status naming the Event; dryRun keeps it",
      rules: ["doc2.endpoints.delete-path", "doc2.endpoints.delete-params", "doc2.endpoints.delete-success", "doc2.endpoints.status-shape"],
    },
    async () => {
      const { session, ns } = suite;
      const made = await make();
      const name = made.metadata.name as string;
      const dry = await session.client.raw("DELETE", resourcePath(t(), ns, name), { query: { dryRun: "All" } });
      expect(dry.code).toBe(200);
      expect((await session.client.raw("GET", resourcePath(t(), ns, name))).code).toBe(200);
      const res = await session.client.raw("DELETE", resourcePath(t(), ns, name));
      expect(res.code).toBe(200);
      expect(res.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { name, group: group(), kind: "events", uid: made.metadata.uid },
      });
    },
  );

  check(
    {
      title: "deletecollection: 200, removes the selected Events only; dryRun removes none",
      rules: [
        "doc2.endpoints.deletecollection-path",
        "doc2.endpoints.deletecollection-params",
        "doc2.endpoints.deletecollection-200",
        "doc1.verbs.deletecollection",
        "doc1.paths.deletecollection-collection",
      ],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("event-endpoints");
      for (const n of ["keep", "drop-1", "drop-2"]) {
        await session.client.create(t(), ns, {
          ...event(session.types, ns, n),
          metadata: { name: n, namespace: ns, labels: { fate: n.startsWith("drop") ? "drop" : "keep" } },
        });
      }
      const dry = await session.client.raw("DELETE", resourcePath(t(), ns), { query: { labelSelector: "fate=drop", dryRun: "All" } });
      expect(dry.code).toBe(200);
      expect((await session.client.list(t(), ns)).items).toHaveLength(3);
      const res: ApiResponse = await session.client.raw("DELETE", resourcePath(t(), ns), { query: { labelSelector: "fate=drop" } });
      expect(res.code).toBe(200);
      const left: KubeList = await session.client.list(t(), ns);
      expect(left.items.map((i) => i.metadata.name)).toEqual(["keep"]);
    },
  );

  check(
    {
      title: "every operation answers 401 to a caller with an invalid token",
      rules: [
        "doc2.endpoints.get-401",
        "doc2.endpoints.list-ns-401",
        "doc2.endpoints.list-all-401",
        "doc2.endpoints.create-401",
        "doc2.endpoints.update-401",
        "doc2.endpoints.patch-401",
        "doc2.endpoints.delete-401",
        "doc2.endpoints.deletecollection-401",
      ],
      needs: ["authentication"],
    },
    async () => {
      const { session, ns } = suite;
      const stranger = new ApiClient(asIdentity(session.settings.target, "tollgate-invalid-token"), { suite: "event-endpoints" });
      try {
        const name = (await make()).metadata.name as string;
        const body = event(session.types, ns, name);
        const calls: [string, string, unknown, string?][] = [
          ["GET", resourcePath(t(), ns, name), undefined],
          ["GET", resourcePath(t(), ns), undefined],
          ["GET", resourcePath(t(), undefined), undefined],
          ["POST", resourcePath(t(), ns), body],
          ["PUT", resourcePath(t(), ns, name), body],
          ["PATCH", resourcePath(t(), ns, name), {}, "application/merge-patch+json"],
          ["DELETE", resourcePath(t(), ns, name), undefined],
          ["DELETE", resourcePath(t(), ns), undefined],
        ];
        for (const [method, path, b, ct] of calls) {
          const res = await stranger.raw(method, path, { body: b, contentType: ct });
          expect(res.code, `${method} ${path}`).toBe(401);
          expect(res.json, `${method} ${path}`).toMatchObject({ kind: "Status", status: "Failure", reason: "Unauthorized", code: 401 });
        }
      } finally {
        await stranger.close();
      }
    },
  );
});

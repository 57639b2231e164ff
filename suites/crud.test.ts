/** The CRUD round trip of doc1 "Verbs" and "Path shapes", on a core and a group resource. */
import { describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import type { KubeObject } from "../lib/harness/objects.js";
import type { ResourceType } from "../lib/harness/resources.js";
import { apiVersionOf, resourcePath } from "../lib/harness/resources.js";
import { check, expectFailure, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("crud");

interface Subject {
  label: string;
  type: () => ResourceType;
  make: (ns: string, name: string) => KubeObject;
  change: (o: KubeObject) => KubeObject;
  qualified: string;
}

const subjects: Subject[] = [
  {
    label: "ConfigMap (core group)",
    type: () => suite.session.types.configmaps,
    make: (ns, name) => configMap(suite.session.types, ns, name, { k: "v" }),
    change: (o) => ({ ...o, data: { k: "v2" } }),
    qualified: "configmaps",
  },
  {
    label: "Event (events group)",
    type: () => suite.session.types.events,
    make: (ns, name) => event(suite.session.types, ns, name),
    change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { touched: "yes" } } }),
    qualified: "events.events.k8s.io",
  },
];

describe("cluster-scoped resources and batches", () => {
  check(
    {
      title: "namespaces are cluster-scoped: listed and read without a namespace segment",
      rules: ["doc1.paths.list-cluster-scoped", "doc1.paths.get-cluster-scoped", "doc1.paths.namespace-cluster-scoped"],
    },
    async () => {
      const { session, ns } = suite;
      expect(resourcePath(session.types.namespaces, undefined, ns)).toBe(`/api/v1/namespaces/${ns}`);
      const got = await session.client.get(session.types.namespaces, undefined, ns);
      expect(got.metadata.name).toBe(ns);
      expect(got.metadata.namespace ?? "").toBe("");
      const all = await session.client.list(session.types.namespaces, undefined, { fieldSelector: `metadata.name=${ns}` });
      expect(all.kind).toBe("NamespaceList");
      expect(all.items.map((i) => i.metadata.name)).toEqual([ns]);
    },
  );

  check(
    {
      title: "there is no multi-object submission: a list body posted to a collection is refused and stores nothing",
      rules: ["doc1.verbs.no-transactions", "doc1.verbs.multi-resource-verbs", "doc1.verbs.client-series"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const names = [uniqueName("batch"), uniqueName("batch")];
      const res = await session.client.raw("POST", resourcePath(t, ns), {
        body: { apiVersion: "v1", kind: "ConfigMapList", metadata: {}, items: names.map((n) => configMap(session.types, ns, n)) },
      });
      expect(res.code).toBeGreaterThanOrEqual(400);
      expect(res.code).toBeLessThan(500);
      for (const n of names) expect((await session.client.raw("GET", resourcePath(t, ns, n))).code).toBe(404);
    },
  );
});

describe.each(subjects)("$label", (s) => {
  check(
    {
      title: "create, get, list, update and delete round trip",
      rules: [
        "doc1.service.crud-methods",
        "doc1.verbs.single-resource-verbs",
        "doc1.fields.no-list-kind",
        "doc1.verbs.create-post",
        "doc1.verbs.get-single",
        "doc1.versioning.core-api-path",
        "doc1.versioning.group-version-path",
        "doc1.watch-events.event-resources",
        "doc1.verbs.list-collection",
        "doc1.verbs.update-put-existing",
        "doc1.verbs.delete-single",
        "doc1.paths.core-prefix",
        "doc1.paths.group-prefix",
        "doc1.paths.list-namespaced",
        "doc1.paths.get-namespaced",
        "doc1.paths.create-post-collection",
        "doc1.paths.replace-put-resource",
        "doc1.paths.delete-resource",
        "doc1.fields.kind-api-version-present",
        "doc1.fields.api-version-form",
        "doc1.fields.list-kind-suffix",
        "doc1.fields.namespace-set",
        "doc1.fields.uid-unique",
        "doc1.fields.creation-timestamp",
        "doc1.fields.items-array",
        "doc1.fields.rv-last-modified",
      ],
    },
    async () => {
      const { session, ns } = suite;
      const t = s.type();
      const name = uniqueName("crud");
      const created = await session.client.create(t, ns, s.make(ns, name));
      expect(created.kind).toBe(t.kind);
      expect(created.apiVersion).toBe(apiVersionOf(t));
      expect(created.metadata.name).toBe(name);
      expect(created.metadata.namespace).toBe(ns);
      expect(created.metadata.uid, "uid is set by the server").toMatch(/\S/);
      expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(created.metadata.resourceVersion).toMatch(/\S/);

      const got = await session.client.get(t, ns, name);
      expect(got).toEqual(created);

      const list = await session.client.list(t, ns);
      expect(list.kind).toBe(`${t.kind}List`);
      expect(list.kind, "there is no kind named List").not.toBe("List");
      expect(list.apiVersion).toBe(apiVersionOf(t));
      expect(list.items.map((i) => i.metadata.name)).toContain(name);

      const updated = await session.client.update(t, ns, s.change(got));
      expect(updated.metadata.uid).toBe(created.metadata.uid);
      expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
      expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
      expect(await session.client.get(t, ns, name)).toEqual(updated);

      await session.client.delete(t, ns, name);
      const err = await expectFailure(session.client.get(t, ns, name), 404);
      expect(err.status?.reason).toBe("NotFound");
    },
  );

  check(
    {
      title: "a missing object gives 404 with a NotFound Status naming it",
      rules: ["doc1.errors.404-not-found", "doc1.errors.status-body", "doc1.errors.status-api-version", "doc1.errors.status-details"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("missing");
      const err = await expectFailure(session.client.get(s.type(), ns, name), 404);
      expect(err.status).toMatchObject({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "NotFound",
        code: 404,
        message: `${s.qualified} "${name}" not found`,
        details: { name, kind: s.type().resource },
      });
    },
  );

  check({ title: "the all-namespaces path lists objects of every namespace", rules: ["doc1.paths.list-all-namespaces"] }, async () => {
    const { session, ns } = suite;
    const t = s.type();
    const other = await session.createNamespace("crud");
    const a = uniqueName("all");
    await session.client.create(t, ns, s.make(ns, a));
    await session.client.create(t, other, s.make(other, a));
    const all = await session.client.list(t, undefined);
    const found = all.items
      .filter((i) => i.metadata.name === a)
      .map((i) => i.metadata.namespace)
      .sort();
    expect(found).toEqual([ns, other].sort());
  });

  check({ title: "a delete answers with a Success Status or the object", rules: ["doc1.verbs.delete-single", "doc1.paths.response-bodies"] }, async () => {
    const { session, ns } = suite;
    const t = s.type();
    const name = uniqueName("del");
    const created = await session.client.create(t, ns, s.make(ns, name));
    const res = await session.client.raw("DELETE", resourcePath(t, ns, name));
    expect(res.code).toBe(200);
    const body = res.json as { kind?: string; status?: string; details?: { name?: string; uid?: string } };
    if (body.kind === "Status") {
      expect(body.status).toBe("Success");
      expect(body.details?.name).toBe(name);
      expect(body.details?.uid).toBe(created.metadata.uid);
    } else {
      expect(body.kind).toBe(t.kind);
    }
  });
});

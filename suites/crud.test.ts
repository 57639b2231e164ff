/** The CRUD round trip of doc1 "Verbs" and "Path shapes", on a core and a group resource. */
import { describe, expect } from "vitest";
import { configMap, event } from "../fixtures/objects.js";
import type { KubeObject } from "../lib/harness/objects.js";
import type { ResourceType } from "../lib/harness/resources.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, expectFailure, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("crud");

interface Subject {
  label: string;
  type: () => ResourceType;
  make: (ns: string, name: string) => KubeObject;
  change: (o: KubeObject) => KubeObject;
  /** What `change` sets, as the answer to the update must show it. */
  changed: Record<string, unknown>;
  qualified: string;
  /** The path prefix of the type's group and version. */
  root: () => string;
  apiVersion: () => string;
}

const nameOf = (o: KubeObject): string => o.metadata.name ?? "";

/** A server-generated uid: a random (version 4) UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const subjects: Subject[] = [
  {
    label: "ConfigMap (core group)",
    type: () => suite.session.types.configmaps,
    make: (ns, name) => configMap(suite.session.types, ns, name, { k: "v" }),
    change: (o) => ({ ...o, data: { k: "v2" } }),
    changed: { data: { k: "v2" } },
    qualified: "configmaps",
    root: () => "/api/v1",
    apiVersion: () => "v1",
  },
  {
    label: "Event (events group)",
    type: () => suite.session.types.events,
    make: (ns, name) => event(suite.session.types, ns, name),
    change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { touched: "yes" } } }),
    changed: { metadata: { labels: { touched: "yes" } } },
    qualified: "events.events.k8s.io",
    root: () => `/apis/${suite.session.types.events.group}/v1`,
    apiVersion: () => `${suite.session.types.events.group}/v1`,
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
      rules: ["doc1.verbs.no-transactions", "doc1.verbs.client-series"],
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

  check(
    {
      title: "list and deletecollection act on several objects: every object matching the selector is listed, then deleted, and no other",
      rules: ["doc1.verbs.multi-resource-verbs"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const batch = uniqueName("multi");
      const labelled = (name: string) => {
        const o = configMap(session.types, ns, name);
        return { ...o, metadata: { ...o.metadata, labels: { batch } } };
      };
      const names = [uniqueName("multi"), uniqueName("multi"), uniqueName("multi")].sort();
      for (const n of names) await session.client.create(t, ns, labelled(n));
      const bystander = await session.client.create(t, ns, configMap(session.types, ns, uniqueName("multi")));
      const listed = await session.client.list(t, ns, { labelSelector: `batch=${batch}` });
      expect(listed.items.map((i) => i.metadata.name).sort(), "list returns every matching object").toEqual(names);
      const res = await session.client.raw("DELETE", resourcePath(t, ns), { query: { labelSelector: `batch=${batch}` } });
      expect(res.code, res.text.slice(0, 300)).toBe(200);
      for (const n of names) expect((await session.client.raw("GET", resourcePath(t, ns, n))).code, `${n} was deleted with its collection`).toBe(404);
      expect((await session.client.list(t, ns, { labelSelector: `batch=${batch}` })).items).toEqual([]);
      expect((await session.client.get(t, ns, bystander.metadata.name as string)).metadata.uid, "an object outside the selector stays").toBe(
        bystander.metadata.uid,
      );
    },
  );
});

describe("group and version in the path", () => {
  check(
    {
      title: "core resources are served under /api/v1, group resources under /apis/<group>/<version>, and not the other way round",
      rules: ["doc1.paths.core-prefix", "doc1.paths.group-prefix", "doc1.versioning.core-api-path", "doc1.versioning.group-version-path"],
    },
    async () => {
      const { session, ns } = suite;
      const events = session.types.events;
      const get = async (path: string): Promise<{ code: number; json: unknown }> => session.client.raw("GET", path);
      expect(await get(`/api/v1/namespaces/${ns}/configmaps`)).toMatchObject({ code: 200, json: { kind: "ConfigMapList", apiVersion: "v1" } });
      expect(await get(`/apis/${events.group}/v1/namespaces/${ns}/events`)).toMatchObject({
        code: 200,
        json: { kind: "EventList", apiVersion: `${events.group}/v1` },
      });
      // The group and the version are path segments: the version's discovery document names both.
      expect(await get(`/apis/${events.group}/v1`)).toMatchObject({ code: 200, json: { kind: "APIResourceList", groupVersion: `${events.group}/v1` } });
      expect(await get("/api/v1")).toMatchObject({ code: 200, json: { kind: "APIResourceList", groupVersion: "v1" } });
      // A core resource has no group segment, and a group resource is not under /api.
      expect((await get(`/apis/v1/namespaces/${ns}/configmaps`)).code).toBe(404);
      expect((await get(`/api/${events.group}/v1/namespaces/${ns}/events`)).code).toBe(404);
    },
  );

  check({ title: "the cluster stores Event resources: one created is read back and listed", rules: ["doc1.watch-events.event-resources"] }, async () => {
    const { session, ns } = suite;
    const t = session.types.events;
    const name = uniqueName("ev");
    const created = await session.client.create(t, ns, event(session.types, ns, name));
    expect(created).toMatchObject({ kind: "Event", metadata: { name, namespace: ns } });
    expect(await session.client.get(t, ns, name)).toEqual(created);
    const list = await session.client.list(t, ns);
    expect(list.items.map((i) => i.metadata.uid)).toContain(created.metadata.uid);
  });
});

describe.each(subjects)("$label", (s) => {
  // One object per subject, made by the create test and read by the tests after it (made on demand when run alone).
  let stored: KubeObject | undefined;
  const storedObject = async (): Promise<KubeObject> => {
    const { session, ns } = suite;
    stored ??= await session.client.create(s.type(), ns, s.make(ns, uniqueName("crud")));
    return stored;
  };
  const collection = (ns: string): string => `${s.root()}/namespaces/${ns}/${s.type().resource}`;

  check(
    {
      title: "create is a POST to the collection path; the 201 answer is the object, with kind and apiVersion <group>/<version>",
      rules: ["doc1.verbs.create-post", "doc1.paths.create-post-collection", "doc1.fields.kind-api-version-present", "doc1.fields.api-version-form"],
    },
    async () => {
      const { session, ns } = suite;
      const t = s.type();
      const name = uniqueName("crud");
      const res = await session.client.raw("POST", collection(ns), { body: s.make(ns, name) });
      expect(res.code, res.text.slice(0, 300)).toBe(201);
      const created = res.json as KubeObject;
      expect(created.kind).toBe(t.kind);
      expect(created.apiVersion).toBe(s.apiVersion());
      expect(created.metadata.name).toBe(name);
      // The POST stored it: a GET finds it, with kind and apiVersion too.
      const got = await session.client.raw("GET", `${collection(ns)}/${name}`);
      expect(got.code).toBe(200);
      expect(got.json).toMatchObject({ kind: t.kind, apiVersion: s.apiVersion(), metadata: { name, uid: created.metadata.uid } });
      stored = created;
    },
  );

  check(
    {
      title: "the server sets metadata: the namespace, a fresh random uid and the creation time, whatever the body said",
      rules: ["doc1.fields.namespace-set", "doc1.fields.uid-unique", "doc1.fields.creation-timestamp"],
    },
    async () => {
      const { session, ns } = suite;
      const first = await storedObject();
      expect(first.metadata.namespace).toBe(ns);
      // A uid and creationTimestamp in the body are not kept: the server fills both (FillObjectMetaSystemFields).
      const body = s.make(ns, uniqueName("meta"));
      const second = await session.client.create(s.type(), ns, {
        ...body,
        metadata: { ...body.metadata, uid: first.metadata.uid, creationTimestamp: "2001-02-03T04:05:06Z" },
      });
      expect(second.metadata.namespace).toBe(ns);
      expect(second.metadata.uid, "uid is set by the server").toMatch(UUID);
      expect(first.metadata.uid).toMatch(UUID);
      expect(second.metadata.uid, "each object has its own uid").not.toBe(first.metadata.uid);
      for (const o of [first, second]) expect(o.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(second.metadata.creationTimestamp, "the creation time is the server's").not.toBe("2001-02-03T04:05:06Z");
      expect(Date.parse(second.metadata.creationTimestamp as string)).toBeGreaterThanOrEqual(Date.parse(first.metadata.creationTimestamp as string));
    },
  );

  check(
    { title: "get is a GET of the resource path and answers with that one object", rules: ["doc1.verbs.get-single", "doc1.paths.get-namespaced"] },
    async () => {
      const { session, ns } = suite;
      const o = await storedObject();
      const res = await session.client.raw("GET", `${collection(ns)}/${nameOf(o)}`);
      expect(res.code).toBe(200);
      expect(res.json).toEqual(o);
    },
  );

  check(
    {
      title: "list is a GET of the collection path and answers with a <Kind>List, never the bare List",
      rules: ["doc1.verbs.list-collection", "doc1.paths.list-namespaced", "doc1.fields.list-kind-suffix", "doc1.fields.no-list-kind"],
    },
    async () => {
      const { session, ns } = suite;
      const t = s.type();
      const o = await storedObject();
      // An object of another namespace, so that a list which ignores the namespace shows.
      const other = await session.createNamespace("crud");
      const outside = await session.client.create(t, other, s.make(other, uniqueName("outside")));
      const res = await session.client.raw("GET", collection(ns));
      expect(res.code).toBe(200);
      const list = res.json as { kind: string; apiVersion: string; items: KubeObject[] };
      expect(list.kind).toBe(`${t.kind}List`);
      expect(list.kind, "there is no kind named List").not.toBe("List");
      expect(list.apiVersion).toBe(s.apiVersion());
      const mine = list.items.find((i) => i.metadata.name === nameOf(o));
      expect(mine?.metadata.uid).toBe(o.metadata.uid);
      expect(
        list.items.every((i) => i.metadata.namespace === ns),
        "only the namespace's objects",
      ).toBe(true);
      expect(
        list.items.map((i) => i.metadata.uid),
        "not the object of the other namespace",
      ).not.toContain(outside.metadata.uid);
    },
  );

  check({ title: "a list carries its objects in an items array, written as [] when nothing matches", rules: ["doc1.fields.items-array"] }, async () => {
    const { session, ns } = suite;
    const o = await storedObject();
    const one = await session.client.raw("GET", collection(ns), { query: { fieldSelector: `metadata.name=${nameOf(o)}` } });
    expect((one.json as { items: KubeObject[] }).items.map((i) => i.metadata.uid)).toEqual([o.metadata.uid]);
    const none = await session.client.raw("GET", collection(ns), { query: { fieldSelector: "metadata.name=no-such-object" } });
    expect(none.code).toBe(200);
    expect(none.json).toHaveProperty("items", []);
  });

  check(
    {
      title: "update is a PUT to the resource path: 200, the same uid and creation time, and a new resourceVersion read back",
      rules: ["doc1.verbs.update-put-existing", "doc1.paths.replace-put-resource", "doc1.fields.rv-last-modified"],
    },
    async () => {
      const { session, ns } = suite;
      const t = s.type();
      const o = await storedObject();
      const current = await session.client.get(t, ns, nameOf(o));
      const res = await session.client.raw("PUT", `${collection(ns)}/${nameOf(o)}`, { body: s.change(current) });
      expect(res.code, "a PUT to an existing object is an update (200), not a create (201)").toBe(200);
      const updated = res.json as KubeObject;
      expect(updated).toMatchObject(s.changed);
      expect(updated.metadata.uid).toBe(current.metadata.uid);
      expect(updated.metadata.creationTimestamp).toBe(current.metadata.creationTimestamp);
      expect(updated.metadata.resourceVersion).not.toBe(current.metadata.resourceVersion);
      // The version of the last modification is what get and list report from now on.
      expect(await session.client.get(t, ns, nameOf(o))).toEqual(updated);
      const list = await session.client.list(t, ns, { fieldSelector: `metadata.name=${nameOf(o)}` });
      expect(list.items.map((i) => i.metadata.resourceVersion)).toEqual([updated.metadata.resourceVersion]);
    },
  );

  check(
    { title: "PATCH is a method of the API too: a merge patch to the resource path updates the object", rules: ["doc1.service.crud-methods"] },
    async () => {
      const { session, ns } = suite;
      const o = await storedObject();
      const res = await session.client.raw("PATCH", `${collection(ns)}/${nameOf(o)}`, {
        body: { metadata: { annotations: { patched: "yes" } } },
        contentType: "application/merge-patch+json",
      });
      expect(res.code, res.text.slice(0, 300)).toBe(200);
      expect((res.json as KubeObject).metadata.annotations).toMatchObject({ patched: "yes" });
      expect((await session.client.get(s.type(), ns, nameOf(o))).metadata.annotations).toMatchObject({ patched: "yes" });
    },
  );

  check(
    {
      title: "delete is a DELETE of the resource path: it answers with a Success Status or the object, and removes that one object only",
      rules: ["doc1.verbs.delete-single", "doc1.paths.delete-resource", "doc1.paths.response-bodies", "doc1.verbs.single-resource-verbs"],
    },
    async () => {
      const { session, ns } = suite;
      const t = s.type();
      const kept = await session.client.get(t, ns, nameOf(await storedObject()));
      const name = uniqueName("del");
      const created = await session.client.create(t, ns, s.make(ns, name));
      const res = await session.client.raw("DELETE", `${collection(ns)}/${name}`);
      expect(res.code).toBe(200);
      const body = res.json as { kind?: string; status?: string; details?: { name?: string; uid?: string } };
      if (body.kind === "Status") {
        expect(body.status).toBe("Success");
        expect(body.details?.name).toBe(name);
        expect(body.details?.uid).toBe(created.metadata.uid);
      } else {
        expect(body.kind).toBe(t.kind);
      }
      const err = await expectFailure(session.client.get(t, ns, name), 404);
      expect(err.status?.reason).toBe("NotFound");
      // The other object of the namespace is untouched.
      expect(await session.client.get(t, ns, nameOf(kept))).toEqual(kept);
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
});

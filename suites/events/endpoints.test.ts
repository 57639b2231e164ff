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

/** Each Event operation, and the rule that it answers 401 to an unauthenticated caller. */
const UNAUTHENTICATED = [
  { op: "get", rule: "doc2.endpoints.get-401" },
  { op: "namespaced list", rule: "doc2.endpoints.list-ns-401" },
  { op: "all-namespaces list", rule: "doc2.endpoints.list-all-401" },
  { op: "create", rule: "doc2.endpoints.create-401" },
  { op: "update", rule: "doc2.endpoints.update-401" },
  { op: "patch", rule: "doc2.endpoints.patch-401" },
  { op: "delete", rule: "doc2.endpoints.delete-401" },
  { op: "deletecollection", rule: "doc2.endpoints.deletecollection-401" },
] as const;

describe("Event endpoints", () => {
  // One Event for the get tests, made on first use.
  let gotten: Promise<KubeObject> | undefined;
  const oneEvent = (): Promise<KubeObject> => (gotten ??= make());

  check(
    {
      title: "get: a GET of /apis/events.<domain>/v1/namespaces/<namespace>/events/<name> answers 200 with that Event, and only in its namespace",
      rules: ["doc2.endpoints.get-path", "doc2.endpoints.get-params", "doc2.endpoints.get-200"],
    },
    async () => {
      const { session, ns } = suite;
      const made = await oneEvent();
      const name = made.metadata.name as string;
      const res = await session.client.raw("GET", `/apis/${group()}/v1/namespaces/${ns}/events/${name}`);
      expect(res.code).toBe(200);
      expect(res.json).toEqual(made);
      // The namespace is part of what names the Event: the same name elsewhere is not found.
      const other = await session.client.raw("GET", `/apis/${group()}/v1/namespaces/default/events/${name}`);
      expect(other.code).toBe(404);
      expect(other.json).toMatchObject({ kind: "Status", reason: "NotFound", message: `events.${group()} "${name}" not found`, details: { kind: "events" } });
    },
  );

  check(
    { title: "pretty=true indents the Event with two spaces and no trailing newline; pretty=false does not", rules: ["doc2.endpoints.pretty-string"] },
    async () => {
      const { session, ns } = suite;
      const made = await oneEvent();
      const path = resourcePath(t(), ns, made.metadata.name as string);
      const pretty = await session.client.raw("GET", path, { query: { pretty: "true" } });
      expect(pretty.text).toMatch(/^\{\n {2}"kind": "Event",\n/);
      expect(pretty.text.endsWith("}"), "no trailing newline").toBe(true);
      expect(JSON.parse(pretty.text)).toEqual(made);
      const plain = await session.client.raw("GET", path, { query: { pretty: "false" } });
      expect(plain.text).not.toMatch(/\n {2}"/);
      expect(plain.json).toEqual(made);
    },
  );

  check(
    {
      title: "Events are namespaced, served as apiVersion events.<domain>/v1 kind Event, as discovery says too",
      rules: ["doc2.service.api-version-kind", "doc2.service.namespaced"],
    },
    async () => {
      const { session, ns } = suite;
      const made = await oneEvent();
      expect(made).toMatchObject({ apiVersion: `${group()}/v1`, kind: "Event", metadata: { namespace: ns } });
      const disco = await session.client.raw("GET", `/apis/${group()}/v1`);
      expect(disco.code).toBe(200);
      const events = (disco.json as { resources?: { name: string }[] }).resources?.find((r) => r.name === "events");
      expect(events).toMatchObject({ kind: "Event", namespaced: true, singularName: "event", shortNames: ["ev"] });
    },
  );

  // A namespace of its own holding the Events a, b and c, for the list tests; made on first use.
  const names = ["a", "b", "c"];
  let listNs: Promise<string> | undefined;
  const withThree = (): Promise<string> =>
    (listNs ??= (async () => {
      const ns = await suite.session.createNamespace("event-endpoints");
      for (const n of names) await make(ns, n);
      return ns;
    })());
  const itemNames = (res: ApiResponse): string[] => (res.json as KubeList).items.map((i) => i.metadata.name ?? "");

  check(
    {
      title: "namespaced list: GET /apis/events.<domain>/v1/namespaces/<namespace>/events answers 200 with that namespace's Events",
      rules: ["doc2.endpoints.list-ns-path", "doc2.endpoints.list-ns-200"],
    },
    async () => {
      const { session } = suite;
      const ns = await withThree();
      const whole = await session.client.raw("GET", `/apis/${group()}/v1/namespaces/${ns}/events`);
      expect(whole.code).toBe(200);
      expect(whole.json).toMatchObject({ kind: "EventList", apiVersion: `${group()}/v1` });
      expect(itemNames(whole)).toEqual(names);
      for (const i of (whole.json as KubeList).items) expect(i.metadata.namespace).toBe(ns);
    },
  );

  check({ title: "namespaced list: limit and continue page the Events of the namespace", rules: ["doc2.endpoints.list-ns-params"] }, async () => {
    const { session } = suite;
    const ns = await withThree();
    const path = `/apis/${group()}/v1/namespaces/${ns}/events`;
    const first = await session.client.raw("GET", path, { query: { limit: 2 } });
    expect(itemNames(first)).toEqual(["a", "b"]);
    const rest = await session.client.raw("GET", path, { query: { limit: 2, continue: (first.json as KubeList).metadata.continue ?? "", pretty: "false" } });
    expect(rest.code).toBe(200);
    expect(itemNames(rest)).toEqual(["c"]);
  });

  check(
    {
      title: "all-namespaces list: GET /apis/events.<domain>/v1/events answers 200 with the Events of every namespace",
      rules: ["doc2.endpoints.list-all-path", "doc2.endpoints.list-all-200"],
    },
    async () => {
      const { session } = suite;
      const ns = await withThree();
      const elsewhere = await oneEvent();
      const all = await session.client.raw("GET", `/apis/${group()}/v1/events`, { query: { limit: 500 } });
      expect(all.code).toBe(200);
      expect(all.json).toMatchObject({ kind: "EventList", apiVersion: `${group()}/v1` });
      const keys = (all.json as KubeList).items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
      expect(keys).toEqual(expect.arrayContaining([...names.map((n) => `${ns}/${n}`), `${suite.ns}/${elsewhere.metadata.name}`]));
    },
  );

  check({ title: "all-namespaces list: limit and continue page across namespaces too", rules: ["doc2.endpoints.list-all-params"] }, async () => {
    const { session } = suite;
    const ns = await withThree();
    const path = `/apis/${group()}/v1/events`;
    // Paged, narrowed to the list namespace: limit and continue apply across namespaces too.
    const first = await session.client.raw("GET", path, { query: { fieldSelector: `metadata.namespace=${ns}`, limit: 2 } });
    expect(itemNames(first)).toEqual(["a", "b"]);
    const rest = await session.client.raw("GET", path, {
      query: { fieldSelector: `metadata.namespace=${ns}`, limit: 2, continue: (first.json as KubeList).metadata.continue ?? "" },
    });
    expect(rest.code).toBe(200);
    expect(itemNames(rest)).toEqual(["c"]);
  });

  check(
    {
      title: "an EventList: kind EventList, the collection metadata of doc1, and items always there, [] when empty",
      rules: ["doc2.service.list-kind", "doc2.list.items-required", "doc2.list.standard-metadata"],
    },
    async () => {
      const { session } = suite;
      const ns = await withThree();
      const paged = await session.client.list(t(), ns, { limit: 2 });
      expect(paged).toMatchObject({ kind: "EventList", apiVersion: `${group()}/v1` });
      expect(paged.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
      expect(paged.metadata.continue, "a paged list carries continue").toBeTruthy();
      expect(paged.metadata.remainingItemCount).toBe(1);
      // Items are Events (list items carry no kind of their own): this namespace's, with the Event fields.
      for (const i of paged.items) expect(i).toMatchObject({ metadata: { namespace: ns }, reportingController: "tollgate.dev/conformance", action: "Check" });
      const empty = await session.client.raw("GET", resourcePath(t(), await session.createNamespace("event-endpoints")));
      expect(empty.json).toMatchObject({ kind: "EventList", items: [] });
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
      title: "create: a POST of an Event to /apis/events.<domain>/v1/namespaces/<namespace>/events answers 201 with the Event as stored",
      rules: ["doc2.endpoints.create-path", "doc2.endpoints.create-success"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("cr");
      const res = await session.client.raw("POST", `/apis/${group()}/v1/namespaces/${ns}/events`, { body: event(session.types, ns, name) });
      expect(res.code).toBe(201);
      // The answer is the Event as stored: with the uid, resourceVersion and creationTimestamp the server gave it.
      const created = res.json as KubeObject;
      expect(created).toMatchObject({ kind: "Event", apiVersion: `${group()}/v1`, metadata: { name, namespace: ns } });
      expect(created.metadata.uid, "uid").toMatch(/^[0-9a-f-]{36}$/);
      expect(created.metadata.resourceVersion, "resourceVersion").toMatch(/^[1-9]\d*$/);
      expect(created.metadata.creationTimestamp, "creationTimestamp").toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(await session.client.get(t(), ns, name)).toEqual(created);
    },
  );

  check({ title: "create with dryRun=All answers as a create would and stores nothing", rules: ["doc2.endpoints.create-params"] }, async () => {
    const { session, ns } = suite;
    const name = uniqueName("cr");
    const dry = await session.client.raw("POST", resourcePath(t(), ns), { body: event(session.types, ns, name), query: { dryRun: "All", pretty: "true" } });
    expect([200, 201]).toContain(dry.code);
    expect(dry.json).toMatchObject({ kind: "Event", metadata: { name, namespace: ns } });
    expect((await session.client.raw("GET", resourcePath(t(), ns, name))).code).toBe(404);
  });

  check({ title: "an Event has no metadata.generation: not after create, not after update", rules: ["doc2.event.generation-unset"] }, async () => {
    const { session, ns } = suite;
    const made = await make();
    expect(made.metadata.generation).toBeUndefined();
    const name = made.metadata.name as string;
    const res = await session.client.raw("PUT", resourcePath(t(), ns, name), { body: { ...made, metadata: { ...made.metadata, labels: { changed: "yes" } } } });
    expect(res.code).toBe(200);
    expect((res.json as KubeObject).metadata.generation).toBeUndefined();
    expect((await session.client.get(t(), ns, name)).metadata.generation).toBeUndefined();
  });

  // One Event for the update tests, made on first use.
  let updated: Promise<KubeObject> | undefined;
  const toUpdate = (): Promise<KubeObject> => (updated ??= make());

  check(
    {
      title: "update: a PUT of the Event to /apis/events.<domain>/v1/namespaces/<namespace>/events/<name> answers 200 with the Event as stored",
      rules: ["doc2.endpoints.update-path", "doc2.endpoints.update-success"],
    },
    async () => {
      const { session, ns } = suite;
      const made = await toUpdate();
      const name = made.metadata.name as string;
      const path = `/apis/${group()}/v1/namespaces/${ns}/events/${name}`;
      const labelled = { ...made, metadata: { ...made.metadata, labels: { seen: "1" } } };
      const res = await session.client.raw("PUT", path, { body: labelled });
      expect(res.code).toBe(200);
      expect(res.json).toMatchObject({ kind: "Event", metadata: { name, uid: made.metadata.uid, labels: { seen: "1" } } });
      expect(await session.client.get(t(), ns, name)).toEqual(res.json);
    },
  );

  check({ title: "update with dryRun=All answers as the update would and stores nothing", rules: ["doc2.endpoints.update-params"] }, async () => {
    const { session, ns } = suite;
    const made = await make();
    const name = made.metadata.name as string;
    const labelled = { ...made, metadata: { ...made.metadata, labels: { seen: "1" } } };
    const dry = await session.client.raw("PUT", resourcePath(t(), ns, name), { body: labelled, query: { dryRun: "All", pretty: "true" } });
    expect(dry.code).toBe(200);
    expect(dry.json).toMatchObject({ kind: "Event", metadata: { name, uid: made.metadata.uid, labels: { seen: "1" } } });
    expect(await session.client.get(t(), ns, name)).toEqual(made);
  });

  check(
    { title: "a PUT without resourceVersion is an unconditional update: it applies over a change made since", rules: ["doc2.endpoints.update-unconditional"] },
    async () => {
      const { session, ns } = suite;
      const made = await toUpdate();
      const name = made.metadata.name as string;
      const stale = await session.client.get(t(), ns, name);
      await session.client.patch(t(), ns, name, { metadata: { annotations: { between: "yes" } } });
      const path = resourcePath(t(), ns, name);
      const body = { ...stale, metadata: { ...stale.metadata, labels: { unconditional: "yes" } } };
      // With the stale version the PUT conflicts; without one it is applied.
      expect((await session.client.raw("PUT", path, { body })).code).toBe(409);
      const { resourceVersion: _rv, ...metaWithoutRv } = body.metadata;
      const res = await session.client.raw("PUT", path, { body: { ...body, metadata: metaWithoutRv } });
      expect(res.code, res.text.slice(0, 300)).toBe(200);
      expect((res.json as KubeObject).metadata.labels).toEqual({ unconditional: "yes" });
      expect((await session.client.get(t(), ns, name)).metadata.labels).toEqual({ unconditional: "yes" });
    },
  );

  check({ title: "a PUT to a missing Event name creates it: 201, and it is stored", rules: ["doc2.endpoints.update-creates-missing"] }, async () => {
    const { session, ns } = suite;
    const fresh = uniqueName("put");
    const created = await session.client.raw("PUT", resourcePath(t(), ns, fresh), { body: event(session.types, ns, fresh) });
    expect(created.code, created.text.slice(0, 300)).toBe(201);
    const body = created.json as KubeObject;
    expect(body).toMatchObject({ kind: "Event", metadata: { name: fresh, namespace: ns } });
    expect(await session.client.get(t(), ns, fresh)).toEqual(body);
  });

  check(
    {
      title: "delete: a DELETE of /apis/events.<domain>/v1/namespaces/<namespace>/events/<name> answers 200 with the Success Status naming the Event",
      rules: ["doc2.endpoints.delete-path", "doc2.endpoints.delete-success", "doc2.endpoints.status-shape"],
    },
    async () => {
      const { session, ns } = suite;
      const made = await make();
      const name = made.metadata.name as string;
      const res = await session.client.raw("DELETE", `/apis/${group()}/v1/namespaces/${ns}/events/${name}`);
      expect(res.code).toBe(200);
      expect(res.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { name, group: group(), kind: "events", uid: made.metadata.uid },
      });
      expect((await session.client.raw("GET", resourcePath(t(), ns, name))).code).toBe(404);
    },
  );

  check({ title: "delete with dryRun=All answers as the delete would and keeps the Event", rules: ["doc2.endpoints.delete-params"] }, async () => {
    const { session, ns } = suite;
    const made = await make();
    const name = made.metadata.name as string;
    const dry = await session.client.raw("DELETE", resourcePath(t(), ns, name), { query: { dryRun: "All", pretty: "true" } });
    expect(dry.code).toBe(200);
    expect(dry.json).toMatchObject({ kind: "Status", status: "Success", details: { name, uid: made.metadata.uid } });
    expect(await session.client.get(t(), ns, name)).toEqual(made);
  });

  // A namespace of its own holding the Events keep, drop-1 and drop-2, labelled with their fate.
  const withFates = async (): Promise<string> => {
    const { session } = suite;
    const ns = await session.createNamespace("event-endpoints");
    for (const n of ["keep", "drop-1", "drop-2"]) {
      await session.client.create(t(), ns, {
        ...event(session.types, ns, n),
        metadata: { name: n, namespace: ns, labels: { fate: n.startsWith("drop") ? "drop" : "keep" } },
      });
    }
    return ns;
  };

  check({ title: "deletecollection with dryRun=All answers as it would and removes none", rules: ["doc2.endpoints.deletecollection-params"] }, async () => {
    const { session } = suite;
    const ns = await withFates();
    const dry = await session.client.raw("DELETE", resourcePath(t(), ns), { query: { labelSelector: "fate=drop", dryRun: "All", pretty: "true" } });
    expect(dry.code).toBe(200);
    expect(itemNames(dry)).toEqual(["drop-1", "drop-2"]);
    expect((await session.client.list(t(), ns)).items.map((i) => i.metadata.name)).toEqual(["drop-1", "drop-2", "keep"]);
  });

  check(
    {
      title: "deletecollection: a DELETE of /apis/events.<domain>/v1/namespaces/<namespace>/events answers 200 and removes the selected Events only",
      rules: [
        "doc2.endpoints.deletecollection-path",
        "doc2.endpoints.deletecollection-200",
        "doc1.verbs.deletecollection",
        "doc1.paths.deletecollection-collection",
      ],
    },
    async () => {
      const { session } = suite;
      const ns = await withFates();
      const res: ApiResponse = await session.client.raw("DELETE", `/apis/${group()}/v1/namespaces/${ns}/events`, { query: { labelSelector: "fate=drop" } });
      expect(res.code).toBe(200);
      // The answer is what the generic registry's DeleteCollection returns: the list of the deleted Events.
      expect(res.json).toMatchObject({ kind: "EventList", apiVersion: `${group()}/v1` });
      expect(itemNames(res)).toEqual(["drop-1", "drop-2"]);
      const left: KubeList = await session.client.list(t(), ns);
      expect(left.items.map((i) => i.metadata.name)).toEqual(["keep"]);
    },
  );

  check(
    {
      title: "deletecollection with limit deletes one page and answers it with a continue token; continue deletes the next page",
      rules: ["doc2.endpoints.deletecollection-params"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("event-endpoints");
      for (const n of ["p1", "p2", "p3"]) await make(ns, n);
      const path = resourcePath(t(), ns);
      const first = await session.client.raw("DELETE", path, { query: { limit: 2 } });
      expect(first.code).toBe(200);
      expect(itemNames(first)).toEqual(["p1", "p2"]);
      const token = (first.json as KubeList).metadata.continue;
      expect(token, "the page's continue token").toBeTruthy();
      expect((await session.client.list(t(), ns)).items.map((i) => i.metadata.name)).toEqual(["p3"]);
      const rest = await session.client.raw("DELETE", path, { query: { limit: 2, continue: token ?? "" } });
      expect(rest.code).toBe(200);
      expect(itemNames(rest)).toEqual(["p3"]);
      expect((rest.json as KubeList).metadata.continue ?? "").toBe("");
      expect((await session.client.list(t(), ns)).items).toEqual([]);
    },
  );

  // One Event for the 401 tests, made on first use.
  let target: Promise<KubeObject> | undefined;
  const forStrangers = (): Promise<KubeObject> => (target ??= make());
  for (const c of UNAUTHENTICATED) {
    check({ title: `${c.op} answers 401 Unauthorized to a caller with an invalid token`, rules: [c.rule], needs: ["authentication"] }, async () => {
      const { session, ns } = suite;
      const name = (await forStrangers()).metadata.name as string;
      const body = event(session.types, ns, name);
      const calls: Record<(typeof UNAUTHENTICATED)[number]["op"], [string, string, unknown, string?]> = {
        get: ["GET", resourcePath(t(), ns, name), undefined],
        "namespaced list": ["GET", resourcePath(t(), ns), undefined],
        "all-namespaces list": ["GET", resourcePath(t(), undefined), undefined],
        create: ["POST", resourcePath(t(), ns), body],
        update: ["PUT", resourcePath(t(), ns, name), body],
        patch: ["PATCH", resourcePath(t(), ns, name), {}, "application/merge-patch+json"],
        delete: ["DELETE", resourcePath(t(), ns, name), undefined],
        deletecollection: ["DELETE", resourcePath(t(), ns), undefined],
      };
      const [method, path, b, ct] = calls[c.op];
      const stranger = new ApiClient(asIdentity(session.settings.target, "tollgate-invalid-token"), { suite: "event-endpoints" });
      try {
        const res = await stranger.raw(method, path, { body: b, contentType: ct });
        expect(res.code, `${method} ${path}`).toBe(401);
        expect(res.json).toMatchObject({ kind: "Status", status: "Failure", reason: "Unauthorized", code: 401 });
      } finally {
        await stranger.close();
      }
      // Nothing the stranger asked for happened.
      expect((await session.client.get(t(), ns, name)).metadata.name).toBe(name);
    });
  }
});

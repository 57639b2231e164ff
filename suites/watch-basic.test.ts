/** doc1 "Events" and "Resource version semantics for watch": what a watch reports, in order. */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse } from "../lib/harness/client.js";
import { resourcePath } from "../lib/harness/resources.js";
import { openWatch } from "../lib/harness/watch.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("watch-basic");

describe("watch", () => {
  check(
    {
      title: "watch=1 on one object's path: a watch of that object alone (doc1), or the object itself (a real server ignores it there)",
      rules: ["doc1.query.watch-resource-path"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("one");
      const made = await session.client.create(t, ns, configMap(session.types, ns, name, { a: "1" }));
      const path = resourcePath(t, ns, name);
      // A plain answer comes at once; a watch stays open, so only running out of time means "a stream" here.
      const signal = AbortSignal.timeout(3_000);
      let plain: ApiResponse | undefined;
      try {
        plain = await session.client.raw("GET", path, { query: { watch: "1", resourceVersion: made.metadata.resourceVersion ?? "" }, signal });
      } catch (e) {
        if (!signal.aborted) throw e;
      }
      if (plain && plain.code === 200 && (plain.json as { kind?: string } | undefined)?.kind === "ConfigMap") {
        expect(plain.json, "the object, as a plain GET answers").toEqual(made);
        return;
      }
      // Otherwise it must be a watch of this object only.
      const w = await openWatch(session.client, path, { watch: "1", resourceVersion: made.metadata.resourceVersion });
      try {
        await session.client.create(t, ns, configMap(session.types, ns, uniqueName("other")));
        const changed = await session.client.update(t, ns, { ...made, data: { a: "2" } });
        const ev = await w.next(10_000);
        expect(ev?.type, "the other object's ADDED is not reported").toBe("MODIFIED");
        expect(ev?.object.metadata.name).toBe(name);
        expect(ev?.object.metadata.resourceVersion).toBe(changed.metadata.resourceVersion);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title:
        "a watch from a version reports create, update and delete after it, in order: ADDED and MODIFIED with the full object, DELETED with its last state",
      rules: ["doc1.watch-events.reports-all-outcomes", "doc1.watch-events.added", "doc1.watch-events.modified", "doc1.watch-events.deleted-type"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const start = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: start });
      try {
        const name = uniqueName("w");
        const created = await session.client.create(t, ns, configMap(session.types, ns, name, { a: "1" }));
        const updated = await session.client.update(t, ns, { ...created, data: { a: "2" } });
        await session.client.delete(t, ns, name);
        const events = await w.take(3);
        expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
          ["ADDED", name],
          ["MODIFIED", name],
          ["DELETED", name],
        ]);
        expect(events[0]?.object, "ADDED carries the object as created").toEqual(created);
        expect(events[1]?.object, "MODIFIED carries the object as updated").toEqual(updated);
        // DELETED: the last state (same uid and data) at the deletion's new version (wire-facts §2, §5).
        const deleted = events[2]?.object;
        expect(deleted?.metadata.uid).toBe(created.metadata.uid);
        expect(deleted?.data).toEqual({ a: "2" });
        expect(
          compareResourceVersions(deleted?.metadata.resourceVersion ?? "", updated.metadata.resourceVersion ?? ""),
          "DELETED carries the deletion's new version",
        ).toBeGreaterThan(0);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "watching one object (by name) is a stream that stays open and notifies each change with a known event type",
      rules: ["doc1.service.watch", "doc1.watch-event.type-values"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("one");
      const start = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await openWatch(session.client, resourcePath(t, ns), { watch: "1", resourceVersion: start, fieldSelector: `metadata.name=${name}` });
      try {
        expect(w.contentType).toMatch(/^application\/json/);
        await session.client.create(t, ns, configMap(session.types, ns, uniqueName("other")));
        const created = await session.client.create(t, ns, configMap(session.types, ns, name, { a: "1" }));
        const first = await w.next(10_000);
        await session.client.update(t, ns, { ...created, data: { a: "2" } });
        const second = await w.next(10_000);
        expect([first?.type, second?.type], "only this object's changes, typed").toEqual(["ADDED", "MODIFIED"]);
        for (const e of [first, second]) expect(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]).toContain(e?.type);
        expect(second?.object.data).toEqual({ a: "2" });
        expect(w.ended, "the stream is still open").toBe(false);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "a watch without a version starts with a synthetic ADDED for each existing object",
      rules: ["doc1.watch-rv.unset-state-most-recent", "doc1.watch-rv.most-recent-initial-added", "doc1.watch-events.added"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("watch-basic");
      const t = session.types.configmaps;
      // What the cluster's controllers put there (a real cluster's kube-root-ca.crt) exists too.
      const before = (await session.client.list(t, ns)).items.map((i) => i.metadata.name ?? "");
      const names = [uniqueName("pre"), uniqueName("pre"), ...before];
      for (const n of names.slice(0, 2)) await session.client.create(t, ns, configMap(session.types, ns, n));
      const w = await session.client.watch(t, ns);
      try {
        const initial = await w.take(names.length);
        expect(initial.map((e) => e.type)).toEqual(names.map(() => "ADDED"));
        expect(initial.map((e) => e.object.metadata.name).sort()).toEqual([...names].sort());
        const later = uniqueName("post");
        await session.client.create(t, ns, configMap(session.types, ns, later));
        const next = await w.next();
        expect([next?.type, next?.object.metadata.name]).toEqual(["ADDED", later]);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "a watch from the current version sends no synthetic events",
      rules: ["doc1.watch-rv.other-start-exact", "doc1.watch-rv.exact-no-initial"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      await session.client.create(t, ns, configMap(session.types, ns, uniqueName("old")));
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: rv });
      try {
        const fresh = uniqueName("new");
        await session.client.create(t, ns, configMap(session.types, ns, fresh));
        const first = await w.next();
        expect([first?.type, first?.object.metadata.name]).toEqual(["ADDED", fresh]);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "watch events carry full objects of the watched kind",
      rules: ["doc1.watch-event.object-kind", "doc1.watch-event.type-and-object", "doc1.watch-events.stream-documents"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.events;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: rv });
      try {
        const { event } = await import("../fixtures/objects.js");
        const name = uniqueName("ev");
        await session.client.create(t, ns, event(session.types, ns, name, "watched"));
        const ev = await w.next();
        expect(ev?.type).toBe("ADDED");
        expect(ev?.object).toMatchObject({ kind: "Event", apiVersion: `events.${session.settings.spec.groupDomain}/v1`, note: "watched" });
        expect(w.contentType).toMatch(/^application\/json/);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "a GET of the collection path with watch=true is a watch; the same GET without it is a list",
      rules: ["doc1.verbs.watch-param", "doc1.query.watch-list-path"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const plain = await session.client.raw("GET", resourcePath(t, ns));
      expect(plain.json).toMatchObject({ kind: "ConfigMapList" });
      const rv = (plain.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const w = await openWatch(session.client, resourcePath(t, ns), { watch: "true", resourceVersion: rv });
      try {
        const name = uniqueName("param");
        await session.client.create(t, ns, configMap(session.types, ns, name));
        const ev = await w.next(10_000);
        expect([ev?.type, ev?.object.metadata.name]).toEqual(["ADDED", name]);
      } finally {
        w.close();
      }
    },
  );
});

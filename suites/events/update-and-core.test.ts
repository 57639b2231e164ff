/**
 * Event updates (wire-facts §7: only series and metadata may change), PATCH on Events, and
 * the core v1 view of the same stored Events with its field mapping.
 */
import { describe, expect } from "vitest";
import { event, microTime } from "../../fixtures/objects.js";
import type { KubeObject } from "../../lib/harness/objects.js";
import { resourcePath } from "../../lib/harness/resources.js";
import type { RuleId } from "../../lib/spec/catalog.js";
import { check, uniqueName, useSuite } from "../support/conformance.js";

const suite = useSuite("event-updates");
type Obj = Record<string, unknown>;

const t = () => suite.session.types.events;

async function fresh(): Promise<KubeObject> {
  return suite.session.client.create(t(), suite.ns, event(suite.session.types, suite.ns, uniqueName("upd")));
}

const immutable: { field: string; internal: string; rule: RuleId; change: (e: KubeObject) => Obj }[] = [
  {
    field: "regarding",
    internal: "involvedObject",
    rule: "doc2.event.immutable-regarding",
    change: (e) => ({ ...e, regarding: { ...(e.regarding as Obj), name: "someone-else" } }),
  },
  {
    field: "related",
    internal: "related",
    rule: "doc2.event.immutable-related",
    change: (e) => ({ ...e, related: { kind: "Pod", name: "p", namespace: suite.ns } }),
  },
  { field: "reason", internal: "reason", rule: "doc2.event.immutable-reason", change: (e) => ({ ...e, reason: "Changed" }) },
  { field: "note", internal: "message", rule: "doc2.event.immutable-note", change: (e) => ({ ...e, note: "changed note" }) },
  { field: "action", internal: "action", rule: "doc2.event.immutable-action", change: (e) => ({ ...e, action: "Changed" }) },
  { field: "type", internal: "type", rule: "doc2.event.immutable-type", change: (e) => ({ ...e, type: "Warning" }) },
  {
    field: "eventTime",
    internal: "eventTime",
    rule: "doc2.event.immutable-event-time",
    change: (e) => ({ ...e, eventTime: microTime(new Date(Date.now() - 3_600_000)) }),
  },
  {
    field: "reportingController",
    internal: "reportingController",
    rule: "doc2.event.immutable-reporting-controller",
    change: (e) => ({ ...e, reportingController: "tollgate.dev/other" }),
  },
  {
    field: "reportingInstance",
    internal: "reportingInstance",
    rule: "doc2.event.immutable-reporting-instance",
    change: (e) => ({ ...e, reportingInstance: "other-1" }),
  },
  {
    field: "deprecatedSource",
    internal: "source",
    rule: "doc2.event.immutable-deprecated-source",
    change: (e) => ({ ...e, deprecatedSource: { component: "c" } }),
  },
  {
    field: "deprecatedFirstTimestamp",
    internal: "firstTimestamp",
    rule: "doc2.event.immutable-deprecated-first-timestamp",
    change: (e) => ({ ...e, deprecatedFirstTimestamp: "2026-01-01T00:00:00Z" }),
  },
  {
    field: "deprecatedLastTimestamp",
    internal: "lastTimestamp",
    rule: "doc2.event.immutable-deprecated-last-timestamp",
    change: (e) => ({ ...e, deprecatedLastTimestamp: "2026-01-01T00:00:00Z" }),
  },
  { field: "deprecatedCount", internal: "count", rule: "doc2.event.immutable-deprecated-count", change: (e) => ({ ...e, deprecatedCount: 7 }) },
];

describe("Event updates", () => {
  for (const f of immutable) {
    check({ title: `${f.field} cannot change on update: 422 naming ${f.internal}`, rules: [f.rule] }, async () => {
      const { session, ns } = suite;
      const e = await fresh();
      const res = await session.client.raw("PUT", resourcePath(t(), ns, e.metadata.name), { body: f.change(e) });
      expect(res.code, res.text.slice(0, 300)).toBe(422);
      const causes = (res.json as { details?: { causes?: { field?: string; message?: string }[] } }).details?.causes ?? [];
      expect(causes.map((c) => c.field)).toContain(f.internal);
      expect(causes.find((c) => c.field === f.internal)?.message).toMatch(/field is immutable/);
      expect(await session.client.get(t(), ns, e.metadata.name as string)).toEqual(e);
    });
  }

  check(
    {
      title:
        "updates re-run the legacy rules: an events.k8s.io update with a 129-byte reason gets the length error besides the immutable one, a core v1 update emptying action gets `Required value`",
      rules: ["doc2.event.update-legacy-rules"],
    },
    async () => {
      const { session, ns } = suite;
      type Cause = { field?: string; message?: string };
      const causesOf = (res: { json: unknown }): Cause[] => (res.json as { details?: { causes?: Cause[] } }).details?.causes ?? [];
      const e = await fresh();
      const long = await session.client.raw("PUT", resourcePath(t(), ns, e.metadata.name), { body: { ...e, reason: "r".repeat(129) } });
      expect(long.code, long.text.slice(0, 300)).toBe(422);
      const reasons = causesOf(long).filter((c) => c.field === "reason");
      expect(reasons.map((c) => c.message)).toContain('Invalid value: "": can have at most 128 characters');
      expect(reasons.some((c) => /field is immutable/.test(c.message ?? ""))).toBe(true);
      // core v1 has no immutable fields: what refuses this update is the legacy rule L7 alone.
      const core = (await session.client.get(session.types.coreEvents, ns, e.metadata.name as string)) as Obj;
      const empty = await session.client.raw("PUT", resourcePath(session.types.coreEvents, ns, e.metadata.name), { body: { ...core, action: "" } });
      expect(empty.code, empty.text.slice(0, 300)).toBe(422);
      expect(causesOf(empty).map((c) => [c.field, c.message])).toEqual([["action", "Required value"]]);
      // The same core v1 update with a valid action goes through: the refusal was about the rule.
      const fine = await session.client.raw("PUT", resourcePath(session.types.coreEvents, ns, e.metadata.name), { body: { ...core, action: "Renamed" } });
      expect(fine.code, fine.text.slice(0, 300)).toBe(200);
      expect(await session.client.get(t(), ns, e.metadata.name as string)).toMatchObject({ action: "Renamed", reason: e.reason });
    },
  );

  check(
    {
      title: "series and metadata may change; a changed series is validated",
      rules: ["doc2.event.update-mutable-fields", "doc2.event.update-series-checked-if-changed", "doc2.event.series-null-single"],
    },
    async () => {
      const { session, ns } = suite;
      const e = await fresh();
      expect(e.series, "a single event has no series").toBeUndefined();
      expect((await session.client.get(t(), ns, e.metadata.name as string)).series, "nor when read back").toBeUndefined();
      const ok = await session.client.raw("PUT", resourcePath(t(), ns, e.metadata.name), {
        body: { ...e, metadata: { ...e.metadata, labels: { l: "1" } }, series: { count: 2, lastObservedTime: microTime(new Date()) } },
      });
      expect(ok.code, ok.text.slice(0, 300)).toBe(200);
      const updated = ok.json as KubeObject;
      const bad = await session.client.raw("PUT", resourcePath(t(), ns, e.metadata.name), {
        body: { ...updated, series: { count: 1, lastObservedTime: microTime(new Date()) } },
      });
      expect(bad.code).toBe(422);
      expect(((bad.json as { details?: { causes?: { field?: string }[] } }).details?.causes ?? []).map((c) => c.field)).toContain("series.count");
    },
  );

  check(
    {
      title: "an invalid series stored through core v1 does not block an update that leaves it unchanged; changing it to another invalid series is refused",
      rules: ["doc2.event.update-series-checked-if-changed"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("bad-series");
      // core v1 runs only the legacy rules, so a series with count 1 (against C2) can be stored.
      const res = await session.client.raw("POST", resourcePath(session.types.coreEvents, ns), {
        body: {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name, namespace: ns },
          involvedObject: { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "subject" },
          reason: "Stored",
          message: "series stored through core",
          type: "Normal",
          eventTime: microTime(new Date()),
          series: { count: 1, lastObservedTime: microTime(new Date()) },
          action: "Check",
          reportingComponent: "tollgate.dev/conformance",
          reportingInstance: "tollgate-1",
        },
      });
      expect(res.code, res.text.slice(0, 300)).toBe(201);
      const e = await session.client.get(t(), ns, name);
      expect((e.series as { count?: number } | undefined)?.count).toBe(1);
      const path = resourcePath(t(), ns, name);
      const same = await session.client.raw("PUT", path, { body: { ...e, metadata: { ...e.metadata, labels: { touched: "yes" } } } });
      expect(same.code, `unchanged series count 1: ${same.text.slice(0, 300)}`).toBe(200);
      const updated = same.json as KubeObject;
      expect(updated.metadata.labels).toEqual({ touched: "yes" });
      const changed = await session.client.raw("PUT", path, {
        body: { ...updated, series: { count: 1, lastObservedTime: microTime(new Date(Date.now() + 1000)) } },
      });
      expect(changed.code, changed.text.slice(0, 300)).toBe(422);
      const causes = (changed.json as { details?: { causes?: { field?: string }[] } }).details?.causes ?? [];
      expect(causes.map((c) => c.field)).toEqual(["series.count"]);
      expect(await session.client.get(t(), ns, name)).toEqual(updated);
    },
  );

  check(
    { title: "the reporter sets the series cadence: back-to-back updates and any jump in count are accepted", rules: ["doc2.event.series-cadence-reporter"] },
    async () => {
      const { session, ns } = suite;
      let cur = await fresh();
      for (const count of [2, 3, 250, 251]) {
        const res = await session.client.raw("PUT", resourcePath(t(), ns, cur.metadata.name), {
          body: { ...cur, series: { count, lastObservedTime: microTime(new Date()) } },
        });
        expect(res.code, `series.count ${count} right after the previous update: ${res.text.slice(0, 300)}`).toBe(200);
        cur = res.json as KubeObject;
        expect((cur.series as { count?: number } | undefined)?.count).toBe(count);
      }
    },
  );

  check(
    {
      title: "PATCH an Event: merge-patch of its labels answers 200; force is only for apply (422); dryRun stores nothing",
      rules: ["doc2.endpoints.patch-path", "doc2.endpoints.patch-params", "doc2.endpoints.patch-success"],
    },
    async () => {
      const { session, ns } = suite;
      const e = await fresh();
      const path = resourcePath(t(), ns, e.metadata.name);
      const mp = (query?: Record<string, string>) =>
        session.client.raw("PATCH", path, {
          rawBody: JSON.stringify({ metadata: { labels: { patched: "yes" } } }),
          contentType: "application/merge-patch+json",
          query,
        });
      const dry = await mp({ dryRun: "All", pretty: "true" });
      expect(dry.code).toBe(200);
      expect((await session.client.get(t(), ns, e.metadata.name as string)).metadata.labels).toBeUndefined();
      const forced = await mp({ force: "true" });
      expect(forced.code).toBe(422);
      expect(forced.json).toMatchObject({
        reason: "Invalid",
        message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
        details: { group: "meta.k8s.io", kind: "PatchOptions", causes: [{ reason: "FieldValueForbidden", field: "force" }] },
      });
      const res = await mp();
      expect(res.code).toBe(200);
      expect((res.json as KubeObject).metadata.labels).toEqual({ patched: "yes" });
    },
  );
});

describe("the core v1 view of Events", () => {
  check(
    {
      title: "every field written in events.k8s.io reads back in core v1 under its core name, and none under the events.k8s.io name",
      rules: ["doc2.service.shared-with-core"],
    },
    async () => {
      const { session, ns } = suite;
      const written: KubeObject = {
        ...event(session.types, ns, uniqueName("to-core")),
        series: { count: 4, lastObservedTime: microTime(new Date()) },
        related: { apiVersion: "v1", kind: "Pod", namespace: ns, name: "secondary", uid: "rel-uid", fieldPath: "spec" },
        regarding: { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "subject", uid: "reg-uid", resourceVersion: "7", fieldPath: "data" },
      };
      const e = await session.client.create(t(), ns, written);
      const core = (await session.client.get(session.types.coreEvents, ns, e.metadata.name as string)) as Obj;
      expect(core).toMatchObject({
        kind: "Event",
        apiVersion: "v1",
        involvedObject: written["regarding"],
        related: written["related"],
        message: written["note"],
        reportingComponent: written["reportingController"],
        reportingInstance: written["reportingInstance"],
        action: written["action"],
        reason: written["reason"],
        type: written["type"],
        eventTime: written["eventTime"],
        series: written["series"],
      });
      // The deprecated fields were empty, so their core names are empty too.
      expect(core["source"] ?? {}).toEqual({});
      expect(core["firstTimestamp"] ?? null).toBeNull();
      expect(core["lastTimestamp"] ?? null).toBeNull();
      expect(core["count"] ?? 0).toBe(0);
      for (const k of [
        "regarding",
        "note",
        "reportingController",
        "deprecatedSource",
        "deprecatedFirstTimestamp",
        "deprecatedLastTimestamp",
        "deprecatedCount",
      ])
        expect(core, k).not.toHaveProperty(k);
      expect((core["metadata"] as Obj)["uid"]).toBe(e.metadata.uid);
      expect((core["metadata"] as Obj)["resourceVersion"]).toBe(e.metadata.resourceVersion);
    },
  );

  check(
    {
      title: "every field written in core v1 reads back in events.k8s.io under its events.k8s.io name, and none under the core name",
      rules: ["doc2.service.shared-with-core"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("from-core");
      const body = {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace: ns },
        involvedObject: {
          apiVersion: "v1",
          kind: "Pod",
          namespace: ns,
          name: "web-0",
          uid: "inv-uid",
          resourceVersion: "9",
          fieldPath: "spec.containers{web}",
        },
        related: { apiVersion: "v1", kind: "Node", name: "node-1" },
        reason: "FromCore",
        message: "written through core v1",
        source: { component: "kubelet", host: "node-1" },
        firstTimestamp: "2026-01-01T00:00:00Z",
        lastTimestamp: "2026-01-02T00:00:00Z",
        count: 5,
        type: "Warning",
        eventTime: microTime(new Date()),
        series: { count: 3, lastObservedTime: microTime(new Date()) },
        action: "Pulling",
        reportingComponent: "tollgate.dev/core-writer",
        reportingInstance: "core-1",
      };
      const res = await session.client.raw("POST", resourcePath(session.types.coreEvents, ns), { body });
      expect(res.code, res.text.slice(0, 300)).toBe(201);
      const got = (await session.client.get(t(), ns, name)) as Obj;
      expect(got).toMatchObject({
        kind: "Event",
        regarding: body.involvedObject,
        related: body.related,
        note: body.message,
        deprecatedSource: body.source,
        deprecatedFirstTimestamp: body.firstTimestamp,
        deprecatedLastTimestamp: body.lastTimestamp,
        deprecatedCount: body.count,
        reportingController: body.reportingComponent,
        reportingInstance: body.reportingInstance,
        action: body.action,
        reason: body.reason,
        type: body.type,
        eventTime: body.eventTime,
        series: body.series,
      });
      for (const k of ["involvedObject", "message", "source", "firstTimestamp", "lastTimestamp", "count", "reportingComponent"])
        expect(got, k).not.toHaveProperty(k);
      expect((got["metadata"] as Obj)["uid"]).toBe(((res.json as Obj)["metadata"] as Obj)["uid"]);
    },
  );

  check(
    {
      title:
        "the deprecated fields, written back through events.k8s.io (an update of a core v1 Event), read in core v1 under their core names: source, firstTimestamp, lastTimestamp, count",
      rules: ["doc2.service.shared-with-core"],
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("round");
      const deprecated = {
        source: { component: "kubelet", host: "node-2" },
        firstTimestamp: "2026-02-01T00:00:00Z",
        lastTimestamp: "2026-02-03T00:00:00Z",
        count: 9,
      };
      const made = await session.client.raw("POST", resourcePath(session.types.coreEvents, ns), {
        body: {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name, namespace: ns },
          involvedObject: { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "subject" },
          reason: "Round",
          message: "core, then events.k8s.io, then core",
          type: "Normal",
          ...deprecated,
        },
      });
      expect(made.code, made.text.slice(0, 300)).toBe(201);
      // events.k8s.io reads them under its own names and writes them back unchanged with the update.
      const viaEvents = await session.client.get(t(), ns, name);
      expect(viaEvents).toMatchObject({
        deprecatedSource: deprecated.source,
        deprecatedFirstTimestamp: deprecated.firstTimestamp,
        deprecatedLastTimestamp: deprecated.lastTimestamp,
        deprecatedCount: deprecated.count,
      });
      const updated = await session.client.raw("PUT", resourcePath(t(), ns, name), {
        body: { ...viaEvents, metadata: { ...viaEvents.metadata, labels: { via: "events" } } },
      });
      expect(updated.code, updated.text.slice(0, 300)).toBe(200);
      const core = (await session.client.get(session.types.coreEvents, ns, name)) as Obj;
      expect(core).toMatchObject({ ...deprecated, metadata: { labels: { via: "events" } } });
      for (const k of ["deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"]) expect(core, k).not.toHaveProperty(k);
    },
  );

  check(
    { title: "a 64 kB message written through core v1 reads back whole as the note", rules: ["doc2.event.note-readers-64kb", "doc2.service.shared-with-core"] },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("big");
      const message = "m".repeat(64 * 1024);
      const res = await session.client.raw("POST", resourcePath(session.types.coreEvents, ns), {
        body: {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name, namespace: ns },
          involvedObject: { kind: "ConfigMap", name: "subject", namespace: ns },
          reason: "Big",
          message,
          type: "Normal",
          source: { component: "tollgate" },
        },
      });
      expect(res.code, res.text.slice(0, 300)).toBe(201);
      const viaEvents = await session.client.get(t(), ns, name);
      expect(viaEvents.note).toBe(message);
      expect((viaEvents.note as string).length).toBe(65_536);
    },
  );
});

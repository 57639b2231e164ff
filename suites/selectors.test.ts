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
/** The ConfigMaps this suite made: a real cluster's namespace holds others too (kube-root-ca.crt). */
const OWN_CONFIGMAPS = new Set(["red-1", "red-2", "blue-1"]);
const ownNames = (items: KubeObject[]): string[] => names(items).filter((n) => OWN_CONFIGMAPS.has(n));

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
      expect(ownNames(l.items), sel).toEqual(want);
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
      expect(
        names((await session.client.list(session.types.configmaps, ns, { fieldSelector: "metadata.name!=red-2" })).items).filter((n) => OWN_CONFIGMAPS.has(n)),
      ).toEqual(["blue-1", "red-1"]);
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

  /** Three Events differing in every selectable field but the namespace; c is written through core v1 to carry a source component. */
  type SelEvent = { name: string; type: string; reason: string; controller: string; component: string; regarding: Record<string, string> };
  const selEvents = (ns: string): SelEvent[] => [
    {
      name: "sel-a",
      type: "Normal",
      reason: "ReasonA",
      controller: "tollgate.dev/sel-a",
      component: "",
      regarding: { apiVersion: "v1", kind: "Pod", namespace: "place-a", name: "web-a", uid: "uid-a", resourceVersion: "11", fieldPath: "spec.containers{a}" },
    },
    {
      name: "sel-b",
      type: "Warning",
      reason: "ReasonB",
      controller: "tollgate.dev/sel-b",
      component: "",
      regarding: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: "place-b",
        name: "web-b",
        uid: "uid-b",
        resourceVersion: "22",
        fieldPath: "spec.template",
      },
    },
    {
      // eventTime unset (legacy rules only), so regarding.namespace must be the Event's own (rule L2).
      name: "sel-c",
      type: "Other",
      reason: "ReasonC",
      controller: "tollgate.dev/sel-c",
      component: "kubelet-c",
      regarding: { apiVersion: "batch/v1", kind: "Job", namespace: ns, name: "web-c", uid: "uid-c", resourceVersion: "33", fieldPath: "spec.template.c" },
    },
  ];
  // The 13 labels of wire-facts §7, with what each reads from the model; `source` falls back to the reporting controller.
  const labels: [string, (e: SelEvent) => string][] = [
    ["metadata.name", (e) => e.name],
    ["reason", (e) => e.reason],
    ["type", (e) => e.type],
    ["reportingController", (e) => e.controller],
    ["source", (e) => e.component || e.controller],
    ...["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"].map((f): [string, (e: SelEvent) => string] => [
      `regarding.${f}`,
      (e) => e.regarding[f] ?? "",
    ]),
  ];

  check(
    {
      title: "Events select on each of the 13 accepted field labels, = and !=, with exactly the matching names returned",
      rules: ["doc2.endpoints.list-field-selectors"],
    },
    async () => {
      const { session } = suite;
      const t = session.types.events;
      const ns = await session.createNamespace("selectors");
      const model = selEvents(ns);
      for (const e of model) {
        if (e.component) {
          const res = await session.client.raw("POST", resourcePath(session.types.coreEvents, ns), {
            body: {
              apiVersion: "v1",
              kind: "Event",
              metadata: { name: e.name, namespace: ns },
              involvedObject: e.regarding,
              reason: e.reason,
              message: "selector case",
              type: e.type,
              source: { component: e.component },
              reportingComponent: e.controller,
            },
          });
          expect(res.code, res.text.slice(0, 300)).toBe(201);
        } else {
          const { reportingController: _c, ...base } = event(session.types, ns, e.name);
          await session.client.create(t, ns, { ...base, type: e.type, reason: e.reason, reportingController: e.controller, regarding: e.regarding });
        }
      }
      for (const [label, read] of labels) {
        for (const value of [...new Set(model.map(read)), "matches-nothing"]) {
          const eq = model.filter((e) => read(e) === value).map((e) => e.name);
          const ne = model.filter((e) => read(e) !== value).map((e) => e.name);
          expect(names((await session.client.list(t, ns, { fieldSelector: `${label}=${value}` })).items), `${label}=${value}`).toEqual(eq.sort());
          expect(names((await session.client.list(t, ns, { fieldSelector: `${label}!=${value}` })).items), `${label}!=${value}`).toEqual(ne.sort());
        }
      }
      // metadata.namespace, on the all-namespaces path where other namespaces hold Events too.
      const inNs = (sel: string) =>
        session.client
          .list(t, undefined, { fieldSelector: sel })
          .then((l) => l.items.filter((i) => i.metadata.namespace === ns).map((i) => i.metadata.name ?? ""));
      expect((await inNs(`metadata.namespace=${ns}`)).sort()).toEqual(model.map((e) => e.name).sort());
      expect(await inNs(`metadata.namespace=${suite.ns}`)).toEqual([]);
      const other = await session.client.list(t, undefined, { fieldSelector: `metadata.namespace=${suite.ns}` });
      expect(names(other.items)).toEqual(names((await session.client.list(t, suite.ns)).items));
      expect(names((await session.client.list(t, ns, { fieldSelector: `metadata.namespace!=${ns}` })).items)).toEqual([]);
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

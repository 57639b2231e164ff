/**
 * One cluster, several API servers (`tollgate run --replica URL`): writes go through one server,
 * reads and watches through another. A real cluster keeps doc1's rules whichever server a client
 * reaches, because every server reads and writes one storage and takes its revision as the
 * resourceVersion (wire-facts §21): a watch on any server reports every write of every server in
 * storage order with the version the writing server answered, a consistent read (no
 * resourceVersion: a quorum read, or the watch cache once it caught up with storage's current
 * revision) includes every write acknowledged before it, and optimistic concurrency is decided in
 * storage, not per server. Objects live in the suite's namespace, so the target's cleanup removes
 * them whichever server wrote them.
 */
import fc from "fast-check";
import { afterAll, describe, expect, inject } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { ApiClient } from "../lib/harness/client.js";
import { History, type WatcherRecord } from "../lib/harness/history.js";
import type { KubeObject } from "../lib/harness/objects.js";
import type { WatchStream } from "../lib/harness/watch.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, expectFailure, uniqueName, useSuite } from "./support/conformance.js";
import { checkHistory } from "./support/history-checker.js";
import { assertProperty } from "./support/properties.js";
import { applyWrite, readOwedEvents } from "./support/watch-workload.js";

const SUITE = "replicas";
const suite = useSuite(SUITE);
/** Labels the objects of one property run, so its lists and watches see only them. */
const RUN_KEY = "tollgate.dev/replicas-run";

let replicaClients: ApiClient[] | undefined;
/** The replicas' clients, made on first use (a run without --replica never gets here: every test needs "replicas"). */
function replicas(): ApiClient[] {
  replicaClients ??= (inject("tollgate").replicas ?? []).map((r) => new ApiClient(r, { suite: SUITE }));
  if (replicaClients.length === 0) throw new Error("the runner detected replicas, yet gave the suite none");
  return replicaClients;
}
/** Server 0 is the target, then the replicas in --replica order. */
const servers = (): ApiClient[] => [suite.session.client, ...replicas()];
const serverName = (i: number): string => (i === 0 ? "the target" : `replica ${i} (${replicas()[i - 1]?.target.url})`);

afterAll(async () => {
  await Promise.all((replicaClients ?? []).map((c) => c.close()));
});

const labelled = (name: string, run: string, data: Record<string, string>): KubeObject => {
  const o = configMap(suite.session.types, suite.ns, name, data);
  return { ...o, metadata: { ...o.metadata, labels: { [RUN_KEY]: run } } };
};

interface Write {
  /** Which server writes: an index into servers(), taken modulo their number. */
  server: number;
  op: "create" | "update" | "delete";
  key: number;
  value: string;
}

const KEYS = 3;
const writeArb: fc.Arbitrary<Write> = fc.record({
  server: fc.nat({ max: 7 }),
  op: fc.constantFrom("create" as const, "update" as const, "update" as const, "delete" as const),
  key: fc.integer({ min: 0, max: KEYS - 1 }),
  value: fc.string({ maxLength: 6 }),
});

describe("several servers of one cluster", () => {
  check(
    {
      title:
        "property: writes spread over the target and its replicas reach a watcher on every server once, in write order, with the version the writing server answered",
      rules: [
        "doc1.watch-rv.other-start-exact",
        "doc1.watch-events.reports-all-outcomes",
        "doc1.versioning.rv-ordered-per-type",
        "doc1.fields.rv-last-modified",
      ],
      needs: ["replicas"],
      timeout: 120_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      await assertProperty(
        fc.asyncProperty(fc.array(writeArb, { minLength: 6, maxLength: 16 }), async (writes) => {
          const all = servers();
          const run = uniqueName("w");
          const h = new History();
          const open: { rec: WatcherRecord; stream: WatchStream }[] = [];
          const live = new Map<string, KubeObject>();
          try {
            // Every watcher starts from the target's list version: a version of one server is a version of all.
            const from = (await session.client.list(t, ns, { labelSelector: `${RUN_KEY}=${run}` })).metadata.resourceVersion ?? "";
            for (const c of all)
              open.push({ rec: h.startWatcher(from), stream: await c.watch(t, ns, { resourceVersion: from, labelSelector: `${RUN_KEY}=${run}` }) });
            for (const [i, w] of writes.entries()) {
              const c = all[w.server % all.length] as ApiClient;
              const name = `${run}-k${w.key}`;
              await applyWrite(
                c,
                t,
                ns,
                name,
                w.op,
                { fresh: () => labelled(name, run, { v: w.value }), data: { v: `${w.value}!${i}` } },
                { live, history: h },
              );
            }
            await readOwedEvents(h, open, 3_000);
          } finally {
            for (const { stream } of open) stream.close();
          }
          // Watcher i watched server i: name the server in what the checker reports.
          const problems = checkHistory(h).map((p) => p.replace(/^watcher (\d+)/, (_, n: string) => `the watcher on ${serverName(Number(n))}`));
          // The first problem leads, so the failure's first line (what the reports show) names it.
          if (problems.length > 0)
            throw new Error(
              `${problems[0]} (writes by server ${writes.map((w) => w.server % all.length).join(",")}; all ${problems.length} problem(s):\n${problems.join("\n")})`,
            );
        }),
        // Passing runs take a second or two; the limit bounds a failure's shrinking (each step waits out idle watchers).
        { numRuns: 6, timeLimitMs: 8_000 },
      );
    },
  );

  check(
    {
      title: "property: a consistent list through the target right after a replica acknowledged a write includes it at that version, or a later one",
      rules: ["doc1.list-rv.most-recent", "doc1.list-rv.nomatch-limit-unset-rv-unset-most-recent", "doc1.service.consistent-lists"],
      needs: ["replicas"],
      timeout: 120_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      await assertProperty(
        fc.asyncProperty(fc.array(writeArb, { minLength: 3, maxLength: 10 }), async (writes) => {
          const reps = replicas();
          const run = uniqueName("l");
          const live = new Map<string, KubeObject>();
          for (const [i, w] of writes.entries()) {
            const c = reps[w.server % reps.length] as ApiClient;
            const name = `${run}-k${w.key}`;
            const { op, object } = await applyWrite(
              c,
              t,
              ns,
              name,
              w.op,
              { fresh: () => labelled(name, run, { v: w.value }), data: { v: `${w.value}!${i}` } },
              { live },
            );
            const acked = object?.metadata.resourceVersion ?? "";
            // At once, through the target: every write acknowledged so far, at its version.
            const list = await session.client.list(t, ns, { labelSelector: `${RUN_KEY}=${run}` });
            const step = `after write ${i} (${op} ${name} through replica ${(w.server % reps.length) + 1}${acked ? ` at ${acked}` : ""})`;
            if (acked) expect(compareResourceVersions(list.metadata.resourceVersion ?? "", acked), `${step}: the list's version`).toBeGreaterThanOrEqual(0);
            const seen = list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion, o.data]).sort();
            const expected = [...live.values()].map((o) => [o.metadata.name, o.metadata.resourceVersion, o.data]).sort();
            expect(seen, step).toEqual(expected);
          }
        }),
        { numRuns: 8, timeLimitMs: 15_000 },
      );
    },
  );

  check(
    {
      title: "a GET through the target of an object a replica just created or updated returns the object that replica answered, same version and body",
      rules: ["doc1.get-rv.unset-most-recent", "doc1.fields.rv-last-modified"],
      needs: ["replicas"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      for (const [i, c] of replicas().entries()) {
        const name = uniqueName(`get-r${i + 1}`);
        const made = await c.create(t, ns, configMap(session.types, ns, name, { v: "1" }));
        const got = await session.client.get(t, ns, name);
        expect(got.metadata.resourceVersion, `replica ${i + 1} created ${name}: the target's version`).toBe(made.metadata.resourceVersion);
        expect(got, `replica ${i + 1} created ${name} at ${made.metadata.resourceVersion}`).toEqual(made);
        const changed = await c.update(t, ns, { ...made, data: { v: "2" } });
        const got2 = await session.client.get(t, ns, name);
        expect(got2.metadata.resourceVersion, `replica ${i + 1} updated ${name}: the target's version`).toBe(changed.metadata.resourceVersion);
        expect(got2, `replica ${i + 1} updated ${name} to ${changed.metadata.resourceVersion}`).toEqual(changed);
        await c.delete(t, ns, name);
        await expectFailure(session.client.get(t, ns, name), 404);
      }
    },
  );

  check(
    {
      title: "an update through the target carrying the version from before a replica's update is 409 Conflict, and the replica's update stays",
      rules: ["doc1.put.stale-rv-409", "doc1.errors.409-stale-put", "doc1.put.conditional-write"],
      needs: ["replicas"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      for (const [i, c] of replicas().entries()) {
        const name = uniqueName(`stale-r${i + 1}`);
        const v1 = await session.client.create(t, ns, configMap(session.types, ns, name, { v: "1" }));
        const v2 = await c.update(t, ns, { ...v1, data: { v: "replica" } });
        const err = await expectFailure(session.client.update(t, ns, { ...v1, data: { v: "target" } }), 409);
        expect(err.status).toMatchObject({
          kind: "Status",
          status: "Failure",
          reason: "Conflict",
          code: 409,
          message: `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          details: { name, kind: "configmaps" },
        });
        const now = await session.client.get(t, ns, name);
        expect([now.metadata.resourceVersion, now.data]).toEqual([v2.metadata.resourceVersion, { v: "replica" }]);
      }
    },
  );

  check(
    {
      title: "a list through the target at exactly a version a replica's list answered returns the same items, at that version",
      rules: ["doc1.list-rv.exact", "doc1.list-rv.exact-collection-rv", "doc1.list-rv.exact-limit-unset-rv-other-exact"],
      needs: ["replicas"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      for (const [i, c] of replicas().entries()) {
        const run = uniqueName(`exact-r${i + 1}`);
        const sel = { labelSelector: `${RUN_KEY}=${run}` };
        for (const k of [0, 1, 2]) await c.create(t, ns, labelled(`${run}-${k}`, run, { v: String(k) }));
        const there = await c.list(t, ns, sel);
        const rv = there.metadata.resourceVersion ?? "";
        // Later changes, through both servers: the Exact list must not show them.
        await session.client.delete(t, ns, `${run}-0`);
        const one = await c.get(t, ns, `${run}-1`);
        await c.update(t, ns, { ...one, data: { v: "later" } });
        await session.client.create(t, ns, labelled(`${run}-3`, run, { v: "3" }));
        const here = await session.client.list(t, ns, { ...sel, resourceVersion: rv, resourceVersionMatch: "Exact" });
        expect(here.metadata.resourceVersion).toBe(rv);
        const items = (l: { items: KubeObject[] }): unknown[] => l.items.map((o) => [o.metadata.name, o.metadata.resourceVersion, o.data]);
        expect(items(here), `the target's list at ${rv}, which replica ${i + 1} answered`).toEqual(items(there));
        expect(items(there)).toHaveLength(3);
      }
    },
  );
});

/**
 * Watch histories checked offline (etcd robustness style): a random workload of creates,
 * updates and deletes, with watchers opened at random points of it, each from the version
 * the suite last saw. Every watcher must report every later write exactly once, in order,
 * and all watchers must agree on what each version was.
 */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { ApiError } from "../lib/harness/client.js";
import { History, keyOf, type WatcherRecord } from "../lib/harness/history.js";
import type { KubeObject } from "../lib/harness/objects.js";
import type { WatchStream } from "../lib/harness/watch.js";
import { checkHistory } from "./support/history-checker.js";
import { check, useSuite } from "./support/conformance.js";

const suite = useSuite("watch-history");

type Step = { kind: "write"; op: "create" | "update" | "delete"; key: number; value: string } | { kind: "watch" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("write" as const), op: fc.constantFrom("create" as const, "update" as const, "delete" as const), key: fc.integer({ min: 0, max: 4 }), value: fc.string({ maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "watch" as const }) },
);

describe("watch history", () => {
  check(
    { title: "property: watchers opened at any point report every later write once, in order, and agree with each other", rules: [
      "doc1.watch-events.reports-all-outcomes",
      "doc1.watch-events.list-then-watch",
      "doc1.watch-events.restart-from-last-rv",
      "doc1.watch-events.deleted-type",
      "doc1.watch-rv.other-start-exact",
      "doc1.versioning.rv-ordered-per-type",
    ], timeout: 180_000 },
    async () => {
      const { session } = suite;
      const t = session.types.configmaps;
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 25 }), async (steps) => {
          const ns = await session.createNamespace("watch-history");
          const h = new History();
          const open: { rec: WatcherRecord; stream: WatchStream }[] = [];
          const live = new Map<string, KubeObject>();
          // Each watcher starts from a fresh list's version (list, then watch): a delete's
          // response carries no version, so the last write's version may be behind it.
          const startWatcher = async (): Promise<void> => {
            const from = (await session.client.list(t, ns)).metadata.resourceVersion ?? "";
            const rec = h.startWatcher(from);
            open.push({ rec, stream: await session.client.watch(t, ns, { resourceVersion: from }) });
          };
          try {
            await startWatcher();
            for (const step of steps) {
              if (step.kind === "watch") {
                await startWatcher();
                continue;
              }
              const name = `k${step.key}`;
              const key = `${ns}/${name}`;
              const cur = live.get(key);
              try {
                if (step.op === "create") {
                  const o = await session.client.create(t, ns, configMap(session.types, ns, name, { v: step.value }));
                  h.recordWrite("create", keyOf(o), o.metadata.resourceVersion);
                  live.set(key, o);
                } else if (step.op === "update" && cur) {
                  const o = await session.client.update(t, ns, { ...cur, data: { v: `${step.value}!${h.writes.length}` } });
                  h.recordWrite("update", keyOf(o), o.metadata.resourceVersion);
                  live.set(key, o);
                } else if (step.op === "delete" && cur) {
                  await session.client.delete(t, ns, name);
                  h.recordWrite("delete", key);
                  live.delete(key);
                }
              } catch (e) {
                if (!(e instanceof ApiError && step.op === "create" && cur && e.code === 409)) throw e;
              }
            }
            for (const { rec, stream } of open) {
              const owed = h.due(rec);
              while (rec.events.filter((e) => e.type !== "BOOKMARK").length < owed) {
                const ev = await stream.next(5_000).catch(() => undefined);
                if (!ev) break;
                rec.events.push({ type: ev.type, key: keyOf(ev.object), rv: ev.object.metadata.resourceVersion ?? "" });
              }
              // Anything already queued beyond what is owed is a spurious event.
              for (const ev of stream.drain()) rec.events.push({ type: ev.type, key: keyOf(ev.object), rv: ev.object.metadata.resourceVersion ?? "" });
            }
          } finally {
            for (const { stream } of open) stream.close();
          }
          expect(checkHistory(h)).toEqual([]);
        }),
        { numRuns: 8 },
      );
    },
  );
});

/**
 * Watch histories checked offline (etcd robustness style): a random workload of dozens of
 * creates, updates and deletes, with several watchers open at once, one from before the first
 * write and others opened at random points of the first half, each from the version the suite
 * last saw. Every watcher must report every later write exactly once, in order, and all watchers
 * must agree on what each version was. Workloads are large enough that every run makes each
 * watcher see many events, so a server that loses or repeats some of them is caught in every run.
 * Two properties: the watcher from before the first write alone (what a watch reports), and
 * watchers joining mid-workload (where a watch from a list's version starts).
 */
import fc from "fast-check";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { History, type WatcherRecord } from "../lib/harness/history.js";
import type { KubeObject } from "../lib/harness/objects.js";
import type { WatchStream } from "../lib/harness/watch.js";
import { check, useSuite } from "./support/conformance.js";
import { checkHistory } from "./support/history-checker.js";
import { assertProperty } from "./support/properties.js";
import { applyWrite, readOwedEvents } from "./support/watch-workload.js";

const suite = useSuite("watch-history");

const KEYS = 6;

/** One write: the operation wished for; a wish that cannot apply to the key's state becomes the one that can (see `effective`). */
interface Write {
  op: "create" | "update" | "delete";
  key: number;
  value: string;
}

interface Workload {
  writes: Write[];
  /** Watchers opened before write i (besides the one opened before everything). */
  watchersAt: number[];
}

const writeArb: fc.Arbitrary<Write> = fc.record({
  op: fc.constantFrom("create" as const, "update" as const, "update" as const, "delete" as const),
  key: fc.integer({ min: 0, max: KEYS - 1 }),
  value: fc.string({ maxLength: 6 }),
});

const workloadArb: fc.Arbitrary<Workload> = fc.array(writeArb, { minLength: 30, maxLength: 60 }).chain((writes) =>
  fc.record({
    writes: fc.constant(writes),
    watchersAt: fc.uniqueArray(fc.integer({ min: 1, max: Math.floor(writes.length / 2) }), { minLength: 2, maxLength: 4 }).map((a) => a.sort((x, y) => x - y)),
  }),
);

/** Writes the workload in a fresh namespace with its watchers open, reads what they report, and returns the checker's problems. */
async function runWorkload({ writes, watchersAt }: Workload): Promise<string[]> {
  const { session } = suite;
  const t = session.types.configmaps;
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
    for (const [i, w] of writes.entries()) {
      if (watchersAt.includes(i)) await startWatcher();
      const name = `k${w.key}`;
      await applyWrite(
        session.client,
        t,
        ns,
        name,
        w.op,
        { fresh: () => configMap(session.types, ns, name, { v: w.value }), data: { v: `${w.value}!${i}` } },
        { live, history: h },
      );
    }
    // All watchers read at once; a watcher quiet for 2 s is done (the checker reports what is missing), a broken stream fails.
    await readOwedEvents(h, open, 2_000);
  } finally {
    for (const { stream } of open) stream.close();
  }
  expect(
    h.watchers.every((w) => h.due(w) >= 10),
    "every watcher was owed many events",
  ).toBe(true);
  return checkHistory(h);
}

describe("watch history", () => {
  check(
    {
      title: "property: a watcher opened before the first write reports every write once, in order, deletions as DELETED, versions increasing",
      rules: ["doc1.watch-events.reports-all-outcomes", "doc1.watch-events.deleted-type", "doc1.versioning.rv-ordered-per-type"],
      timeout: 180_000,
    },
    async () => {
      const oneWatcher = workloadArb.map((w) => ({ ...w, watchersAt: [] }));
      await assertProperty(
        fc.asyncProperty(oneWatcher, async (workload) => {
          expect(await runWorkload(workload)).toEqual([]);
        }),
        // Runs and the shrinking of a failure stop after 12 s: a smaller history, not necessarily the smallest.
        { numRuns: 5, timeLimitMs: 12_000 },
      );
    },
  );

  check(
    {
      title: "property: watchers opened mid-workload from a fresh list's version miss nothing, repeat nothing, and agree with the others",
      rules: ["doc1.watch-events.list-then-watch", "doc1.watch-events.restart-from-last-rv", "doc1.watch-rv.other-start-exact"],
      timeout: 180_000,
    },
    async () => {
      await assertProperty(
        fc.asyncProperty(workloadArb, async (workload) => {
          expect(await runWorkload(workload)).toEqual([]);
        }),
        { numRuns: 5, timeLimitMs: 12_000 },
      );
    },
  );
});

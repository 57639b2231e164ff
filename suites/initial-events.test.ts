/** doc1 "Streaming the initial state" (gate WatchList, on by default in 1.35) and its invalid combinations. */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse, Query } from "../lib/harness/client.js";
import type { WatchEvent } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import type { WatchStream } from "../lib/harness/watch.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, expectListOptionsInvalid, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("initial-events");
const END = "k8s.io/initial-events-end";
/** How long the end bookmark may take once the initial events are out; periodic bookmarks do not reset it. */
const END_WAIT_MS = 10_000;

/** Reads up to the annotated end bookmark, passing `allowed` events before it; fails at any other event or after END_WAIT_MS. */
async function endBookmark(w: WatchStream, allowed: readonly string[]): Promise<WatchEvent> {
  const deadline = Date.now() + END_WAIT_MS;
  const seen: string[] = [];
  for (;;) {
    const ev = await w.nextOrIdle(Math.max(1, deadline - Date.now()));
    if (!ev)
      throw new Error(`no BOOKMARK annotated ${END} within ${END_WAIT_MS} ms${w.ended ? " (the watch ended)" : ""}; saw ${seen.join(", ") || "nothing"}`);
    if (ev.type === "BOOKMARK" && ev.object.metadata.annotations?.[END] === "true") return ev;
    seen.push(ev.type);
    if (!allowed.includes(ev.type)) throw new Error(`${ev.type} before the end bookmark: ${JSON.stringify(ev.object).slice(0, 200)}`);
  }
}

/**
 * A request the server must refuse (422): its answer. A server that opens a watch instead never
 * ends the answer, so the read is bounded by a signal of our own and that counts as a failure
 * of the check (not as trouble reaching the target).
 */
async function refused(query: Query): Promise<ApiResponse> {
  const { session, ns } = suite;
  const signal = AbortSignal.timeout(5_000);
  try {
    return await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { query, signal });
  } catch (e) {
    if (signal.aborted) throw new Error(`no answer within 5 s to ${JSON.stringify(query)}: the server streamed a watch instead of refusing it`);
    throw e;
  }
}

describe("streaming the initial state", () => {
  check(
    {
      title: "ADDED for every object, one annotated BOOKMARK, then live changes",
      rules: [
        "doc1.initial-events.step1-synthetic-added",
        "doc1.initial-events.step2-bookmark",
        "doc1.initial-events.step3-continue",
        "doc1.initial-events.step4-rv-empty",
        "doc1.versioning.cap-streaming-initial-state",
      ],
      needs: ["watch-list"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("initial-events");
      const t = session.types.configmaps;
      // With what the cluster's controllers put there (a real cluster's kube-root-ca.crt).
      const foreign = (await session.client.list(t, ns)).items.map((i) => i.metadata.name ?? "");
      const names = [uniqueName("i"), uniqueName("i"), uniqueName("i"), ...foreign];
      let lastRv = "";
      for (const n of names.slice(0, 3)) lastRv = (await session.client.create(t, ns, configMap(session.types, ns, n))).metadata.resourceVersion ?? "";
      const w = await session.client.watch(t, ns, { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true });
      try {
        const initial = await w.take(names.length);
        expect(initial.map((e) => e.type)).toEqual(names.map(() => "ADDED"));
        expect(initial.map((e) => e.object.metadata.name).sort()).toEqual([...names].sort());
        const ev = await endBookmark(w, ["BOOKMARK"]);
        expect(compareResourceVersions(ev.object.metadata.resourceVersion ?? "", lastRv), "synced to at least the last write").toBeGreaterThanOrEqual(0);
        const later = uniqueName("live");
        await session.client.create(t, ns, configMap(session.types, ns, later));
        let live = await w.next();
        while (live?.type === "BOOKMARK") live = await w.next();
        expect([live?.type, live?.object.metadata.name]).toEqual(["ADDED", later]);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "with a version given, allowWatchBookmarks brings the end bookmark, not older than that version",
      rules: ["doc1.initial-events.step4-rv-given", "doc1.query.allow-watch-bookmarks"],
      needs: ["watch-list"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const rv = (await session.client.create(t, ns, configMap(session.types, ns, uniqueName("g")))).metadata.resourceVersion ?? "";
      const w = await session.client.watch(t, ns, {
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
        resourceVersion: rv,
      });
      try {
        const ev = await endBookmark(w, ["ADDED", "BOOKMARK"]);
        expect(compareResourceVersions(ev.object.metadata.resourceVersion ?? "", rv)).toBeGreaterThanOrEqual(0);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "without allowWatchBookmarks there is no end bookmark, only the ADDED events",
      rules: ["doc1.initial-events.step2-no-bookmark-without-allow"],
      needs: ["watch-list"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("initial-events");
      const t = session.types.configmaps;
      const foreign = (await session.client.list(t, ns)).items.map((i) => i.metadata.name ?? "");
      const name = uniqueName("n");
      await session.client.create(t, ns, configMap(session.types, ns, name));
      const w = await session.client.watch(t, ns, { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" });
      try {
        const initial = [];
        for (let i = 0; i <= foreign.length; i++) initial.push(await w.next());
        expect(initial.map((ev) => [ev?.type, ev?.object.metadata.name]).sort()).toEqual([name, ...foreign].sort().map((n) => ["ADDED", n]));
        await expect(w.next(1_500)).rejects.toThrow(/no watch event/);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "sendInitialEvents on a list (not a watch) gives 422 on ListOptions",
      rules: ["doc1.query.initial-events-watch-only", "doc1.errors.invalid-list-combinations"],
      needs: ["watch-list"],
    },
    async () => {
      expectListOptionsInvalid(await refused({ sendInitialEvents: true }), "sendInitialEvents");
    },
  );

  check(
    {
      title: "a sendInitialEvents watch without resourceVersionMatch=NotOlderThan gives 422 on ListOptions",
      rules: ["doc1.query.initial-events-needs-not-older-than", "doc1.errors.invalid-list-combinations"],
      needs: ["watch-list"],
    },
    async () => {
      expectListOptionsInvalid(await refused({ watch: true, sendInitialEvents: true }), "resourceVersionMatch");
    },
  );

  check(
    {
      title: "resourceVersionMatch on a watch without sendInitialEvents gives 422 on ListOptions",
      rules: ["doc1.query.rvm-watch-needs-initial-events", "doc1.errors.invalid-list-combinations"],
      needs: ["watch-list"],
    },
    async () => {
      expectListOptionsInvalid(await refused({ watch: true, resourceVersionMatch: "NotOlderThan", resourceVersion: "0" }), "resourceVersionMatch");
    },
  );
});

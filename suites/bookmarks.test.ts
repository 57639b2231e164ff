/**
 * doc1 "Events": BOOKMARK only on request, of the watched kind, carrying only a version that
 * never goes backwards. Bookmarks are periodic and not guaranteed, so these tests need the
 * `bookmarks` capability: the runner saw one within a few seconds of a watch (the emulator's test
 * interval), or --thorough lets them wait the minute a real server takes. How long they wait is
 * the run's `bookmarkWaitMs`.
 */
import { describe, expect, inject } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("bookmarks");

/** Long enough to see a periodic bookmark of this target (from the detection), with room for a busy machine. */
const waitMs = (): number => Math.max(inject("tollgate").bookmarkWaitMs, 1_000) * 2;

describe("bookmarks", () => {
  check(
    {
      title: "no BOOKMARK without allowWatchBookmarks=true, over a time in which one that asked would get some",
      rules: ["doc1.watch-events.bookmark-opt-in", "doc1.query.allow-watch-bookmarks"],
      needs: ["bookmarks"],
      timeout: waitMs() * 3 + 60_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: rv, timeoutSeconds: Math.ceil(waitMs() / 1000) + 1 });
      try {
        await session.client.create(t, ns, configMap(session.types, ns, uniqueName("b")));
        const types: string[] = [];
        // Until the server ends the watch at timeoutSeconds (or stays quiet past it): a broken frame still fails.
        for (let ev = await w.nextOrIdle(waitMs() + 5_000); ev; ev = await w.nextOrIdle(waitMs() + 5_000)) types.push(ev.type);
        expect(types).not.toContain("BOOKMARK");
        expect(types).toContain("ADDED");
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "bookmarks carry only metadata.resourceVersion on an object of the watched kind, and their versions never go backwards nor pass the next event",
      rules: ["doc1.watch-events.bookmark-object", "doc1.watch-event.bookmark-rv-only", "doc1.watch-events.bookmark-meaning"],
      needs: ["bookmarks"],
      timeout: waitMs() * 3 + 60_000,
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion ?? "";
      const w = await session.client.watch(t, ns, { resourceVersion: rv, allowWatchBookmarks: true });
      const seen: { type: string; rv: string; object: Record<string, unknown> }[] = [];
      const deadline = Date.now() + waitMs() * 2;
      try {
        // Ten writes interleaved with reads, then reads alone, until two bookmarks came (or the wait is over).
        for (let i = 0; Date.now() < deadline && seen.filter((e) => e.type === "BOOKMARK").length < 2; i++) {
          if (i < 10) await session.client.create(t, ns, configMap(session.types, ns, uniqueName(`bk${i}`)));
          for (let ev = await w.nextOrIdle(250); ev; ev = await w.nextOrIdle(250))
            seen.push({ type: ev.type, rv: ev.object.metadata.resourceVersion ?? "", object: ev.object });
          if (w.ended) throw new Error(`the watch ended after ${seen.length} events`);
        }
      } finally {
        w.close();
      }
      const bookmarks = seen.filter((e) => e.type === "BOOKMARK");
      expect(
        bookmarks.length,
        `BOOKMARK events within ${waitMs() * 2} ms (the detection saw one within ${inject("tollgate").bookmarkWaitMs} ms)`,
      ).toBeGreaterThan(0);
      for (const b of bookmarks) {
        expect(b.object.kind).toBe("ConfigMap");
        expect(b.object.apiVersion).toBe("v1");
        const meta = b.object.metadata as Record<string, unknown>;
        expect(Object.keys(meta).filter((k) => k !== "annotations")).toEqual(["resourceVersion"]);
        expect(b.object.data, "no content fields").toBeUndefined();
      }
      let last = rv;
      for (const e of seen) {
        const cmp = compareResourceVersions(e.rv, last);
        if (e.type === "BOOKMARK") expect(cmp, `bookmark ${e.rv} after ${last}`).toBeGreaterThanOrEqual(0);
        else expect(cmp, `${e.type} ${e.rv} after ${last}`).toBeGreaterThan(0);
        last = e.rv;
      }
    },
  );
});

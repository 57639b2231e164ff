/** doc1 "Events": BOOKMARK only on request, of the watched kind, carrying only a version that never goes backwards. */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("bookmarks");

/** Long enough for a server to send a periodic bookmark if it does so often (the emulator's test interval is 1s). */
const WAIT_MS = Number(process.env.TOLLGATE_BOOKMARK_WAIT_MS ?? 3_000);

describe("bookmarks", () => {
  check({ title: "no BOOKMARK without allowWatchBookmarks=true", rules: ["doc1.watch-events.bookmark-opt-in", "doc1.query.allow-watch-bookmarks"] }, async () => {
    const { session, ns } = suite;
    const t = session.types.configmaps;
    const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
    const w = await session.client.watch(t, ns, { resourceVersion: rv, timeoutSeconds: Math.ceil(WAIT_MS / 1000) + 1 });
    try {
      await session.client.create(t, ns, configMap(session.types, ns, uniqueName("b")));
      const types: string[] = [];
      for (;;) {
        const ev = await w.next(WAIT_MS + 3_000).catch(() => undefined);
        if (!ev) break;
        types.push(ev.type);
      }
      expect(types).not.toContain("BOOKMARK");
      expect(types).toContain("ADDED");
    } finally {
      w.close();
    }
  });

  check(
    { title: "bookmarks carry only metadata.resourceVersion on an object of the watched kind, and their versions never go backwards nor pass the next event", rules: ["doc1.watch-events.bookmark-object", "doc1.watch-event.bookmark-rv-only", "doc1.watch-events.bookmark-meaning", "doc1.watch-events.bookmarks-not-guaranteed"], timeout: 60_000 },
    async (ctx) => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion ?? "";
      const w = await session.client.watch(t, ns, { resourceVersion: rv, allowWatchBookmarks: true });
      const seen: { type: string; rv: string; object: Record<string, unknown> }[] = [];
      try {
        const deadline = Date.now() + WAIT_MS * 2;
        let i = 0;
        while (Date.now() < deadline) {
          await session.client.create(t, ns, configMap(session.types, ns, uniqueName(`bk${i++}`)));
          for (;;) {
            const ev = await w.next(WAIT_MS / 4).catch(() => undefined);
            if (!ev) break;
            seen.push({ type: ev.type, rv: ev.object.metadata.resourceVersion ?? "", object: ev.object });
          }
        }
      } finally {
        w.close();
      }
      const bookmarks = seen.filter((e) => e.type === "BOOKMARK");
      if (bookmarks.length === 0) {
        ctx.skip(`no bookmark arrived within ${WAIT_MS * 2} ms; servers need not send any (doc1 Events rule 2)`);
        return;
      }
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

/**
 * doc1 "Resource version semantics for watch" and "Events": where a watch starts, resuming
 * from the last version seen, history that is gone (410), and selectors.
 */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { ApiError } from "../lib/harness/client.js";
import type { KubeObject, WatchEvent } from "../lib/harness/objects.js";
import type { WatchStream } from "../lib/harness/watch.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("watch-start");

const brief = (e: WatchEvent | undefined): [string, string] => [e?.type ?? "none", e?.object.metadata.name ?? ""];

describe("watch start and resume", () => {
  check(
    {
      title: "resourceVersion 0: synthetic ADDED for the existing objects, then changes",
      rules: ["doc1.watch-rv.zero-state-any", "doc1.watch-rv.any-initial-added"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("watch-start");
      const t = session.types.configmaps;
      // What the cluster's controllers put there (a real cluster's kube-root-ca.crt) is there too.
      const foreign = (await session.client.list(t, ns)).items.map((i) => i.metadata.name ?? "");
      const before = uniqueName("pre");
      await session.client.create(t, ns, configMap(session.types, ns, before));
      const w = await session.client.watch(t, ns, { resourceVersion: "0" });
      try {
        const initial = [];
        for (let i = 0; i <= foreign.length; i++) initial.push(brief(await w.next()));
        expect(initial.sort()).toEqual([before, ...foreign].sort().map((n) => ["ADDED", n]));
        const after = uniqueName("post");
        await session.client.create(t, ns, configMap(session.types, ns, after));
        expect(brief(await w.next())).toEqual(["ADDED", after]);
      } finally {
        w.close();
      }
    },
  );

  check(
    {
      title: "restarting from the last version seen misses nothing and repeats nothing",
      rules: ["doc1.watch-events.restart-from-last-rv", "doc1.watch-rv.other-start-exact"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const start = (await session.client.list(t, ns)).metadata.resourceVersion;
      const first = await session.client.watch(t, ns, { resourceVersion: start });
      const names = [uniqueName("r"), uniqueName("r"), uniqueName("r"), uniqueName("r")];
      let last: string | undefined;
      try {
        for (const n of names.slice(0, 2)) await session.client.create(t, ns, configMap(session.types, ns, n));
        const seen = await first.take(2);
        last = seen.at(-1)?.object.metadata.resourceVersion;
      } finally {
        first.close();
      }
      // Changes while no watch is open.
      for (const n of names.slice(2)) await session.client.create(t, ns, configMap(session.types, ns, n));
      const second = await session.client.watch(t, ns, { resourceVersion: last });
      try {
        const resumed = await second.take(2);
        expect(resumed.map(brief)).toEqual(names.slice(2).map((n) => ["ADDED", n]));
        await expect(second.next(300), "nothing beyond the writes").rejects.toThrow(/no watch event/);
      } finally {
        second.close();
      }
    },
  );

  check(
    { title: "a watch from a version the server has not reached yet reports nothing older, and may wait", rules: ["doc1.errors.watch-unrecognized-rv-waits"] },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const now = (await session.client.list(t, ns)).metadata.resourceVersion ?? "1";
      const future = `${now}000000`;
      let w: WatchStream;
      try {
        w = await session.client.watch(t, ns, { resourceVersion: future, timeoutSeconds: 2 });
      } catch (e) {
        // Refusing it outright (504, or 410 for an unknown version) is a correct answer too.
        expect(e).toBeInstanceOf(ApiError);
        expect([410, 504]).toContain((e as ApiError).code);
        return;
      }
      try {
        await session.client.create(t, ns, configMap(session.types, ns, uniqueName("now")));
        for (;;) {
          const ev = await w.nextOrIdle(4_000);
          if (!ev) break;
          expect(ev.type, "only an ERROR or a BOOKMARK may come before the version is reached").toMatch(/^(ERROR|BOOKMARK)$/);
        }
      } finally {
        w.close();
      }
    },
  );
});

describe("watch with selectors", () => {
  check(
    {
      title: "a label selector filters events, and objects leaving or entering it are reported as DELETED and ADDED",
      rules: ["doc1.watch-events.reports-all-outcomes", "doc1.watch-events.deleted-type", "doc1.watch-events.added"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const start = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: start, labelSelector: "color=blue" });
      try {
        const name = uniqueName("sel");
        const mk = (color: string, o?: KubeObject): KubeObject => ({
          ...(o ?? configMap(session.types, ns, name)),
          metadata: { ...(o?.metadata ?? { name, namespace: ns }), labels: { color } },
        });
        const red = await session.client.create(t, ns, mk("red"));
        const blue = await session.client.update(t, ns, mk("blue", red));
        const blue2 = await session.client.update(t, ns, { ...blue, data: { x: "1" } });
        const red2 = await session.client.update(t, ns, mk("red", blue2));
        await session.client.update(t, ns, { ...red2, data: { x: "2" } });
        const evs = await w.take(3);
        expect(evs.map(brief)).toEqual([
          ["ADDED", name],
          ["MODIFIED", name],
          ["DELETED", name],
        ]);
        expect(evs[0]?.object.metadata.resourceVersion).toBe(blue.metadata.resourceVersion);
        expect(evs[2]?.object.metadata.resourceVersion).toBe(red2.metadata.resourceVersion);
        await expect(w.next(300), "changes outside the selector are not reported").rejects.toThrow(/no watch event/);
      } finally {
        w.close();
      }
    },
  );

  check({ title: "a metadata.name field selector watches one object", rules: ["doc1.watch-events.reports-all-outcomes"] }, async () => {
    const { session, ns } = suite;
    const t = session.types.configmaps;
    const start = (await session.client.list(t, ns)).metadata.resourceVersion;
    const target = uniqueName("one");
    const w = await session.client.watch(t, ns, { resourceVersion: start, fieldSelector: `metadata.name=${target}` });
    try {
      await session.client.create(t, ns, configMap(session.types, ns, uniqueName("other")));
      await session.client.create(t, ns, configMap(session.types, ns, target));
      expect(brief(await w.next())).toEqual(["ADDED", target]);
    } finally {
      w.close();
    }
  });
});

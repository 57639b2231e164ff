/**
 * doc2 "Events are kept for a limited time": a real server stores each Event with the
 * --event-ttl lease (default 1 hour) and deletes it when the lease runs out, which watchers see
 * as DELETED (wire-facts §7). Waiting an hour is not an option, so this needs the admin clock.
 * Jumping the clock ages the whole target's history, so this file runs in the serial phase,
 * after every other suite (the "conformance-exclusive" project).
 * The consumer duties of doc2 (do not assume events persist; best-effort data) have this as
 * their server side: an Event goes away by itself, and the test expects that, not an error.
 */
import { describe, expect } from "vitest";
import { event } from "../../fixtures/objects.js";
import { advanceClock } from "../../lib/harness/admin.js";
import type { WatchEvent } from "../../lib/harness/objects.js";
import { check, expectFailure, uniqueName, useSuite } from "../support/conformance.js";

const suite = useSuite("event-ttl");
const t = () => suite.session.types.events;

/** Just past the real server's default --event-ttl of one hour. */
const PAST_TTL_SECONDS = 3_601;

describe("Event time-to-live", () => {
  check(
    {
      title: "an Event is deleted once the event TTL has passed: watchers see DELETED, get answers 404",
      rules: ["doc2.service.retention-limited", "doc2.service.consumers-no-stable-trigger", "doc2.service.best-effort"],
      needs: ["admin-clock"],
      timeout: 60_000,
    },
    async () => {
      const { session, ns } = suite;
      const name = uniqueName("ttl");
      const made = await session.client.create(t(), ns, event(session.types, ns, name));
      const w = await session.client.watch(t(), ns, { resourceVersion: made.metadata.resourceVersion, fieldSelector: `metadata.name=${name}` });
      try {
        await advanceClock(session.client, PAST_TTL_SECONDS);
        let deleted: WatchEvent | undefined;
        const seen: string[] = [];
        while (!deleted) {
          const e = await w.next(15_000);
          if (!e) throw new Error(`the watch ended before a DELETED event; saw ${seen.join(", ") || "nothing"}`);
          seen.push(e.type);
          if (e.type === "DELETED") deleted = e;
          else if (e.type !== "BOOKMARK") throw new Error(`unexpected ${e.type} before DELETED: ${JSON.stringify(e.object).slice(0, 300)}`);
        }
        expect(deleted.object.metadata.name).toBe(name);
        expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(Number(made.metadata.resourceVersion));
      } finally {
        w.close();
      }
      await expectFailure(session.client.get(t(), ns, name), 404);
    },
  );
});

/**
 * --thorough: what a real cluster shows only with time, checked by waiting for it instead of
 * reporting it not applicable. The suite keeps versions and a continue token from before the
 * target compacts its history on its own (kube-apiserver compacts storage every 5 minutes, each
 * time up to the revision of the previous round), polls until an Exact list at the kept version
 * answers 410, then checks what every holder of old versions meets (the same checks as
 * suites/exclusive/history-compaction.test.ts, where the admin endpoint compacts on request).
 * Bounded by --thorough-minutes (default 11), with a progress line every half minute.
 */
import { beforeAll, describe, expect, inject } from "vitest";
import { check, useSuite } from "./support/conformance.js";
import {
  expectContinueExpired,
  expectExactExpired,
  expectNotOlderThanLimitAnsweredThenRetry,
  expectWatchExpiredThenRelist,
  type HeldState,
  historyGone,
  holdOldState,
} from "./support/expired-history.js";

const suite = useSuite("history-expiry");
const minutes = (): number => inject("tollgate").thorough.minutes;
const boundMs = (): number => minutes() * 60_000;

let held: HeldState | undefined;
/** When the held version was found gone (ms after it was written), or undefined while it is kept. */
let goneAfterMs: number | undefined;

/** The held state, once the target compacted it away; the checks below need it gone. */
function compacted(): HeldState {
  if (!held || goneAfterMs === undefined)
    throw new Error(`the target did not compact the history the suite holds within ${minutes()} minutes (see the first test)`);
  return held;
}

describe("history expiring on its own (--thorough)", () => {
  beforeAll(async () => {
    held = await holdOldState(suite.session, "history-expiry");
  });

  check(
    {
      title: "the target compacts its history on its own: a version written at the start is eventually no longer served (410 on an Exact list)",
      rules: ["doc1.list-rv.exact-unavailable-410", "doc1.errors.410-history-gone"],
      needs: ["thorough"],
      timeout: (inject("tollgate").thorough.minutes + 2) * 60_000,
    },
    async () => {
      const state = held;
      if (!state) throw new Error("no state was held");
      const started = Date.now();
      // Often enough to see the moment, rarely enough to be polite: 40 polls over the bound, 1 to 15 s apart.
      const every = Math.min(15_000, Math.max(1_000, boundMs() / 40));
      let lastReport = started;
      while (!(await historyGone(state))) {
        const elapsed = Date.now() - started;
        if (elapsed > boundMs()) {
          throw new Error(
            `an Exact list at ${state.oldRv} still answers after ${(elapsed / 60_000).toFixed(1)} minutes: the target did not compact its history within --thorough-minutes ${minutes()} (kube-apiserver's default --etcd-compaction-interval is 5 minutes; give more minutes if the target's is longer)`,
          );
        }
        if (Date.now() - lastReport >= 30_000) {
          console.log(
            `tollgate: history-expiry: waiting for the target to compact its history (${(elapsed / 60_000).toFixed(1)} of up to ${minutes()} minutes)`,
          );
          lastReport = Date.now();
        }
        await new Promise((r) => setTimeout(r, every));
      }
      goneAfterMs = Date.now() - started;
      console.log(`tollgate: history-expiry: the history the suite holds was compacted after ${(goneAfterMs / 1000).toFixed(0)} s`);
      await expectExactExpired(state);
    },
  );

  check(
    {
      title: "NotOlderThan with limit from a compacted version: a list not older than it (or 410), and a list from the most recent version gets everything",
      rules: ["doc1.list-rv.client-not-older-than-limit-410", "doc1.list-rv.notolderthan-limit-no-continue-rv-other-not-older-than"],
      needs: ["thorough"],
    },
    () => expectNotOlderThanLimitAnsweredThenRetry(compacted()),
  );

  check(
    {
      title: "a continue token from before the compaction gives 410 Expired with a fresh token that lists the rest at a newer version",
      rules: ["doc1.errors.410-expired-continue", "doc1.list-rv.continuation-unavailable-410", "doc1.errors.410-client-restart"],
      needs: ["thorough"],
    },
    () => expectContinueExpired(compacted()),
  );

  check(
    {
      title: "a watch from a compacted version gives 410 Expired, in the answer or as an ERROR event; a fresh list and watch go on",
      rules: ["doc1.watch-events.gone-410", "doc1.errors.410-history-gone", "doc1.watch-events.error-type", "doc1.watch-events.gone-client-relist"],
      needs: ["thorough"],
    },
    async () => {
      await expectWatchExpiredThenRelist(compacted());
      expect(goneAfterMs).toBeDefined();
    },
  );
});

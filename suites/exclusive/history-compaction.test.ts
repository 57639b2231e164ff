/**
 * Versions no longer retained (doc1 "Errors" 410 and the Exact, Continuation and NotOlderThan
 * cells of the list table; "Events" for watches), reached in seconds by compacting the target's
 * history through tollgate's admin endpoint. Compaction changes the whole target, so this file
 * runs in the serial phase, after every other suite (the "conformance-exclusive" project). A real
 * cluster offers no such shortcut: there `--thorough` waits for its own compaction
 * (suites/history-expiry.test.ts checks the same rules).
 */
import { beforeAll, describe } from "vitest";
import { compactHistory } from "../../lib/harness/admin.js";
import { check, useSuite } from "../support/conformance.js";
import {
  expectContinueExpired,
  expectExactExpired,
  expectNotOlderThanLimitAnsweredThenRetry,
  expectWatchExpiredThenRelist,
  type HeldState,
  holdOldState,
} from "../support/expired-history.js";

const suite = useSuite("history-compaction");
let held: HeldState;

describe("history compacted on request", () => {
  beforeAll(async () => {
    held = await holdOldState(suite.session, "history-compaction");
    await compactHistory(suite.session.client);
  });

  check(
    {
      title: "Exact, and a paged list at a version, of a version no longer kept give 410 Expired",
      rules: ["doc1.list-rv.exact-unavailable-410", "doc1.errors.410-history-gone"],
      needs: ["admin-compact"],
    },
    () => expectExactExpired(held),
  );

  check(
    {
      title:
        "NotOlderThan with limit from a version no longer kept: a list not older than it (or 410), and a list from the most recent version gets everything",
      rules: ["doc1.list-rv.client-not-older-than-limit-410", "doc1.list-rv.notolderthan-limit-no-continue-rv-other-not-older-than"],
      needs: ["admin-compact"],
    },
    () => expectNotOlderThanLimitAnsweredThenRetry(held),
  );

  check(
    {
      title: "an expired continue token gives 410 Expired with a fresh token that lists the rest at a newer version",
      rules: ["doc1.errors.410-expired-continue", "doc1.list-rv.continuation-unavailable-410", "doc1.errors.410-client-restart"],
      needs: ["admin-compact"],
    },
    () => expectContinueExpired(held),
  );

  check(
    {
      title: "a watch from a version no longer kept gives 410 Expired, in the answer or as an ERROR event; a fresh list and watch go on",
      rules: ["doc1.watch-events.gone-410", "doc1.errors.410-history-gone", "doc1.watch-events.error-type", "doc1.watch-events.gone-client-relist"],
      needs: ["admin-compact"],
    },
    () => expectWatchExpiredThenRelist(held),
  );
});

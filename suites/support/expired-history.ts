/**
 * What a server answers once the history a client holds on to is gone (doc1 "Errors" 410, the
 * Exact, Continuation and NotOlderThan-with-limit cells of "Resource version semantics for
 * list", "Events" for watches). Two suites use these checks and differ only in how the history
 * goes: suites/exclusive/history-compaction.test.ts compacts it through tollgate's admin
 * endpoint; suites/history-expiry.test.ts (--thorough) waits for the target to compact it on
 * its own, as kube-apiserver does every 5 minutes.
 *
 * Events are used throughout: a real server serves their lists and watches from storage, not
 * from the watch cache (wire-facts §4), so what storage compacted is what the client sees.
 */
import { expect } from "vitest";
import { event } from "../../fixtures/objects.js";
import { ApiError, type ApiResponse } from "../../lib/harness/client.js";
import type { KubeList } from "../../lib/harness/objects.js";
import { resourcePath } from "../../lib/harness/resources.js";
import type { Session } from "../../lib/harness/session.js";
import type { WatchStream } from "../../lib/harness/watch.js";
import { compareResourceVersions } from "../../lib/wire/resource-version.js";
import { uniqueName } from "./conformance.js";
import { expectContinueToken } from "./continue-token.js";

export const OLD_NAMES = ["a", "b", "c", "d", "e", "f", "g"];

/** Versions and a continue token taken before the history goes. */
export interface HeldState {
  session: Session;
  ns: string;
  /** The version of the first write: once the history is gone, nothing may be served at it. */
  oldRv: string;
  /** The collection version of the first page. */
  firstPageRv: string;
  /** The continue token of a first page of 3. */
  token: string;
  /** Written after the first page was served. */
  late: string;
}

const path = (s: HeldState): string => resourcePath(s.session.types.events, s.ns);

function asList(res: ApiResponse): KubeList {
  expect(res.code, res.text.slice(0, 300)).toBe(200);
  return res.json as KubeList;
}

function expectExpired(res: ApiResponse, what: string): void {
  expect(res.code, `${what}: ${res.text.slice(0, 300)}`).toBe(410);
  expect(res.json, `${what}: a 410 carries a Status`).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
}

/** Writes Events a…g into a new namespace, takes a first page of 3, then writes one more. */
export async function holdOldState(session: Session, suiteName: string): Promise<HeldState> {
  const ns = await session.createNamespace(suiteName);
  const t = session.types.events;
  let oldRv = "";
  for (const n of OLD_NAMES) {
    const made = await session.client.create(t, ns, event(session.types, ns, n));
    oldRv ||= made.metadata.resourceVersion ?? "";
  }
  const first = asList(await session.client.raw("GET", resourcePath(t, ns), { query: { limit: 3 } }));
  expect(first.items.map((i) => i.metadata.name)).toEqual(["a", "b", "c"]);
  expectContinueToken(first.metadata.continue, first.metadata.resourceVersion ?? "", "c", "a first page of 3 of 7 carries a continue token");
  const late = uniqueName("zz-late");
  await session.client.create(t, ns, event(session.types, ns, late));
  return { session, ns, oldRv, firstPageRv: first.metadata.resourceVersion ?? "", token: first.metadata.continue as string, late };
}

/** True once an Exact list at the held version answers 410: the history it needs is gone. */
export async function historyGone(s: HeldState): Promise<boolean> {
  const res = await s.session.client.raw("GET", path(s), { query: { resourceVersion: s.oldRv, resourceVersionMatch: "Exact" } });
  if (res.code === 410) return true;
  expect(res.code, `an Exact list at ${s.oldRv} while it is still kept: ${res.text.slice(0, 300)}`).toBe(200);
  return false;
}

/** Exact, and a paged list at a given version (the Continuation-free limit cells), of a version no longer kept: 410 Expired. */
export async function expectExactExpired(s: HeldState): Promise<void> {
  for (const query of [
    { resourceVersionMatch: "Exact", resourceVersion: s.oldRv },
    { resourceVersion: s.oldRv, limit: 1 },
  ]) {
    expectExpired(await s.session.client.raw("GET", path(s), { query }), `list ${JSON.stringify(query)}`);
  }
}

/**
 * The client's duty with NotOlderThan and limit, from a version no longer kept: doc1 allows a
 * 410, after which the client lists again from the most recent version and gets everything. A
 * real 1.35 server answers such a list from its newest state (the watch cache; storage at its
 * current revision for Events), so it answers 200 with a list not older than the version.
 */
export async function expectNotOlderThanLimitAnsweredThenRetry(s: HeldState): Promise<void> {
  const first = await s.session.client.raw("GET", path(s), { query: { resourceVersionMatch: "NotOlderThan", resourceVersion: s.oldRv, limit: 1 } });
  if (first.code === 410) expectExpired(first, "NotOlderThan with limit");
  else
    expect(
      compareResourceVersions(asList(first).metadata.resourceVersion ?? "", s.oldRv),
      "a list not older than the version asked for",
    ).toBeGreaterThanOrEqual(0);
  const seen: string[] = [];
  let token: string | undefined;
  do {
    const l = asList(await s.session.client.raw("GET", path(s), { query: { limit: 3, ...(token ? { continue: token } : {}) } }));
    seen.push(...l.items.map((i) => i.metadata.name ?? ""));
    token = l.metadata.continue || undefined;
  } while (token && seen.length < 20);
  expect(seen, "the retry without a version lists everything").toEqual([...OLD_NAMES, s.late]);
}

/** An expired continue token: 410 Expired carrying a fresh token that lists the rest at a newer version. */
export async function expectContinueExpired(s: HeldState): Promise<void> {
  const res = await s.session.client.raw("GET", path(s), { query: { limit: 3, continue: s.token } });
  expectExpired(res, "the held continue token");
  const fresh = (res.json as { metadata?: { continue?: string } }).metadata?.continue;
  // The same position at the latest version (rv -1, wire-facts §9): the rest, not the list again.
  expectContinueToken(fresh, "-1", "c", "the 410's new continue token");
  const rest = asList(await s.session.client.raw("GET", path(s), { query: { limit: 100, continue: fresh } }));
  expect(
    rest.items.map((i) => i.metadata.name),
    "the rest, read at the current state",
  ).toEqual(["d", "e", "f", "g", s.late]);
  expect(compareResourceVersions(rest.metadata.resourceVersion ?? "", s.firstPageRv)).toBeGreaterThan(0);
}

/**
 * A watch from a version no longer kept: 410 Expired, as an HTTP answer or as an ERROR event
 * that ends the stream (never a silent end); then the client's way out, a fresh list and a watch
 * from its version, sees the next change.
 */
export async function expectWatchExpiredThenRelist(s: HeldState): Promise<void> {
  const { session, ns } = s;
  const t = session.types.events;
  let w: WatchStream | undefined;
  try {
    w = await session.client.watch(t, ns, { resourceVersion: s.oldRv });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    expect(e.code, e.message).toBe(410);
  }
  if (w) {
    try {
      const ev = await w.next(10_000);
      expect(ev, "the stream must not end silently (a known upstream bug for events, wire-facts §4)").toBeDefined();
      expect(ev?.type).toBe("ERROR");
      expect(ev?.object).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
      expect(await w.next(10_000), "the stream ends after the error").toBeUndefined();
    } finally {
      w.close();
    }
  }
  const fresh = (await session.client.list(t, ns)).metadata.resourceVersion;
  const again = await session.client.watch(t, ns, { resourceVersion: fresh });
  try {
    const name = uniqueName("after");
    await session.client.create(t, ns, event(session.types, ns, name));
    const ev = await again.next(10_000);
    expect([ev?.type, ev?.object.metadata.name]).toEqual(["ADDED", name]);
  } finally {
    again.close();
  }
}

/**
 * The checks of suites/support/expired-history.ts against the emulator: they pass once the
 * history is compacted (the target right), and fail while it is still kept (a target that
 * serves a version it should have given up is caught). The answers the emulator does not give
 * (a NotOlderThan list refused with 410, a watch refused in its HTTP answer) are put in front of
 * it by replacing one request of the session's client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { compactHistory } from "../../lib/harness/admin.js";
import type { ApiClient, ApiResponse } from "../../lib/harness/client.js";
import { ApiError } from "../../lib/harness/errors.js";
import type { WatchEvent } from "../../lib/harness/objects.js";
import { Session } from "../../lib/harness/session.js";
import type { WatchStream } from "../../lib/harness/watch.js";
import { isDecimalResourceVersion } from "../../lib/wire/resource-version.js";
import {
  expectContinueExpired,
  expectExactExpired,
  expectNotOlderThanLimitAnsweredThenRetry,
  expectWatchExpiredThenRelist,
  type HeldState,
  historyGone,
  holdOldState,
  OLD_NAMES,
} from "../../suites/support/expired-history.js";

let emulator: RunningEmulator;
let session: Session;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, admin: true });
  session = new Session({
    target: { url: emulator.url, credentials: {}, source: "test" },
    runId: "expired-history",
    spec: { groupDomain: "k8s.io", vendor: "kubernetes" },
  });
});

afterAll(async () => {
  await session?.client.close();
  await emulator?.close();
});

/** The held state, seen through a client whose listed methods answer otherwise. */
function through(held: HeldState, replace: Partial<Pick<ApiClient, "raw" | "watch">>): HeldState {
  const client = Object.assign(Object.create(held.session.client) as ApiClient, replace);
  const s = Object.assign(Object.create(held.session) as Session, { client });
  return { ...held, session: s };
}

const expiredStatus = { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: "too old resource version" };
const answer = (code: number, json: unknown): ApiResponse => {
  const text = JSON.stringify(json);
  return { code, headers: {}, bytes: new TextEncoder().encode(text), text, json };
};

describe("expired history checks", () => {
  it("hold the versions and a continue token of a first page of 3, then write one more", async () => {
    const held = await holdOldState(session, "expired-history");
    expect(OLD_NAMES).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(held.ns).toMatch(/^tollgate-/);
    expect(held.session).toBe(session);
    expect(isDecimalResourceVersion(held.oldRv)).toBe(true);
    expect(isDecimalResourceVersion(held.firstPageRv)).toBe(true);
    expect(BigInt(held.firstPageRv)).toBeGreaterThan(BigInt(held.oldRv));
    expect(held.token).toBeTruthy();
    expect(held.late).toMatch(/^zz-late-/);
    const names = (await session.client.list(session.types.events, held.ns)).items.map((i) => i.metadata.name);
    expect(names).toEqual([...OLD_NAMES, held.late]);
  });

  it("all fail while the history is still kept", async () => {
    const held = await holdOldState(session, "expired-history");
    expect(await historyGone(held)).toBe(false);
    await expect(expectExactExpired(held)).rejects.toThrow(/^list \{"resourceVersionMatch":"Exact","resourceVersion":"\d+"\}: \{.*expected 200 to be 410/s);
    await expect(expectContinueExpired(held)).rejects.toThrow(/^the held continue token: \{.*expected 200 to be 410/s);
    await expect(expectWatchExpiredThenRelist(held)).rejects.toThrow(/expected 'ADDED' to be 'ERROR'/);
    // The paged Exact-free cell alone: a list at the old version with a limit is served too.
    const pagedOnly = through(held, {
      raw: (method, path, opts) =>
        opts?.query?.resourceVersionMatch === "Exact" ? Promise.resolve(answer(410, expiredStatus)) : session.client.raw(method, path, opts),
    });
    await expect(expectExactExpired(pagedOnly)).rejects.toThrow(/^list \{"resourceVersion":"\d+","limit":1\}: .*expected 200 to be 410/s);
    // NotOlderThan with a limit is answered either way; the retry without a version lists everything.
    await expectNotOlderThanLimitAnsweredThenRetry(held);
  });

  it("all pass once the history is compacted, reading with GET", async () => {
    const methods = new Set<string>();
    const recording = through({ session } as HeldState, {
      raw: (method, path, opts) => {
        methods.add(method);
        return session.client.raw(method, path, opts);
      },
    }).session;
    const reading = await holdOldState(recording, "expired-history");
    await compactHistory(session.client);
    expect(await historyGone(reading)).toBe(true);
    await expectExactExpired(reading);
    await expectNotOlderThanLimitAnsweredThenRetry(reading);
    await expectContinueExpired(reading);
    await expectWatchExpiredThenRelist(reading);
    // Reads are GETs; the one POST is the Event the relisted watch must see.
    expect([...methods].sort()).toEqual(["GET", "POST"]);
  });

  it("the retry stops paging after 20 names when the continue tokens never end", async () => {
    const held = await holdOldState(session, "expired-history");
    let pages = 0;
    const endless = through(held, {
      raw: (method, path, opts) => {
        if (opts?.query?.resourceVersionMatch === "NotOlderThan") return session.client.raw(method, path, opts);
        pages += 1;
        // Two names a page, so that the cut at 20 names falls on a page boundary.
        const items = [1, 2].map((i) => ({ metadata: { name: `p${pages}-${i}` } }));
        return Promise.resolve(answer(200, { kind: "EventList", metadata: { resourceVersion: "1", continue: "more" }, items }));
      },
    });
    await expect(expectNotOlderThanLimitAnsweredThenRetry(endless)).rejects.toThrow(/the retry without a version lists everything/);
    expect(pages).toBe(10);
  });

  it("historyGone fails on an answer that is neither the list nor 410", async () => {
    const held = await holdOldState(session, "expired-history");
    const broken = through(held, { raw: () => Promise.resolve(answer(500, { kind: "Status", code: 500 })) });
    await expect(historyGone(broken)).rejects.toThrow(/an Exact list at \d+ while it is still kept: \{"kind":"Status","code":500\}/);
  });

  it("a 410 must carry an Expired Status", async () => {
    const held = await holdOldState(session, "expired-history");
    const bare = through(held, { raw: () => Promise.resolve(answer(410, { kind: "Status", code: 410, reason: "Gone" })) });
    await expect(expectExactExpired(bare)).rejects.toThrow(/a 410 carries a Status/);
    await expect(expectContinueExpired(bare)).rejects.toThrow(/the held continue token: a 410 carries a Status/);
  });

  it("an expired continue token must come with a fresh token, and the rest must be newer", async () => {
    const held = await holdOldState(session, "expired-history");
    await compactHistory(session.client);
    const noToken = through(held, {
      raw: (method, path, opts) =>
        opts?.query?.continue === held.token ? Promise.resolve(answer(410, { ...expiredStatus, metadata: {} })) : session.client.raw(method, path, opts),
    });
    await expect(expectContinueExpired(noToken)).rejects.toThrow(/the 410's new continue token: a non-empty string/);
    const old = through(held, {
      raw: async (method, path, opts) => {
        const res = await session.client.raw(method, path, opts);
        if (opts?.query?.continue !== held.token) (res.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion = held.firstPageRv;
        return res;
      },
    });
    await expect(expectContinueExpired(old)).rejects.toThrow(/expected 0 to be greater than 0/);
  });

  it("NotOlderThan with a limit may be refused with an Expired Status, and not with another, and not answered with an older list", async () => {
    const held = await holdOldState(session, "expired-history");
    const nto = (res: ApiResponse) =>
      through(held, {
        raw: (method, path, opts) => (opts?.query?.resourceVersionMatch === "NotOlderThan" ? Promise.resolve(res) : session.client.raw(method, path, opts)),
      });
    await expectNotOlderThanLimitAnsweredThenRetry(nto(answer(410, expiredStatus)));
    await expect(expectNotOlderThanLimitAnsweredThenRetry(nto(answer(410, { kind: "Status", code: 410 })))).rejects.toThrow(
      /NotOlderThan with limit: a 410 carries a Status/,
    );
    const older = answer(200, { kind: "EventList", metadata: { resourceVersion: String(BigInt(held.oldRv) - 1n) }, items: [] });
    await expect(expectNotOlderThanLimitAnsweredThenRetry(nto(older))).rejects.toThrow(/a list not older than the version asked for/);
    await expect(expectNotOlderThanLimitAnsweredThenRetry(nto(answer(500, {})))).rejects.toThrow(/expected 500 to be 200/);
  });

  it("the retry must list everything, page after page", async () => {
    const held = await holdOldState(session, "expired-history");
    const lost = through(held, {
      raw: async (method, path, opts) => {
        const res = await session.client.raw(method, path, opts);
        if (opts?.query?.continue) (res.json as { items: unknown[] }).items = [];
        return res;
      },
    });
    await expect(expectNotOlderThanLimitAnsweredThenRetry(lost)).rejects.toThrow(/the retry without a version lists everything/);
  });

  it("a watch from a version no longer kept may be refused with 410 in its answer, and not with another code", async () => {
    const held = await holdOldState(session, "expired-history");
    let calls = 0;
    const refusing = (code: number) =>
      through(held, {
        watch: ((...args: Parameters<ApiClient["watch"]>) => {
          calls += 1;
          if (args[2]?.resourceVersion === held.oldRv) return Promise.reject(new ApiError("GET", "/watch", code, undefined, "refused"));
          return session.client.watch(...args);
        }) as ApiClient["watch"],
      });
    await expectWatchExpiredThenRelist(refusing(410));
    expect(calls).toBe(2);
    await expect(expectWatchExpiredThenRelist(refusing(500))).rejects.toThrow(/GET \/watch → 500: refused/);
    const odd = through(held, {
      watch: ((...args: Parameters<ApiClient["watch"]>) =>
        args[2]?.resourceVersion === held.oldRv ? Promise.reject(new TypeError("no stream")) : session.client.watch(...args)) as ApiClient["watch"],
    });
    const e = await expectWatchExpiredThenRelist(odd).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TypeError);
    expect((e as Error).message).toBe("no stream");
  });

  it("a watch from a version no longer kept must end with one ERROR event carrying an Expired Status", async () => {
    const held = await holdOldState(session, "expired-history");
    const streaming = (events: (WatchEvent | undefined)[]) => {
      let closed = 0;
      const state = through(held, {
        watch: ((...args: Parameters<ApiClient["watch"]>) => {
          if (args[2]?.resourceVersion !== held.oldRv) return session.client.watch(...args);
          const queue = [...events];
          return Promise.resolve({
            next: () => Promise.resolve(queue.shift()),
            close: () => {
              closed += 1;
            },
          } as unknown as WatchStream);
        }) as ApiClient["watch"],
      });
      return { state, closed: () => closed };
    };
    const expired = { type: "ERROR", object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 } } as unknown as WatchEvent;
    const fine = streaming([expired]);
    await expectWatchExpiredThenRelist(fine.state);
    expect(fine.closed()).toBe(1);
    await expect(expectWatchExpiredThenRelist(streaming([]).state)).rejects.toThrow(/the stream must not end silently/);
    const other = { ...expired, object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "InternalError", code: 500 } } as unknown as WatchEvent;
    await expect(expectWatchExpiredThenRelist(streaming([other]).state)).rejects.toThrow(/to match object/);
    const more = streaming([expired, expired]);
    await expect(expectWatchExpiredThenRelist(more.state)).rejects.toThrow(/the stream ends after the error/);
    expect(more.closed()).toBe(1);
  });
});

/**
 * doc1 "Resource version semantics for list": every cell of the table, row by row, with
 * the Invalid cells as a real 1.35 server answers them (422 Invalid on ListOptions; 400 for
 * continue with a non-zero resourceVersion, wire-facts §9).
 */
import { beforeAll, describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse, Query } from "../lib/harness/client.js";
import type { KubeList } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, expectListOptionsInvalid, useSuite } from "./support/conformance.js";
import { expectContinueToken } from "./support/continue-token.js";

const suite = useSuite("list-semantics");

/** Versions taken while setting up: after the first object, and after all three. */
let rvFirst = "";
let rvLast = "";
const NAMES = ["a-first", "b-second", "c-third"];
/** The resourceVersion each object's create returned; nothing changes them afterwards. */
const createdRv = new Map<string, string>();
/** Each object carries its own data, so a list's items can be told from made-up ones. */
const dataOf = (name: string): Record<string, string> | undefined => foreignData.get(name) ?? { name };
/** What the cluster's controllers put in the namespace before the suite wrote (a real cluster's kube-root-ca.crt): name → data. */
const foreignData = new Map<string, Record<string, string> | undefined>();
/** NAMES and those, in key order. */
let ALL: string[] = NAMES;

beforeAll(async () => {
  const { session, ns } = suite;
  const t = session.types.configmaps;
  for (const o of (await session.client.list(t, ns)).items) {
    foreignData.set(o.metadata.name ?? "", o.data as Record<string, string> | undefined);
    createdRv.set(o.metadata.name ?? "", o.metadata.resourceVersion ?? "");
  }
  ALL = [...NAMES, ...foreignData.keys()].sort();
  for (const name of NAMES) {
    const o = await session.client.create(t, ns, configMap(session.types, ns, name, dataOf(name)));
    createdRv.set(name, o.metadata.resourceVersion ?? "");
    if (!rvFirst) rvFirst = o.metadata.resourceVersion ?? "";
    rvLast = o.metadata.resourceVersion ?? "";
  }
});

async function list(query: Query): Promise<ApiResponse> {
  const { session, ns } = suite;
  return listAt(resourcePath(session.types.configmaps, ns), query);
}

function listAt(path: string, query: Query): Promise<ApiResponse> {
  return suite.session.client.raw("GET", path, { query });
}

function asList(res: ApiResponse): KubeList {
  expect(res.code, res.text.slice(0, 300)).toBe(200);
  const l = res.json as KubeList;
  expect(l.kind).toBe("ConfigMapList");
  expect(Array.isArray(l.items)).toBe(true);
  return l;
}

const names = (l: KubeList): string[] => l.items.map((i) => i.metadata.name ?? "");
const rvOf = (l: KubeList): string => l.metadata.resourceVersion ?? "";

/** A continue token of a first page of one item, for the Continuation cells. */
async function firstPageToken(): Promise<string> {
  const l = asList(await list({ limit: 1 }));
  expectContinueToken(l.metadata.continue, rvOf(l), "a-first", "a first page of 1 of 3 items carries a continue token");
  return l.metadata.continue as string;
}

function expectMostRecent(l: KubeList): void {
  expect(names(l)).toEqual(expect.arrayContaining(NAMES.slice(0, l.items.length)));
  expect(compareResourceVersions(rvOf(l), rvLast)).toBeGreaterThanOrEqual(0);
}

function expectExactAtFirst(l: KubeList): void {
  expect(rvOf(l), "the collection version equals the requested one").toBe(rvFirst);
  const existing = ALL.filter((n) => compareResourceVersions(createdRv.get(n) ?? "", rvFirst) <= 0);
  expect(names(l), "the items are those that existed at that version").toEqual(existing);
}

function expectNotOlderThanFirst(l: KubeList): void {
  expect(compareResourceVersions(rvOf(l), rvFirst)).toBeGreaterThanOrEqual(0);
}

/**
 * The data is a state at the collection's version: exactly the objects created by then (the
 * first `limit` of them on a page), each as created, with the version of its create (an item's
 * version is when it last changed). Holds for any version a list may be served at.
 */
function expectStateAtListVersion(l: KubeList, limit?: number): void {
  const at = rvOf(l);
  const existing = ALL.filter((n) => compareResourceVersions(createdRv.get(n) ?? "", at) <= 0);
  expect(names(l), `the objects that existed at the list's version ${at}`).toEqual(existing.slice(0, limit));
  for (const item of l.items) {
    const name = item.metadata.name ?? "";
    expect({ name, data: item.data, resourceVersion: item.metadata.resourceVersion }).toEqual({
      name,
      data: dataOf(name),
      resourceVersion: createdRv.get(name),
    });
  }
}

/** Not older than, with the items: a state at the collection's version, which is at least rvFirst (so a-first is in it). */
function expectItemsNotOlderThanFirst(l: KubeList, limit?: number): void {
  expectNotOlderThanFirst(l);
  expectStateAtListVersion(l, limit);
  expect(names(l)).toContain("a-first");
}

describe("list: resourceVersionMatch unset", () => {
  check(
    { title: "limit unset, resourceVersion unset: most recent", rules: ["doc1.list-rv.nomatch-limit-unset-rv-unset-most-recent", "doc1.list-rv.most-recent"] },
    async () => {
      const l = asList(await list({}));
      expect(names(l)).toEqual(ALL);
      expectMostRecent(l);
    },
  );
  check({ title: "limit unset, resourceVersion 0: any version", rules: ["doc1.list-rv.nomatch-limit-unset-rv-0-any", "doc1.list-rv.any"] }, async () => {
    expectStateAtListVersion(asList(await list({ resourceVersion: "0" })));
  });
  check(
    {
      title: "limit unset, another resourceVersion: not older than it",
      rules: ["doc1.list-rv.nomatch-limit-unset-rv-other-not-older-than", "doc1.list-rv.not-older-than", "doc1.list-rv.not-older-than-list-rv-only"],
    },
    async () => {
      expectItemsNotOlderThanFirst(asList(await list({ resourceVersion: rvFirst })));
    },
  );
  check(
    { title: "limit=n, resourceVersion unset: most recent, at most n items", rules: ["doc1.list-rv.nomatch-limit-no-continue-rv-unset-most-recent"] },
    async () => {
      const l = asList(await list({ limit: 2 }));
      expect(names(l)).toEqual(NAMES.slice(0, 2));
      expectMostRecent(l);
    },
  );
  check({ title: "limit=n, resourceVersion 0: any version", rules: ["doc1.list-rv.nomatch-limit-no-continue-rv-0-any"] }, async () => {
    expectStateAtListVersion(asList(await list({ limit: 2, resourceVersion: "0" })), 2);
  });
  check(
    { title: "limit=n, another resourceVersion: exactly that version", rules: ["doc1.list-rv.nomatch-limit-no-continue-rv-other-exact", "doc1.list-rv.exact"] },
    async () => {
      expectExactAtFirst(asList(await list({ limit: 10, resourceVersion: rvFirst })));
    },
  );
  check(
    {
      title: "limit=n with continue, resourceVersion unset: the next page",
      rules: ["doc1.list-rv.nomatch-limit-continue-rv-unset-continuation", "doc1.list-rv.continuation"],
    },
    async () => {
      const l = asList(await list({ limit: 1, continue: await firstPageToken() }));
      expect(names(l)).toEqual(["b-second"]);
    },
  );
  check({ title: "limit=n with continue, resourceVersion 0: the next page", rules: ["doc1.list-rv.nomatch-limit-continue-rv-0-continuation"] }, async () => {
    const l = asList(await list({ limit: 1, continue: await firstPageToken(), resourceVersion: "0" }));
    expect(names(l)).toEqual(["b-second"]);
  });
  check(
    {
      title: "limit=n with continue and another resourceVersion: 400",
      rules: ["doc1.list-rv.nomatch-limit-continue-rv-other-invalid", "doc1.errors.400-continue-with-rv"],
    },
    async () => {
      const res = await list({ limit: 1, continue: await firstPageToken(), resourceVersion: rvFirst });
      expect(res.code, res.text.slice(0, 300)).toBe(400);
      expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
      expect((res.json as { message?: string }).message).toMatch(/specifying resource version is not allowed when using continue/);
    },
  );
});

describe("list: resourceVersionMatch=Exact", () => {
  check(
    {
      title: "limit unset, resourceVersion unset: invalid",
      rules: ["doc1.list-rv.exact-limit-unset-rv-unset-invalid", "doc1.errors.invalid-list-combinations", "doc1.query.rvm-needs-rv"],
    },
    async () => {
      expectListOptionsInvalid(await list({ resourceVersionMatch: "Exact" }), "resourceVersionMatch");
    },
  );
  check(
    { title: "limit unset, resourceVersion 0: invalid", rules: ["doc1.list-rv.exact-limit-unset-rv-0-invalid", "doc1.errors.invalid-list-combinations"] },
    async () => {
      expectListOptionsInvalid(await list({ resourceVersionMatch: "Exact", resourceVersion: "0" }), "resourceVersionMatch");
    },
  );
  check(
    {
      title: "limit unset, another resourceVersion: exactly that version",
      rules: [
        "doc1.list-rv.exact-limit-unset-rv-other-exact",
        "doc1.list-rv.exact-collection-rv",
        "doc1.list-rv.client-exact-verify",
        "doc1.versioning.rvm-since-1-19",
      ],
    },
    async () => {
      expectExactAtFirst(asList(await list({ resourceVersionMatch: "Exact", resourceVersion: rvFirst })));
    },
  );
  check(
    {
      title: "limit=n, resourceVersion unset: invalid",
      rules: ["doc1.list-rv.exact-limit-no-continue-rv-unset-invalid", "doc1.errors.invalid-list-combinations", "doc1.query.rvm-needs-rv"],
    },
    async () => {
      expectListOptionsInvalid(await list({ resourceVersionMatch: "Exact", limit: 1 }), "resourceVersionMatch");
    },
  );
  check(
    { title: "limit=n, resourceVersion 0: invalid", rules: ["doc1.list-rv.exact-limit-no-continue-rv-0-invalid", "doc1.errors.invalid-list-combinations"] },
    async () => {
      expectListOptionsInvalid(await list({ resourceVersionMatch: "Exact", resourceVersion: "0", limit: 1 }), "resourceVersionMatch");
    },
  );
  check({ title: "limit=n, another resourceVersion: exactly that version", rules: ["doc1.list-rv.exact-limit-no-continue-rv-other-exact"] }, async () => {
    expectExactAtFirst(asList(await list({ resourceVersionMatch: "Exact", resourceVersion: rvFirst, limit: 5 })));
  });
});

describe("list: resourceVersionMatch=NotOlderThan", () => {
  check(
    {
      title: "limit unset, resourceVersion unset: invalid",
      rules: ["doc1.list-rv.notolderthan-limit-unset-rv-unset-invalid", "doc1.errors.invalid-list-combinations", "doc1.query.rvm-needs-rv"],
    },
    async () => {
      expectListOptionsInvalid(await list({ resourceVersionMatch: "NotOlderThan" }), "resourceVersionMatch");
    },
  );
  check({ title: "limit unset, resourceVersion 0: any version", rules: ["doc1.list-rv.notolderthan-limit-unset-rv-0-any"] }, async () => {
    expectStateAtListVersion(asList(await list({ resourceVersionMatch: "NotOlderThan", resourceVersion: "0" })));
  });
  check(
    {
      title: "limit unset, another resourceVersion: not older than it",
      rules: ["doc1.list-rv.notolderthan-limit-unset-rv-other-not-older-than", "doc1.query.rvm-values"],
    },
    async () => {
      expectItemsNotOlderThanFirst(asList(await list({ resourceVersionMatch: "NotOlderThan", resourceVersion: rvFirst })));
    },
  );
  check(
    {
      title: "limit=n, resourceVersion unset: invalid",
      rules: ["doc1.list-rv.notolderthan-limit-no-continue-rv-unset-invalid", "doc1.errors.invalid-list-combinations", "doc1.query.rvm-needs-rv"],
    },
    async () => {
      expectListOptionsInvalid(await list({ resourceVersionMatch: "NotOlderThan", limit: 1 }), "resourceVersionMatch");
    },
  );
  check({ title: "limit=n, resourceVersion 0: any version", rules: ["doc1.list-rv.notolderthan-limit-no-continue-rv-0-any"] }, async () => {
    expectStateAtListVersion(asList(await list({ resourceVersionMatch: "NotOlderThan", resourceVersion: "0", limit: 2 })), 2);
  });
  check(
    { title: "limit=n, another resourceVersion: not older than it", rules: ["doc1.list-rv.notolderthan-limit-no-continue-rv-other-not-older-than"] },
    async () => {
      expectItemsNotOlderThanFirst(asList(await list({ resourceVersionMatch: "NotOlderThan", resourceVersion: rvFirst, limit: 2 })), 2);
    },
  );
});

describe("list: a server that does not honour resourceVersionMatch", () => {
  check({ title: "answers as if resourceVersionMatch were unset", rules: ["doc1.query.rvm-unhonored-as-unset"], needs: ["rvm-ignored"] }, async () => {
    const exact = asList(await list({ resourceVersionMatch: "Exact", resourceVersion: rvFirst }));
    // Not honoured (as detected): the answer must be the resourceVersion-only cell, "not older than".
    const unset = asList(await list({ resourceVersion: rvFirst }));
    expect(names(exact)).toEqual(names(unset));
    // As unset, the answer is a state at the list's own version, not older than the one asked for:
    // no item newer than the list, none missing that existed by then.
    expectItemsNotOlderThanFirst(exact);
  });
});

describe("list: the client's duty with NotOlderThan and limit", () => {
  check(
    {
      title: "NotOlderThan with limit from an old version: a list not older than it, or 410 after which a retry without resourceVersion lists everything",
      rules: ["doc1.list-rv.client-not-older-than-limit-410", "doc1.list-rv.notolderthan-limit-no-continue-rv-other-not-older-than"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("list-semantics");
      const t = session.types.configmaps;
      const foreign = (await session.client.list(t, ns)).items.map((i) => i.metadata.name ?? "");
      const old = (await session.client.create(t, ns, configMap(session.types, ns, "a-old"))).metadata.resourceVersion ?? "";
      await session.client.create(t, ns, configMap(session.types, ns, "b-newer"));
      // History is not compacted here (that changes the whole target): a server that still keeps
      // the version answers the list; the 410 branch is checked in suites/exclusive/history-compaction.test.ts.
      const path = resourcePath(t, ns);
      const first = await session.client.raw("GET", path, { query: { resourceVersionMatch: "NotOlderThan", resourceVersion: old, limit: 1 } });
      if (first.code === 410) {
        expect(first.json, "a 410 carries a Status").toMatchObject({ kind: "Status", status: "Failure", code: 410 });
      } else {
        expect(first.code, first.text.slice(0, 300)).toBe(200);
        expect(compareResourceVersions(rvOf(first.json as KubeList), old)).toBeGreaterThanOrEqual(0);
      }
      // The duty: start again with resourceVersion empty (most recent) and page through.
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const l = asList(await listAt(path, { limit: 1, ...(token ? { continue: token } : {}) }));
        seen.push(...names(l));
        token = l.metadata.continue || undefined;
      } while (token && seen.length < 10);
      expect(seen).toEqual(["a-old", "b-newer", ...foreign].sort());
    },
  );
});

describe("list: combinations the table leaves out", () => {
  check(
    {
      title: "resourceVersionMatch together with continue: invalid",
      rules: ["doc1.list-rv.match-with-continue-invalid", "doc1.errors.invalid-list-combinations"],
    },
    async () => {
      const token = await firstPageToken();
      expectListOptionsInvalid(await list({ resourceVersionMatch: "NotOlderThan", resourceVersion: "0", limit: 1, continue: token }), "resourceVersionMatch");
    },
  );
  check({ title: "an unknown resourceVersionMatch value: invalid", rules: ["doc1.query.rvm-values", "doc1.errors.invalid-list-combinations"] }, async () => {
    expectListOptionsInvalid(await list({ resourceVersionMatch: "Newest", resourceVersion: rvFirst }), "resourceVersionMatch");
  });
});

/** doc1 "Chunked lists" and the collection fields continue / remainingItemCount. */
import { beforeAll, describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse, Query } from "../lib/harness/client.js";
import type { KubeList } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, useSuite } from "./support/conformance.js";
import { expectContinueToken } from "./support/continue-token.js";

const suite = useSuite("chunked-list");
const NAMES = ["a", "b", "c", "d", "e", "f", "g"];
/** NAMES and what the target's controllers put in the namespace (a real cluster's kube-root-ca.crt), in key order. */
let ALL: string[] = NAMES;

/** The names a namespace holds before the suite writes: content it did not create. */
async function foreign(ns: string): Promise<string[]> {
  const { session } = suite;
  return (await session.client.list(session.types.configmaps, ns)).items.map((i) => i.metadata.name ?? "");
}

/** Names in chunks of n, as paging by n returns them. */
const chunks = (names: string[], n: number): string[][] => Array.from({ length: Math.ceil(names.length / n) }, (_, i) => names.slice(i * n, i * n + n));

beforeAll(async () => {
  const { session, ns } = suite;
  ALL = [...NAMES, ...(await foreign(ns))].sort();
  for (const name of NAMES) {
    await session.client.create(session.types.configmaps, ns, {
      ...configMap(session.types, ns, name),
      metadata: { name, namespace: ns, labels: { set: "chunk" } },
    });
  }
});

async function page(query: Query, ns = suite.ns): Promise<ApiResponse> {
  const { session } = suite;
  return session.client.raw("GET", resourcePath(session.types.configmaps, ns), { query });
}

function asList(res: ApiResponse): KubeList {
  expect(res.code, res.text.slice(0, 300)).toBe(200);
  return res.json as KubeList;
}

/** Pages through the whole list, checking each page as it comes. */
async function pageAll(limit: number, extra: Query = {}, between?: (pageNo: number) => Promise<void>): Promise<KubeList[]> {
  const pages: KubeList[] = [];
  let token: string | undefined;
  do {
    const l = asList(await page({ limit, ...extra, ...(token ? { continue: token } : {}) }));
    pages.push(l);
    expect(l.items.length, `page ${pages.length} respects limit=${limit}`).toBeLessThanOrEqual(limit);
    token = l.metadata.continue || undefined;
    if (token && between) await between(pages.length);
    expect(pages.length, "paging ends").toBeLessThan(50);
  } while (token);
  return pages;
}

const namesOf = (pages: KubeList[]): string[] => pages.flatMap((p) => p.items.map((i) => i.metadata.name ?? ""));

describe("chunked lists", () => {
  // The seven objects paged by three, once, for the tests that read a whole paging.
  let byThree: Promise<KubeList[]> | undefined;
  const pagesOfThree = (): Promise<KubeList[]> => (byThree ??= pageAll(3));

  check(
    {
      title: "limit=n caps a page at n items, and a page with more to come carries the continue token",
      rules: ["doc1.query.limit", "doc1.chunking.step1-up-to-n", "doc1.chunking.step1-continue-if-more", "doc1.fields.continue-token"],
    },
    async () => {
      const pages = await pagesOfThree();
      expect(pages.map((p) => p.items.length)).toEqual(chunks(ALL, 3).map((c) => c.length));
      // The token holds the chunk's list version and the position after its last item (wire-facts §9).
      for (const p of pages.slice(0, -1)) expectContinueToken(p.metadata.continue, p.metadata.resourceVersion ?? "", p.items.at(-1)?.metadata.name ?? "");
      // A limit above the count is at most n too: everything, and no token since nothing remains.
      const all = asList(await page({ limit: 50 }));
      expect(all.items.map((i) => i.metadata.name)).toEqual(ALL);
      expect(all.metadata.continue ?? "").toBe("");
    },
  );

  check(
    {
      title: "continue=<token> with the same limit returns the next chunk: in key order, without duplicates or gaps, the same when asked again",
      rules: ["doc1.query.continue", "doc1.chunking.step2-next-chunk"],
    },
    async () => {
      const pages = await pagesOfThree();
      expect(pages.map((p) => p.items.map((i) => i.metadata.name))).toEqual(chunks(ALL, 3));
      // The token names a place in the list, so the same request answers the same next chunk.
      const again = asList(await page({ limit: 3, continue: pages[0]?.metadata.continue ?? "" }));
      expect(again.items.map((i) => i.metadata.name)).toEqual(ALL.slice(3, 6));
      // Its own token (opaque: not compared) leads on to the chunk after.
      const next = asList(await page({ limit: 3, continue: again.metadata.continue ?? "" }));
      expect(next.items.map((i) => i.metadata.name)).toEqual(ALL.slice(6, 9));
    },
  );

  check(
    {
      title: "every chunk carries the first chunk's resourceVersion, and the last one has an empty continue",
      rules: ["doc1.chunking.step2-rv-constant", "doc1.chunking.step3-empty-at-end", "doc1.fields.continue-empty-at-end"],
    },
    async () => {
      const pages = await pagesOfThree();
      const rv = pages[0]?.metadata.resourceVersion;
      expect(rv).toMatch(/^\d+$/);
      for (const p of pages) expect(p.metadata.resourceVersion).toBe(rv);
      // JSON leaves an empty continue out (wire-facts §8).
      expect(pages.at(-1)?.metadata, "the last chunk has no continue").not.toHaveProperty("continue");
      // The chunk that ends the list is the last: no token leads on to an empty chunk.
      expect(pages.map((p) => p.items.map((i) => i.metadata.name)).at(-1), "the last chunk holds the last item").toEqual(chunks(ALL, 3).at(-1));
      const exactlyFull = asList(await page({ limit: ALL.length }));
      expect(exactlyFull.items.map((i) => i.metadata.name)).toEqual(ALL);
      expect(exactlyFull.metadata, "a chunk filled exactly by the rest of the list is the last one").not.toHaveProperty("continue");
    },
  );

  check(
    { title: "chunking is always on: a limit is honoured on namespaced and cluster-scoped lists alike", rules: ["doc1.versioning.cap-chunked-lists"] },
    async () => {
      const { session } = suite;
      for (const path of [resourcePath(session.types.configmaps, suite.ns), resourcePath(session.types.namespaces)]) {
        const res = await session.client.raw("GET", path, { query: { limit: 1 } });
        const l = asList(res);
        expect(l.items.length, path).toBe(1);
        expectContinueToken(l.metadata.continue, l.metadata.resourceVersion ?? "", l.items[0]?.metadata.name ?? "", `${path}: more remain, the token`);
      }
    },
  );

  check(
    {
      title: "remainingItemCount counts what follows, and is omitted on the last page",
      rules: ["doc1.fields.remaining-count-value", "doc1.fields.remaining-count-omitted-complete"],
    },
    async () => {
      const pages = await pagesOfThree();
      // What follows each page: the rest of the list, none (omitted) after the last.
      const following = chunks(ALL, 3).map((_, i, all) => (i === all.length - 1 ? undefined : ALL.length - 3 * (i + 1)));
      expect(pages.map((p) => p.metadata.remainingItemCount)).toEqual(following);
      const whole = asList(await page({}));
      expect(whole.metadata.remainingItemCount).toBeUndefined();
    },
  );

  check({ title: "remainingItemCount is omitted when a label or field selector is used", rules: ["doc1.fields.remaining-count-no-selectors"] }, async () => {
    for (const q of [{ labelSelector: "set=chunk" }, { fieldSelector: `metadata.namespace=${suite.ns}` }]) {
      const first = asList(await page({ limit: 2, ...q }));
      expect(first.items.length).toBe(2);
      expectContinueToken(first.metadata.continue, first.metadata.resourceVersion ?? "", "b");
      expect(first.metadata.remainingItemCount, JSON.stringify(q)).toBeUndefined();
    }
  });

  check(
    {
      title: "objects created or deleted while paging do not show up: the pages are one snapshot",
      rules: ["doc1.chunking.step2-rv-constant", "doc1.list-rv.continuation", "doc1.list-rv.continuation-token", "doc1.service.consistent-lists"],
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("chunked-list");
      const t = session.types.configmaps;
      const before = await foreign(ns);
      for (const n of NAMES) await session.client.create(t, ns, configMap(session.types, ns, n));
      const pages: KubeList[] = [];
      let token: string | undefined;
      do {
        const l = asList(await page({ limit: 2, ...(token ? { continue: token } : {}) }, ns));
        pages.push(l);
        token = l.metadata.continue || undefined;
        // Every token pins the first chunk's version and resumes after the chunk's last item.
        if (token)
          expectContinueToken(token, pages[0]?.metadata.resourceVersion ?? "", l.items.at(-1)?.metadata.name ?? "", `the token of chunk ${pages.length}`);
        expect(pages.length, "paging ends").toBeLessThan(20);
        if (pages.length === 1) {
          await session.client.create(t, ns, configMap(session.types, ns, "zz-late"));
          await session.client.delete(t, ns, "g");
          await session.client.update(t, ns, { ...(await session.client.get(t, ns, "f")), data: { changed: "yes" } });
        }
      } while (token);
      expect(namesOf(pages)).toEqual([...NAMES, ...before].sort());
      const f = pages.flatMap((p) => p.items).find((i) => i.metadata.name === "f");
      expect(f?.data ?? {}, "f as it was when the first page was served").toEqual({});
    },
  );

  check({ title: "a garbage continue token is a 400, not a server error", rules: ["doc1.list-rv.continuation-token", "doc1.query.continue"] }, async () => {
    for (const token of ["garbage", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiIifQ", "%%%"]) {
      const res = await page({ limit: 2, continue: token });
      expect(res.code, `${token}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest" });
    }
  });

  check(
    { title: "the all-namespaces list pages too, in namespace/name order", rules: ["doc1.chunking.step2-next-chunk", "doc1.paths.list-all-namespaces"] },
    async () => {
      const { session } = suite;
      const t = session.types.configmaps;
      const seen: string[] = [];
      let token: string | undefined;
      let rv: string | undefined;
      do {
        const l = await session.client.list(t, undefined, { limit: 5, ...(token ? { continue: token } : {}) });
        rv ??= l.metadata.resourceVersion;
        expect(l.metadata.resourceVersion).toBe(rv);
        seen.push(...l.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`));
        token = l.metadata.continue || undefined;
        // Across namespaces the position is namespace/name (wire-facts §9).
        if (token) expectContinueToken(token, rv ?? "", seen.at(-1) ?? "");
      } while (token && seen.length < 5_000);
      const ours = seen.filter((k) => k.startsWith(`${suite.ns}/`));
      expect(ours).toEqual(ALL.map((n) => `${suite.ns}/${n}`));
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual(seen);
    },
  );
});

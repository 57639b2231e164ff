/** doc1 "Chunked lists" and the collection fields continue / remainingItemCount. */
import { beforeAll, describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse, Query } from "../lib/harness/client.js";
import type { KubeList } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, useSuite } from "./support/conformance.js";

const suite = useSuite("chunked-list");
const NAMES = ["a", "b", "c", "d", "e", "f", "g"];

beforeAll(async () => {
  const { session, ns } = suite;
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
  check(
    {
      title: "pages of at most n items, in key order, without duplicates or gaps, all at the first page's version",
      rules: [
        "doc1.chunking.step1-up-to-n",
        "doc1.chunking.step1-continue-if-more",
        "doc1.chunking.step2-next-chunk",
        "doc1.chunking.step2-rv-constant",
        "doc1.chunking.step3-empty-at-end",
        "doc1.fields.continue-token",
        "doc1.fields.continue-empty-at-end",
        "doc1.query.limit",
        "doc1.query.continue",
        "doc1.versioning.cap-chunked-lists",
      ],
    },
    async () => {
      const pages = await pageAll(3);
      expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
      expect(namesOf(pages)).toEqual(NAMES);
      const rv = pages[0]?.metadata.resourceVersion;
      for (const p of pages) expect(p.metadata.resourceVersion).toBe(rv);
      for (const p of pages.slice(0, -1)) expect(p.metadata.continue).toBeTruthy();
      expect(pages.at(-1)?.metadata.continue ?? "").toBe("");
    },
  );

  check(
    {
      title: "remainingItemCount counts what follows, and is omitted on the last page",
      rules: ["doc1.fields.remaining-count-value", "doc1.fields.remaining-count-omitted-complete"],
    },
    async () => {
      const pages = await pageAll(3);
      expect(pages.map((p) => p.metadata.remainingItemCount)).toEqual([4, 1, undefined]);
      const whole = asList(await page({}));
      expect(whole.metadata.remainingItemCount).toBeUndefined();
    },
  );

  check({ title: "remainingItemCount is omitted when a label or field selector is used", rules: ["doc1.fields.remaining-count-no-selectors"] }, async () => {
    for (const q of [{ labelSelector: "set=chunk" }, { fieldSelector: `metadata.namespace=${suite.ns}` }]) {
      const first = asList(await page({ limit: 2, ...q }));
      expect(first.items.length).toBe(2);
      expect(first.metadata.continue).toBeTruthy();
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
      for (const n of NAMES) await session.client.create(t, ns, configMap(session.types, ns, n));
      const pages: KubeList[] = [];
      let token: string | undefined;
      do {
        const l = asList(await page({ limit: 2, ...(token ? { continue: token } : {}) }, ns));
        pages.push(l);
        token = l.metadata.continue || undefined;
        if (pages.length === 1) {
          await session.client.create(t, ns, configMap(session.types, ns, "zz-late"));
          await session.client.delete(t, ns, "g");
          await session.client.update(t, ns, { ...(await session.client.get(t, ns, "f")), data: { changed: "yes" } });
        }
      } while (token);
      expect(namesOf(pages)).toEqual(NAMES);
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
      } while (token && seen.length < 5_000);
      const ours = seen.filter((k) => k.startsWith(`${suite.ns}/`));
      expect(ours).toEqual(NAMES.map((n) => `${suite.ns}/${n}`));
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual(seen);
    },
  );
});

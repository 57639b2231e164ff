/** doc1 "Resource version semantics for get", and the answer to a version from the future. */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { compareResourceVersions } from "../lib/wire/resource-version.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("get-rv");

async function setup(): Promise<{ name: string; rv1: string; rv2: string }> {
  const { session, ns } = suite;
  const t = session.types.configmaps;
  const name = uniqueName("g");
  const o = await session.client.create(t, ns, configMap(session.types, ns, name, { v: "1" }));
  const u = await session.client.update(t, ns, { ...o, data: { v: "2" } });
  return { name, rv1: o.metadata.resourceVersion ?? "", rv2: u.metadata.resourceVersion ?? "" };
}

describe("get and resourceVersion", () => {
  check({ title: "unset: the most recent state", rules: ["doc1.get-rv.unset-most-recent"] }, async () => {
    const { session, ns } = suite;
    const { name, rv2 } = await setup();
    const got = await session.client.get(session.types.configmaps, ns, name);
    expect(got.metadata.resourceVersion).toBe(rv2);
    expect(got.data).toEqual({ v: "2" });
  });

  check({ title: "0: any version of the object", rules: ["doc1.get-rv.zero-any"] }, async () => {
    const { session, ns } = suite;
    const { name, rv1, rv2 } = await setup();
    const got = await session.client.get(session.types.configmaps, ns, name, { resourceVersion: "0" });
    expect([rv1, rv2]).toContain(got.metadata.resourceVersion);
    // Whichever version it is, the object is as it was at that version.
    expect(got.data, `the data of version ${got.metadata.resourceVersion}`).toEqual({ v: got.metadata.resourceVersion === rv1 ? "1" : "2" });
  });

  check({ title: "another version: state not older than it", rules: ["doc1.get-rv.other-not-older-than", "doc1.query.rv-param"] }, async () => {
    const { session, ns } = suite;
    const { name, rv1, rv2 } = await setup();
    const got = await session.client.get(session.types.configmaps, ns, name, { resourceVersion: rv1 });
    expect(compareResourceVersions(got.metadata.resourceVersion ?? "", rv1)).toBeGreaterThanOrEqual(0);
    expect(got.data, `the data of version ${got.metadata.resourceVersion}`).toEqual({ v: got.metadata.resourceVersion === rv1 ? "1" : "2" });
    const latest = await session.client.get(session.types.configmaps, ns, name, { resourceVersion: rv2 });
    expect(latest.metadata.resourceVersion).toBe(rv2);
    expect(latest.data).toEqual({ v: "2" });
  });

  check(
    {
      title: "a version far in the future: 504 'Too large resource version', or a Retry-After",
      rules: ["doc1.errors.504-too-large-rv", "doc1.errors.retry-after-unrecognized-rv", "doc1.headers.retry-after"],
      timeout: 60_000,
    },
    async () => {
      const { session, ns } = suite;
      const { name, rv2 } = await setup();
      const future = `${rv2}000000`;
      for (const path of [resourcePath(session.types.configmaps, ns, name), resourcePath(session.types.configmaps, ns)]) {
        const res = await session.client.raw("GET", path, {
          query: { resourceVersion: future, ...(path.endsWith("configmaps") ? { resourceVersionMatch: "NotOlderThan" } : {}) },
        });
        const retryAfter = res.headers["retry-after"];
        if (res.code === 504) {
          expect(res.json).toMatchObject({ kind: "Status", status: "Failure", code: 504 });
          expect((res.json as { message?: string }).message).toMatch(/Too large resource version/);
        } else {
          expect(retryAfter, `${path}: HTTP ${res.code} without Retry-After: ${res.text.slice(0, 200)}`).toMatch(/^\d+$/);
        }
      }
    },
  );
});

/** doc1 "Partial metadata representation" and "Metadata-only and table lists", in JSON, YAML and protobuf. */
import { beforeAll, describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { decodeBody, frameDecoderFor } from "../lib/harness/encodings.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, expectNotAcceptable, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("partial-metadata");

const params = (kind: string): string => `as=${kind};g=meta.${suite.session.settings.spec.groupDomain};v=v1`;

beforeAll(async () => {
  const { session, ns } = suite;
  await session.client.create(session.types.configmaps, ns, {
    ...configMap(session.types, ns, "pm-1", { secret: "s" }),
    metadata: { name: "pm-1", namespace: ns, labels: { l: "1" } },
  });
  await session.client.create(session.types.configmaps, ns, configMap(session.types, ns, "pm-2", { x: "y" }));
});

describe("metadata-only", () => {
  /** pm-1 as PartialObjectMetadata in the media type `base`, decoded; the checks every encoding shares. */
  async function onePartial(base: string): Promise<KubeObject> {
    const { session, ns } = suite;
    const full = await session.client.get(session.types.configmaps, ns, "pm-1");
    const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns, "pm-1"), {
      accept: `${base};${params("PartialObjectMetadata")}`,
    });
    expect(res.code, `${base}: ${res.text.slice(0, 200)}`).toBe(200);
    const body = decodeBody(res, session.settings.spec) as KubeObject;
    expect(body.kind, base).toBe("PartialObjectMetadata");
    expect(body.apiVersion, base).toBe(`meta.${session.settings.spec.groupDomain}/v1`);
    expect(Object.keys(body).sort(), base).toEqual(["apiVersion", "kind", "metadata"]);
    expect(body.metadata, base).toEqual(full.metadata);
    return body;
  }

  /** The configmaps as a PartialObjectMetadataList in the media type `base`, decoded. */
  async function listPartial(base: string): Promise<{ kind: string; apiVersion: string; metadata: { resourceVersion?: string }; items: KubeObject[] }> {
    const { session, ns } = suite;
    const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { accept: `${base};${params("PartialObjectMetadataList")}` });
    expect(res.code, `${base}: ${res.text.slice(0, 200)}`).toBe(200);
    return decodeBody(res, session.settings.spec) as { kind: string; apiVersion: string; metadata: { resourceVersion?: string }; items: KubeObject[] };
  }

  check(
    {
      title: "one object as PartialObjectMetadata (JSON): kind PartialObjectMetadata, metadata only",
      rules: ["doc1.media.partial-meta-type", "doc1.partial-meta.single-kind", "doc1.partial-meta.single-metadata-only"],
    },
    async () => {
      await onePartial("application/json");
    },
  );

  check(
    {
      title: "the PartialObjectMetadata parameters work with YAML, and attached to the protobuf media type",
      rules: ["doc1.media.rule2-partial-meta-encodings", "doc1.media.rule2-binary-params"],
    },
    async () => {
      await onePartial("application/yaml");
      const pb = `application/vnd.${suite.session.settings.spec.vendor}.protobuf`;
      await onePartial(pb);
      const list = await listPartial(pb);
      // Only this suite's objects: a real cluster's namespace holds others too (kube-root-ca.crt).
      expect([list.kind, list.items.map((i) => i.metadata.name).filter((n) => n?.startsWith("pm-"))]).toEqual(["PartialObjectMetadataList", ["pm-1", "pm-2"]]);
      for (const i of list.items) expect(i.data, "protobuf list items").toBeUndefined();
    },
  );

  check(
    {
      title: "a list as PartialObjectMetadataList (JSON): kind PartialObjectMetadataList, list metadata with resourceVersion",
      rules: ["doc1.media.partial-meta-list-type", "doc1.partial-meta.list-kind", "doc1.partial-meta.list-metadata"],
    },
    async () => {
      const list = await listPartial("application/json");
      expect([list.kind, list.apiVersion]).toEqual(["PartialObjectMetadataList", `meta.${suite.session.settings.spec.groupDomain}/v1`]);
      expect(list.metadata.resourceVersion).toMatch(/^[1-9][0-9]*$/);
    },
  );

  check(
    {
      title: "the items of a PartialObjectMetadataList are every object's metadata, nothing else",
      rules: ["doc1.partial-meta.list-items", "doc1.meta-lists.partial-list"],
    },
    async () => {
      const { session, ns } = suite;
      const list = await listPartial("application/json");
      const full = await session.client.list(session.types.configmaps, ns);
      expect(list.items.map((i) => i.metadata.name).filter((n) => n?.startsWith("pm-"))).toEqual(["pm-1", "pm-2"]);
      expect(list.items.map((i) => i.metadata)).toEqual(full.items.map((i) => i.metadata));
      for (const i of list.items) {
        expect(i.data).toBeUndefined();
        expect(Object.keys(i).filter((k) => !["kind", "apiVersion", "metadata"].includes(k))).toEqual([]);
      }
    },
  );

  check(
    { title: "a metadata-only watch sends PartialObjectMetadata objects", rules: ["doc1.partial-meta.single-kind", "doc1.partial-meta.single-metadata-only"] },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(
        t,
        ns,
        { resourceVersion: rv },
        { accept: `application/json;${params("PartialObjectMetadata")}`, decoderFor: (ct) => frameDecoderFor(ct) },
      );
      try {
        const name = uniqueName("pmw");
        await session.client.create(t, ns, configMap(session.types, ns, name, { hidden: "yes" }));
        const ev = await w.next();
        expect(ev?.type).toBe("ADDED");
        expect(ev?.object.kind).toBe("PartialObjectMetadata");
        expect(ev?.object.metadata.name).toBe(name);
        expect(ev?.object.data).toBeUndefined();
      } finally {
        w.close();
      }
    },
  );

  check({ title: "asking only for a metadata-only list on a single-object path is not acceptable", rules: ["doc1.media.rule3-as-only-406"] }, async () => {
    const { session, ns } = suite;
    const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns, "pm-1"), {
      accept: `application/json;${params("PartialObjectMetadataList")}`,
    });
    expectNotAcceptable(res, /^you requested PartialObjectMetadataList, but the requested object is not a list \(/);
  });
});

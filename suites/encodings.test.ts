/**
 * doc1 "Binary envelope (Protobuf)", "Media types and negotiation": the same object through
 * every encoding the target offers, the protobuf envelope and watch framing, YAML, and CBOR
 * (on only behind its alpha gate: when the target lacks it, its "off" answers are checked).
 */
import fc from "fast-check";
import { load } from "js-yaml";
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse } from "../lib/harness/client.js";
import { decodeBody, type Encoding, encodeBody, frameDecoderFor, mediaTypeOf } from "../lib/harness/encodings.js";
import type { KubeList, KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { decodeEnvelope, decodeObject, PROTOBUF_CONTENT_TYPE, ProtobufFormatError } from "../lib/wire/protobuf/index.js";
import { check, offers, uniqueName, useSuite } from "./support/conformance.js";
import { assertProperty } from "./support/properties.js";

const suite = useSuite("encodings");

/** CBOR is round-tripped only where the runner detected it (gate CBORServingAndStorage, alpha, off by default). */
const cborServed = (): boolean => offers("cbor");

const get = (path: string, accept: string): Promise<ApiResponse> => suite.session.client.raw("GET", path, { accept });

/** The object as the JSON form would show it, ignoring nothing: the encodings must agree exactly. */
async function inEncoding(path: string, encoding: Encoding): Promise<unknown> {
  const { session } = suite;
  const res = await get(path, mediaTypeOf(encoding, session.settings.spec));
  expect(res.code, `${encoding}: ${res.text.slice(0, 200)}`).toBe(200);
  expect(res.headers["content-type"], `${encoding} response Content-Type`).toMatch(
    new RegExp(`^${mediaTypeOf(encoding, session.settings.spec).replace(/[.+]/g, "\\$&")}`),
  );
  return decodeBody(res, session.settings.spec);
}

const encodings = (): Encoding[] => (cborServed() ? ["json", "yaml", "protobuf", "cbor"] : ["json", "yaml", "protobuf"]);

describe("protobuf envelope", () => {
  /** An Event, an EventList and a Namespace, each as protobuf and as JSON. */
  async function protobufAndJson(): Promise<{ path: string; res: ApiResponse; json: Record<string, unknown> }[]> {
    const { session, ns } = suite;
    const name = uniqueName("pb");
    await session.client.create(session.types.events, ns, (await import("../fixtures/objects.js")).event(session.types, ns, name));
    const out: { path: string; res: ApiResponse; json: Record<string, unknown> }[] = [];
    for (const path of [
      resourcePath(session.types.events, ns, name),
      // The list at the version JSON saw, so both encodings show one snapshot.
      resourcePath(session.types.events, ns),
      resourcePath(session.types.namespaces, undefined, ns),
    ]) {
      const json = (await get(path, "application/json")).json as Record<string, unknown>;
      const rv = (json.metadata as { resourceVersion?: string }).resourceVersion ?? "";
      const at = json.kind === "EventList" ? `${path}?resourceVersion=${rv}&resourceVersionMatch=Exact` : path;
      const res = await get(at, mediaTypeOf("protobuf", session.settings.spec));
      expect(res.code, `${at}: ${res.text.slice(0, 200)}`).toBe(200);
      out.push({ path, res, json });
    }
    return out;
  }

  check(
    {
      title: "a protobuf body is served as application/vnd.<vendor>.protobuf and begins with the 4 bytes 6b 38 73 00",
      rules: ["doc1.protobuf.magic-prefix", "doc1.headers.content-type-response"],
    },
    async () => {
      for (const { path, res } of await protobufAndJson()) {
        expect(res.headers["content-type"], path).toBe(`application/vnd.${suite.session.settings.spec.vendor}.protobuf`);
        expect([...res.bytes.slice(0, 4)], path).toEqual([0x6b, 0x38, 0x73, 0x00]);
      }
    },
  );

  check(
    {
      title: "the prefix is followed by a runtime.Unknown whose typeMeta has apiVersion in field 1 and kind in field 2, as the JSON form",
      rules: ["doc1.protobuf.unknown-envelope", "doc1.protobuf.unknown-type-meta", "doc1.protobuf.type-meta-api-version", "doc1.protobuf.type-meta-kind"],
    },
    async () => {
      for (const { path, res, json } of await protobufAndJson()) {
        const env = decodeEnvelope(res.bytes);
        expect([env.apiVersion, env.kind], path).toEqual([json.apiVersion, json.kind]);
        expect(env.raw.length, `${path}: raw holds the object`).toBeGreaterThan(0);
      }
    },
  );

  check(
    {
      title: "the Unknown's raw holds the complete object: decoded, it is the JSON form exactly",
      rules: ["doc1.protobuf.unknown-raw", "doc1.media.protobuf-some-types"],
    },
    async () => {
      for (const { path, res, json } of await protobufAndJson()) expect(decodeObject(res.bytes), path).toEqual(json);
    },
  );

  check(
    {
      title: "the Unknown's contentEncoding is empty (raw is not compressed) and its contentType empty or protobuf",
      rules: ["doc1.protobuf.unknown-content-encoding", "doc1.protobuf.unknown-content-type"],
    },
    async () => {
      for (const { path, res } of await protobufAndJson()) {
        const env = decodeEnvelope(res.bytes);
        expect(env.contentEncoding, path).toBe("");
        expect(["", PROTOBUF_CONTENT_TYPE], path).toContain(env.contentType);
      }
    },
  );

  check({ title: "property: corrupting any byte of the prefix makes the client reject the body", rules: ["doc1.protobuf.client-reject-prefix"] }, async () => {
    const { session, ns } = suite;
    const res = await get(resourcePath(session.types.namespaces, undefined, ns), mediaTypeOf("protobuf", session.settings.spec));
    expect(res.code).toBe(200);
    // Rejecting every other prefix means something only if the server's own prefix is accepted.
    expect(decodeObject(res.bytes).kind, "the body as served decodes").toBe("Namespace");
    await assertProperty(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const bad = res.bytes.slice();
        bad[at] = (bad[at] as number) ^ flip;
        expect(() => decodeObject(bad)).toThrow(ProtobufFormatError);
      }),
      { numRuns: 100 },
    );
  });

  check(
    {
      title: "a protobuf watch frames each event with a 4-byte length and embeds an enveloped object",
      rules: ["doc1.watch-events.protobuf-framing", "doc1.headers.chunked-watch"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(
        t,
        ns,
        { resourceVersion: rv },
        { accept: mediaTypeOf("protobuf", session.settings.spec), decoderFor: (ct) => frameDecoderFor(ct, session.settings.spec.vendor) },
      );
      try {
        expect(w.contentType).toBe(`application/vnd.${session.settings.spec.vendor}.protobuf;stream=watch`);
        expect(w.headers["transfer-encoding"]).toBe("chunked");
        const name = uniqueName("pbw");
        const made = await session.client.create(t, ns, configMap(session.types, ns, name, { k: "v" }));
        await session.client.delete(t, ns, name);
        const [added, deleted] = await w.take(2);
        expect(added?.type).toBe("ADDED");
        expect(added?.object).toEqual(made);
        expect(deleted?.type).toBe("DELETED");
      } finally {
        w.close();
      }
    },
  );
});

describe("one object, every encoding", () => {
  check(
    {
      title: "property: get and list carry the same objects in JSON, YAML, protobuf (and CBOR when served)",
      rules: ["doc1.media.json-default", "doc1.media.yaml", "doc1.media.protobuf-some-types", "doc1.headers.content-type-response"],
      timeout: 60_000,
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("encodings");
      const t = session.types.configmaps;
      // Valid ConfigMap keys: a real server refuses "." and anything starting with "..".
      const keyArb = fc.stringMatching(/^[-._a-zA-Z0-9]{1,20}$/).filter((k) => k !== "." && !k.startsWith(".."));
      const dataArb = fc.dictionary(keyArb, fc.string({ maxLength: 40 }), { maxKeys: 5 });
      let n = 0;
      await assertProperty(
        fc.asyncProperty(
          dataArb,
          fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/), fc.stringMatching(/^[a-z0-9]{0,10}$/), { maxKeys: 3 }),
          async (data, labels) => {
            const name = `enc-${++n}`;
            await session.client.create(t, ns, { ...configMap(session.types, ns, name, data), metadata: { name, namespace: ns, labels } });
            const one = resourcePath(t, ns, name);
            const reference = await inEncoding(one, "json");
            for (const e of encodings()) expect(await inEncoding(one, e), `${e} get`).toEqual(reference);
            // Other clients may write meanwhile, which moves a list's version: read every encoding
            // at the reference list's version (Exact), so all see one snapshot.
            const listRef = (await inEncoding(resourcePath(t, ns), "json")) as KubeList;
            const atRef = `${resourcePath(t, ns)}?resourceVersion=${listRef.metadata.resourceVersion ?? ""}&resourceVersionMatch=Exact`;
            for (const e of encodings()) expect(await inEncoding(atRef, e), `${e} list`).toEqual(listRef);
          },
        ),
        { numRuns: 10 },
      );
    },
  );

  check(
    {
      title: "objects can be created from YAML and protobuf bodies, and read back the same",
      rules: ["doc1.media.yaml", "doc1.headers.content-type-request", "doc1.paths.request-bodies"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const bodies: Encoding[] = cborServed() ? ["yaml", "protobuf", "cbor"] : ["yaml", "protobuf"];
      for (const e of bodies) {
        const name = uniqueName(`in-${e}`);
        const res = await session.client.raw("POST", resourcePath(t, ns), {
          rawBody: encodeBody(configMap(session.types, ns, name, { from: e }) as Record<string, unknown>, e),
          contentType: mediaTypeOf(e, session.settings.spec),
        });
        expect(res.code, `${e}: ${res.text.slice(0, 200)}`).toBe(201);
        expect((await session.client.get(t, ns, name)).data).toEqual({ from: e });
      }
    },
  );

  check(
    {
      title: "a YAML watch is not acceptable (406): YAML has no stream form",
      rules: ["doc1.media.rule1-none-supported-406", "doc1.errors.406-not-acceptable"],
    },
    async () => {
      const { session, ns } = suite;
      const res = await session.client.raw("GET", resourcePath(session.types.configmaps, ns), { accept: "application/yaml", query: { watch: "true" } });
      expect(res.code).toBe(406);
      // Only the stream negotiation fails, so the Status itself may be written as YAML.
      const status = (res.json ?? load(res.text)) as { kind?: string; reason?: string; code?: number; message?: string };
      expect(status).toMatchObject({ kind: "Status", reason: "NotAcceptable", code: 406 });
      expect(status.message).toMatch(/^only the following media types are accepted: application\/json/);
      expect(status.message, "YAML is not offered for a watch").not.toContain("application/yaml");
    },
  );

  check(
    {
      title: "Accept naming protobuf and then JSON gets protobuf for built-in types, and JSON when protobuf cannot be had",
      rules: ["doc1.media.protobuf-json-fallback", "doc1.headers.accept-negotiation"],
    },
    async () => {
      const { session, ns } = suite;
      const pb = mediaTypeOf("protobuf", session.settings.spec);
      const res = await get(resourcePath(session.types.configmaps, ns), `${pb}, application/json`);
      expect(res.headers["content-type"]).toBe(pb);
      // A Table has no protobuf form: with JSON listed too, the server falls back to it.
      const table = await get(resourcePath(session.types.configmaps, ns), `${pb};as=Table;v=v1;g=meta.${session.settings.spec.groupDomain}, application/json`);
      expect(table.code).toBe(200);
      expect(table.headers["content-type"]).toMatch(/^application\/json/);
    },
  );
});

describe("CBOR", () => {
  check(
    {
      title: "with CBOR off (the 1.35 default): Accept application/cbor gets 406, a CBOR body 415",
      rules: ["doc1.media.cbor-off-406", "doc1.media.cbor-off-415", "doc1.versioning.cap-cbor"],
      needs: ["!cbor"],
    },
    async () => {
      const { session, ns } = suite;
      const res = await get(resourcePath(session.types.configmaps, ns), "application/cbor");
      expect(res.code).toBe(406);
      expect(res.json).toMatchObject({
        reason: "NotAcceptable",
        message: `only the following media types are accepted: application/json, application/yaml, application/vnd.${session.settings.spec.vendor}.protobuf`,
      });
      const post = await session.client.raw("POST", resourcePath(session.types.configmaps, ns), {
        rawBody: encodeBody(configMap(session.types, ns, uniqueName("c")) as Record<string, unknown>, "cbor"),
        contentType: "application/cbor",
      });
      expect(post.code).toBe(415);
      expect(post.json).toMatchObject({
        reason: "UnsupportedMediaType",
        message: `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.${session.settings.spec.vendor}.protobuf`,
      });
    },
  );

  check(
    {
      title: "with CBOR on: bodies start with the self-described tag, a watch is an application/cbor-seq, and apply takes CBOR",
      rules: ["doc1.media.cbor", "doc1.media.cbor-seq-watch", "doc1.media.apply-patch-cbor"],
      needs: ["cbor"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const res = await get(resourcePath(t, ns), "application/cbor");
      expect([...res.bytes.slice(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: rv }, { accept: "application/cbor", decoderFor: (ct) => frameDecoderFor(ct) });
      try {
        expect(w.contentType).toBe("application/cbor-seq");
        const name = uniqueName("cw");
        const made = await session.client.create(t, ns, configMap(session.types, ns, name));
        const ev = await w.next();
        expect(ev?.type).toBe("ADDED");
        expect(ev?.object as KubeObject).toEqual(made);
      } finally {
        w.close();
      }
      const applied = uniqueName("capply");
      const applyRes = await session.client.raw("PATCH", resourcePath(t, ns, applied), {
        rawBody: encodeBody(configMap(session.types, ns, applied, { via: "cbor" }) as Record<string, unknown>, "cbor"),
        contentType: "application/apply-patch+cbor",
        query: { fieldManager: "tollgate-cbor" },
      });
      expect(applyRes.code, applyRes.text.slice(0, 200)).toBe(201);
      expect((await session.client.get(t, ns, applied)).data).toEqual({ via: "cbor" });
    },
  );
});

describe("large collections", () => {
  check(
    {
      title: "a multi-megabyte list comes whole in JSON and in protobuf, the encodings meant for large collections",
      rules: ["doc1.limits.large-collection-encodings"],
      timeout: 60_000,
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("encodings");
      const t = session.types.configmaps;
      const blob = "q".repeat(48 * 1024);
      for (let i = 0; i < 48; i++) await session.client.create(t, ns, configMap(session.types, ns, `large-${String(i).padStart(2, "0")}`, { blob }));
      const json = (await inEncoding(resourcePath(t, ns), "json")) as KubeList;
      const pb = (await inEncoding(
        `${resourcePath(t, ns)}?resourceVersion=${json.metadata.resourceVersion ?? ""}&resourceVersionMatch=Exact`,
        "protobuf",
      )) as KubeList;
      // The 48 made here, beside what the cluster's controllers put there (a real cluster's kube-root-ca.crt).
      expect(json.items.filter((i) => i.metadata.name?.startsWith("large-"))).toHaveLength(48);
      expect(pb).toEqual(json);
    },
  );
});

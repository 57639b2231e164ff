/**
 * doc2 round trip: an Event written in any body encoding the target takes reads back the same,
 * apart from server-set metadata, through get, list and watch in every encoding it serves
 * (JSON, YAML, protobuf; CBOR only when its alpha gate is on). YAML has no watch form.
 */
import { describe, expect } from "vitest";
import { event } from "../../fixtures/objects.js";
import type { ApiResponse } from "../../lib/harness/client.js";
import { decodeBody, type Encoding, encodeBody, frameDecoderFor, mediaTypeOf } from "../../lib/harness/encodings.js";
import type { KubeList, KubeObject } from "../../lib/harness/objects.js";
import { resourcePath } from "../../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "../support/conformance.js";

const suite = useSuite("event-round-trip");
const t = () => suite.session.types.events;

/** What every 1.35 server serves; CBOR only behind its alpha gate (CBORServingAndStorage), checked by the tests that need it. */
const CORE_ENCODINGS: Encoding[] = ["json", "yaml", "protobuf"];
const WITH_CBOR: Encoding[] = [...CORE_ENCODINGS, "cbor"];

const SERVER_SET = ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"];

/** Zero values a Go serializer writes for fields that are not omitempty (deprecatedSource: {}, timestamps: null). */
const isZero = (v: unknown): boolean => v === null || v === "" || v === 0 || (typeof v === "object" && v !== null && Object.keys(v).length === 0);

/** What the client sent must come back unchanged: every field except server-set metadata; unsent fields only as zero values. */
function expectSameAsSent(got: KubeObject, sent: KubeObject, what: string): void {
  const { metadata: gotMeta, ...gotRest } = got;
  const { metadata: sentMeta, ...sentRest } = sent;
  const sentKeys = new Set(Object.keys(sentRest));
  const extra = Object.entries(gotRest).filter(([k]) => !sentKeys.has(k));
  expect(
    extra.filter(([, v]) => !isZero(v)),
    `${what}: fields the client did not send`,
  ).toEqual([]);
  expect(Object.fromEntries(Object.entries(gotRest).filter(([k]) => sentKeys.has(k))), `${what}: fields outside metadata`).toEqual(sentRest);
  const kept = Object.fromEntries(Object.entries(gotMeta).filter(([k]) => !SERVER_SET.includes(k)));
  expect(kept, `${what}: metadata apart from server-set fields`).toEqual(sentMeta);
}

async function read(path: string, encoding: Encoding): Promise<unknown> {
  const { session } = suite;
  const res: ApiResponse = await session.client.raw("GET", path, { accept: mediaTypeOf(encoding, session.settings.spec) });
  expect(res.code, `${encoding} GET ${path}: ${res.text.slice(0, 200)}`).toBe(200);
  return decodeBody(res, session.settings.spec);
}

/** Creates an Event from a body in each encoding, and reads each back through get and list in each encoding. */
async function roundTripBodies(encodings: readonly Encoding[]): Promise<void> {
  const { session, ns } = suite;
  for (const input of encodings) {
    const name = uniqueName(`rt-${input}`);
    const sent = {
      ...event(session.types, ns, name, `written as ${input}: ünïcødé €`),
      related: { apiVersion: "v1", kind: "Pod", namespace: ns, name: "other" },
    };
    const res = await session.client.raw("POST", resourcePath(t(), ns), {
      rawBody: encodeBody(sent as Record<string, unknown>, input),
      contentType: mediaTypeOf(input, session.settings.spec),
      accept: "application/json",
    });
    expect(res.code, `${input} body: ${res.text.slice(0, 300)}`).toBe(201);
    const created = res.json as KubeObject;
    expectSameAsSent(created, sent, `created from ${input}`);
    for (const out of encodings) {
      expect(await read(resourcePath(t(), ns, name), out), `get in ${out} of the Event written as ${input}`).toEqual(created);
      const list = (await read(`${resourcePath(t(), ns)}?fieldSelector=metadata.name%3D${name}`, out)) as KubeList;
      expect(list.kind).toBe("EventList");
      // Items of a built-in type's list carry no kind and apiVersion of their own.
      const { kind: _k, apiVersion: _v, ...item } = created;
      expect(list.items, `list in ${out} of the Event written as ${input}`).toEqual([item]);
    }
  }
}

/** A watch in each streaming encoding (YAML has none) delivers a new Event exactly as created. */
async function roundTripWatches(encodings: readonly Encoding[]): Promise<void> {
  const { session, ns } = suite;
  const streaming = encodings.filter((e) => e !== "yaml");
  const rv = (await session.client.list(t(), ns)).metadata.resourceVersion;
  const watches = await Promise.all(
    streaming.map((e) =>
      session.client.watch(
        t(),
        ns,
        { resourceVersion: rv },
        { accept: mediaTypeOf(e, session.settings.spec), decoderFor: (ct) => frameDecoderFor(ct, session.settings.spec.vendor) },
      ),
    ),
  );
  try {
    const name = uniqueName("rt-watch");
    const created = await session.client.create(t(), ns, event(session.types, ns, name, "watched in every encoding"));
    for (const [i, w] of watches.entries()) {
      let ev = await w.next(10_000);
      while (ev && ev.type === "BOOKMARK") ev = await w.next(10_000);
      expect(ev?.type, `${streaming[i]} watch`).toBe("ADDED");
      expect(ev?.object, `${streaming[i]} watch`).toEqual(created);
    }
  } finally {
    for (const w of watches) w.close();
  }
}

describe("Event round trip through every encoding", () => {
  check(
    {
      title: "an Event created from a JSON, YAML or protobuf body reads back the same through get and list in each of them",
      rules: [
        "doc2.endpoints.create-path",
        "doc2.endpoints.create-success",
        "doc2.endpoints.get-200",
        "doc2.endpoints.list-ns-200",
        "doc2.service.api-version-kind",
        "doc2.service.list-kind",
        "doc1.media.yaml",
        "doc1.media.protobuf-some-types",
        "doc1.paths.request-bodies",
      ],
    },
    () => roundTripBodies(CORE_ENCODINGS),
  );

  check(
    {
      title: "a watch in JSON and in protobuf delivers the Event exactly as created",
      rules: ["doc1.media.protobuf-some-types", "doc1.watch-events.event-resources", "doc2.service.api-version-kind"],
    },
    () => roundTripWatches(CORE_ENCODINGS),
  );

  check(
    {
      title: "with CBOR on: an Event created from a CBOR body reads back the same in every encoding, and one from any body reads back the same in CBOR",
      rules: ["doc1.media.cbor", "doc2.endpoints.create-success"],
      needs: ["cbor"],
    },
    () => roundTripBodies(WITH_CBOR),
  );

  check(
    {
      title: "with CBOR on: a CBOR watch (application/cbor-seq) delivers the Event exactly as created",
      rules: ["doc1.media.cbor-seq-watch", "doc1.watch-events.event-resources"],
      needs: ["cbor"],
    },
    () => roundTripWatches(WITH_CBOR),
  );
});

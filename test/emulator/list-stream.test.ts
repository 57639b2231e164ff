/** Streamed list bodies: the same bytes as one JSON encoding of the list, sent item by item. */
import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionJsonPieces, compactJson, type JsonObject, prettyJson } from "../../lib/emulator/apimachinery/json.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { MemoryKeyValueStore } from "../../lib/emulator/storage/kv.js";
import { ObjectStorage } from "../../lib/emulator/storage/object-storage.js";
import { MemoryStore } from "../../lib/emulator/storage/store.js";
import { client, configMapBody, uniq } from "./support.js";

const TRICKY = 'a<b>&c "quoted" back\\slash\nnew line \u2028\u2029 ünï 😀 </script>';

describe("collectionJsonPieces", () => {
  const heads: JsonObject[] = [
    {},
    { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "7" } },
    { kind: "EventList", apiVersion: "events.k8s.io/v1", metadata: { resourceVersion: "9", continue: "abc", remainingItemCount: 3 } },
  ];
  const itemSets: unknown[][] = [
    [],
    [{}],
    [{ metadata: { name: TRICKY }, data: { [TRICKY]: TRICKY }, list: [1, [], {}, null, true, 2.5] }],
    Array.from({ length: 5 }, (_, i) => ({ n: i, nested: { deep: [{ x: `${i}${TRICKY}` }] } })),
  ];
  for (const head of heads) {
    for (const items of itemSets) {
      it(`matches one encoding of ${JSON.stringify(head).slice(0, 40)} with ${items.length} items`, () => {
        const whole = { ...head, items };
        const texts = items.map((i) => JSON.stringify(i));
        expect([...collectionJsonPieces(head, "items", texts, false)].join("")).toBe(compactJson(whole));
        expect([...collectionJsonPieces(head, "items", texts, true)].join("")).toBe(prettyJson(whole));
      });
    }
  }
});

describe("ObjectStorage.objectJson", () => {
  const storage = new ObjectStorage(new MemoryKeyValueStore(new MemoryStore()));
  const same = (value: string, revision = 42): void => {
    const kv = { key: "/k", value, createRevision: 1, modRevision: 7 };
    expect(storage.objectJson(kv, revision), value).toBe(JSON.stringify(storage.decode(kv, revision)));
    expect(storage.objectJson(kv), value).toBe(JSON.stringify(storage.decode(kv)));
  };

  it.each([
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}',
    '{"metadata":{}}',
    '{"metadata":{"name":"a"}}',
    '{"metadata":{"generation":2}}',
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"labels":{"uid":"x"}},"data":{"a":"b"}}',
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a\\"b\\\\","namespace":"n","uid":"u","creationTimestamp":"2024-01-01T00:00:00Z"},"data":{}}',
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"generateName":"g-","namespace":"n","selfLink":"/x","uid":"u"}}',
    '{"kind":"metadata\\":{","apiVersion":"v1","metadata":{"name":"a"}}',
    '{"kind":1,"apiVersion":"v1","metadata":{"name":"a","uid":"u","generation":3}}',
    '{"k\\u0069nd":"X","metadata":{"name":"a"}}',
    '{"metadata":{"n\\u0061me":"a","uid":"u"}}',
    JSON.stringify({ metadata: { name: '\u2028<&>\u0000"', uid: "\\", finalizers: ["x"] } }),
  ])("matches the decode path for %s", (value) => same(value));

  it("matches the decode path for canonical metadata of any content", () => {
    const text = fc.string({ unit: "binary", maxLength: 12 });
    const meta = fc.record(
      {
        name: text,
        generateName: text,
        namespace: text,
        selfLink: text,
        uid: text,
        generation: fc.integer({ min: 1, max: 9 }),
        creationTimestamp: text,
        labels: fc.dictionary(text, text, { maxKeys: 3 }),
        finalizers: fc.array(text, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(meta, fc.option(text, { nil: undefined }), fc.integer({ min: 1, max: 2 ** 40 }), (m, kind, revision) => {
        same(JSON.stringify({ ...(kind === undefined ? {} : { kind, apiVersion: "v1" }), metadata: m, data: { m: kind ?? "" } }), revision);
      }),
      { numRuns: 500 },
    );
  });
});

describe("list responses", () => {
  let emu: RunningEmulator;
  let call: ReturnType<typeof client>;
  let ns: string;
  const path = (): string => `/api/v1/namespaces/${ns}/configmaps`;

  beforeAll(async () => {
    // Exact lists and streams of this file's own writes: without the namespace controllers' content.
    emu = await startEmulator({ port: 0, namespaceContent: false });
    call = client(emu.url);
    ns = uniq("stream");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    // About 300 KB: well past the size that is sent in one piece.
    for (let i = 0; i < 300; i++) {
      await call("POST", path(), configMapBody(`cm-${String(i).padStart(3, "0")}`, { text: `${TRICKY} ${"x".repeat(900)}` }));
    }
  });
  afterAll(async () => {
    await emu.close();
  });

  it("streams a large list with chunked encoding, in exactly the bytes of one compact encoding", async () => {
    const r = await call("GET", path());
    expect(r.status).toBe(200);
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    expect(r.headers["content-length"]).toBeUndefined();
    expect(r.json.items).toHaveLength(300);
    expect(r.text).toBe(compactJson(JSON.parse(r.text)));
    expect(r.text).toContain("\\u003c/script\\u003e");
  });

  it("streams the pretty form in exactly the bytes of one indented encoding", async () => {
    const r = await call("GET", `${path()}?pretty=true`);
    expect(r.json.items).toHaveLength(300);
    expect(r.text).toBe(prettyJson(JSON.parse(r.text)));
  });

  it("sends a small list in one piece with Content-Length, as before", async () => {
    const r = await call("GET", `${path()}?limit=2`);
    expect(r.headers["content-length"]).toBe(String(Buffer.byteLength(r.text)));
    expect(r.text).toBe(compactJson(JSON.parse(r.text)));
    expect(r.json.metadata.remainingItemCount).toBe(298);
  });

  it("survives a client that leaves in the middle of a list", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await request(`${emu.url}${path()}`);
      const reader = res.body[Symbol.asyncIterator]();
      await reader.next();
      res.body.destroy();
    }
    const r = await call("GET", path());
    expect(r.json.items).toHaveLength(300);
  });
});

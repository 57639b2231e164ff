/**
 * Every encoding: JSON, YAML, protobuf and (gate on) CBOR responses and request bodies;
 * PartialObjectMetadata(List) in each; list items without TypeMeta; protobuf lists written
 * item by item in the codec's exact bytes; protobuf and CBOR watch streams.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listItemText } from "../../lib/emulator/endpoints/handlers/respond.js";
import { protobufListPieces } from "../../lib/emulator/endpoints/protobuf-list.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { CborSeqReader, decodeCbor, encodeCbor } from "../../lib/wire/cbor.js";
import { decodeObject, encodeObject, WatchFrameReader } from "../../lib/wire/protobuf/index.js";
import { fromYaml, toYaml } from "../../lib/wire/yaml.js";
import { client, configMapBody, openDecodedWatch, uniq } from "./support.js";

const PB = "application/vnd.kubernetes.protobuf";
const POM = "as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const POML = "as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Uint8Array;
}

async function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Uint8Array): Promise<Raw> {
  const res = await request(base + path, { method: method as "GET", headers, body });
  return { status: res.statusCode, headers: res.headers, bytes: new Uint8Array(await res.body.arrayBuffer()) };
}

const text = (r: Raw): string => Buffer.from(r.bytes).toString("utf8");

describe("protobufListPieces", () => {
  it("writes exactly the bytes of encodeObject(the whole list)", () => {
    const items = Array.from({ length: 40 }, (_, i) => ({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: `cm-${i}`, namespace: "ns", uid: `u-${i}`, resourceVersion: String(i + 1), creationTimestamp: "2024-01-01T00:00:00Z" },
      data: { k: "v".repeat(i * 10) },
    }));
    for (const metadata of [{ resourceVersion: "99" }, { resourceVersion: "99", continue: "tok", remainingItemCount: 3 }]) {
      for (const count of [0, 1, 40]) {
        const head = { kind: "ConfigMapList", apiVersion: "v1", metadata };
        const streamed = Buffer.concat([...protobufListPieces(head, () => items.slice(0, count))]);
        expect(Buffer.compare(streamed, Buffer.from(encodeObject({ ...head, items: items.slice(0, count) })))).toBe(0);
      }
    }
  });

  it("cuts kind and apiVersion off a list item's text", () => {
    expect(listItemText('{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}')).toBe('{"metadata":{}}');
    expect(listItemText('{"kind":"A","apiVersion":"v1"}')).toBe("{}");
    expect(listItemText('{"kind":"A\\"B","apiVersion":"v1","x":1}')).toBe('{"x":1}');
    expect(listItemText('{"metadata":{},"kind":"A"}')).toBe('{"metadata":{}}');
  });
});

describe("responses and bodies in every encoding", () => {
  let emu: RunningEmulator;
  let call: ReturnType<typeof client>;
  let ns: string;
  const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;
  beforeAll(async () => {
    // Exact lists and streams of this file's own writes: without the namespace controllers' content.
    emu = await startEmulator({ port: 0, namespaceContent: false });
    call = client(emu.url);
    ns = uniq("enc");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await call("POST", cms(), configMapBody("one", { a: "1" }, { l: "x" }));
    await call("POST", cms(), configMapBody("two", { b: "2" }));
  });
  afterAll(async () => {
    await emu.close();
  });

  it("serves get and list alike in JSON, YAML and protobuf; list items carry no kind or apiVersion", async () => {
    const json = (await call("GET", cms())).json;
    expect(json.items[0].kind).toBeUndefined();
    expect(Object.keys(json.items[0])).toEqual(["metadata", "data"]);
    const yaml = await raw(emu.url, "GET", cms(), { accept: "application/yaml" });
    expect(yaml.headers["content-type"]).toBe("application/yaml");
    expect(fromYaml(text(yaml))).toEqual(json);
    const pb = await raw(emu.url, "GET", cms(), { accept: PB });
    expect(pb.headers["content-type"]).toBe(PB);
    expect(decodeObject(pb.bytes)).toEqual(json);
    const one = (await call("GET", `${cms()}/one`)).json;
    expect(decodeObject((await raw(emu.url, "GET", `${cms()}/one`, { accept: PB })).bytes)).toEqual(one);
    expect(fromYaml(text(await raw(emu.url, "GET", `${cms()}/one`, { accept: "application/yaml" })))).toEqual(one);
  });

  it("creates, updates and deletes with protobuf and YAML bodies", async () => {
    const name = uniq("pb");
    const created = await raw(emu.url, "POST", cms(), { "content-type": PB, accept: PB }, encodeObject(configMapBody(name, { from: "pb" })));
    expect([created.status, created.headers["content-type"]]).toEqual([201, PB]);
    const obj = decodeObject(created.bytes) as { metadata: Record<string, unknown>; data: Record<string, string> };
    expect(obj.data).toEqual({ from: "pb" });
    const updated = await raw(emu.url, "PUT", `${cms()}/${name}`, { "content-type": PB }, encodeObject({ ...obj, data: { from: "pb2" } }));
    expect(updated.status).toBe(200);
    expect(JSON.parse(text(updated)).data).toEqual({ from: "pb2" });
    const options = encodeObject({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Bogus" });
    const refused = await raw(emu.url, "DELETE", `${cms()}/${name}`, { "content-type": PB }, options);
    expect(refused.status).toBe(422);
    const deleted = await raw(
      emu.url,
      "DELETE",
      `${cms()}/${name}`,
      { "content-type": PB, accept: PB },
      encodeObject({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" }),
    );
    expect(deleted.status).toBe(200);
    expect(decodeObject(deleted.bytes)).toMatchObject({ kind: "Status", status: "Success", details: { name, kind: "configmaps" } });

    const yamlName = uniq("yaml");
    const fromYamlBody = await raw(emu.url, "POST", cms(), { "content-type": "application/yaml" }, toYaml(configMapBody(yamlName, { from: "yaml" })));
    expect(fromYamlBody.status).toBe(201);
    const bad = await raw(emu.url, "POST", cms(), { "content-type": PB }, Uint8Array.of(1, 2, 3, 4, 5));
    expect(bad.status).toBe(400);
    const badYaml = await raw(emu.url, "POST", `${cms()}?fieldValidation=Strict`, { "content-type": "application/yaml" }, "kind: ConfigMap\nkind: ConfigMap\n");
    expect(badYaml.status).toBe(400);
  });

  it("answers PartialObjectMetadata in JSON, YAML and protobuf, and PartialObjectMetadataList for lists", async () => {
    const full = (await call("GET", `${cms()}/one`)).json;
    const expected = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: full.metadata };
    const json = await call("GET", `${cms()}/one`, undefined, { headers: { accept: `application/json;${POM}` } });
    expect([json.headers["content-type"], json.json]).toEqual(["application/json", expected]);
    expect(fromYaml(text(await raw(emu.url, "GET", `${cms()}/one`, { accept: `application/yaml;${POM}` })))).toEqual(expected);
    expect(decodeObject((await raw(emu.url, "GET", `${cms()}/one`, { accept: `${PB};${POM}` })).bytes)).toEqual(expected);

    const list = await call("GET", cms(), undefined, { headers: { accept: `application/json;${POML}` } });
    expect([list.json.kind, list.json.apiVersion, Object.keys(list.json)]).toEqual([
      "PartialObjectMetadataList",
      "meta.k8s.io/v1",
      ["kind", "apiVersion", "metadata", "items"],
    ]);
    // The items are PartialObjectMetadata with kind and apiVersion set (response.go asPartialObjectMetadataList).
    expect(list.json.items[0]).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: full.metadata });
    const pbList = decodeObject((await raw(emu.url, "GET", cms(), { accept: `${PB};${POML}` })).bytes) as { items: { metadata: unknown }[] };
    expect(pbList.items.map((i) => i.metadata)).toEqual(list.json.items.map((i: { metadata: unknown }) => i.metadata));
    const empty = await call("GET", `${cms()}?labelSelector=none%3Dat-all`, undefined, { headers: { accept: `application/json;${POML}` } });
    expect(empty.json.items).toBeNull();
  });

  it("refuses the list form for one object and the single form for a list with 406", async () => {
    const single = await call("GET", `${cms()}/one`, undefined, { headers: { accept: `application/json;${POML}` } });
    expect([single.status, single.json.message]).toEqual([
      406,
      "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)",
    ]);
    const list = await call("GET", cms(), undefined, { headers: { accept: `application/json;${POM}` } });
    expect([list.status, list.json.message]).toEqual([406, "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"]);
  });

  it("watches in protobuf frames, PartialObjectMetadata included", async () => {
    const rv = (await call("GET", cms())).json.metadata.resourceVersion;
    const w = await openDecodedWatch(emu.url, `${cms()}?watch=true&resourceVersion=${rv}`, { accept: `${PB};${POM}` }, new WatchFrameReader());
    const plain = await openDecodedWatch(emu.url, `${cms()}?watch=true&resourceVersion=${rv}`, { accept: PB }, new WatchFrameReader());
    try {
      expect(w.headers["content-type"]).toBe(`${PB};stream=watch`);
      const made = (await call("POST", cms(), configMapBody(uniq("w"), { k: "v" }))).json;
      const ev = await w.next();
      expect(ev).toEqual({ type: "ADDED", object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: made.metadata } });
      expect(await plain.next()).toEqual({ type: "ADDED", object: made });
    } finally {
      w.close();
      plain.close();
    }
  });

  it("watches PartialObjectMetadata in JSON", async () => {
    const rv = (await call("GET", cms())).json.metadata.resourceVersion;
    const w = await openDecodedWatch(emu.url, `${cms()}?watch=true&resourceVersion=${rv}`, { accept: `application/json;${POM}` });
    try {
      const made = (await call("POST", cms(), configMapBody(uniq("j"), { hidden: "yes" }))).json;
      expect((await w.next())?.object).toEqual({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: made.metadata });
    } finally {
      w.close();
    }
  });
});

describe("CBOR behind its gate", () => {
  let on: RunningEmulator;
  let off: RunningEmulator;
  const CM = "/api/v1/namespaces/default/configmaps";
  beforeAll(async () => {
    // Streams here hold this file's writes only: no kube-root-ca.crt landing in "default" late.
    on = await startEmulator({ port: 0, featureGates: { CBORServingAndStorage: true }, namespaceContent: false });
    off = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await on.close();
    await off.close();
  });

  it("is refused with the gate off (406, 415)", async () => {
    expect((await raw(off.url, "GET", CM, { accept: "application/cbor" })).status).toBe(406);
    expect((await raw(off.url, "POST", CM, { "content-type": "application/cbor" }, encodeCbor(configMapBody("c")))).status).toBe(415);
  });

  it("serves and reads CBOR with the gate on, items starting with the self-described tag", async () => {
    const created = await raw(
      on.url,
      "POST",
      CM,
      { "content-type": "application/cbor", accept: "application/cbor" },
      encodeCbor(configMapBody("cb", { x: "y" })),
    );
    expect([created.status, created.headers["content-type"]]).toEqual([201, "application/cbor"]);
    expect([...created.bytes.slice(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect(decodeCbor(created.bytes)).toMatchObject({ kind: "ConfigMap", data: { x: "y" } });
    const list = decodeCbor((await raw(on.url, "GET", CM, { accept: "application/cbor" })).bytes) as { kind: string; items: object[] };
    expect(list.kind).toBe("ConfigMapList");
    expect(list.items.length).toBeGreaterThan(0);
    // The watch form only answers to application/cbor.
    expect((await raw(on.url, "GET", CM, { accept: "application/cbor-seq" })).status).toBe(406);
  });

  it("watches as an application/cbor-seq", async () => {
    const call = client(on.url);
    const rv = (await call("GET", CM)).json.metadata.resourceVersion;
    const w = await openDecodedWatch(on.url, `${CM}?watch=true&resourceVersion=${rv}`, { accept: "application/cbor" }, new CborSeqReader());
    try {
      expect(w.headers["content-type"]).toBe("application/cbor-seq");
      const made = (await call("POST", CM, configMapBody(uniq("cw")))).json;
      expect(await w.next()).toEqual({ type: "ADDED", object: made });
    } finally {
      w.close();
    }
  });
});

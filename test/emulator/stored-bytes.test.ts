/**
 * Answers made from what is kept per stored entry must be the bytes made from scratch, and a
 * write must never leave an older one behind:
 *  - a GET or a create of one object in compact JSON is answered from the stored text
 *    (respond.ts writeStoredObject): the bytes of the decode-and-encode path (writeObject, which
 *    an update's answer takes), escapes included;
 *  - a JSON list's items are made straight from the stored texts (respond.ts
 *    compactListPieces): the bytes of one Go-style encoding of the whole list;
 *  - a protobuf list reuses each entry's item bytes from an earlier list (protobuf-list.ts
 *    ItemFields): the bytes of encodeObject of the whole list, before and after a write, and
 *    in each version a type is served in.
 */

import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactJson } from "../../lib/emulator/apimachinery/json.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { decodeObject, encodeObject } from "../../lib/wire/protobuf/index.js";

let emu: RunningEmulator;
const CM = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

async function raw(method: "GET" | "POST" | "PUT", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  const res = await request(emu.url + path, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

/** Characters Go's encoder escapes (<, >, &, U+2028, U+2029), others it writes as they are, and JSON escapes. */
const TRICKY = 'a<b>&c \u2028 \u2029 é ☃ 🦊 "quoted" back\\slash tab\t nl\n';

describe("GET of one object from its stored text", () => {
  it("answers the bytes a create answers for the same state, escapes included", async () => {
    const created = await raw("POST", CM, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "stored-bytes", labels: { app: "x" }, annotations: { note: TRICKY } },
      data: { tricky: TRICKY, plain: "value" },
    });
    expect(created.status).toBe(201);
    const got = await raw("GET", `${CM}/stored-bytes`);
    expect(got.status).toBe(200);
    expect(got.bytes.toString("utf8")).toBe(created.bytes.toString("utf8"));
    expect(got.bytes.equals(created.bytes)).toBe(true);
    const text = got.bytes.toString("utf8");
    // Go's escapes, as json.Encoder writes them, and one trailing newline.
    expect(text).toContain('a\\u003cb\\u003e\\u0026c \\u2028 \\u2029 é ☃ 🦊 \\"quoted\\" back\\\\slash tab\\t nl\\n');
    expect(text.endsWith("}\n")).toBe(true);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["cache-control"]).toBe("no-cache, private");
    expect(got.headers["content-length"]).toBe(String(got.bytes.length));
    const object = JSON.parse(text);
    // The decode-and-encode form of the same object.
    expect(text).toBe(compactJson(object));
    expect(object.metadata.resourceVersion).toBe(JSON.parse(created.bytes.toString("utf8")).metadata.resourceVersion);
    expect(Object.keys(object.metadata).slice(0, 5)).toEqual(["name", "namespace", "uid", "resourceVersion", "creationTimestamp"]);
    // Asked again: the same bytes.
    expect((await raw("GET", `${CM}/stored-bytes`)).bytes.equals(got.bytes)).toBe(true);
  });

  it("answers the new state after a write, never a kept older answer, in the bytes of an update's decode-and-encode answer", async () => {
    const first = JSON.parse((await raw("GET", `${CM}/stored-bytes`)).bytes.toString("utf8"));
    const updated = await raw("PUT", `${CM}/stored-bytes`, { ...first, data: { plain: "changed" } });
    expect(updated.status).toBe(200);
    const got = await raw("GET", `${CM}/stored-bytes`);
    expect(got.bytes.equals(updated.bytes)).toBe(true);
    // The annotation kept from the create: Go's escapes in both answers.
    expect(got.bytes.toString("utf8")).toContain("a\\u003cb\\u003e\\u0026c \\u2028 \\u2029");
    const object = JSON.parse(got.bytes.toString("utf8"));
    expect(object.data).toEqual({ plain: "changed" });
    expect(Number(object.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
  });

  it("keeps the other forms: pretty, YAML, Table", async () => {
    const pretty = (await raw("GET", `${CM}/stored-bytes?pretty=true`)).bytes.toString("utf8");
    expect(pretty.startsWith('{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "metadata": {\n    "name": "stored-bytes",')).toBe(true);
    expect(pretty.endsWith("\n}")).toBe(true);
    const yaml = await raw("GET", `${CM}/stored-bytes`, undefined, { accept: "application/yaml" });
    expect(yaml.headers["content-type"]).toBe("application/yaml");
    expect(yaml.bytes.toString("utf8")).toMatch(/^apiVersion: v1\ndata:\n {2}plain: changed\nkind: ConfigMap\n/);
    const table = await raw("GET", `${CM}/stored-bytes`, undefined, { accept: "application/json;as=Table;g=meta.k8s.io;v=v1" });
    const body = JSON.parse(table.bytes.toString("utf8"));
    expect(body.kind).toBe("Table");
    expect(body.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(["stored-bytes"]);
  });
});

describe("protobuf lists with item bytes kept per entry", () => {
  const NS = "/api/v1/namespaces/kube-public/configmaps";
  const PB = { accept: "application/vnd.kubernetes.protobuf" };

  /**
   * The bytes a protobuf list should have: the JSON list of the same state (an Exact list at the
   * answer's own resourceVersion: the emulator may publish kube-root-ca.crt meanwhile) encoded whole.
   */
  async function expectedProtobuf(answer: Buffer): Promise<Buffer> {
    const rv = (decodeObject(answer) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    expect(rv).toMatch(/^\d+$/);
    const list = JSON.parse((await raw("GET", `${NS}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).bytes.toString("utf8"));
    const items = list.items.map((item: Record<string, unknown>) => ({ kind: "ConfigMap", apiVersion: "v1", ...item }));
    return Buffer.from(encodeObject({ ...list, items }));
  }

  it("answers encodeObject's bytes on a first list, a repeated one, and after writes that change item lengths", async () => {
    for (let i = 0; i < 5; i++)
      expect((await raw("POST", NS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `pb-${i}` }, data: { k: "v" } })).status).toBe(201);
    const first = await raw("GET", NS, undefined, PB);
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    expect(first.bytes.equals(await expectedProtobuf(first.bytes))).toBe(true);
    const again = await raw("GET", NS, undefined, PB);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    // Longer and shorter items than before: their lengths must not be the kept ones.
    const two = JSON.parse((await raw("GET", `${NS}/pb-2`)).bytes.toString("utf8"));
    expect((await raw("PUT", `${NS}/pb-2`, { ...two, data: { k: "a much longer value than before".repeat(20) } })).status).toBe(200);
    const four = JSON.parse((await raw("GET", `${NS}/pb-4`)).bytes.toString("utf8"));
    expect((await raw("PUT", `${NS}/pb-4`, { ...four, data: {} })).status).toBe(200);
    const after = await raw("GET", NS, undefined, PB);
    expect(after.status).toBe(200);
    expect(after.bytes.equals(await expectedProtobuf(after.bytes))).toBe(true);
    expect(after.bytes.length).toBeGreaterThan(first.bytes.length + 500);
    // A value changed to one of the same length: the kept bytes of the old entry must not be used.
    const one = JSON.parse((await raw("GET", `${NS}/pb-1`)).bytes.toString("utf8"));
    expect((await raw("PUT", `${NS}/pb-1`, { ...one, data: { k: "w" } })).status).toBe(200);
    const same = await raw("GET", NS, undefined, PB);
    expect(same.bytes.length).toBe(after.bytes.length);
    expect(same.bytes.equals(await expectedProtobuf(same.bytes))).toBe(true);
  });

  it("answers the same bytes for a list larger than a write chunk, with an item larger than a chunk among small ones", async () => {
    const BIG = "/api/v1/namespaces/pb-big/configmaps";
    expect((await raw("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "pb-big" } })).status).toBe(201);
    for (let i = 0; i < 60; i++) {
      const data = { v: i === 30 ? "x".repeat(70_000) : `value-${i}-${"y".repeat(i * 40)}` };
      expect((await raw("POST", BIG, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${String(i).padStart(2, "0")}` }, data })).status).toBe(201);
    }
    const list = JSON.parse((await raw("GET", BIG)).bytes.toString("utf8"));
    const items = list.items.map((item: Record<string, unknown>) => ({ kind: "ConfigMap", apiVersion: "v1", ...item }));
    const expected = Buffer.from(encodeObject({ ...list, items }));
    expect(expected.length).toBeGreaterThan(2 * 64 * 1024);
    for (let round = 0; round < 2; round++) {
      const got = await raw("GET", BIG, undefined, PB);
      expect({ round, length: got.bytes.length, same: got.bytes.equals(expected) }).toEqual({ round, length: expected.length, same: true });
    }
  });

  it("keeps an entry's bytes per version: Events listed as events.k8s.io/v1 and as v1, each its own encoding, repeatedly", async () => {
    const EVENTS = "/apis/events.k8s.io/v1/namespaces/kube-public/events";
    for (let i = 0; i < 3; i++) {
      const created = await raw("POST", EVENTS, {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: `pb-ev-${i}` },
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "example.com/ctl",
        reportingInstance: "ctl-1",
        action: "Test",
        reason: "Listed",
        type: "Normal",
        note: `note ${i}`,
        regarding: { kind: "ConfigMap", name: "pb-1", namespace: "kube-public" },
      });
      expect(created.status).toBe(201);
    }
    const versions = [
      ["/apis/events.k8s.io/v1/namespaces/kube-public/events", "events.k8s.io/v1"],
      ["/api/v1/namespaces/kube-public/events", "v1"],
    ] as const;
    for (let round = 0; round < 2; round++) {
      for (const [path, apiVersion] of versions) {
        const json = JSON.parse((await raw("GET", path)).bytes.toString("utf8"));
        const items = json.items.map((item: Record<string, unknown>) => ({ kind: "Event", apiVersion, ...item }));
        const got = await raw("GET", path, undefined, PB);
        expect(got.status).toBe(200);
        expect({ round, apiVersion, same: got.bytes.equals(Buffer.from(encodeObject({ ...json, items }))) }).toEqual({ round, apiVersion, same: true });
      }
    }
  });
});

describe("JSON lists made from the stored texts", () => {
  const NS = "/api/v1/namespaces/kube-node-lease/configmaps";
  const goEscaped = (text: string): string => text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

  it("answers one Go-style encoding of the whole list, escaping only the items that need it", async () => {
    for (const [name, value] of [
      ["a-plain", "value"],
      ["b-tricky", TRICKY],
      ["c-plain", "é ☃"],
    ])
      expect((await raw("POST", NS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { set: "escapes" } }, data: { v: value } })).status).toBe(
        201,
      );
    const list = await raw("GET", `${NS}?labelSelector=set%3Descapes`);
    const text = list.bytes.toString("utf8");
    const parsed = JSON.parse(text);
    expect(text).toBe(`${goEscaped(JSON.stringify(parsed))}\n`);
    expect(parsed.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["a-plain", "b-tricky", "c-plain"]);
    expect(parsed.items.map((i: { data: { v: string } }) => i.data.v)).toEqual(["value", TRICKY, "é ☃"]);
    // Items carry no TypeMeta and each its own resourceVersion, after uid as in Go's order.
    for (const item of parsed.items) {
      expect(Object.keys(item)).toEqual(["metadata", "data"]);
      const one = JSON.parse((await raw("GET", `${NS}/${item.metadata.name}`)).bytes.toString("utf8"));
      expect(item.metadata).toEqual(one.metadata);
      expect(Object.keys(item.metadata)).toEqual(Object.keys(one.metadata));
    }
    expect(text).toContain("a\\u003cb\\u003e\\u0026c \\u2028 \\u2029");
  });
});

/**
 * Creates byte for byte: every kind of body a create takes or refuses (duplicate, unknown and
 * escaped fields under each fieldValidation, managedFields in the body, fieldManager, dryRun,
 * YAML, protobuf and CBOR bodies, malformed and deep ones, type errors), each answer with its
 * Warning headers, then the stored objects (a list) and the watch events they made. The create
 * path has fast paths for the common body (json.ts jsonDepthIfKeysPlain, the field sets'
 * tree operations, typed-json's lazy paths); the snapshot was made by the emulator before them
 * (commit 097ca36), so each case shows the fast and the full path give the old bytes.
 */
import { request } from "undici";
import { expect, it } from "vitest";
import { encodeCbor } from "../../lib/wire/cbor.js";
import { encodeObject } from "../../lib/wire/protobuf/index.js";
import { useFrozenEmulator } from "./wire-bytes/frozen.js";

const base = useFrozenEmulator();

const JSON_TYPE = "application/json";
const NS = "creates";
const CM = `/api/v1/namespaces/${NS}/configmaps`;

function shown(contentType: string, body: Buffer): string {
  const text = /json|yaml/.test(contentType) && !/cbor|protobuf/.test(contentType);
  return text ? body.toString("utf8").replaceAll(new URL(base()).host, "HOST") : body.toString("hex").replace(/(.{128})/g, "$1\n");
}

async function exchange(
  method: string,
  path: string,
  body: string | Uint8Array | undefined,
  contentType = JSON_TYPE,
  headers: Record<string, string> = {},
  accept = JSON_TYPE,
): Promise<string> {
  const res = await request(base() + path, {
    method: method as "GET",
    headers: { accept, ...(body === undefined ? {} : { "content-type": contentType }), ...headers },
    body,
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const type = String(res.headers["content-type"] ?? "");
  const warning = res.headers["warning"];
  const warnings = warning === undefined ? [] : Array.isArray(warning) ? warning : [warning];
  const head = [`### ${method} ${path}`, `### content-type: ${contentType}`, `### ${res.statusCode} ${type}`, ...warnings.map((w) => `### warning: ${w}`)];
  return `${head.join("\n")}\n${shown(type, bytes)}\n`;
}

/** Characters Go's encoder escapes, others it writes as they are, and JSON escapes. */
const TRICKY = 'a<b>&c \u2028 \u2029 é ☃ 🦊 "quoted" back\\slash tab\t nl\n ctl\u0001';

const cm = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels: { app: "bytes" } },
  data: { a: "1" },
  ...extra,
});

it("answers every kind of create body, stores and streams its objects, with the same bytes as before", async () => {
  const out: string[] = [];
  const post = async (body: string | Uint8Array, query = "", contentType = JSON_TYPE, headers: Record<string, string> = {}) =>
    out.push(await exchange("POST", CM + query, body, contentType, headers));
  out.push(await exchange("POST", "/api/v1/namespaces", JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })));

  // The common body (the fast path), with escapes and non-ASCII in values, keys and names.
  await post(
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "plain", labels: { app: "bytes", "example.com/tier": "x" }, annotations: { note: TRICKY, "e-key": "ü", "example.com/key": "ü" } },
      data: { tricky: TRICKY, plain: "value", "key.with-dots_": "v" },
      binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString("base64") },
      immutable: false,
    }),
  );
  await post(JSON.stringify(cm("", { metadata: { generateName: "gen-" } })));
  await post(JSON.stringify(cm("no-type-meta", { apiVersion: undefined, kind: undefined })));
  await post(JSON.stringify(cm("pretty")), "?pretty=true");
  // Answers in the other forms (the stored-text answer is only compact JSON of the object itself).
  for (const [i, accept] of [
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "application/cbor",
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
  ].entries()) {
    out.push(await exchange("POST", CM, JSON.stringify(cm(`accept-${i}`, { data: { tricky: TRICKY } })), JSON_TYPE, {}, accept));
  }
  await post(`  \n\t${JSON.stringify(cm("whitespace"), null, 2)}\n  `);
  await post(JSON.stringify(cm("manager")), "?fieldManager=bytes-manager");
  await post(JSON.stringify(cm("agent")), "", JSON_TYPE, { "user-agent": "kubectl/v1.35.0 (linux/amd64) kubernetes/abc" });
  await post(JSON.stringify(cm("dry")), "?dryRun=All");
  await post(JSON.stringify(cm("dry-strict", { extra: 1 })), "?dryRun=All&fieldValidation=Strict");
  // Keys with escapes: no duplicate, a duplicate only through the escape, escaped data keys.
  await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"na\\u006de":"escaped-key"},"data":{"k\\u0031":"1","k2":"\\u00e9\\n"}}');
  await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"esc-data-dup"},"data":{"k1":"1","k\\u0031":"2"}}');
  await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"esc-dup","na\\u006de":"esc-dup-2"}}');
  await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"esc-dup-strict","na\\u006de":"x"}}', "?fieldValidation=Strict");
  // Duplicates at the root, in metadata, in a map, in a list item, under each level.
  for (const level of ["", "?fieldValidation=Warn", "?fieldValidation=Strict", "?fieldValidation=Ignore"]) {
    const tag = level ? level.slice(17).toLowerCase() : "default";
    await post(`{"apiVersion":"v1","kind":"ConfigMap","kind":"ConfigMap","metadata":{"name":"dup-root-${tag}"}}`, level);
    await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","name":"dup-meta-${tag}"},"data":{"k":"1","k":"2"}}`, level);
    await post(
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-list-${tag}","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u1","uid":"u2"}]}}`,
      level,
    );
    // Unknown fields at each depth, and inside an unknown field (never reported), with a duplicate before them.
    await post(
      `{"apiVersion":"v1","kind":"ConfigMap","zzz":1,"metadata":{"name":"unknown-${tag}","bogus":{"inner":1},"labels":{"a":"b","a":"c"},"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","extra":true}]},"data":{"k":"v"},"aaa":{"x":{"x":1}}}`,
      level,
    );
    await post(JSON.stringify(cm(`only-unknown-${tag}`, { spec: { replicas: 1 }, status: {} })), level);
  }
  // managedFields in the body: a reset, a readable list, an unreadable one, the key spelt with an escape.
  await post(JSON.stringify(cm("mf-reset", { metadata: { name: "mf-reset", managedFields: [] } })));
  await post(
    JSON.stringify(
      cm("mf-list", {
        metadata: {
          name: "mf-list",
          managedFields: [
            {
              manager: "other",
              operation: "Update",
              apiVersion: "v1",
              time: "2026-01-01T00:00:00Z",
              fieldsType: "FieldsV1",
              fieldsV1: { "f:data": { "f:a": {} } },
            },
          ],
        },
      }),
    ),
  );
  await post(JSON.stringify(cm("mf-bad", { metadata: { name: "mf-bad", managedFields: [{ operation: "Nope" }] } })));
  await post('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mf-escaped","managed\\u0046ields":[]},"data":{"a":"1"}}');
  // Type errors: the Go paths of their messages.
  await post(JSON.stringify(cm("type-labels", { metadata: { name: "type-labels", labels: 5 } })));
  await post(JSON.stringify(cm("type-data", { data: { a: 1 } })));
  await post(JSON.stringify(cm("type-owner", { metadata: { name: "type-owner", ownerReferences: [{ uid: 7 }] } })));
  await post(JSON.stringify(cm("type-gen", { metadata: { name: "type-gen", generation: 1.5 } })));
  await post(JSON.stringify(cm("type-time", { metadata: { name: "type-time", creationTimestamp: "yesterday" } })));
  await post(JSON.stringify(cm("type-binary", { binaryData: { b: "not base64!" } })));
  await post(JSON.stringify(cm("type-immutable", { immutable: "yes" })), "?fieldValidation=Strict");
  // Not objects, malformed text, a raw control character, a byte order mark, wrong kinds.
  for (const text of [
    "",
    "null",
    "[]",
    "42",
    '"s"',
    "{",
    '{"a":1,}',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ctl\u0001"}}',
    `\ufeff${JSON.stringify(cm("bom"))}`,
  ]) {
    await post(text);
    await post(text, "?fieldValidation=Ignore");
  }
  // Content-Types, each twice (the second read is the kept one): with parameters, in capitals, not served, CBOR with its gate on.
  for (const [i, type] of ["application/json; charset=utf-8", "APPLICATION/JSON", "text/plain", "application/json;", "application/cbor"].entries()) {
    await post(JSON.stringify(cm(`type-${i}`)), "", type);
    await post(JSON.stringify(cm(`type-${i}-again`)), "", type);
  }
  await post(JSON.stringify(cm("kind", { kind: "Secret" })));
  await post(JSON.stringify(cm("version", { apiVersion: "v2" })));
  await post(JSON.stringify(cm("kind-number", { kind: 3 })));
  await post(JSON.stringify(cm("Bad_Name")));
  await post(JSON.stringify(cm("plain")));
  // Nesting past the fast path's bound (500 levels) inside an unknown field, and past Go's 10000.
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-600"},"deep":${deep(600)}}`);
  await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-400"},"deep":${deep(400)}}`, "?fieldValidation=Strict");
  await post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-10001"},"deep":${deep(10001)}}`);
  // Other encodings: YAML (with a duplicate and an unknown field), protobuf, CBOR.
  await post("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml\n  labels:\n    a: b\ndata:\n  k: v\n  k: w\nextra: 1\n", "", "application/yaml");
  await post("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-strict\nextra: 1\n", "?fieldValidation=Strict", "application/yaml");
  await post(encodeObject(cm("proto", { data: { tricky: TRICKY } })), "", "application/vnd.kubernetes.protobuf");
  await post(encodeCbor(cm("cbor", { data: { tricky: TRICKY }, extra: 1 })), "", "application/cbor");
  // An Event: a MicroTime, a nested struct, lists.
  const event = JSON.stringify({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: "ev" },
    eventTime: "2026-01-02T03:04:05.000000Z",
    reportingController: "example.com/ctl",
    reportingInstance: "ctl-1",
    action: "Testing",
    reason: "Bytes",
    type: "Normal",
    note: TRICKY,
    regarding: { kind: "ConfigMap", namespace: NS, name: "plain", apiVersion: "v1", bogus: 1 },
    series: { count: 2, lastObservedTime: "2026-01-02T03:04:05.123456Z" },
  });
  out.push(await exchange("POST", `/apis/events.k8s.io/v1/namespaces/${NS}/events`, event));

  // What was stored, as a list and as watch events from the start.
  out.push(await exchange("GET", CM, undefined));
  out.push(await exchange("GET", `${CM}/plain`, undefined));
  out.push(await exchange("GET", `${CM}?watch=1&resourceVersion=1&timeoutSeconds=1`, undefined));
  await expect(out.join("\n")).toMatchFileSnapshot("wire-bytes/creates.txt");
}, 60_000);

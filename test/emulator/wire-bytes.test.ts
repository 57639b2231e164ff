/**
 * The emulator's answers byte for byte: a fixed sequence of writes, then lists and watches in
 * every encoding and representation, against an emulator whose time and randomness are frozen
 * (wire-bytes/frozen-emulator.ts). The transcript is a file snapshot made from the emulator
 * itself, so a refactoring that changes a single byte of a list or a watch shows here; a
 * deliberate change of output is accepted with `vitest -u` and reviewed in the diff.
 */
import { request } from "undici";
import { expect, it } from "vitest";
import { useFrozenEmulator } from "./wire-bytes/frozen.js";

const base = useFrozenEmulator();

const JSON_TYPE = "application/json";
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const READ_FORMS: readonly string[] = [
  JSON_TYPE,
  "application/yaml",
  PROTOBUF,
  "application/cbor",
  "application/json;as=Table;v=v1;g=meta.k8s.io",
  `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io`,
  "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
  `${PROTOBUF};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`,
];
const WATCH_FORMS: readonly string[] = [JSON_TYPE, `${PROTOBUF};stream=watch`, "application/cbor", "application/json;as=Table;v=v1;g=meta.k8s.io"];

function shown(contentType: string, body: Buffer): string {
  const text = /json|yaml/.test(contentType) && !/cbor|protobuf/.test(contentType);
  return text ? body.toString("utf8").replaceAll(new URL(base()).host, "HOST") : body.toString("hex").replace(/(.{128})/g, "$1\n");
}

async function exchange(method: string, path: string, accept: string, body?: unknown, contentType = JSON_TYPE): Promise<string> {
  const res = await request(base() + path, {
    method: method as "GET",
    headers: { accept, ...(body === undefined ? {} : { "content-type": contentType }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const type = String(res.headers["content-type"] ?? "");
  return `### ${method} ${path}\n### accept: ${accept}\n### ${res.statusCode} ${type}\n${shown(type, bytes)}\n`;
}

it("answers a fixed sequence of requests with the same bytes as before", async () => {
  const out: string[] = [];
  const ns = "wire";
  out.push(await exchange("POST", "/api/v1/namespaces", JSON_TYPE, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels: { a: "b" } } }));
  for (const i of [1, 2, 3]) {
    out.push(
      await exchange("POST", `/api/v1/namespaces/${ns}/configmaps`, JSON_TYPE, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `cm-${i}`, labels: { n: String(i) }, annotations: { note: "x".repeat(i) } },
        data: { key: `value-${i}`, other: "ü" },
      }),
    );
  }
  out.push(
    await exchange("POST", `/api/v1/namespaces/${ns}/configmaps`, JSON_TYPE, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" } }),
  );
  out.push(
    await exchange("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, JSON_TYPE, {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "ev-1" },
      eventTime: "2026-01-02T03:04:05.000000Z",
      reportingController: "example.com/ctl",
      reportingInstance: "ctl-1",
      action: "Testing",
      reason: "Wire",
      type: "Normal",
      note: "bytes",
      regarding: { kind: "ConfigMap", namespace: ns, name: "cm-1", apiVersion: "v1" },
    }),
  );
  out.push(
    await exchange("POST", `/api/v1/namespaces/${ns}/events`, JSON_TYPE, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "ev-2" },
      involvedObject: { kind: "ConfigMap", namespace: ns, name: "cm-2" },
      reason: "Core",
      message: "core view",
      type: "Warning",
      source: { component: "tester" },
      count: 2,
    }),
  );
  out.push(await exchange("PATCH", `/api/v1/namespaces/${ns}/configmaps/cm-1`, JSON_TYPE, { data: { patched: "yes" } }, "application/merge-patch+json"));
  out.push(
    await exchange(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/cm-applied?fieldManager=wire`,
      JSON_TYPE,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-applied\ndata:\n  applied: 'true'\n",
      "application/apply-patch+yaml",
    ),
  );
  out.push(await exchange("DELETE", `/api/v1/namespaces/${ns}/configmaps/cm-3`, JSON_TYPE));
  // Errors: not found, already exists, invalid, a too-large resourceVersion, a bad continue.
  out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps/missing`, JSON_TYPE));
  out.push(await exchange("POST", `/api/v1/namespaces/${ns}/configmaps`, PROTOBUF, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm-1" } }));
  out.push(await exchange("POST", `/api/v1/namespaces/${ns}/configmaps`, JSON_TYPE, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Bad_Name" } }));
  out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersion=999999&resourceVersionMatch=NotOlderThan`, JSON_TYPE));
  out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=bm9wZQ`, JSON_TYPE));

  for (const accept of READ_FORMS) {
    out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps`, accept));
    out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps/cm-1`, accept));
    out.push(await exchange("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, accept));
    out.push(await exchange("GET", `/api/v1/namespaces/${ns}/events`, accept));
  }
  out.push(await exchange("GET", "/api/v1/namespaces?labelSelector=a%3Db", JSON_TYPE));
  out.push(await exchange("GET", `/api/v1/configmaps?limit=2`, JSON_TYPE));
  out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps?limit=2&resourceVersion=0`, JSON_TYPE));
  out.push(await exchange("GET", `/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dcm-2`, PROTOBUF));
  // Watches from the start of history, side by side, each ended by the server after a second.
  const watches = WATCH_FORMS.flatMap((accept) => [
    exchange("GET", `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1&timeoutSeconds=1`, accept),
    exchange("GET", `/api/v1/namespaces/${ns}/events?watch=1&resourceVersion=1&timeoutSeconds=1`, accept),
  ]);
  watches.push(
    exchange("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events?watch=1&resourceVersion=1&timeoutSeconds=1&allowWatchBookmarks=true`, JSON_TYPE),
  );
  out.push(...(await Promise.all(watches)));
  for (const path of ["/api", "/apis", "/api/v1", "/apis/events.k8s.io/v1", "/version"]) out.push(await exchange("GET", path, JSON_TYPE));
  await expect(out.join("\n")).toMatchFileSnapshot("wire-bytes/transcript.txt");
}, 60_000);

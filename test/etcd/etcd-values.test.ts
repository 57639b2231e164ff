/**
 * Values in etcd as kube-apiserver stores them (storage/etcd/etcd-values.ts, wire-facts §21):
 * built-in types as `k8s\0` + runtime.Unknown in their storage version (both event APIs as core
 * v1 Event), with no resourceVersion; CRDs and custom resources as JSON. What the emulator
 * serves does not change: an emulator on etcd answers with the in-memory emulator's bytes, and a
 * second emulator that reads everything back from etcd answers with the first one's bytes.
 */
import { Etcd3 } from "etcd3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { protobufValues } from "../../lib/emulator/storage/etcd/etcd-values.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { decodeEnvelope, decodeObject } from "../../lib/wire/protobuf/index.js";
import { client, eventBody, microTime, openWatch } from "../emulator/support.js";
import { skipReason } from "./support.js";

const NS = "values";
const T = "2026-01-02T03:04:05Z";

/** One object of every built-in type the emulator stores, and a custom resource: [collection path, body, etcd key, stored apiVersion/kind or "json"]. */
function objects(): Array<[string, Record<string, unknown>, string, string]> {
  const rules = [
    { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "list"], resourceNames: ["a"] },
    { nonResourceURLs: ["/healthz"], verbs: ["get"] },
  ];
  const hook = (name: string) => ({
    name,
    clientConfig: { url: "https://127.0.0.1:1/hook" },
    rules: [{ operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["nothing"], scope: "Namespaced" }],
    failurePolicy: "Ignore",
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 3,
    namespaceSelector: { matchExpressions: [{ key: "k", operator: "In", values: ["x", "y"] }] },
  });
  return [
    [
      "/api/v1/namespaces",
      { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels: { a: "b" }, annotations: { "x/y": "z<&>" } } },
      `/registry/namespaces/${NS}`,
      "v1/Namespace",
    ],
    [
      `/api/v1/namespaces/${NS}/configmaps`,
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cm", finalizers: ["example.com/f"] },
        data: { k: "v\u00e9\u2028", empty: "" },
        binaryData: { b: "AAEC/w==" },
        immutable: false,
      },
      `/registry/configmaps/${NS}/cm`,
      "v1/ConfigMap",
    ],
    [
      `/api/v1/namespaces/${NS}/services`,
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "svc" },
        spec: {
          selector: { app: "a" },
          ports: [
            { name: "http", port: 80, targetPort: "web", protocol: "TCP" },
            { name: "x", port: 81, targetPort: 8081 },
          ],
        },
      },
      `/registry/services/specs/${NS}/svc`,
      "v1/Service",
    ],
    [
      `/api/v1/namespaces/${NS}/serviceaccounts`,
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa" }, automountServiceAccountToken: false, secrets: [{ name: "s" }] },
      `/registry/serviceaccounts/${NS}/sa`,
      "v1/ServiceAccount",
    ],
    [
      `/api/v1/namespaces/${NS}/events`,
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "core-ev" },
        involvedObject: { kind: "Pod", namespace: NS, name: "p", uid: "u-1", apiVersion: "v1", fieldPath: "spec.containers{c}" },
        reason: "Started",
        message: "started",
        source: { component: "kubelet", host: "node-1" },
        firstTimestamp: T,
        lastTimestamp: T,
        count: 3,
        type: "Normal",
      },
      `/registry/events/${NS}/core-ev`,
      "v1/Event",
    ],
    [
      `/apis/events.k8s.io/v1/namespaces/${NS}/events`,
      eventBody(NS, "new-ev", { series: { count: 2, lastObservedTime: microTime() } }),
      `/registry/events/${NS}/new-ev`,
      "v1/Event",
    ],
    [
      `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "lease" },
        spec: { holderIdentity: "me", leaseDurationSeconds: 15, acquireTime: microTime(), renewTime: microTime(), leaseTransitions: 0 },
      },
      `/registry/leases/${NS}/lease`,
      "coordination.k8s.io/v1/Lease",
    ],
    [
      `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
      {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "slice" },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true, serving: true, terminating: false }, nodeName: "n" }],
        ports: [{ name: "http", port: 80, protocol: "TCP" }],
      },
      `/registry/endpointslices/${NS}/slice`,
      "discovery.k8s.io/v1/EndpointSlice",
    ],
    [
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "role" }, rules: rules.slice(0, 1) },
      `/registry/roles/${NS}/role`,
      "rbac.authorization.k8s.io/v1/Role",
    ],
    [
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "rb" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "role" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "u" }],
      },
      `/registry/rolebindings/${NS}/rb`,
      "rbac.authorization.k8s.io/v1/RoleBinding",
    ],
    [
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "values-cr" },
        rules,
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "values/agg": "true" } }] },
      },
      "/registry/clusterroles/values-cr",
      "rbac.authorization.k8s.io/v1/ClusterRole",
    ],
    [
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "values-crb" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "ServiceAccount", name: "sa", namespace: NS }],
      },
      "/registry/clusterrolebindings/values-crb",
      "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
    ],
    [
      "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "values-m" },
        webhooks: [{ ...hook("m.example.com"), reinvocationPolicy: "IfNeeded" }],
      },
      "/registry/mutatingwebhookconfigurations/values-m",
      "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
    ],
    [
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "values-v" },
        webhooks: [hook("v.example.com")],
      },
      "/registry/validatingwebhookconfigurations/values-v",
      "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
    ],
    [
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "widgets.values.example.com" },
        spec: {
          group: "values.example.com",
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
          versions: [
            { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
          ],
        },
      },
      "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.values.example.com",
      "json",
    ],
  ];
}

/** The text without what differs between two emulators (uid, times, resourceVersion), key order kept. */
function normalized(text: string): string {
  return text
    .replace(
      /"(uid|creationTimestamp|resourceVersion|time|eventTime|lastObservedTime|acquireTime|renewTime|clusterIP|lastTransitionTime)":"[^"]*"/g,
      '"$1":"-"',
    )
    .replace(/"clusterIPs":\["[^"]*"\]/g, '"clusterIPs":["-"]');
}

describe("the etcd value codec", () => {
  const codec = protobufValues((key) => (key.startsWith("/registry/configmaps/") ? {} : undefined));
  const key = "/registry/configmaps/ns/a";

  it("writes protobuf only when reading it back gives the very text written; JSON otherwise, and reads both", () => {
    const canonical = '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}';
    const bytes = codec.encode(key, canonical);
    expect([...bytes.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(codec.decode(key, bytes)).toBe(canonical);
    // Not the order the protobuf form reads back (data before metadata): kept as JSON, read as it is.
    const reordered = '{"kind":"ConfigMap","apiVersion":"v1","data":{"k":"v"},"metadata":{"name":"a","namespace":"ns"}}';
    expect(codec.encode(key, reordered).toString()).toBe(reordered);
    expect(codec.decode(key, Buffer.from(reordered))).toBe(reordered);
    // A key the registry names no built-in type for (a custom resource) stays JSON.
    expect(codec.encode("/registry/example.com/widgets/ns/a", canonical).toString()).toBe(canonical);
  });
});

describe.skipIf(skipReason("etcd-values"))("values in etcd", () => {
  let etcd: EtcdServer;
  let onEtcd: RunningEmulator;
  let inMemory: RunningEmulator;
  let raw: Etcd3;
  const CR_PATH = `/apis/values.example.com/v1/namespaces/${NS}/widgets`;

  beforeAll(async () => {
    etcd = await startEtcd();
    [onEtcd, inMemory] = await Promise.all([startEmulator({ etcdServers: [etcd.url], namespaceContent: false }), startEmulator({ namespaceContent: false })]);
    raw = new Etcd3({ hosts: etcd.url });
    const [a, m] = [client(onEtcd.url), client(inMemory.url)];
    for (const [path, body] of objects()) {
      for (const call of [a, m]) {
        const r = await call("POST", path, body);
        expect(r.status, `${path}: ${r.text}`).toBe(201);
      }
    }
    // A custom resource once its definition is served (established a moment after creation).
    const cr = { apiVersion: "values.example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { n: 1, list: [true, null] } };
    for (const call of [a, m]) {
      for (let i = 0; i < 100; i++) {
        const r = await call("POST", CR_PATH, cr);
        if (r.status === 201) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }, 30_000);
  afterAll(async () => {
    raw?.close();
    await onEtcd?.close();
    await inMemory?.close();
    await etcd?.dispose();
  });

  it("stores built-in types as protobuf in their storage version without resourceVersion, CRDs and custom resources as JSON", async () => {
    for (const [, , key, stored] of objects()) {
      const value = await raw.get(key).buffer();
      expect(value, key).not.toBeNull();
      if (!value) continue;
      if (stored === "json") {
        expect(value.subarray(0, 1).toString(), key).toBe("{");
        expect(JSON.parse(value.toString()).metadata.resourceVersion).toBeUndefined();
        continue;
      }
      expect([...value.subarray(0, 4)], key).toEqual([0x6b, 0x38, 0x73, 0x00]);
      const envelope = decodeEnvelope(value);
      expect(`${envelope.apiVersion}/${envelope.kind}`, key).toBe(stored);
      const object = decodeObject(value) as { metadata: Record<string, unknown> };
      expect(object.metadata.resourceVersion, key).toBeUndefined();
      expect(object.metadata.name, key).toBe(key.split("/").pop());
    }
    const crValue = await raw.get(`/registry/values.example.com/widgets/${NS}/w`).string();
    expect(JSON.parse(crValue ?? "null")).toMatchObject({ kind: "Widget", spec: { n: 1, list: [true, null] } });
    // Both event APIs are one stored core v1 Event: events.k8s.io's note is core's message.
    const ev = decodeObject((await raw.get(`/registry/events/${NS}/new-ev`).buffer()) as Buffer) as Record<string, unknown>;
    expect(ev).toMatchObject({ kind: "Event", apiVersion: "v1", message: "hello", reportingComponent: "tollgate.dev/test" });
  });

  it("answers with the in-memory emulator's bytes, and an emulator reading back from etcd (list, watch) with the same bytes again", async () => {
    const reader = await startEmulator({ etcdServers: [etcd.url], namespaceContent: false });
    try {
      const [a, m, r] = [client(onEtcd.url), client(inMemory.url), client(reader.url)];
      const paths = objects().map(([path, , key]) => `${path}/${key.split("/").pop()}`);
      paths.push(`${CR_PATH}/w`, `/api/v1/namespaces/${NS}/events/new-ev`, `/apis/events.k8s.io/v1/namespaces/${NS}/events/core-ev`);
      for (const path of paths) {
        const [onEtcdReply, memoryReply, readerReply] = await Promise.all([a("GET", path), m("GET", path), r("GET", path)]);
        const [onEtcdText, memoryText, readerText] = [onEtcdReply.text, memoryReply.text, readerReply.text];
        expect(JSON.parse(onEtcdText).metadata.name, path).toBe(path.split("/").pop());
        expect(normalized(onEtcdText), path).toBe(normalized(memoryText));
        expect(readerText, path).toBe(onEtcdText);
      }
      // Lists come from the same stored values (the mirror's watch and the reader's initial list).
      const list = `/api/v1/namespaces/${NS}/configmaps`;
      const [la, lr] = await Promise.all([a("GET", list), r("GET", list)]);
      expect(lr.text).toBe(la.text);
      // Watch events on the reader (its mirror's watch on etcd, prevKv for DELETED) carry the same objects.
      const w = await openWatch(reader.url, `${list}?watch=1&resourceVersion=${lr.json.metadata.resourceVersion}`);
      const got = await a("GET", `${list}/cm`);
      // Without its finalizer, so the DELETE removes it.
      const updated = await a("PUT", `${list}/cm`, { ...got.json, metadata: { ...got.json.metadata, finalizers: undefined }, data: { k: "changed" } });
      expect(updated.status).toBe(200);
      expect((await a("DELETE", `${list}/cm`)).status).toBe(200);
      const [modified, deleted] = await w.take(2, 3000);
      w.close();
      const withoutRv = (o: any) => JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
      expect(modified?.type).toBe("MODIFIED");
      expect(JSON.stringify(modified?.object)).toBe(JSON.stringify(updated.json));
      expect(deleted?.type).toBe("DELETED");
      expect(withoutRv(deleted?.object)).toBe(withoutRv(updated.json));
    } finally {
      await reader.close();
    }
  });
});

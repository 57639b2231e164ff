/**
 * Protobuf for the auth, RBAC and webhook configuration types (what kubectl 1.32+ and
 * controller-runtime send for built-in types): protobuf request bodies are accepted for create
 * and update, and protobuf answers (get, list, watch events, review answers) decode to the same
 * JSON as the JSON answers.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { decodeObject, encodeObject, WatchFrameReader } from "../../lib/wire/protobuf/index.js";
import { openDecodedWatch, uniq } from "./support.js";

const PB = "application/vnd.kubernetes.protobuf";
const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const ADM = "/apis/admissionregistration.k8s.io/v1";

let emu: RunningEmulator;
let ns: string;

interface Answer {
  status: number;
  contentType: string;
  obj: Record<string, unknown>;
}

/** One call as the admin: a JSON or protobuf body, a JSON or protobuf answer (decoded either way). */
async function call(method: string, path: string, body: Record<string, unknown> | undefined, pb: { send?: boolean; accept?: boolean } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${emu.adminToken}`, accept: pb.accept ? PB : "application/json" };
  let payload: string | Uint8Array | undefined;
  if (body !== undefined) {
    headers["content-type"] = pb.send ? PB : "application/json";
    payload = pb.send ? encodeObject(body) : JSON.stringify(body);
  }
  const res = await request(emu.url + path, { method: method as "GET", headers, body: payload });
  const bytes = new Uint8Array(await res.body.arrayBuffer());
  const contentType = String(res.headers["content-type"] ?? "");
  const obj = contentType.startsWith(PB) ? decodeObject(bytes) : (JSON.parse(Buffer.from(bytes).toString("utf8")) as Record<string, unknown>);
  return { status: res.statusCode, contentType, obj };
}

beforeAll(async () => {
  // No default ServiceAccount among the ServiceAccounts whose lists and watches are compared.
  emu = await startEmulator({ port: 0, auth: true, namespaceContent: false });
  ns = uniq("pbt");
  expect((await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }, { send: true })).status).toBe(201);
});
afterAll(async () => {
  await emu?.close();
});

interface Case {
  readonly kind: string;
  readonly collection: () => string;
  readonly body: (name: string) => Record<string, unknown>;
  /** Changes an object for the update step. */
  readonly change: (o: Record<string, unknown>) => Record<string, unknown>;
}

const CASES: Case[] = [
  {
    kind: "ServiceAccount",
    collection: () => `/api/v1/namespaces/${ns}/serviceaccounts`,
    body: (name) => ({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name },
      imagePullSecrets: [{ name: "pull" }],
      automountServiceAccountToken: false,
    }),
    change: (o) => ({ ...o, automountServiceAccountToken: true }),
  },
  {
    kind: "Role",
    collection: () => `${RBAC}/namespaces/${ns}/roles`,
    body: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, labels: { b: "2", a: "1" } },
      rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["x"] }],
    }),
    change: (o) => ({ ...o, rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] }),
  },
  {
    kind: "ClusterRole",
    collection: () => `${RBAC}/clusterroles`,
    body: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: "yes" }, matchExpressions: [{ key: "k", operator: "In", values: ["v"] }] }] },
    }),
    change: (o) => ({ ...o, metadata: { ...(o["metadata"] as object), annotations: { note: "updated" } } }),
  },
  {
    kind: "RoleBinding",
    collection: () => `${RBAC}/namespaces/${ns}/rolebindings`,
    body: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "ServiceAccount", name: "robot", namespace: ns },
      ],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    }),
    change: (o) => ({ ...o, subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "devs" }] }),
  },
  {
    kind: "ClusterRoleBinding",
    collection: () => `${RBAC}/clusterrolebindings`,
    body: (name) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      subjects: [{ kind: "User", name: "bob" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    }),
    change: (o) => ({ ...o, subjects: [] }),
  },
  ...(["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"] as const).map(
    (kind): Case => ({
      kind,
      collection: () => `${ADM}/${kind.toLowerCase()}s`,
      body: (name) => ({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind,
        metadata: { name },
        webhooks: [
          {
            name: "hook.example.com",
            clientConfig: { url: "https://127.0.0.1:1/hook", caBundle: Buffer.from("not a real CA").toString("base64") },
            rules: [{ operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["nothings"], scope: "Namespaced" }],
            failurePolicy: "Ignore",
            sideEffects: "None",
            timeoutSeconds: 3,
            admissionReviewVersions: ["v1"],
            objectSelector: { matchLabels: { never: "matches" } },
          },
        ],
      }),
      change: (o) => ({ ...o, metadata: { ...(o["metadata"] as object), labels: { changed: "yes" } } }),
    }),
  ),
];

describe("protobuf for stored built-in types", () => {
  for (const c of CASES) {
    it(`${c.kind}: protobuf create/update bodies; get, list and watch answers decode to the JSON answers`, async () => {
      const base = c.collection();
      const name = uniq("pb");
      const rv0 = ((await call("GET", base, undefined)).obj["metadata"] as { resourceVersion: string }).resourceVersion;
      const watch = await openDecodedWatch(
        emu.url,
        `${base}?watch=true&resourceVersion=${rv0}`,
        { accept: PB, authorization: `Bearer ${emu.adminToken}` },
        new WatchFrameReader(),
      );
      try {
        expect(watch.headers["content-type"]).toBe(`${PB};stream=watch`);
        const created = await call("POST", base, c.body(name), { send: true, accept: true });
        expect(created.status, JSON.stringify(created.obj)).toBe(201);
        expect(created.contentType).toBe(PB);
        const asJson = await call("GET", `${base}/${name}`, undefined);
        expect(created.obj).toEqual(asJson.obj);
        // The object as sent, apart from what the server adds (defaults, metadata).
        expect(asJson.obj).toMatchObject({ kind: c.kind, metadata: { name } });

        const got = await call("GET", `${base}/${name}`, undefined, { accept: true });
        expect(got.contentType).toBe(PB);
        expect(got.obj).toEqual(asJson.obj);

        const updated = await call("PUT", `${base}/${name}`, c.change(asJson.obj), { send: true, accept: true });
        expect(updated.status, JSON.stringify(updated.obj)).toBe(200);
        const updatedJson = await call("GET", `${base}/${name}`, undefined);
        expect(updated.obj).toEqual(updatedJson.obj);
        expect(updatedJson.obj["metadata"]).not.toEqual(asJson.obj["metadata"]);

        const listPb = await call("GET", base, undefined, { accept: true });
        const listJson = await call("GET", base, undefined);
        expect(listPb.contentType).toBe(PB);
        expect(listPb.obj["kind"]).toBe(`${c.kind}List`);
        expect(listPb.obj).toEqual(listJson.obj);

        // DeleteOptions in protobuf, registered in the type's own group-version.
        const apiVersion = asJson.obj["apiVersion"] as string;
        const deleted = await call(
          "DELETE",
          `${base}/${name}`,
          { apiVersion, kind: "DeleteOptions", propagationPolicy: "Background" },
          { send: true, accept: true },
        );
        expect(deleted.status, JSON.stringify(deleted.obj)).toBe(200);
        expect(deleted.contentType).toBe(PB);

        const events = await watch.take(3);
        expect(events.slice(0, 2)).toEqual([
          { type: "ADDED", object: asJson.obj },
          { type: "MODIFIED", object: updatedJson.obj },
        ]);
        expect(events[2]?.type).toBe("DELETED");
        expect(events[2]?.object).toMatchObject({ kind: c.kind, apiVersion, metadata: { name } });
      } finally {
        watch.close();
      }
    });
  }
});

describe("protobuf for the review and token types", () => {
  /** The same POST with a JSON and a protobuf body and answer. */
  async function both(path: string, body: Record<string, unknown>): Promise<[Answer, Answer]> {
    const json = await call("POST", path, body);
    const pb = await call("POST", path, body, { send: true, accept: true });
    expect(pb.contentType).toBe(PB);
    return [json, pb];
  }

  it("SelfSubjectReview, SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview answer alike in protobuf", async () => {
    const AUTHZ = "/apis/authorization.k8s.io/v1";
    const cases: [string, Record<string, unknown>][] = [
      ["/apis/authentication.k8s.io/v1/selfsubjectreviews", { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview", metadata: {} }],
      [
        `${AUTHZ}/selfsubjectaccessreviews`,
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { namespace: ns, verb: "create", resource: "roles", group: "rbac.authorization.k8s.io" } },
        },
      ],
      [
        `${AUTHZ}/subjectaccessreviews`,
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: { nonResourceAttributes: { path: "/healthz", verb: "get" }, user: "carol", groups: ["team"], extra: { scopes: ["a", "b"] } },
        },
      ],
      [
        `${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`,
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "LocalSubjectAccessReview",
          spec: { resourceAttributes: { namespace: ns, verb: "get", resource: "configmaps" }, user: "dave" },
        },
      ],
    ];
    for (const [path, body] of cases) {
      const [json, pb] = await both(path, body);
      expect(json.status, JSON.stringify(json.obj)).toBe(201);
      expect(pb.status).toBe(201);
      expect(pb.obj).toEqual(json.obj);
      expect(pb.obj["kind"]).toBe(body["kind"]);
    }
  });

  it("TokenRequest and TokenReview: a token asked for in protobuf reviews as the ServiceAccount", async () => {
    const sa = uniq("robot");
    expect(
      (await call("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: sa } }, { send: true }))
        .status,
    ).toBe(201);
    const tr = await call(
      "POST",
      `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`,
      {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        metadata: {},
        spec: { audiences: ["https://kubernetes.default.svc"], expirationSeconds: 3600 },
      },
      { send: true, accept: true },
    );
    expect(tr.status, JSON.stringify(tr.obj)).toBe(201);
    expect(tr.contentType).toBe(PB);
    const status = tr.obj["status"] as { token: string; expirationTimestamp: string };
    expect(tr.obj).toMatchObject({
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      spec: { audiences: ["https://kubernetes.default.svc"], expirationSeconds: 3600 },
    });
    expect(status.token.length).toBeGreaterThan(10);
    expect(status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // The same request in JSON: the same fields (boundObjectRef null, no omitempty), another token.
    const trJson = await call("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { audiences: ["https://kubernetes.default.svc"], expirationSeconds: 3600 },
    });
    expect(tr.obj["spec"]).toEqual({ audiences: ["https://kubernetes.default.svc"], expirationSeconds: 3600, boundObjectRef: null });
    expect(trJson.obj["spec"]).toEqual(tr.obj["spec"]);
    expect(Object.keys(trJson.obj)).toEqual(Object.keys(tr.obj));

    const review = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token: status.token, audiences: ["https://kubernetes.default.svc"] },
    };
    const [json, pb] = await both("/apis/authentication.k8s.io/v1/tokenreviews", review);
    expect(pb.status).toBe(201);
    expect(pb.obj).toEqual(json.obj);
    expect(pb.obj).toMatchObject({
      status: { authenticated: true, user: { username: `system:serviceaccount:${ns}:${sa}` }, audiences: ["https://kubernetes.default.svc"] },
    });
  });
});

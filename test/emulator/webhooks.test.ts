/**
 * Admission webhooks in the emulator over HTTP: the two configuration types (defaults,
 * validation texts, generation, Table, discovery) and the dispatch of writes to a local HTTPS
 * webhook (review contents, dry run, allow and deny, mutation, failure policy, timeouts).
 */

import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, type Reply, uniq } from "./support.js";
import { allow, deny, jsonPatch, startWebhookServer, type WebhookServer } from "./webhook-server.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let hook: WebhookServer;
const VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MWC = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const CM = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  hook = await startWebhookServer();
});
afterAll(async () => {
  await hook.close();
  await emu.close();
});

/** Configurations made by a test are removed after it, so each test sees only its own. */
const made: string[] = [];
afterEach(async () => {
  for (const path of made.splice(0)) await call("DELETE", path);
  hook.received.length = 0;
  hook.respond((review) => allow(review));
});

const CONFIG_MAP_RULE = { operations: ["CREATE", "UPDATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] };

function webhook(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${hook.url}/${name}`, caBundle: hook.caBundle },
    rules: [CONFIG_MAP_RULE],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

async function register(collection: string, webhooks: Array<Record<string, unknown>>, name = uniq("cfg")): Promise<Reply> {
  const created = await call("POST", collection, { metadata: { name }, webhooks });
  expect(created.status, created.text).toBe(201);
  made.push(`${collection}/${name}`);
  return created;
}

const invalidConfig = (webhooks: unknown[], collection = VWC): Promise<Reply> => call("POST", collection, { metadata: { name: uniq("bad") }, webhooks });

/** The aggregated message's part after `is invalid: `. */
const causes = (r: Reply): string[] => r.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);

describe("webhook configurations", () => {
  it("are listed in discovery as cluster-scoped types of admissionregistration.k8s.io/v1", async () => {
    const list = await call("GET", "/apis/admissionregistration.k8s.io/v1");
    expect(list.status).toBe(200);
    expect(list.json.resources).toEqual([
      {
        name: "mutatingwebhookconfigurations",
        singularName: "mutatingwebhookconfiguration",
        namespaced: false,
        kind: "MutatingWebhookConfiguration",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        categories: ["api-extensions"],
        storageVersionHash: "Sqi0GUgDaX0=",
      },
      {
        name: "validatingwebhookconfigurations",
        singularName: "validatingwebhookconfiguration",
        namespaced: false,
        kind: "ValidatingWebhookConfiguration",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        categories: ["api-extensions"],
        storageVersionHash: "B0wHjQmsGNk=",
      },
    ]);
    const groups = await call("GET", "/apis");
    expect(groups.json.groups.map((g: { name: string }) => g.name)).toContain("admissionregistration.k8s.io");
  });

  it("answer with the v1 defaults filled in, and generation 1", async () => {
    const created = await register(MWC, [webhook("defaults.tollgate.dev", { clientConfig: { service: { namespace: "ns", name: "svc" } } })]);
    expect(created.json.metadata.generation).toBe(1);
    expect(created.json.webhooks).toEqual([
      {
        name: "defaults.tollgate.dev",
        clientConfig: { service: { namespace: "ns", name: "svc", port: 443 } },
        rules: [{ ...CONFIG_MAP_RULE, scope: "*" }],
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: "None",
        timeoutSeconds: 10,
        admissionReviewVersions: ["v1"],
        reinvocationPolicy: "Never",
      },
    ]);
    // Field order is Go's: reinvocationPolicy follows admissionReviewVersions.
    expect(Object.keys(created.json.webhooks[0])).toEqual([
      "name",
      "clientConfig",
      "rules",
      "failurePolicy",
      "matchPolicy",
      "namespaceSelector",
      "objectSelector",
      "sideEffects",
      "timeoutSeconds",
      "admissionReviewVersions",
      "reinvocationPolicy",
    ]);
    const validating = await register(VWC, [webhook("defaults.tollgate.dev")]);
    expect(validating.json.webhooks[0].reinvocationPolicy).toBeUndefined();
    expect(validating.json.webhooks[0].timeoutSeconds).toBe(10);
  });

  it("show the defaults on a dry run too, and store nothing", async () => {
    const name = uniq("dry");
    const r = await call("POST", `${VWC}?dryRun=All`, { metadata: { name }, webhooks: [webhook("dry.tollgate.dev")] });
    expect(r.status).toBe(201);
    expect(r.json.webhooks[0].failurePolicy).toBe("Fail");
    expect((await call("GET", `${VWC}/${name}`)).status).toBe(404);
  });

  it("count generations by changes to the webhooks only", async () => {
    const created = await register(VWC, [webhook("gen.tollgate.dev")]);
    const path = `${VWC}/${created.json.metadata.name}`;
    const labelled = await call("PATCH", path, { metadata: { labels: { a: "b" } } }, { headers: { "content-type": "application/merge-patch+json" } });
    expect(labelled.json.metadata.generation).toBe(1);
    const changed = await call(
      "PATCH",
      path,
      { webhooks: [{ name: "gen.tollgate.dev", timeoutSeconds: 3 }] },
      { headers: { "content-type": "application/strategic-merge-patch+json" } },
    );
    expect(changed.status, changed.text).toBe(200);
    // Strategic merge keys the webhooks by name: the other fields stay.
    expect(changed.json.webhooks[0].timeoutSeconds).toBe(3);
    expect(changed.json.webhooks[0].sideEffects).toBe("None");
    expect(changed.json.metadata.generation).toBe(2);
  });

  it("refuse sideEffects Some and Unknown with Unsupported value, and require sideEffects", async () => {
    const some = await invalidConfig([webhook("se.tollgate.dev", { sideEffects: "Some" })]);
    expect(some.status).toBe(422);
    expect(some.json.message).toBe(
      `ValidatingWebhookConfiguration.admissionregistration.k8s.io "${some.json.details.name}" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`,
    );
    expect(some.json.details.causes).toEqual([
      { reason: "FieldValueNotSupported", message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"', field: "webhooks[0].sideEffects" },
    ]);
    const unknown = await invalidConfig([webhook("se.tollgate.dev", { sideEffects: "Unknown" })], MWC);
    expect(causes(unknown)).toEqual(['webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"']);
    const missing = await invalidConfig([webhook("se.tollgate.dev", { sideEffects: undefined })]);
    expect(causes(missing)).toEqual(["webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"]);
    const onDryRun = await invalidConfig([webhook("se.tollgate.dev", { sideEffects: "NoneOnDryRun" })]);
    expect(onDryRun.status).toBe(201);
    made.push(`${VWC}/${onDryRun.json.metadata.name}`);
  });

  it("check names, client configs, rules, timeouts and review versions with the real texts", async () => {
    const r = await invalidConfig([
      webhook("two.segments", { timeoutSeconds: 0, admissionReviewVersions: ["v2"] }),
      webhook("dup.tollgate.dev", {
        clientConfig: { url: "http://user:pw@h.example/p?q=1#frag" },
        rules: [{ operations: ["GET", "*"], apiGroups: [], apiVersions: ["v1"], resources: ["*", "pods"], scope: "Everywhere" }],
      }),
      webhook("dup.tollgate.dev", { clientConfig: {}, timeoutSeconds: 31, admissionReviewVersions: [] }),
      webhook("svc.tollgate.dev", { clientConfig: { url: "https://a.example/", service: { namespace: "n", name: "s" } } }),
      webhook("svc2.tollgate.dev", { clientConfig: { service: { namespace: "", name: "", path: "x//y", port: 70000 } } }),
      webhook("svc3.tollgate.dev", { clientConfig: { service: { namespace: "n", name: "s", path: "/Hooks/v1" } } }),
    ]);
    expect(r.status).toBe(422);
    expect(causes(r)).toEqual([
      'webhooks[0].name: Invalid value: "two.segments": should be a domain with at least three segments separated by dots',
      "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds",
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
      'webhooks[1].rules[0].operations: Invalid value: []admissionregistration.OperationType{"GET", "*"}: if \'*\' is present, must not specify other operations',
      'webhooks[1].rules[0].operations[0]: Unsupported value: "GET": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      "webhooks[1].rules[0].apiGroups: Required value",
      'webhooks[1].rules[0].resources: Invalid value: []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
      'webhooks[1].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
      "webhooks[1].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[1].clientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL',
      'webhooks[1].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
      'webhooks[1].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
      "webhooks[2].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      "webhooks[2].clientConfig: Required value: exactly one of url or service is required",
      "webhooks[2].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
      'webhooks[2].name: Duplicate value: "dup.tollgate.dev"',
      "webhooks[3].clientConfig: Required value: exactly one of url or service is required",
      "webhooks[4].clientConfig.service.name: Required value",
      "webhooks[4].clientConfig.service.namespace: Required value",
      "webhooks[4].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
      "webhooks[4].clientConfig.service.path: Invalid value: \"x//y\": must start with a '/'",
      // The first character is dropped whether or not it is a '/', as upstream does: "/y" splits into "", "", "y".
      'webhooks[4].clientConfig.service.path: Invalid value: "x//y": segment[0] may not be empty',
      'webhooks[4].clientConfig.service.path: Invalid value: "x//y": segment[1] may not be empty',
      "webhooks[5].clientConfig.service.path: Invalid value: \"/Hooks/v1\": segment[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
  });

  it("refuse a bad reinvocationPolicy and bad selectors", async () => {
    const r = await invalidConfig(
      [
        webhook("sel.tollgate.dev", {
          reinvocationPolicy: "Always",
          objectSelector: {
            matchExpressions: [
              { key: "a", operator: "In" },
              { key: "b", operator: "Exists", values: ["x"] },
              { key: "c", operator: "Near" },
            ],
          },
        }),
      ],
      MWC,
    );
    expect(causes(r)).toEqual([
      "webhooks[0].objectSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "webhooks[0].objectSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'webhooks[0].objectSelector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });

  it("are printed as a Table with the NAME, WEBHOOKS and AGE columns", async () => {
    const created = await register(VWC, [webhook("t1.tollgate.dev"), webhook("t2.tollgate.dev")]);
    const table = await call("GET", `${VWC}/${created.json.metadata.name}`, undefined, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    expect(table.status).toBe(200);
    expect(table.json.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      "Name:string",
      "Webhooks:integer",
      "Age:string",
    ]);
    expect(table.json.columnDefinitions[1].description).toBe("Webhooks indicates the number of webhooks registered in this configuration");
    expect(table.json.rows[0].cells.slice(0, 2)).toEqual([created.json.metadata.name, 2]);
  });
});

describe("webhook configurations in protobuf", () => {
  // Protobuf round trips of these types: test/emulator/protobuf-types.test.ts.
  it("answer kubectl's protobuf-then-JSON Accept in protobuf, as a real server does", async () => {
    await register(VWC, [webhook("pb.tollgate.dev")]);
    const pb = await call("GET", VWC, undefined, { headers: { accept: "application/vnd.kubernetes.protobuf, application/json" } });
    expect(pb.status).toBe(200);
    expect(pb.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    expect(pb.text.startsWith("k8s\u0000")).toBe(true);
    expect(pb.text).toContain("ValidatingWebhookConfigurationList");
    expect(pb.text).toContain("pb.tollgate.dev");
  });
});

describe("dispatch to webhooks", () => {
  it("sends validating webhooks an admission.k8s.io/v1 review of the object as it will be stored", async () => {
    await register(VWC, [webhook("review.tollgate.dev")]);
    const name = uniq("cm");
    const created = await call("POST", `${CM}?fieldManager=tester`, configMapBody(name, { k: "v" }));
    expect(created.status).toBe(201);
    expect(hook.received).toHaveLength(1);
    const { path, review } = hook.received[0] ?? { path: "", review: {} };
    expect(path).toBe("/review.tollgate.dev?timeout=10s");
    expect(Object.keys(review)).toEqual(["kind", "apiVersion", "request"]);
    expect(review.apiVersion).toBe("admission.k8s.io/v1");
    const req = review.request;
    expect(Object.keys(req)).toEqual([
      "uid",
      "kind",
      "resource",
      "requestKind",
      "requestResource",
      "name",
      "namespace",
      "operation",
      "userInfo",
      "object",
      "oldObject",
      "dryRun",
      "options",
    ]);
    expect(req.kind).toEqual({ group: "", version: "v1", kind: "ConfigMap" });
    expect(req.resource).toEqual({ group: "", version: "v1", resource: "configmaps" });
    expect(req.requestKind).toEqual(req.kind);
    expect(req.requestResource).toEqual(req.resource);
    expect([req.name, req.namespace, req.operation, req.dryRun, req.oldObject]).toEqual([name, "default", "CREATE", false, null]);
    expect(req.options).toEqual({ kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "tester" });
    // Validation comes after the server set uid and creationTimestamp.
    expect(req.object.metadata.uid).toBe(created.json.metadata.uid);
    expect(req.object.data).toEqual({ k: "v" });
  });

  it("says dryRun: true on a dry run, and the dry run stores nothing", async () => {
    await register(VWC, [webhook("dryrun.tollgate.dev", { sideEffects: "NoneOnDryRun" })]);
    const name = uniq("cm");
    const r = await call("POST", `${CM}?dryRun=All`, configMapBody(name));
    expect(r.status).toBe(201);
    const req = hook.received[0]?.review.request;
    expect(req.dryRun).toBe(true);
    expect(req.options).toEqual({ kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"] });
    expect((await call("GET", `${CM}/${name}`)).status).toBe(404);
  });

  it("answers a denial with the webhook's Status, named", async () => {
    await register(VWC, [webhook("deny.tollgate.dev")]);
    hook.respond((review) => deny(review, { message: "no configmaps today" }));
    const name = uniq("cm");
    const r = await call("POST", CM, configMapBody(name));
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'admission webhook "deny.tollgate.dev" denied the request: no configmaps today',
      code: 400,
    });
    expect((await call("GET", `${CM}/${name}`)).status).toBe(404);

    hook.respond((review) => deny(review, { code: 403, reason: "Forbidden" }));
    const forbidden = await call("POST", CM, configMapBody(uniq("cm")));
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.message).toBe('admission webhook "deny.tollgate.dev" denied the request: Forbidden');
    expect(forbidden.json.reason).toBe("Forbidden");

    hook.respond((review) => deny(review));
    const bare = await call("POST", CM, configMapBody(uniq("cm")));
    expect(bare.json.message).toBe('admission webhook "deny.tollgate.dev" denied the request without explanation');
  });

  it("applies a mutating webhook's JSONPatch before validation and validating webhooks", async () => {
    await register(MWC, [webhook("mutate.tollgate.dev")]);
    await register(VWC, [webhook("check.tollgate.dev")]);
    hook.respond((review, path) =>
      path.startsWith("/mutate")
        ? allow(
            review,
            jsonPatch([
              { op: "add", path: "/metadata/labels", value: { mutated: "yes" } },
              { op: "add", path: "/data/added", value: "1" },
            ]),
          )
        : allow(review),
    );
    const r = await call("POST", CM, configMapBody(uniq("cm"), { k: "v" }));
    expect(r.status, r.text).toBe(201);
    expect(r.json.metadata.labels).toEqual({ mutated: "yes" });
    expect(r.json.data).toEqual({ added: "1", k: "v" });
    const [mutating, validating] = hook.received;
    expect(mutating?.path).toMatch(/^\/mutate/);
    // Mutating admission comes before the server's preparation: no uid yet.
    expect(mutating?.review.request.object.metadata.uid).toBeUndefined();
    expect(validating?.review.request.object.metadata.labels).toEqual({ mutated: "yes" });
  });

  it("calls again an IfNeeded webhook that ran before a later webhook changed the object", async () => {
    await register(MWC, [webhook("a.tollgate.dev", { reinvocationPolicy: "IfNeeded" }), webhook("b.tollgate.dev")]);
    hook.respond((review, path) =>
      path.startsWith("/b.") && !review.request.object.metadata.labels
        ? allow(review, jsonPatch([{ op: "add", path: "/metadata/labels", value: { b: "1" } }]))
        : allow(review),
    );
    const r = await call("POST", CM, configMapBody(uniq("cm")));
    expect(r.status).toBe(201);
    expect(hook.received.map((x) => x.path.split("?")[0])).toEqual(["/a.tollgate.dev", "/b.tollgate.dev", "/a.tollgate.dev"]);
  });

  it("sends UPDATE with the old object, and DELETE with only the old object", async () => {
    await register(VWC, [webhook("ops.tollgate.dev")]);
    const name = uniq("cm");
    const created = await call("POST", CM, configMapBody(name, { k: "1" }));
    const updated = await call("PUT", `${CM}/${name}`, { ...created.json, data: { k: "2" } });
    expect(updated.status).toBe(200);
    const update = hook.received[1]?.review.request;
    expect([update.operation, update.oldObject.data.k, update.object.data.k]).toEqual(["UPDATE", "1", "2"]);
    expect(update.options).toEqual({ kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1" });

    hook.respond((review) => (review.request.operation === "DELETE" ? deny(review, { message: "keep it" }) : allow(review)));
    const refused = await call("DELETE", `${CM}/${name}`, { propagationPolicy: "Background" });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe('admission webhook "ops.tollgate.dev" denied the request: keep it');
    const del = hook.received[2]?.review.request;
    expect([del.operation, del.object, del.oldObject.data.k, del.name]).toEqual(["DELETE", null, "2", name]);
    expect(del.options).toEqual({ kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1", propagationPolicy: "Background" });
    expect((await call("GET", `${CM}/${name}`)).status).toBe(200);
  });

  it("passes webhook warnings on as Warning headers", async () => {
    await register(VWC, [webhook("warn.tollgate.dev")]);
    hook.respond((review) => allow(review, { warnings: ["careful now"] }));
    const r = await call("POST", CM, configMapBody(uniq("cm")));
    expect(r.status).toBe(201);
    expect(r.headers["warning"]).toBe('299 - "careful now"');
  });

  it("calls only webhooks whose rules and selectors match, and never for webhook configurations", async () => {
    await register(VWC, [
      webhook("objsel.tollgate.dev", { objectSelector: { matchLabels: { pick: "me" } } }),
      webhook("nssel.tollgate.dev", {
        namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["kube-system"] }] },
      }),
      webhook("events.tollgate.dev", { rules: [{ operations: ["*"], apiGroups: ["events.k8s.io"], apiVersions: ["*"], resources: ["events"] }] }),
      webhook("config.tollgate.dev", {
        rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
        objectSelector: { matchLabels: { pick: "me" } },
      }),
    ]);
    await call("POST", CM, configMapBody(uniq("cm")));
    expect(hook.received).toHaveLength(0);
    await call("POST", CM, configMapBody(uniq("cm"), {}, { pick: "me" }));
    expect(hook.received.map((x) => x.path.split("?")[0]).sort()).toEqual(["/config.tollgate.dev", "/objsel.tollgate.dev"]);
    hook.received.length = 0;
    await register(VWC, [webhook("x.tollgate.dev")], uniq("labelled"));
    expect(hook.received).toHaveLength(0);
  });

  it("fails a call under failurePolicy Fail with the real message, and goes on under Ignore", async () => {
    const closed = await freePort();
    const unreachable = `https://127.0.0.1:${closed}/hook`;
    const cfg = await register(VWC, [webhook("fail.tollgate.dev", { clientConfig: { url: unreachable } })]);
    const r = await call("POST", CM, configMapBody(uniq("cm")));
    expect(r.status).toBe(500);
    expect(r.json.reason).toBe("InternalError");
    expect(r.json.message).toBe(
      `Internal error occurred: failed calling webhook "fail.tollgate.dev": failed to call webhook: Post "${unreachable}?timeout=10s": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
    );
    const path = `${VWC}/${cfg.json.metadata.name}`;
    await call("PATCH", path, [{ op: "replace", path: "/webhooks/0/failurePolicy", value: "Ignore" }], {
      headers: { "content-type": "application/json-patch+json" },
    });
    expect((await call("POST", CM, configMapBody(uniq("cm")))).status).toBe(201);
  });

  it("fails a service reference as a real server does when the service is not there", async () => {
    await register(VWC, [webhook("svc.tollgate.dev", { clientConfig: { service: { namespace: "hooks", name: "gate", path: "/check" } } })]);
    const r = await call("POST", CM, configMapBody(uniq("cm")));
    expect(r.status).toBe(500);
    expect(r.json.message).toBe(
      'Internal error occurred: failed calling webhook "svc.tollgate.dev": failed to call webhook: Post "https://gate.hooks.svc:443/check?timeout=10s": service "gate" not found',
    );
  });

  it("does not trust a webhook's certificate without the caBundle that signs it", async () => {
    await register(VWC, [webhook("ca.tollgate.dev", { clientConfig: { url: `${hook.url}/ca` } })]);
    const r = await call("POST", CM, configMapBody(uniq("cm")));
    expect(r.status).toBe(500);
    expect(r.json.message).toMatch(/failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    expect(hook.received).toHaveLength(0);
  });

  it("reports an answer that is not a valid review as a failed call", async () => {
    await register(VWC, [webhook("bad.tollgate.dev")]);
    hook.respond(() => ({ body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "other", allowed: true } } }));
    const wrongUid = await call("POST", CM, configMapBody(uniq("cm")));
    expect(wrongUid.status).toBe(500);
    expect(wrongUid.json.message).toMatch(
      /^Internal error occurred: failed calling webhook "bad\.tollgate\.dev": received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "other"$/,
    );
    hook.respond(() => ({ status: 500, body: "boom" }));
    const serverError = await call("POST", CM, configMapBody(uniq("cm")));
    expect(serverError.json.message).toBe(
      'Internal error occurred: failed calling webhook "bad.tollgate.dev": failed to call webhook: an error on the server ("unknown") has prevented the request from succeeding',
    );
  });

  it("gives up after timeoutSeconds without holding up other requests", async () => {
    await register(VWC, [webhook("slow.tollgate.dev", { timeoutSeconds: 1 })]);
    hook.respond(() => ({ hang: true }));
    const started = Date.now();
    let settled = false;
    const pending = call("POST", CM, configMapBody(uniq("cm"))).finally(() => {
      settled = true;
    });
    // While the webhook keeps the create waiting, reads are answered (not after the create's end:
    // a clock bound would depend on the machine's load).
    await new Promise((r) => setTimeout(r, 100));
    const read = await call("GET", "/api/v1/namespaces/default");
    expect(read.status).toBe(200);
    expect(settled, "the read was answered while the create still waited").toBe(false);
    const r = await pending;
    const elapsed = Date.now() - started;
    expect(r.status).toBe(500);
    expect(r.json.message).toMatch(
      /failed calling webhook "slow\.tollgate\.dev": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\.tollgate\.dev\?timeout=1s": context deadline exceeded$/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(5000);
  });
});

/** A port nothing listens on (taken, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The HTTP surface: negotiation, methods, unknown paths, limits, pretty output, discovery. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const CM = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  emu = await startEmulator({ port: 0, maxRequestBodyBytes: 64 * 1024 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

describe("errors of the HTTP layer", () => {
  it("404 with the generic Status for an unknown path", async () => {
    for (const path of ["/nope", "/api/v2/configmaps", "/apis/apps/v1/deployments", "/api/v1/pods", "/api/v1/configmaps/x"]) {
      const r = await call("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        details: {},
        code: 404,
      });
    }
  });

  it("404 for subresources a type does not have", async () => {
    expect((await call("GET", "/api/v1/namespaces/default/scale")).status).toBe(404);
    expect((await call("GET", "/api/v1/namespaces/default/configmaps/x/status")).status).toBe(404);
  });

  it("405 for a method the path does not serve", async () => {
    for (const [method, path] of [
      ["PUT", CM],
      ["POST", `${CM}/x`],
      ["POST", "/api/v1/configmaps"],
      ["DELETE", "/apis/events.k8s.io/v1/events"],
      ["POST", "/version"],
    ] as const) {
      const r = await call(method, path, {});
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.json).toMatchObject({ reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource", code: 405 });
    }
  });

  it("406 with an indented body for an Accept the server cannot serve", async () => {
    const r = await call("GET", CM, undefined, { headers: { accept: "application/cbor" } });
    expect(r.status).toBe(406);
    expect(r.text).toBe(
      JSON.stringify(
        {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
          reason: "NotAcceptable",
          code: 406,
        },
        null,
        2,
      ),
    );
    expect((await call("GET", CM, undefined, { headers: { accept: "application/json;as=Table;v=v7;g=meta.k8s.io" } })).status).toBe(406);
    expect((await call("GET", CM, undefined, { headers: { accept: "application/json;q=0, application/cbor" } })).status).toBe(406);
  });

  it("accepts JSON among other types, wildcards and a missing Accept", async () => {
    for (const accept of [
      "application/json",
      "*/*",
      "application/*",
      "application/yaml, application/json;q=0.5",
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    ]) {
      expect((await call("GET", CM, undefined, { headers: { accept } })).status, accept).toBe(200);
    }
    expect((await call("GET", CM)).status).toBe(200);
  });

  it("415 for a body in a format the server does not read", async () => {
    const r = await call("POST", CM, undefined, { raw: "kind: ConfigMap", headers: { "content-type": "text/plain" } });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({
      reason: "UnsupportedMediaType",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    });
  });

  it("413 for a body over the limit", async () => {
    const r = await call("POST", CM, configMapBody(uniq("big"), { k: "x".repeat(70 * 1024) }));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ reason: "RequestEntityTooLarge", message: "Request entity too large: limit is 65536" });
  });
});

describe("output form", () => {
  it("is compact with a newline, or indented without one for ?pretty=true and curl", async () => {
    const compact = await call("GET", "/version");
    expect(compact.text).toBe(`${JSON.stringify(compact.json)}\n`);
    expect((await call("GET", "/version?pretty=true")).text).toBe(JSON.stringify(compact.json, null, 2));
    expect((await call("GET", "/version", undefined, { headers: { "user-agent": "curl/8.5.0" } })).text).toBe(JSON.stringify(compact.json, null, 2));
  });

  it("escapes <, > and & like Go", async () => {
    const name = uniq("html");
    const r = await call("POST", CM, configMapBody(name, { k: "<a&b>" }));
    expect(r.text).toContain('"k":"\\u003ca\\u0026b\\u003e"');
    expect(r.json.data.k).toBe("<a&b>");
  });
});

describe("discovery and health", () => {
  it("serves /version, /healthz, /readyz and /livez", async () => {
    expect((await call("GET", "/version")).json).toMatchObject({ major: "1", minor: "35", gitVersion: "v1.35.0-tollgate" });
    for (const p of ["/healthz", "/readyz", "/livez"]) {
      const r = await call("GET", p);
      expect(r.status).toBe(200);
      expect(r.text).toBe("ok");
      expect(r.headers["content-type"]).toMatch(/^text\/plain/);
    }
  });

  it("serves the legacy discovery documents", async () => {
    expect((await call("GET", "/api")).json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    expect((await call("GET", "/apis")).json).toEqual({
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [
        {
          name: "events.k8s.io",
          versions: [{ groupVersion: "events.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "events.k8s.io/v1", version: "v1" },
        },
        // Then the review groups, served with or without auth, in a real server's order.
        {
          name: "authentication.k8s.io",
          versions: [{ groupVersion: "authentication.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "authentication.k8s.io/v1", version: "v1" },
        },
        {
          name: "authorization.k8s.io",
          versions: [{ groupVersion: "authorization.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "authorization.k8s.io/v1", version: "v1" },
        },
        // Served with or without auth, before admissionregistration.k8s.io as in a real server's /apis.
        {
          name: "rbac.authorization.k8s.io",
          versions: [{ groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" },
        },
        {
          name: "admissionregistration.k8s.io",
          versions: [{ groupVersion: "admissionregistration.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "admissionregistration.k8s.io/v1", version: "v1" },
        },
        {
          name: "apiextensions.k8s.io",
          versions: [{ groupVersion: "apiextensions.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "apiextensions.k8s.io/v1", version: "v1" },
        },
        // After apiextensions.k8s.io, as on a real server.
        {
          name: "coordination.k8s.io",
          versions: [{ groupVersion: "coordination.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "coordination.k8s.io/v1", version: "v1" },
        },
        // After coordination.k8s.io, as on a real server.
        {
          name: "discovery.k8s.io",
          versions: [{ groupVersion: "discovery.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "discovery.k8s.io/v1", version: "v1" },
        },
      ],
    });
    expect((await call("GET", "/apis/events.k8s.io")).json).toMatchObject({ kind: "APIGroup", apiVersion: "v1", name: "events.k8s.io" });
    expect((await call("GET", "/apis/events.k8s.io/v1")).json).toEqual({
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: "events.k8s.io/v1",
      resources: [
        {
          name: "events",
          singularName: "event",
          namespaced: true,
          kind: "Event",
          verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
          shortNames: ["ev"],
          storageVersionHash: "r2yiGXH7wu8=",
        },
      ],
    });
    const core = (await call("GET", "/api/v1")).json;
    expect(core.groupVersion).toBe("v1");
    expect(core.resources.map((r: { name: string }) => r.name)).toEqual([
      "configmaps",
      "events",
      "namespaces",
      "namespaces/finalize",
      "namespaces/status",
      "serviceaccounts",
      "serviceaccounts/token",
      "services",
      "services/status",
    ]);
    // core v1 events: the same stored type as events.k8s.io/v1, so the same storage version hash.
    expect(core.resources[1]).toEqual({
      name: "events",
      singularName: "event",
      namespaced: true,
      kind: "Event",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["ev"],
      storageVersionHash: "r2yiGXH7wu8=",
    });
  });
});

/** Aggregated discovery (apidiscovery.k8s.io/v2, wire-facts §6.2 and §18) on /api and /apis, beside the legacy documents. */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, uniq } from "./support.js";

const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
/** What kubectl 1.32 sends (wire-facts §6.1); the test reads it from the real trace when present. */
const KUBECTL_ACCEPT = `${V2},${V2BETA1},application/json`;
const REFERENCE = "/work/shared/reference";

let emu: EmulatorServer;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  emu = createEmulatorServer(resolveSettings({}));
  call = client(await emu.listen("127.0.0.1", 0));
});
afterAll(async () => {
  await emu.close();
});

const get = (path: string, accept: string, extra: Record<string, string> = {}) => call("GET", path, undefined, { headers: { accept, ...extra } });

/** kubectl's Accept header for /api and /apis in the real trace, else the one wire-facts §6.1 records. */
function kubectlAccept(): string {
  const trace = `${REFERENCE}/kubectl-1.32-traces/01-get-list-table.jsonl`;
  if (!existsSync(trace)) {
    console.log(`skipping the trace read: ${trace} is absent; using the Accept header of wire-facts §6.1`);
    return KUBECTL_ACCEPT;
  }
  const lines = readFileSync(trace, "utf8").split("\n").filter(Boolean);
  const apis = lines.map((l) => JSON.parse(l)).find((r) => r.path === "/apis");
  return apis.headers.Accept;
}

describe("aggregated discovery", () => {
  it("answers kubectl's Accept on /apis with an APIGroupDiscoveryList whose Content-Type carries the profile, with ETag and Vary", async () => {
    const accept = kubectlAccept();
    expect(accept).toBe(KUBECTL_ACCEPT);
    const r = await get("/apis", accept);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe(V2);
    expect(r.headers.vary).toBe("Accept");
    expect(r.headers["cache-control"]).toBe("public");
    expect(r.text.startsWith('{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[')).toBe(true);
    // The ETag is the uppercase SHA-512 of the list as json.Marshal writes it before kind and apiVersion are set.
    const marshalled = JSON.stringify({ metadata: {}, items: r.json.items });
    expect(r.headers.etag).toBe(`"${createHash("sha512").update(marshalled).digest("hex").toUpperCase()}"`);
    const names = r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    // Priority order (events.k8s.io 17750, authentication 17700, authorization 17600, rbac 17000, then admissionregistration
    // and apiextensions at 16700, by name, then coordination 16500); the review and RBAC groups are served with or without --auth.
    expect(names).toEqual([
      "events.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "rbac.authorization.k8s.io",
      "admissionregistration.k8s.io",
      "apiextensions.k8s.io",
      "coordination.k8s.io",
      "discovery.k8s.io",
    ]);
    const events = r.json.items[0];
    expect(events).toEqual({
      metadata: { name: "events.k8s.io" },
      versions: [
        {
          version: "v1",
          resources: [
            {
              resource: "events",
              responseKind: { group: "", version: "", kind: "Event" },
              scope: "Namespaced",
              singularResource: "event",
              verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
              shortNames: ["ev"],
            },
          ],
          freshness: "Current",
        },
      ],
    });
  });

  it("lists each resource as the legacy document does (the real events.k8s.io/v1 document when present)", async () => {
    const file = `${REFERENCE}/discovery-unpinned/apis__events.k8s.io__v1.json`;
    const legacy = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
    if (!legacy) console.log(`skipping the reference: ${file} is absent`);
    const agg = (await get("/apis", V2)).json;
    const events = agg.items.find((i: { metadata: { name: string } }) => i.metadata.name === "events.k8s.io").versions[0].resources[0];
    const served = (await get("/apis/events.k8s.io/v1", "application/json")).json.resources[0];
    for (const doc of legacy ? [served, legacy.resources[0]] : [served]) {
      expect(events.resource).toBe(doc.name);
      expect(events.singularResource).toBe(doc.singularName);
      expect(events.scope).toBe(doc.namespaced ? "Namespaced" : "Cluster");
      expect(events.responseKind.kind).toBe(doc.kind);
      expect(events.verbs).toEqual(doc.verbs);
      expect(events.shortNames).toEqual(doc.shortNames);
    }
  });

  it("answers /api with the core group, unnamed, its subresources attached to their parents", async () => {
    const r = await get("/api", KUBECTL_ACCEPT);
    expect(r.headers["content-type"]).toBe(V2);
    expect(r.json.items).toHaveLength(1);
    const core = r.json.items[0];
    expect(core.metadata).toEqual({});
    expect(core.versions.map((v: { version: string }) => v.version)).toEqual(["v1"]);
    const resources = core.versions[0].resources;
    expect(resources.map((x: { resource: string }) => x.resource)).toEqual(["configmaps", "events", "namespaces", "serviceaccounts", "services"]);
    const namespaces = resources[2];
    expect(namespaces).toMatchObject({ resource: "namespaces", scope: "Cluster", singularResource: "namespace", shortNames: ["ns"] });
    expect(namespaces.subresources).toEqual([
      { subresource: "finalize", responseKind: { group: "", version: "", kind: "Namespace" }, verbs: ["update"] },
      { subresource: "status", responseKind: { group: "", version: "", kind: "Namespace" }, verbs: ["get", "patch", "update"] },
    ]);
  });

  it("answers 304 with no body when If-None-Match is the ETag, and a new ETag once a definition adds a group", async () => {
    const first = await get("/apis", V2);
    const etag = String(first.headers.etag);
    const again = await get("/apis", V2, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.etag).toBe(etag);

    // A custom resource group: priority 1000 (after the built-in groups), responseKind with its group-version, categories, status.
    const group = `${uniq("d")}.example.com`;
    const crd = await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        names: { plural: "gadgets", kind: "Gadget", shortNames: ["gd"], categories: ["all"] },
        scope: "Namespaced",
        versions: [
          { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            subresources: { status: {} },
          },
        ],
      },
    });
    expect(crd.status, crd.text).toBe(201);
    let after = await get("/apis", V2, { "if-none-match": etag });
    for (let i = 0; i < 50 && !after.json?.items.some((x: { metadata: { name: string } }) => x.metadata.name === group); i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await get("/apis", V2, { "if-none-match": etag });
    }
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    const names = after.json.items.map((x: { metadata: { name: string } }) => x.metadata.name);
    expect(names.indexOf(group)).toBeGreaterThan(names.indexOf("coordination.k8s.io"));
    const item = after.json.items.find((x: { metadata: { name: string } }) => x.metadata.name === group);
    expect(item.versions.map((v: { version: string }) => v.version)).toEqual(["v1", "v1beta1"]);
    expect(item.versions[0].resources).toEqual([
      {
        resource: "gadgets",
        responseKind: { group, version: "v1", kind: "Gadget" },
        scope: "Namespaced",
        singularResource: "gadget",
        verbs: ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        shortNames: ["gd"],
        categories: ["all"],
        subresources: [{ subresource: "status", responseKind: { group, version: "v1", kind: "Gadget" }, verbs: ["get", "patch", "update"] }],
      },
    ]);
    expect(item.versions[1].resources[0].responseKind).toEqual({ group, version: "v1beta1", kind: "Gadget" });
    expect(item.versions[1].resources[0].subresources).toBeUndefined();
  });

  it("keeps the legacy documents for a plain Accept, for v2beta1 (removed in 1.35), and for the first clause when it is plain", async () => {
    for (const accept of ["application/json", `${V2BETA1},application/json`, `application/json,${V2}`, "*/*"]) {
      const r = await get("/apis", accept);
      expect(r.status, accept).toBe(200);
      expect(r.headers["content-type"], accept).toBe("application/json");
      expect(r.json.kind, accept).toBe("APIGroupList");
      expect(r.headers.etag, accept).toBeUndefined();
    }
    expect((await get("/api", "application/json")).json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
  });

  it("serves client-go 0.35's profile=nopeer clause as plain aggregated discovery (the peer proxy gate is off)", async () => {
    const r = await get("/apis", `${V2};profile=nopeer,${V2},application/json`);
    expect(r.headers["content-type"]).toBe(V2);
    expect(r.json.kind).toBe("APIGroupDiscoveryList");
  });

  it("answers JSON to a protobuf-first Accept (no protobuf form of the list here; a real server would send protobuf)", async () => {
    const r = await get("/apis", `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${V2},application/json`);
    expect(r.headers["content-type"]).toBe(V2);
    expect(r.json.kind).toBe("APIGroupDiscoveryList");
  });
});

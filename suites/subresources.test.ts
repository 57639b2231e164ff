/**
 * doc1 subresources on a cluster-scoped type: a namespace's `status` and `finalize`
 * (`/api/v1/namespaces/{name}/{subresource}`), each with its own verbs. The suite works on a
 * namespace it created. (The namespaced form is checked on a custom resource's status in
 * custom-resources.test.ts.)
 */
import { describe, expect } from "vitest";
import type { KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, useSuite } from "./support/conformance.js";

const suite = useSuite("subresources");

type Namespace = KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string; conditions?: { type: string; status: string }[] } };

const nsPath = (sub?: string): string => `${resourcePath(suite.session.types.namespaces, undefined, suite.ns)}${sub ? `/${sub}` : ""}`;

describe("namespace subresources", () => {
  check(
    {
      title: "discovery lists namespaces/status (get, patch, update) and namespaces/finalize (update) as entries of their own",
      rules: ["doc1.service.subresources", "doc1.verbs.subresource-verbs"],
    },
    async () => {
      const res = await suite.session.client.raw("GET", "/api/v1");
      expect(res.code).toBe(200);
      const resources = (res.json as { resources: { name: string; verbs: string[]; namespaced: boolean }[] }).resources;
      const byName = new Map(resources.map((r) => [r.name, r]));
      expect([...(byName.get("namespaces/status")?.verbs ?? [])].sort()).toEqual(["get", "patch", "update"]);
      expect(byName.get("namespaces/finalize")?.verbs).toEqual(["update"]);
      expect(byName.get("namespaces/status")?.namespaced).toBe(false);
    },
  );

  check(
    {
      title: "…/namespaces/{name}/status: GET reads the namespace, PUT changes status but not spec",
      rules: ["doc1.paths.subresource-cluster-scoped", "doc1.service.subresources"],
    },
    async () => {
      const { session } = suite;
      const read = await session.client.raw("GET", nsPath("status"));
      expect(read.code, read.text.slice(0, 200)).toBe(200);
      const current = (await session.client.get(session.types.namespaces, undefined, suite.ns)) as Namespace;
      expect(read.json).toEqual(current);
      const body: Namespace = {
        ...current,
        spec: { finalizers: [...(current.spec?.finalizers ?? []), "tollgate.dev/ignored"] },
        status: { ...current.status, conditions: [{ type: "TollgateCheck", status: "True" }] },
      };
      const put = await session.client.raw("PUT", nsPath("status"), { body });
      expect(put.code, put.text.slice(0, 300)).toBe(200);
      const after = put.json as Namespace;
      expect(after.status?.conditions?.map((c) => [c.type, c.status])).toEqual([["TollgateCheck", "True"]]);
      expect(after.spec, "a status write leaves spec alone").toEqual(current.spec);
    },
  );

  check(
    {
      title: "…/namespaces/{name}/finalize takes PUT only: it changes spec.finalizers, validates their names, and GET or PATCH there is 405",
      rules: ["doc1.paths.subresource-cluster-scoped", "doc1.verbs.subresource-verbs"],
    },
    async () => {
      const { session } = suite;
      const current = (await session.client.get(session.types.namespaces, undefined, suite.ns)) as Namespace;
      const base = current.spec?.finalizers ?? [];
      const held = await session.client.raw("PUT", nsPath("finalize"), { body: { ...current, spec: { finalizers: [...base, "tollgate.dev/hold"] } } });
      expect(held.code, held.text.slice(0, 300)).toBe(200);
      expect((held.json as Namespace).spec?.finalizers).toEqual([...base, "tollgate.dev/hold"]);
      const bad = await session.client.raw("PUT", nsPath("finalize"), {
        body: { ...(held.json as Namespace), spec: { finalizers: [...base, "not a name!"] } },
      });
      expect(bad.code, bad.text.slice(0, 300)).toBe(422);
      const fields = ((bad.json as { details?: { causes?: { field?: string }[] } }).details?.causes ?? []).map((c) => c.field);
      expect(
        fields.some((f) => f?.startsWith("spec.finalizers")),
        JSON.stringify(fields),
      ).toBe(true);
      const released = await session.client.raw("PUT", nsPath("finalize"), { body: { ...(held.json as Namespace), spec: { finalizers: base } } });
      expect(released.code).toBe(200);
      expect((released.json as Namespace).spec?.finalizers ?? []).toEqual(base);
      for (const method of ["GET", "PATCH"]) {
        const res = await session.client.raw(
          method,
          nsPath("finalize"),
          method === "PATCH" ? { rawBody: "{}", contentType: "application/merge-patch+json" } : {},
        );
        expect(res.code, `${method} on finalize: ${res.text.slice(0, 200)}`).toBe(405);
        expect(res.json).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 });
      }
    },
  );

  check({ title: "an unknown subresource of a namespace is 404", rules: ["doc1.terms.subresource-single-resource", "doc1.errors.404-not-found"] }, async () => {
    const res = await suite.session.client.raw("GET", nsPath("no-such-subresource"));
    expect(res.code).toBe(404);
    // An unknown path names no object (wire-facts §4).
    expect(res.json).toMatchObject({ kind: "Status", reason: "NotFound", code: 404, message: "the server could not find the requested resource", details: {} });
  });
});

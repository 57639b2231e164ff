/**
 * doc1 "Delete options" and "States and transitions": the unsafe force delete
 * (ignoreStoreReadErrorWithClusterBreakingPotential) behind the alpha gate
 * AllowUnsafeMalformedObjectDeletion. The runner detects the gate's state before the tests (a
 * forced delete of a missing object: 422 naming the gate means off, 404 on) unless the operator
 * declared it (--feature-gates); the off tests and the on tests declare which they need. Making an
 * object corrupt needs the target's admin endpoint ("corrupt").
 */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import { markCorrupt } from "../lib/harness/admin.js";
import type { ApiResponse } from "../lib/harness/client.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("force-delete");
const FORCE = "ignoreStoreReadErrorWithClusterBreakingPotential";
const GATE = "AllowUnsafeMalformedObjectDeletion";
const HOLD = "tollgate.dev/hold";

type Causes = { details?: { causes?: { field?: string; message?: string }[] }; message?: string };
const causeFields = (res: ApiResponse): (string | undefined)[] => ((res.json as Causes | undefined)?.details?.causes ?? []).map((c) => c.field);

/** A readable configmap of this suite's namespace; returns its path and its stored state. */
async function readable(prefix: string, finalizers?: string[]): Promise<{ name: string; path: string; before: ApiResponse }> {
  const { session, ns } = suite;
  const t = session.types.configmaps;
  const name = uniqueName(prefix);
  await session.client.create(t, ns, { ...configMap(session.types, ns, name), metadata: { name, namespace: ns, ...(finalizers ? { finalizers } : {}) } });
  const path = resourcePath(t, ns, name);
  const before = await session.client.raw("GET", path);
  expect(before.code).toBe(200);
  return { name, path, before };
}

const forceDelete = (path: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> =>
  suite.session.client.raw("DELETE", path, { body: { kind: "DeleteOptions", apiVersion: "v1", [FORCE]: true, ...extra } });

/** 422 on DeleteOptions whose text names the gate: the refusal of a target with the gate off. */
function refusedForGate(res: ApiResponse): boolean {
  return res.code === 422 && res.text.includes(GATE) && causeFields(res).includes(FORCE);
}

describe("unsafe force delete", () => {
  check(
    {
      title: "with AllowUnsafeMalformedObjectDeletion off (its 1.35 default), the force option is refused with 422 naming the gate, and nothing changes",
      rules: ["doc1.delete-options.force-needs-gate", "doc1.versioning.cap-unsafe-force-delete"],
      needs: ["!force-delete"],
    },
    async () => {
      const { path, before } = await readable("gate");
      const res = await forceDelete(path);
      expect(refusedForGate(res), `a forced delete with the gate off: ${res.text.slice(0, 300)}`).toBe(true);
      expect(res.json).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "Invalid",
        code: 422,
        details: { kind: "DeleteOptions", group: "meta.k8s.io" },
      });
      const after = await suite.session.client.raw("GET", path);
      expect(after.code, "the object is still there").toBe(200);
      expect(after.json, "and unchanged").toEqual(before.json);
    },
  );

  check(
    {
      title: "with the gate on, the force option is taken: a forced delete of a readable object is refused for the object, not for the gate",
      rules: ["doc1.delete-options.force-needs-gate", "doc1.versioning.cap-unsafe-force-delete"],
      needs: ["force-delete"],
    },
    async () => {
      const { path, before } = await readable("gate");
      const res = await forceDelete(path);
      expect(refusedForGate(res), `the gate is on, yet: ${res.text.slice(0, 300)}`).toBe(false);
      expect(res.code, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.code, res.text.slice(0, 300)).toBeLessThan(500);
      expect(res.text).toContain(FORCE);
      const after = await suite.session.client.raw("GET", path);
      expect(after.json, "the readable object is unchanged").toEqual(before.json);
    },
  );

  check(
    {
      title:
        "with the gate on, the force option together with dryRun, gracePeriodSeconds, orphanDependents, preconditions or propagationPolicy is 422 naming that field",
      rules: ["doc1.delete-options.force-excludes-others"],
      needs: ["force-delete"],
    },
    async () => {
      const { path, before } = await readable("others");
      const others: Record<string, unknown> = {
        dryRun: ["All"],
        gracePeriodSeconds: 0,
        orphanDependents: false,
        preconditions: { uid: (before.json as { metadata: { uid: string } }).metadata.uid },
        propagationPolicy: "Background",
      };
      for (const [field, value] of Object.entries(others)) {
        const res = await forceDelete(path, { [field]: value });
        expect(res.code, `${field}: ${res.text.slice(0, 300)}`).toBe(422);
        expect(res.json, field).toMatchObject({ kind: "Status", reason: "Invalid", details: { kind: "DeleteOptions", group: "meta.k8s.io" } });
        expect(causeFields(res), field).toContain(field);
      }
      const after = await suite.session.client.raw("GET", path);
      expect(after.json, "the refused deletes changed nothing").toEqual(before.json);
    },
  );

  check(
    {
      title: "with the gate on, a forced delete of a readable object (read first, as a normal delete does) is aborted with an error and leaves it unchanged",
      rules: ["doc1.deletion.force-readable-aborts", "doc1.deletion.force-normal-first"],
      needs: ["force-delete"],
    },
    async () => {
      const { path, before } = await readable("readable", [HOLD]);
      const res = await forceDelete(path);
      // A real 1.35 server's corrupt-object deleter answers 422 Invalid on the option ("is exclusively
      // meant to delete corrupt objects with unreadable data from the storage…"); any client error aborts.
      expect(res.code, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.code, res.text.slice(0, 300)).toBeLessThan(500);
      expect(res.json).toMatchObject({ kind: "Status", status: "Failure" });
      const after = await suite.session.client.raw("GET", path);
      expect(after.code).toBe(200);
      expect(after.json, "not even marked for deletion").toEqual(before.json);
      await suite.session.client.raw("PATCH", path, { body: { metadata: { finalizers: null } }, contentType: "application/merge-patch+json" });
    },
  );

  check(
    {
      title:
        "with the gate on, a corrupt object (reads fail with 500, a normal delete fails) is removed by a forced delete despite its finalizers; watchers see DELETED",
      rules: ["doc1.deletion.force-corrupt-removes", "doc1.deletion.force-skips-finalizers-preconditions", "doc1.deletion.force-normal-first"],
      needs: ["force-delete", "admin-corrupt"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const { name, path } = await readable("corrupt", [HOLD]);
      const rv = (await session.client.list(t, ns)).metadata.resourceVersion;
      const w = await session.client.watch(t, ns, { resourceVersion: rv, fieldSelector: `metadata.name=${name}` });
      try {
        await markCorrupt(session.client, path);
        const read = await session.client.raw("GET", path);
        expect(read.code, read.text.slice(0, 300)).toBe(500);
        expect(read.json).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError", code: 500 });
        const list = await session.client.raw("GET", resourcePath(t, ns));
        expect(list.code, list.text.slice(0, 300)).toBe(500);
        const normal = await session.client.raw("DELETE", path);
        expect(normal.code, `a normal delete fails on the unreadable object: ${normal.text.slice(0, 300)}`).toBe(500);
        const res = await forceDelete(path);
        expect(res.code, res.text.slice(0, 300)).toBe(200);
        expect(res.json).toMatchObject({ kind: "Status", status: "Success" });
        expect((await session.client.raw("GET", path)).code, "gone at once: the finalizer did not hold it").toBe(404);
        let event = await w.next(10_000);
        while (event && event.type !== "DELETED") event = await w.next(10_000);
        expect(event?.type).toBe("DELETED");
        expect(event?.object.metadata.name).toBe(name);
      } finally {
        w.close();
      }
    },
  );
});

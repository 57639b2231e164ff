/** doc1 "States and transitions" and "Delete options": finalizers, preconditions, namespace cascade. */
import { describe, expect } from "vitest";
import { configMap } from "../fixtures/objects.js";
import type { ApiResponse } from "../lib/harness/client.js";
import type { KubeObject } from "../lib/harness/objects.js";
import { resourcePath } from "../lib/harness/resources.js";
import { check, expectFailure, uniqueName, useSuite } from "./support/conformance.js";

const suite = useSuite("deletion");
const HOLD = "tollgate.dev/hold";
const OTHER = "tollgate.dev/other";

async function waitGone(path: string, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await suite.session.client.raw("GET", path)).code === 404) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

describe("deletion", () => {
  check(
    {
      title:
        "with finalizers a delete only marks the object: deletionTimestamp set by the first delete and kept by a second, still readable and updatable, gone once the last finalizer is removed",
      rules: ["doc1.deletion.two-phases", "doc1.deletion.live-to-terminating", "doc1.fields.deletion-timestamp", "doc1.deletion.last-finalizer-removes"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("fin");
      await session.client.create(t, ns, { ...configMap(session.types, ns, name), metadata: { name, namespace: ns, finalizers: [HOLD] } });
      const before = Date.now();
      const res = await session.client.raw("DELETE", resourcePath(t, ns, name));
      expect(res.code).toBe(200);
      const marked = await session.client.get(t, ns, name);
      const ts = Date.parse(marked.metadata.deletionTimestamp ?? "");
      expect(ts, "deletionTimestamp is about now").toBeGreaterThan(before - 5_000);
      expect(ts).toBeLessThan(Date.now() + 5_000);
      // The timestamp has whole seconds: a second delete more than a second later would show a new one.
      await new Promise((r) => setTimeout(r, 1_100));
      const again = await session.client.raw("DELETE", resourcePath(t, ns, name));
      expect(again.code, again.text.slice(0, 300)).toBe(200);
      const still = await session.client.get(t, ns, name);
      expect(still.metadata.deletionTimestamp, "a second delete keeps the first one's deletionTimestamp").toBe(marked.metadata.deletionTimestamp);
      // Still updatable, and the timestamp stays.
      const relabelled = await session.client.update(t, ns, { ...still, metadata: { ...still.metadata, labels: { still: "here" } } });
      expect(relabelled.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
      await session.client.update(t, ns, { ...relabelled, metadata: { ...relabelled.metadata, finalizers: [] } });
      expect(await waitGone(resourcePath(t, ns, name), 10_000)).toBe(true);
    },
  );

  check(
    {
      title: "finalizers have no order: a live or terminating object takes them reordered, and they can be removed first-listed first",
      rules: ["doc1.fields.finalizers-unordered", "doc1.deletion.finalizers-any-order", "doc1.deletion.last-finalizer-removes"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const name = uniqueName("order");
      const made = await session.client.create(t, ns, { ...configMap(session.types, ns, name), metadata: { name, namespace: ns, finalizers: [HOLD, OTHER] } });
      const live = await session.client.update(t, ns, { ...made, metadata: { ...made.metadata, finalizers: [OTHER, HOLD] } });
      expect(live.metadata.finalizers, "a live object takes its finalizers reordered").toEqual([OTHER, HOLD]);
      await session.client.delete(t, ns, name);
      const marked = await session.client.get(t, ns, name);
      // Reordering adds no finalizer, so a terminating object takes it too.
      const back = await session.client.update(t, ns, { ...marked, metadata: { ...marked.metadata, finalizers: [HOLD, OTHER] } });
      expect(back.metadata.finalizers, "a terminating object takes its finalizers reordered").toEqual([HOLD, OTHER]);
      // Removal in any order: the first-listed one first, then the other.
      const rest = await session.client.update(t, ns, { ...back, metadata: { ...back.metadata, finalizers: [OTHER] } });
      expect(rest.metadata.finalizers).toEqual([OTHER]);
      expect((await session.client.get(t, ns, name)).metadata.finalizers).toEqual([OTHER]);
      await session.client.update(t, ns, { ...rest, metadata: { ...rest.metadata, finalizers: [] } });
      expect(await waitGone(resourcePath(t, ns, name), 10_000)).toBe(true);
    },
  );

  check({ title: "a terminating object accepts no new finalizer", rules: ["doc1.deletion.live-to-terminating"] }, async () => {
    const { session, ns } = suite;
    const t = session.types.configmaps;
    const name = uniqueName("nofin");
    await session.client.create(t, ns, { ...configMap(session.types, ns, name), metadata: { name, namespace: ns, finalizers: [HOLD] } });
    await session.client.delete(t, ns, name);
    const marked = await session.client.get(t, ns, name);
    const err = await expectFailure(session.client.update(t, ns, { ...marked, metadata: { ...marked.metadata, finalizers: [HOLD, OTHER] } }), 422);
    expect(err.status?.message).toMatch(/no new finalizers can be added if the object is being deleted/);
    await session.client.update(t, ns, { ...marked, metadata: { ...marked.metadata, finalizers: [] } });
  });

  check(
    {
      title: "delete options: preconditions that do not match give 409; gracePeriodSeconds and propagationPolicy are accepted",
      rules: ["doc1.delete-options.standard-fields", "doc1.delete-options.force-default-false"],
    },
    async () => {
      const { session, ns } = suite;
      const t = session.types.configmaps;
      const made = await session.client.create(t, ns, configMap(session.types, ns, uniqueName("pre")));
      const name = made.metadata.name as string;
      const del = (options: unknown) =>
        session.client.raw("DELETE", resourcePath(t, ns, name), { body: { kind: "DeleteOptions", apiVersion: "v1", ...(options as object) } });
      // The early check of rest.BeforeDelete names the resource by its kind.
      const conflict = (res: ApiResponse, message: string) => {
        expect(res.code, res.text.slice(0, 300)).toBe(409);
        expect(res.json).toMatchObject({ kind: "Status", reason: "Conflict", code: 409, details: { name, kind: "ConfigMap" } });
        expect((res.json as { message?: string }).message).toBe(`Operation cannot be fulfilled on ConfigMap "${name}": ${message}`);
      };
      const zero = "00000000-0000-0000-0000-000000000000";
      conflict(
        await del({ preconditions: { uid: zero } }),
        `the UID in the precondition (${zero}) does not match the UID in record (${made.metadata.uid}). The object might have been deleted and then recreated`,
      );
      conflict(
        await del({ preconditions: { resourceVersion: "1" } }),
        `the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${made.metadata.resourceVersion}). The object might have been modified`,
      );
      expect((await session.client.raw("GET", resourcePath(t, ns, name))).code, "the failed deletes changed nothing").toBe(200);
      const ok = await del({
        preconditions: { uid: made.metadata.uid, resourceVersion: made.metadata.resourceVersion },
        gracePeriodSeconds: 0,
        propagationPolicy: "Background",
        ignoreStoreReadErrorWithClusterBreakingPotential: false,
      });
      expect(ok.code, ok.text.slice(0, 200)).toBe(200);
      expect(await waitGone(resourcePath(t, ns, name), 10_000)).toBe(true);
    },
  );

  check(
    {
      title: "deleting a namespace makes it Terminating, deletes what is inside, then removes it",
      rules: ["doc1.paths.namespace-delete-cascades", "doc1.deletion.two-phases", "doc3.service.cm-controller-reconciles"],
      timeout: 90_000,
    },
    async () => {
      const { session } = suite;
      const ns = await session.createNamespace("deletion");
      const t = session.types.configmaps;
      await session.client.create(t, ns, configMap(session.types, ns, "inside"));
      const res = await session.client.raw("DELETE", resourcePath(session.types.namespaces, undefined, ns));
      expect(res.code).toBe(200);
      const body = res.json as KubeObject & { status?: { phase?: string } };
      expect(body.metadata.deletionTimestamp).toBeTruthy();
      expect(body.status?.phase).toBe("Terminating");
      const blocked = await session.client.raw("POST", resourcePath(t, ns), { body: configMap(session.types, ns, "late") });
      expect([403, 404], "no new content in a terminating namespace").toContain(blocked.code);
      expect(await waitGone(resourcePath(t, ns, "inside"))).toBe(true);
      expect(await waitGone(resourcePath(session.types.namespaces, undefined, ns))).toBe(true);
    },
  );
});

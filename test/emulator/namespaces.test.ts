/** Namespace deletion: Terminating first, content removed by the controller, then the namespace. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, eventBody, openWatch, uniq, until } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  // A visible Terminating phase: the controller starts 1.5 s after the DELETE (with 300 ms, a
  // machine at load 12 once let the namespace go before the next request checked its refusal).
  emu = await startEmulator({ port: 0, namespaceCleanupDelayMs: 1_500 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

describe("namespaces", () => {
  it("start with the namespaces of a fresh cluster", async () => {
    const r = await call("GET", "/api/v1/namespaces");
    const names = r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(["default", "kube-node-lease", "kube-public", "kube-system"]));
  });

  it("terminate, refuse new content, lose their content and disappear", async () => {
    const ns = uniq("doomed");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    // The root CA publisher's ConfigMap first, so that the watches below start after it.
    await until("kube-root-ca.crt", async () => (await call("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status === 200);
    await call("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("cm"));
    await call("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventBody(ns, "ev"));
    const rv = (await call("GET", "/api/v1/namespaces")).json.metadata.resourceVersion;
    const nsWatch = await openWatch(emu.url, `/api/v1/namespaces?watch=true&fieldSelector=metadata.name=${ns}&resourceVersion=${rv}`);
    const cmWatch = await openWatch(emu.url, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`);

    const deleted = await call("DELETE", `/api/v1/namespaces/${ns}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ kind: "Namespace", metadata: { name: ns }, status: { phase: "Terminating" } });
    expect(deleted.json.metadata.deletionTimestamp).toMatch(/Z$/);

    const refused = await call("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("late"));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      reason: "Forbidden",
      message: `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      details: { name: "late", kind: "configmaps" },
    });
    const again = await call("DELETE", `/api/v1/namespaces/${ns}`);
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(
      `Operation cannot be fulfilled on namespaces "${ns}": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.`,
    );

    await until("namespace gone", async () => (await call("GET", `/api/v1/namespaces/${ns}`)).status === 404);
    expect((await call("GET", `/api/v1/namespaces/${ns}/configmaps/cm`)).status).toBe(404);
    expect((await call("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events/ev`)).status).toBe(404);

    // Terminating, the controller's deletion conditions, finalized, gone.
    const nsEvents = await nsWatch.take(4);
    expect(nsEvents.map((e) => e.type)).toEqual(["MODIFIED", "MODIFIED", "MODIFIED", "DELETED"]);
    expect(nsEvents[0]?.object.status.phase).toBe("Terminating");
    expect(nsEvents[1]?.object.status.conditions).toHaveLength(5);
    expect(nsEvents[2]?.object.spec).toEqual({});
    // The namespace also held the kube-root-ca.crt its controller put there.
    const cmEvents = await cmWatch.take(2);
    expect(cmEvents.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ["DELETED", "cm"],
      ["DELETED", "kube-root-ca.crt"],
    ]);
    nsWatch.close();
    cmWatch.close();
  });

  it("refuse to delete the immortal namespaces", async () => {
    const r = await call("DELETE", "/api/v1/namespaces/default");
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it("404 for a missing namespace and 405 for deletecollection", async () => {
    expect((await call("DELETE", "/api/v1/namespaces/not-there")).json).toMatchObject({ code: 404, message: 'namespaces "not-there" not found' });
    expect((await call("DELETE", "/api/v1/namespaces")).status).toBe(405);
  });

  it("keep status and spec.finalizers on update; changing labels is allowed", async () => {
    const ns = uniq("keep");
    const created = (await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).json;
    const updated = await call("PUT", `/api/v1/namespaces/${ns}`, {
      ...created,
      metadata: { ...created.metadata, labels: { team: "a" } },
      spec: { finalizers: [] },
      status: { phase: "Terminating" },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(updated.json.status).toEqual({ phase: "Active" });
    expect(updated.json.metadata.labels).toEqual({ "kubernetes.io/metadata.name": ns, team: "a" });
  });
});

/**
 * @kubernetes/client-node (1.x, the official JavaScript client) drives the emulator unchanged:
 * the emulator serves HTTPS with --auth, and the client is configured only from the kubeconfig
 * that `tollgate emulator --kubeconfig-out` writes (KubeConfig.loadFromString), so it trusts the
 * generated CA and sends the admin token. Covered: typed CoreV1Api CRUD of a ConfigMap, a
 * strategic merge patch, a JSON patch, server-side apply, an informer (list, then watch) seeing
 * add/update/delete, a watch with bookmarks, and a 404 as the client's ApiException.
 *
 * Pinned at 1.4.0 (a devDependency): 2.x needs undici 8, which does not run on Node 20.
 */
import { randomUUID } from "node:crypto";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorKubeconfig } from "../../lib/cli/emulator.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";

let emu: RunningEmulator;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
const ns = `cn-${randomUUID().slice(0, 8)}`;

/** A promise resolved by the first value `accept` takes, rejected after ms (no fixed sleeps). */
function waiter<T>(ms: number, what: string): { push: (v: T) => void; until: (accept: (v: T) => boolean) => Promise<T> } {
  const seen: T[] = [];
  const pending: { accept: (v: T) => boolean; resolve: (v: T) => void }[] = [];
  return {
    push(v) {
      seen.push(v);
      for (const p of pending.splice(0)) {
        if (p.accept(v)) p.resolve(v);
        else pending.push(p);
      }
    },
    until(accept) {
      const found = seen.find(accept);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${what}: not seen within ${ms} ms; saw ${JSON.stringify(seen).slice(0, 400)}`)), ms);
        pending.push({
          accept,
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
        });
      });
    },
  };
}

describe("@kubernetes/client-node against the emulator (HTTPS, token auth, from the written kubeconfig)", () => {
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, auth: true, tls: "generate" });
    kc = new k8s.KubeConfig();
    kc.loadFromString(emulatorKubeconfig(emu.url, emu.ca, emu.adminToken));
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(async () => {
    await emu?.close();
  });

  it("loads the kubeconfig as written: https server, the CA and the token", () => {
    expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(kc.getCurrentCluster()).toMatchObject({ name: "tollgate", server: emu.url });
    expect(Buffer.from(kc.getCurrentCluster()?.caData ?? "", "base64").toString("utf8")).toBe(emu.ca);
    expect(kc.getCurrentUser()).toMatchObject({ name: "tollgate-admin", token: emu.adminToken });
  });

  it("typed CRUD of a ConfigMap, then a strategic merge patch, a JSON patch and server-side apply", async () => {
    const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "crud", labels: { a: "1" } }, data: { k: "v" } } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.data).toEqual({ k: "v" });

    const read = await core.readNamespacedConfigMap({ name: "crud", namespace: ns });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    read.data = { k: "v2", extra: "x" };
    const replaced = await core.replaceNamespacedConfigMap({ name: "crud", namespace: ns, body: read });
    expect(replaced.data).toEqual({ extra: "x", k: "v2" });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));

    const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: "a=1" });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["crud"]);
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);

    const smp = await core.patchNamespacedConfigMap(
      { name: "crud", namespace: ns, body: { metadata: { labels: { b: "2" } }, data: { extra: null } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(smp.metadata?.labels).toEqual({ a: "1", b: "2" });
    expect(smp.data).toEqual({ k: "v2" });

    // JSON patch is the client's default patch Content-Type.
    const jsonPatch = await core.patchNamespacedConfigMap({
      name: "crud",
      namespace: ns,
      body: [
        { op: "test", path: "/data/k", value: "v2" },
        { op: "add", path: "/data/j", value: "from-json-patch" },
      ],
    });
    expect(jsonPatch.data).toEqual({ j: "from-json-patch", k: "v2" });

    const applied = await core.patchNamespacedConfigMap(
      {
        name: "ssa",
        namespace: ns,
        fieldManager: "client-node-test",
        force: true,
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data: { s: "1" } },
      },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply),
    );
    expect(applied.data).toEqual({ s: "1" });
    const entry = applied.metadata?.managedFields?.find((m) => m.manager === "client-node-test");
    expect(entry).toMatchObject({ operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1" });
    expect(entry?.fieldsV1).toEqual({ "f:data": { "f:s": {} } });

    const status = await core.deleteNamespacedConfigMap({ name: "crud", namespace: ns });
    expect(status).toMatchObject({ kind: "Status", status: "Success", details: { name: "crud", kind: "configmaps" } });
    const missing = await core.readNamespacedConfigMap({ name: "crud", namespace: ns }).then(
      () => undefined,
      (e: unknown) => e as k8s.ApiException<string>,
    );
    expect(missing).toBeInstanceOf(k8s.ApiException);
    expect(missing?.code).toBe(404);
    expect(JSON.parse(missing?.body ?? "")).toMatchObject({ kind: "Status", reason: "NotFound", message: 'configmaps "crud" not found', code: 404 });
  });

  it("an informer lists, then watches: it sees add, update and delete of ConfigMaps in the namespace", async () => {
    const informerNs = `${ns}-inf`;
    await core.createNamespace({ body: { metadata: { name: informerNs } } });
    await core.createNamespacedConfigMap({ namespace: informerNs, body: { metadata: { name: "before" }, data: { n: "0" } } });
    const events = waiter<{ verb: string; name: string | undefined; data: unknown }>(10_000, "informer event");
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${informerNs}/configmaps`, () => core.listNamespacedConfigMap({ namespace: informerNs }));
    for (const verb of ["add", "update", "delete"] as const) {
      informer.on(verb, (o: k8s.V1ConfigMap) => events.push({ verb, name: o.metadata?.name, data: o.data }));
    }
    const errors: unknown[] = [];
    informer.on("error", (e: unknown) => errors.push(e));
    await informer.start();
    try {
      // The listed object arrives as an add; the cache has it (and the namespace's kube-root-ca.crt).
      await events.until((e) => e.verb === "add" && e.name === "before");
      expect(informer.get("before", informerNs)?.data).toEqual({ n: "0" });
      await core.createNamespacedConfigMap({ namespace: informerNs, body: { metadata: { name: "live" }, data: { n: "1" } } });
      expect(await events.until((e) => e.verb === "add" && e.name === "live")).toEqual({ verb: "add", name: "live", data: { n: "1" } });
      await core.patchNamespacedConfigMap(
        { name: "live", namespace: informerNs, body: { data: { n: "2" } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      );
      expect(await events.until((e) => e.verb === "update" && e.name === "live")).toEqual({ verb: "update", name: "live", data: { n: "2" } });
      await core.deleteNamespacedConfigMap({ name: "live", namespace: informerNs });
      expect(await events.until((e) => e.verb === "delete" && e.name === "live")).toMatchObject({ verb: "delete", name: "live" });
      expect(informer.get("live", informerNs)).toBeUndefined();
      expect(informer.list(informerNs).map((o) => o.metadata?.name)).toContain("before");
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it("a watch with allowWatchBookmarks gets the initial ADDED events and the initial-events-end BOOKMARK, then live events", async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "w1" }, data: { w: "1" } } });
    const events = waiter<{ phase: string; obj: k8s.V1ConfigMap }>(10_000, "watch event");
    const ended = waiter<unknown>(10_000, "watch end");
    const watch = new k8s.Watch(kc);
    const controller = await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", resourceVersion: "" },
      (phase: string, obj: k8s.V1ConfigMap) => events.push({ phase, obj }),
      (err: unknown) => ended.push(err ?? "done"),
    );
    try {
      await events.until((e) => e.phase === "ADDED" && e.obj.metadata?.name === "w1");
      const bookmark = await events.until((e) => e.phase === "BOOKMARK");
      expect(bookmark.obj).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { annotations: { "k8s.io/initial-events-end": "true" } } });
      expect(bookmark.obj.metadata?.resourceVersion).toMatch(/^\d+$/);
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "w2" }, data: { w: "2" } } });
      const live = await events.until((e) => e.phase === "ADDED" && e.obj.metadata?.name === "w2");
      expect(Number(live.obj.metadata?.resourceVersion)).toBeGreaterThan(Number(bookmark.obj.metadata?.resourceVersion));
      expect(live.obj.data).toEqual({ w: "2" });
    } finally {
      controller.abort();
    }
  });

  it("a JavaScript Date in a MicroTime field (Lease renewTime) is refused with 400, as a real 1.35 server does", async () => {
    // client-node writes Date as toISOString() (milliseconds); MicroTime parsing takes exactly six
    // digits (upstream kubernetes/kubernetes#141204 is still open), so clients must not send Dates there.
    const err = await kc
      .makeApiClient(k8s.CoordinationV1Api)
      .createNamespacedLease({
        namespace: ns,
        body: { metadata: { name: "l" }, spec: { holderIdentity: "me", renewTime: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) } },
      })
      .then(
        () => undefined,
        (e: unknown) => e as k8s.ApiException<string>,
      );
    expect(err).toBeInstanceOf(k8s.ApiException);
    expect(err?.code).toBe(400);
    expect(JSON.parse(err?.body ?? "")).toMatchObject({
      reason: "BadRequest",
      message:
        'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-02T03:04:05.678Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".678Z" as ".000000"',
    });
  });

  it("a kubeconfig without the token is anonymous over the same TLS: 403 from RBAC, as a real server with anonymous auth on", async () => {
    const anonymous = new k8s.KubeConfig();
    anonymous.loadFromString(emulatorKubeconfig(emu.url, emu.ca, undefined));
    const err = await anonymous
      .makeApiClient(k8s.CoreV1Api)
      .listNamespacedConfigMap({ namespace: ns })
      .then(
        () => undefined,
        (e: unknown) => e as k8s.ApiException<string>,
      );
    expect(err).toBeInstanceOf(k8s.ApiException);
    expect(err?.code).toBe(403);
    expect(JSON.parse(err?.body ?? "")).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      code: 403,
      message: `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    });
  });
});

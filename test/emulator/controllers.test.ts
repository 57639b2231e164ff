/**
 * The controllers a real cluster runs, emulated: namespace deletion in the background (wire-facts
 * §20: Terminating, conditions, content gone, then the namespace), and the `default`
 * ServiceAccount and `kube-root-ca.crt` ConfigMap in every namespace.
 */
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEmulatorCommand } from "../../lib/cli/emulator.js";
import { UsageError } from "../../lib/cli/usage.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, openWatch, sleep, uniq, until } from "./support.js";

const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

let emu: RunningEmulator;
let authed: RunningEmulator;
let call: ReturnType<typeof client>;
let authedCall: ReturnType<typeof client>;

beforeAll(async () => {
  // The default delays: deletion visible for a second.
  emu = await startEmulator({ port: 0, namespaceContent: true });
  call = client(emu.url);
  authed = await startEmulator({
    port: 0,
    auth: true,
    adminToken: "ctrl-admin",
    namespaceContent: true,
    namespaceCleanupDelayMs: 0,
    namespaceContentDelayMs: 0,
  });
  const base = client(authed.url);
  authedCall = (method, path, body, options = {}) =>
    base(method, path, body, { ...options, headers: { authorization: "Bearer ctrl-admin", ...options.headers } });
});
afterAll(async () => {
  await emu.close();
  await authed.close();
});

describe("namespace deletion", () => {
  it("is observable as Terminating by GET and watch, answers writes 403, then the content goes and the namespace after it", async () => {
    const ns = uniq("ctrl-doomed");
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
    expect((await call("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("mine"))).status).toBe(201);
    const rv = (await call("GET", `/api/v1/namespaces/${ns}`)).json.metadata.resourceVersion;
    const watch = await openWatch(emu.url, `/api/v1/namespaces?watch=true&fieldSelector=metadata.name=${ns}&resourceVersion=${rv}`);

    const deleted = await call("DELETE", `/api/v1/namespaces/${ns}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.status).toEqual({ phase: "Terminating" });
    expect(deleted.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(deleted.json.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // The default delay leaves time for kubectl's next DELETE of the manifest's content.
    const got = await call("GET", `/api/v1/namespaces/${ns}`);
    expect(got.json).toMatchObject({ status: { phase: "Terminating" }, spec: { finalizers: ["kubernetes"] } });
    expect((await call("GET", `/api/v1/namespaces/${ns}/configmaps/mine`)).status).toBe(200);
    const refused = await call("POST", `/api/v1/namespaces/${ns}/configmaps`, configMapBody("late"));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(`configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`);
    expect(refused.json.details.causes).toEqual([
      { reason: "NamespaceTerminating", message: `namespace ${ns} is being terminated`, field: "metadata.namespace" },
    ]);

    const events = await watch.take(4, 5_000);
    watch.close();
    expect(events.map((e) => e.type)).toEqual(["MODIFIED", "MODIFIED", "MODIFIED", "DELETED"]);
    expect(events[0]?.object.status.phase).toBe("Terminating");
    // The controller's pass: five conditions, all False once the content is gone (status_condition_utils.go).
    const conditions = events[1]?.object.status.conditions;
    expect(conditions.map((c: Record<string, string>) => [c["type"], c["status"], c["reason"], c["message"]])).toEqual([
      ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"],
      ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
      ["NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
      ["NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"],
      ["NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
    ]);
    for (const c of conditions) expect(c.lastTransitionTime).toMatch(/Z$/);
    expect(events[2]?.object.spec).toEqual({});
    expect((await call("GET", `/api/v1/namespaces/${ns}/configmaps/mine`)).status).toBe(404);
    expect((await call("GET", `/api/v1/namespaces/${ns}`)).status).toBe(404);
  });

  it("reports the content a finalizer holds in its conditions, and goes once the finalizer does", async () => {
    const ns = uniq("ctrl-held");
    await authedCall("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await authedCall("POST", `/api/v1/namespaces/${ns}/configmaps`, { ...configMapBody("held"), metadata: { name: "held", finalizers: ["example.com/hold"] } });
    await authedCall("DELETE", `/api/v1/namespaces/${ns}`);
    const conditions = await until("NamespaceContentRemaining True", async () => {
      const c = (await authedCall("GET", `/api/v1/namespaces/${ns}`)).json.status.conditions as Record<string, string>[] | undefined;
      return c?.find((x) => x["type"] === "NamespaceContentRemaining")?.["status"] === "True" ? c : undefined;
    });
    expect(conditions.find((c) => c["type"] === "NamespaceContentRemaining")).toMatchObject({
      reason: "SomeResourcesRemain",
      message: "Some resources are remaining: configmaps. has 1 resource instances",
    });
    expect(conditions.find((c) => c["type"] === "NamespaceFinalizersRemaining")).toMatchObject({
      status: "True",
      reason: "SomeFinalizersRemain",
      message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    });
    await authedCall(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/held`,
      { metadata: { finalizers: null } },
      {
        headers: { "content-type": "application/merge-patch+json" },
      },
    );
    await until("namespace gone", async () => (await authedCall("GET", `/api/v1/namespaces/${ns}`)).status === 404);
  });
});

describe("namespace content", () => {
  it("kube-root-ca.crt and the default ServiceAccount are in every namespace of a fresh cluster", async () => {
    for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      const cm = await until("kube-root-ca.crt in each system namespace", async () => {
        const r = await authedCall("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
        return r.status === 200 ? r.json : undefined;
      });
      expect(cm.metadata.annotations).toEqual({ "kubernetes.io/description": DESCRIPTION });
      expect(Object.keys(cm.data)).toEqual(["ca.crt"]);
      // A parseable CA certificate.
      expect(new X509Certificate(cm.data["ca.crt"]).ca).toBe(true);
      expect(cm.metadata.managedFields[0].manager).toBe("kube-controller-manager");
      const sa = await authedCall("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      expect(sa.status).toBe(200);
      expect(sa.json.metadata).toMatchObject({ name: "default", namespace: ns });
      expect(sa.json.secrets).toBeUndefined();
    }
  });

  it("appear a moment after a new namespace, and come back when deleted or changed", async () => {
    const ns = uniq("ctrl-new");
    await authedCall("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await until("default ServiceAccount", async () => (await authedCall("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
    const first = await until("kube-root-ca.crt", async () => {
      const r = await authedCall("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
      return r.status === 200 ? r.json : undefined;
    });
    const listed = (await authedCall("GET", `/api/v1/namespaces/${ns}/configmaps`)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    expect(listed).toEqual(["kube-root-ca.crt"]);

    expect((await authedCall("DELETE", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status).toBe(200);
    const sa = await until("default ServiceAccount recreated", async () => {
      const r = await authedCall("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      return r.status === 200 ? r.json : undefined;
    });
    expect(sa.metadata.name).toBe("default");

    expect((await authedCall("DELETE", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status).toBe(200);
    const again = await until("kube-root-ca.crt recreated", async () => {
      const r = await authedCall("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
      return r.status === 200 ? r.json : undefined;
    });
    expect(again.metadata.uid).not.toBe(first.metadata.uid);
    expect(again.data).toEqual(first.data);

    // The publisher repairs the data; an added label stays.
    await authedCall(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`,
      { metadata: { labels: { mine: "yes" } }, data: { "ca.crt": "tampered" } },
      {
        headers: { "content-type": "application/merge-patch+json" },
      },
    );
    const repaired = await until("kube-root-ca.crt repaired", async () => {
      const r = (await authedCall("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).json;
      return r.data["ca.crt"] === first.data["ca.crt"] ? r : undefined;
    });
    expect(repaired.metadata.labels).toEqual({ mine: "yes" });
  });

  it("are not made with namespaceContent false", async () => {
    const bare = await startEmulator({ port: 0, namespaceContent: false });
    try {
      const c = client(bare.url);
      await sleep(100);
      expect((await c("GET", "/api/v1/namespaces/default/configmaps")).json.items).toEqual([]);
    } finally {
      await bare.close();
    }
  });

  it("without auth too: kube-root-ca.crt and the default ServiceAccount come", async () => {
    const ns = uniq("ctrl-noauth");
    await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
    await until("kube-root-ca.crt", async () => (await call("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status === 200);
    await until("default ServiceAccount", async () => (await call("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  });
});

describe("tollgate emulator flags", () => {
  it("set the controllers' delays in seconds, 0 allowed, and switch the namespace content off", () => {
    const { api } = parseEmulatorCommand(["--namespace-deletion-delay", "0", "--namespace-content-delay", "0.25"]);
    expect(api).toMatchObject({ namespaceCleanupDelayMs: 0, namespaceContentDelayMs: 250 });
    expect(parseEmulatorCommand(["--namespace-deletion-delay", "2"]).api.namespaceCleanupDelayMs).toBe(2000);
    expect(parseEmulatorCommand([]).api).not.toHaveProperty("namespaceContent");
    expect(() => parseEmulatorCommand(["--namespace-deletion-delay", "-1"])).toThrow(UsageError);
    expect(parseEmulatorCommand(["--no-namespace-content"]).api.namespaceContent).toBe(false);
    expect(() => parseEmulatorCommand(["--no-namespace-content", "--namespace-content-delay", "1"])).toThrow(UsageError);
  });
});

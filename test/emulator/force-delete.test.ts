/**
 * The unsafe force delete (DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential, gate
 * AllowUnsafeMalformedObjectDeletion) and the admin endpoint's corrupt marking it needs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, openWatch, type Reply, uniq } from "./support.js";

const FORCE = "ignoreStoreReadErrorWithClusterBreakingPotential";
const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const fields = (r: Reply): string[] => (r.json.details?.causes ?? []).map((c: { field: string }) => c.field);

const started: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

async function setup(options: EmulatorOptions = {}): Promise<{ url: string; call: ReturnType<typeof client>; ns: string }> {
  // No kube-root-ca.crt arriving among the events these watches count.
  const emu = await startEmulator({ port: 0, admin: true, namespaceContent: false, ...options });
  started.push(emu);
  const call = client(emu.url);
  const ns = uniq("force");
  expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  return { url: emu.url, call, ns };
}

const gateOn: EmulatorOptions = { featureGates: { AllowUnsafeMalformedObjectDeletion: true } };

describe("the corrupt mark (admin)", () => {
  it("is advertised, makes GET and LIST answer 500 InternalError and a normal delete fail; a rewrite ends it", async () => {
    const { call, ns } = await setup();
    expect((await call("GET", "/tollgate/admin")).json).toEqual({ compact: true, clock: true, corrupt: true });
    expect((await call("POST", cms(ns), configMapBody("a", { k: "v" }))).status).toBe(201);
    const path = `${cms(ns)}/a`;
    const mark = await call("POST", "/tollgate/admin/corrupt", { path });
    expect(mark.status, mark.text).toBe(200);
    expect(mark.json.path).toBe(path);
    const get = await call("GET", path);
    expect(get.status).toBe(500);
    expect(get.json).toMatchObject({ kind: "Status", status: "Failure", reason: "InternalError", code: 500 });
    expect(get.json.message).toContain(`/registry/configmaps/${ns}/a`);
    expect((await call("GET", cms(ns))).status).toBe(500);
    expect((await call("GET", "/api/v1/configmaps")).status).toBe(500);
    expect((await call("DELETE", path)).status).toBe(500);
    expect((await call("PUT", path, configMapBody("a", { k: "w" }))).status).toBe(500);
  });

  it("refuses bad bodies (400), unknown objects (404) and namespaces (400)", async () => {
    const { call, ns } = await setup();
    expect((await call("POST", "/tollgate/admin/corrupt", {})).status).toBe(400);
    expect((await call("POST", "/tollgate/admin/corrupt", { path: cms(ns) })).status).toBe(400);
    expect((await call("POST", "/tollgate/admin/corrupt", { path: `${cms(ns)}/a`, extra: 1 })).status).toBe(400);
    expect((await call("POST", "/tollgate/admin/corrupt", { path: `/api/v1/namespaces/${ns}` })).status).toBe(400);
    const missing = await call("POST", "/tollgate/admin/corrupt", { path: `${cms(ns)}/nope` });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ reason: "NotFound" });
  });

  it("is not served without admin", async () => {
    const emu = await startEmulator({ port: 0 });
    started.push(emu);
    expect((await client(emu.url)("POST", "/tollgate/admin/corrupt", { path: "/api/v1/namespaces/default/configmaps/x" })).status).toBe(404);
  });
});

describe("the force option with the gate off (the 1.35 default)", () => {
  it("is 422 Invalid on DeleteOptions, Forbidden on the option, naming the gate; false is accepted", async () => {
    const { call, ns } = await setup();
    expect((await call("POST", cms(ns), configMapBody("a"))).status).toBe(201);
    const r = await call("DELETE", `${cms(ns)}/a`, { [FORCE]: true });
    expect(r.status, r.text).toBe(422);
    expect(r.json).toMatchObject({ reason: "Invalid", details: { kind: "DeleteOptions", group: "meta.k8s.io" } });
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueForbidden", message: "Forbidden: only allowed when the AllowUnsafeMalformedObjectDeletion feature gate is enabled", field: FORCE },
    ]);
    expect((await call("GET", `${cms(ns)}/a`)).status).toBe(200);
    expect((await call("DELETE", `${cms(ns)}/a`, { [FORCE]: false })).status).toBe(200);
  });
});

describe("the force option with the gate on", () => {
  it("refuses each of dryRun, gracePeriodSeconds, orphanDependents, preconditions, propagationPolicy alongside it", async () => {
    const { call, ns } = await setup(gateOn);
    expect((await call("POST", cms(ns), configMapBody("a"))).status).toBe(201);
    const all = await call("DELETE", `${cms(ns)}/a`, {
      [FORCE]: true,
      dryRun: ["All"],
      gracePeriodSeconds: 0,
      preconditions: { uid: "x" },
      propagationPolicy: "Background",
    });
    expect(all.status).toBe(422);
    expect(fields(all)).toEqual(["dryRun", "gracePeriodSeconds", "preconditions", "propagationPolicy"]);
    const orphan = await call("DELETE", `${cms(ns)}/a?orphanDependents=true`, { [FORCE]: true });
    expect(orphan.status).toBe(422);
    expect(fields(orphan)).toEqual(["orphanDependents"]);
    expect(orphan.json.message).toContain(
      "orphanDependents: Invalid value: true: can not be set together with ignoreStoreReadErrorWithClusterBreakingPotential",
    );
    expect((await call("GET", `${cms(ns)}/a`)).status).toBe(200);
  });

  it("aborts on a readable object with 422 on the option and changes nothing", async () => {
    const { call, ns } = await setup(gateOn);
    expect((await call("POST", cms(ns), { ...configMapBody("a"), metadata: { name: "a", finalizers: ["x.dev/hold"] } })).status).toBe(201);
    const before = await call("GET", `${cms(ns)}/a`);
    const r = await call("DELETE", `${cms(ns)}/a`, { [FORCE]: true });
    expect(r.status, r.text).toBe(422);
    expect(r.json).toMatchObject({ reason: "Invalid", details: { name: "a", kind: "configmaps", causes: [{ field: FORCE }] } });
    expect(r.json.message).toContain("is exclusively meant to delete corrupt objects with unreadable data from the storage, but this object has readable data");
    expect((await call("GET", `${cms(ns)}/a`)).json).toEqual(before.json);
    expect((await call("DELETE", `${cms(ns)}/nope`, { [FORCE]: true })).status).toBe(404);
  });

  it("removes a corrupt object despite finalizers: 200 Success, then 404, watchers see DELETED; the name is free again", async () => {
    const { url, call, ns } = await setup(gateOn);
    const made = await call("POST", cms(ns), { ...configMapBody("a"), metadata: { name: "a", finalizers: ["x.dev/hold"] } });
    expect(made.status).toBe(201);
    const w = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=${made.json.metadata.resourceVersion}`);
    try {
      expect((await call("POST", "/tollgate/admin/corrupt", { path: `${cms(ns)}/a` })).status).toBe(200);
      const r = await call("DELETE", `${cms(ns)}/a`, { [FORCE]: true });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "a", kind: "configmaps" } });
      expect((await call("GET", `${cms(ns)}/a`)).status).toBe(404);
      expect((await call("GET", cms(ns))).status).toBe(200);
      const e = await w.next(5_000);
      expect(e?.type).toBe("DELETED");
      expect(e?.object.metadata.name).toBe("a");
    } finally {
      w.close();
    }
    expect((await call("POST", cms(ns), configMapBody("a"))).status).toBe(201);
    expect((await call("GET", `${cms(ns)}/a`)).status).toBe(200);
  });
});

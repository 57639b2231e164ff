/**
 * An object over etcd's request limit only with its managedFields: create, update and non-apply
 * patch retry once without them, server-side apply does not (wire-facts §11, object vs etcd).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const TOO_LARGE = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 };

/** A ConfigMap whose managedFields (naming each of 6000 labels) take it past 1.5 MiB. */
function fitsOnlyWithoutOwnership(name: string): Record<string, unknown> {
  const labels: Record<string, string> = {};
  for (let i = 0; i < 6000; i++) labels[`l${String(i).padStart(5, "0")}-${"a".repeat(50)}`] = "";
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { big: "x".repeat(1000 * 1000) } };
}

describe("server-side apply of an object too large with its managedFields", () => {
  it("is refused with etcd's 500 when it creates, where a create stores it without them", async () => {
    const body = JSON.stringify(fitsOnlyWithoutOwnership("applied-big"));
    const r = await call("PATCH", `${CONFIGMAPS}/applied-big?fieldManager=size`, undefined, { raw: body, headers: APPLY });
    expect(r.status).toBe(500);
    expect(r.json).toEqual(TOO_LARGE);
    expect((await call("GET", `${CONFIGMAPS}/applied-big`)).status).toBe(404);
    const created = await call("POST", CONFIGMAPS, fitsOnlyWithoutOwnership("created-big"));
    expect(created.status).toBe(201);
    expect(created.json.metadata.managedFields).toBeUndefined();
  });

  it("is refused with etcd's 500 when it updates, the object unchanged", async () => {
    const small = await call("POST", CONFIGMAPS, { metadata: { name: "grows-by-apply" }, data: { a: "b" } });
    expect(small.status).toBe(201);
    const body = JSON.stringify(fitsOnlyWithoutOwnership("grows-by-apply"));
    const r = await call("PATCH", `${CONFIGMAPS}/grows-by-apply?fieldManager=size&force=true`, undefined, { raw: body, headers: APPLY });
    expect(r.status).toBe(500);
    expect(r.json).toEqual(TOO_LARGE);
    const after = await call("GET", `${CONFIGMAPS}/grows-by-apply`);
    expect(after.json.data).toEqual({ a: "b" });
    expect(after.json.metadata.resourceVersion).toBe(small.json.metadata.resourceVersion);
  });
});

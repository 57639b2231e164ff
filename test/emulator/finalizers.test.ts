/**
 * ObjectMeta update rule: no new finalizers on an object that is being deleted
 * (ValidateNoNewFinalizers), for every type; removing finalizers stays allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateNoNewFinalizers } from "../../lib/emulator/apimachinery/object-meta.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, uniq } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
const NS = "default";
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const CORE_EV = `/api/v1/namespaces/${NS}/events`;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
});
afterAll(async () => {
  await emu.close();
});

/** Creates the object with finalizers, deletes it, and returns it as marked. */
async function terminating(path: string, body: Record<string, any>): Promise<Record<string, any>> {
  expect((await call("POST", path, body)).status).toBe(201);
  expect((await call("DELETE", `${path}/${body.metadata.name}`)).status).toBe(200);
  const marked = (await call("GET", `${path}/${body.metadata.name}`)).json;
  expect(marked.metadata.deletionTimestamp).toBeTruthy();
  return marked;
}

describe("a terminating object", () => {
  it("refuses a new finalizer with the real text, and the object stays as it was", async () => {
    const name = uniq("fin");
    const marked = await terminating(CM, { metadata: { name, finalizers: ["tollgate.dev/a"] }, data: { k: "v" } });
    const r = await call("PUT", `${CM}/${name}`, { ...marked, metadata: { ...marked.metadata, finalizers: ["tollgate.dev/a", "tollgate.dev/b"] } });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      message: `ConfigMap "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"tollgate.dev/b"}`,
      details: {
        name,
        kind: "ConfigMap",
        causes: [
          {
            reason: "FieldValueForbidden",
            message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"tollgate.dev/b"}',
            field: "metadata.finalizers",
          },
        ],
      },
    });
    expect((await call("GET", `${CM}/${name}`)).json.metadata.finalizers).toEqual(["tollgate.dev/a"]);
  });

  it("lists several new ones sorted, and counts a replaced one as new", async () => {
    const name = uniq("fin");
    const marked = await terminating(CM, { metadata: { name, finalizers: ["tollgate.dev/a"] } });
    const r = await call("PUT", `${CM}/${name}`, { ...marked, metadata: { ...marked.metadata, finalizers: ["tollgate.dev/z", "tollgate.dev/c"] } });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('found new finalizers []string{"tollgate.dev/c", "tollgate.dev/z"}');
  });

  it("still takes other changes and finalizer removals; the last removal deletes it", async () => {
    const name = uniq("fin");
    const marked = await terminating(CM, { metadata: { name, finalizers: ["tollgate.dev/a", "tollgate.dev/b"] } });
    const relabelled = await call("PUT", `${CM}/${name}`, { ...marked, metadata: { ...marked.metadata, labels: { x: "y" }, finalizers: ["tollgate.dev/b"] } });
    expect(relabelled.status, relabelled.text).toBe(200);
    const done = await call("PUT", `${CM}/${name}`, { ...relabelled.json, metadata: { ...relabelled.json.metadata, finalizers: [] } });
    expect(done.status).toBe(200);
    expect((await call("GET", `${CM}/${name}`)).status).toBe(404);
  });

  it("applies to core v1 events too (a generic ObjectMeta rule)", async () => {
    const name = uniq("evfin");
    const marked = await terminating(CORE_EV, {
      metadata: { name, finalizers: ["tollgate.dev/a"] },
      involvedObject: { kind: "Pod", namespace: NS, name: "p" },
      reason: "R",
    });
    const r = await call("PUT", `${CORE_EV}/${name}`, { ...marked, metadata: { ...marked.metadata, finalizers: ["tollgate.dev/a", "tollgate.dev/b"] } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `Event "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"tollgate.dev/b"}`,
    );
    expect((await call("PUT", `${CORE_EV}/${name}`, { ...marked, metadata: { ...marked.metadata, finalizers: [] } })).status).toBe(200);
  });
});

describe("a live object", () => {
  it("may gain finalizers", async () => {
    const name = uniq("live");
    const made = await call("POST", CM, { metadata: { name } });
    const r = await call("PUT", `${CM}/${name}`, { ...made.json, metadata: { ...made.json.metadata, finalizers: ["tollgate.dev/a"] } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(["tollgate.dev/a"]);
    expect((await call("PUT", `${CM}/${name}`, { ...r.json, metadata: { ...r.json.metadata, finalizers: [] } })).status).toBe(200);
  });

  it("validateNoNewFinalizers: nothing unless the old object is terminating; repeats listed once", () => {
    const meta = (finalizers: string[], deletionTimestamp?: string) => ({
      metadata: { name: "x", finalizers, ...(deletionTimestamp ? { deletionTimestamp } : {}) },
    });
    expect(validateNoNewFinalizers(meta(["a/b"]), meta([]))).toEqual([]);
    expect(validateNoNewFinalizers(meta(["a/b", "a/b"]), meta([], "2024-01-01T00:00:00Z"))[0]?.detail).toBe(
      'no new finalizers can be added if the object is being deleted, found new finalizers []string{"a/b"}',
    );
  });
});

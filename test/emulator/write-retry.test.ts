/**
 * A write whose object changes between its read and its conditional store write (here while its
 * validating webhook is held) is run again from the new state, as a real server's
 * GuaranteedUpdate and conditional delete retry: a patch is re-applied to the new object, an
 * update without a resourceVersion replaces it, a delete deletes it, and an update with a
 * resourceVersion that no longer matches is the usual 409. The webhook holds the first review of the slow write until the test has made the
 * other write, so the interleaving is forced, not timed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daemonTls } from "../../fixtures/daemons/tls.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client, configMapBody, uniq } from "./support.js";

const CM = "/api/v1/namespaces/default/configmaps";
const VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let hook: Server;
/** Every review's operation and object data (the old object's for a DELETE), in arrival order. */
const reviewed: Array<{ operation: string; data: Record<string, string> }> = [];
/** Set by a test: the review to hold (by operation and data), and where the held review is handed over. */
let hold: { match: (operation: string, data: Record<string, string>) => boolean; held: (release: () => void) => void } | undefined;

function answer(res: ServerResponse, uid: string): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, allowed: true } }));
}

beforeAll(async () => {
  const tls = daemonTls();
  hook = createServer({ cert: tls.cert, key: tls.key }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const { operation } = review.request;
      const data = (review.request.object ?? review.request.oldObject)?.data ?? {};
      reviewed.push({ operation, data });
      const h = hold;
      if (h?.match(operation, data)) {
        hold = undefined;
        h.held(() => answer(res, review.request.uid));
      } else answer(res, review.request.uid);
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  const webhook = {
    name: "hold.tollgate.dev",
    clientConfig: { url: `https://127.0.0.1:${(hook.address() as AddressInfo).port}/`, caBundle: Buffer.from(tls.cert).toString("base64") },
    rules: [{ operations: ["UPDATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    objectSelector: { matchLabels: { race: "yes" } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  };
  const registered = await call("POST", VWC, { metadata: { name: uniq("hold") }, webhooks: [webhook] });
  expect(registered.status, registered.text).toBe(201);
});
afterAll(async () => {
  await emu.close();
  hook.closeAllConnections();
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

const MERGE = { headers: { "content-type": "application/merge-patch+json" } };

/**
 * Starts `slow` with its first review held, makes `other` meanwhile, then lets `slow` go on;
 * resolves with both answers and the reviews `slow` caused.
 */
async function race(
  name: string,
  slow: () => Promise<{ status: number; json: any; text: string }>,
  slowData: string,
  other: () => Promise<unknown>,
  slowOperation = "UPDATE",
) {
  reviewed.length = 0;
  const isSlow = (operation: string, data: Record<string, string>): boolean => operation === slowOperation && data["a"] === slowData;
  const released = new Promise<() => void>((resolve) => {
    hold = { match: isSlow, held: resolve };
  });
  const slowReply = slow();
  const release = await released;
  const otherReply = await other();
  release();
  const slowDone = await slowReply;
  const stored = await call("GET", `${CM}/${name}`);
  return {
    slow: slowDone,
    other: otherReply as { status: number; json: any },
    stored,
    slowReviews: reviewed.filter((r) => isSlow(r.operation, r.data)).length,
  };
}

describe("a write whose object changed while it was admitted", () => {
  it("patch: is applied again to the new object, so neither change is lost", async () => {
    const name = uniq("race-patch");
    expect((await call("POST", CM, configMapBody(name, { x: "0" }, { race: "yes" }))).status).toBe(201);
    const r = await race(
      name,
      () => call("PATCH", `${CM}/${name}`, { data: { a: "1" } }, MERGE),
      "1",
      () => call("PATCH", `${CM}/${name}`, { data: { b: "2" } }, MERGE),
    );
    expect(r.other.status).toBe(200);
    expect(r.slow.status, r.slow.text).toBe(200);
    expect(r.slow.json.data).toEqual({ a: "1", b: "2", x: "0" });
    expect(Number(r.slow.json.metadata.resourceVersion)).toBeGreaterThan(Number(r.other.json.metadata.resourceVersion));
    expect(r.stored.json.data).toEqual({ a: "1", b: "2", x: "0" });
    // Admitted once per attempt: the first against the old object, the second against the new one.
    expect(r.slowReviews).toBe(2);
  });

  it("update without a resourceVersion: replaces the object as it now stands", async () => {
    const name = uniq("race-put");
    expect((await call("POST", CM, configMapBody(name, { x: "0" }, { race: "yes" }))).status).toBe(201);
    const r = await race(
      name,
      () => call("PUT", `${CM}/${name}`, configMapBody(name, { a: "2" }, { race: "yes" })),
      "2",
      () => call("PATCH", `${CM}/${name}`, { data: { b: "2" } }, MERGE),
    );
    expect(r.slow.status, r.slow.text).toBe(200);
    expect(r.slow.json.data).toEqual({ a: "2" });
    expect(Number(r.slow.json.metadata.resourceVersion)).toBeGreaterThan(Number(r.other.json.metadata.resourceVersion));
    expect(r.stored.json.data).toEqual({ a: "2" });
    expect(r.slowReviews).toBe(2);
  });

  it("update with the resourceVersion it read: 409 with the optimistic-lock text, the other write kept", async () => {
    const name = uniq("race-rv");
    const created = await call("POST", CM, configMapBody(name, { x: "0" }, { race: "yes" }));
    const body = configMapBody(name, { a: "3" }, { race: "yes" });
    (body["metadata"] as Record<string, unknown>)["resourceVersion"] = created.json.metadata.resourceVersion;
    const r = await race(
      name,
      () => call("PUT", `${CM}/${name}`, body),
      "3",
      () => call("PATCH", `${CM}/${name}`, { data: { b: "2" } }, MERGE),
    );
    expect(r.slow.status).toBe(409);
    expect(r.slow.json).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      message: `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      details: { name, kind: "configmaps" },
    });
    expect(r.stored.json.data).toEqual({ b: "2", x: "0" });
    // The second attempt stops at the resourceVersion check, before admission.
    expect(r.slowReviews).toBe(1);
  });

  it("delete: deletes the object as it now stands", async () => {
    const name = uniq("race-delete");
    expect((await call("POST", CM, configMapBody(name, { a: "4" }, { race: "yes" }))).status).toBe(201);
    const r = await race(
      name,
      () => call("DELETE", `${CM}/${name}`),
      "4",
      () => call("PATCH", `${CM}/${name}`, { data: { b: "2" } }, MERGE),
      "DELETE",
    );
    expect(r.other.status).toBe(200);
    expect(r.slow.status, r.slow.text).toBe(200);
    expect(r.slow.json).toMatchObject({ kind: "Status", status: "Success", details: { name, kind: "configmaps" } });
    expect(r.stored.status).toBe(404);
    // Admitted again against the object the other write left.
    expect(r.slowReviews).toBe(2);
  });

  it("delete-collection: deletes the item as it now stands instead of answering 409", async () => {
    const name = uniq("race-collection");
    const other = uniq("race-collection-other");
    const labels = { race: "yes", batch: name };
    expect((await call("POST", CM, configMapBody(name, { a: "5" }, labels))).status).toBe(201);
    expect((await call("POST", CM, configMapBody(other, { a: "6" }, labels))).status).toBe(201);
    const r = await race(
      name,
      () => call("DELETE", `${CM}?labelSelector=batch%3D${name}`),
      "5",
      () => call("PATCH", `${CM}/${name}`, { data: { b: "2" } }, MERGE),
      "DELETE",
    );
    expect(r.other.status).toBe(200);
    expect(r.slow.status, r.slow.text).toBe(200);
    // The answer lists the items as they were listed for deletion.
    expect(r.slow.json.items.map((i: any) => [i.metadata.name, i.data]).sort()).toEqual(
      [
        [name, { a: "5" }],
        [other, { a: "6" }],
      ].sort(),
    );
    expect(r.stored.status).toBe(404);
    expect((await call("GET", `${CM}/${other}`)).status).toBe(404);
    expect(r.slowReviews).toBe(2);
  });
});

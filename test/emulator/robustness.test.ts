/** Arbitrary input never crashes the emulator nor yields an unexplained 500. */
import fc from "fast-check";
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

const paths = [
  "/api/v1/namespaces/default/configmaps",
  "/api/v1/namespaces/default/configmaps/fuzz",
  "/apis/events.k8s.io/v1/namespaces/default/events",
  "/apis/events.k8s.io/v1/namespaces/default/events/fuzz",
  "/api/v1/namespaces",
  "/api/v1/namespaces/fuzz",
];

/** Object-ish bodies that reuse the real field names, so decoding and validation get exercised. */
const fieldName = fc.constantFrom(
  "kind",
  "apiVersion",
  "metadata",
  "name",
  "namespace",
  "data",
  "labels",
  "eventTime",
  "series",
  "count",
  "regarding",
  "spec",
  "finalizers",
  "resourceVersion",
  "x",
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom("fuzz", "v1", "ConfigMap", "Event", "2024-01-01T00:00:00.000000Z"),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fieldName, tie("v"), { maxKeys: 4 }),
  ),
})).v;

describe("robustness", () => {
  it("answers arbitrary writes with a Status or an object, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.constantFrom("POST", "PUT", "DELETE", "GET"), fc.oneof(value, fc.string()), async (path, method, body) => {
        const r = await call(method, path, undefined, { raw: typeof body === "string" ? body : JSON.stringify(body) });
        expect(r.status).toBeGreaterThanOrEqual(200);
        expect(r.json, r.text).toBeTypeOf("object");
        expect(r.status, r.text).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    expect((await call("GET", "/healthz")).text).toBe("ok");
  });
});

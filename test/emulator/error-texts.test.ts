/** Error texts checked against the 1.35 source: the 504 of a too-large version, dryRun's Unsupported value, undecodable continue tokens. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, configMapBody, uniq } from "./support.js";

let emu: EmulatorServer;
let call: ReturnType<typeof client>;
const ns = uniq("errtext");

beforeAll(async () => {
  emu = createEmulatorServer(resolveSettings({}));
  call = client(await emu.listen("127.0.0.1", 0));
  await call("POST", "/api/v1/namespaces", { metadata: { name: ns } });
});
afterAll(async () => {
  await emu.close();
});

const token = (json: string): string => Buffer.from(json, "utf8").toString("base64url");

describe("error texts", () => {
  it("a too-large version: 504 with retryAfterSeconds 1 and Retry-After from the watch cache, neither on the etcd path (Events)", async () => {
    const cached = await call("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan`);
    expect(cached.status).toBe(504);
    expect(cached.headers["retry-after"]).toBe("1");
    expect(cached.json.details).toEqual({ causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 });
    for (const path of [`/apis/events.k8s.io/v1/namespaces/${ns}/events`, `/api/v1/namespaces/${ns}/events`]) {
      const r = await call("GET", `${path}?resourceVersion=99999999&resourceVersionMatch=NotOlderThan`);
      expect(r.status, path).toBe(504);
      expect(r.headers["retry-after"], path).toBeUndefined();
      expect(r.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: expect.stringMatching(/^Timeout: Too large resource version: 99999999, current: \d+$/),
        reason: "Timeout",
        details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
        code: 504,
      });
    }
  });

  it("an unsupported dryRun prints the whole list, JSON-marshalled, on every writing verb", async () => {
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    const create = await call("POST", `${cms}?dryRun=Maybe`, configMapBody(uniq("c")));
    expect(create.status).toBe(422);
    expect(create.json.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"');
    expect(create.json.details.causes).toEqual([
      { reason: "FieldValueNotSupported", message: 'Unsupported value: ["Maybe"]: supported values: "All"', field: "dryRun" },
    ]);
    const both = await call("POST", `${cms}?dryRun=All&dryRun=Maybe`, configMapBody(uniq("c")));
    expect(both.json.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","Maybe"]: supported values: "All"');
    const name = uniq("c");
    await call("POST", cms, configMapBody(name));
    const patch = await call("PATCH", `${cms}/${name}?dryRun=Maybe`, { data: { a: "b" } }, { headers: { "content-type": "application/merge-patch+json" } });
    expect(patch.json.message).toBe('PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"');
    const del = await call("DELETE", `${cms}/${name}?dryRun=Maybe`);
    expect(del.status).toBe(422);
    expect(del.json.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"');
  });

  it("an undecodable continue token is worded as continue.go and encoding/json word it", async () => {
    const cms = `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=`;
    const cases: Array<[string, string]> = [
      [token("xyz"), "continue key is not valid: invalid character 'x' looking for beginning of value"],
      [token('{"v":"meta.k8s.io/v1","rv":5'), "continue key is not valid: unexpected end of JSON input"],
      [token("[1]"), "continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken"],
      [
        token('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'),
        "continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64",
      ],
      [
        token('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}'),
        "continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64",
      ],
      [token('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}'), "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"],
      [token("null"), "continue key is not valid: server does not recognize this encoded version "],
      [token('{"V":"meta.k8s.io/v1","RV":5}'), "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"],
      [token('{"v":"meta.k8s.io/v1","rv":5,"start":"../x"}'), "continue key is not valid: ../x"],
    ];
    for (const [t, text] of cases) {
      const r = await call("GET", cms + t);
      expect(r.status, text).toBe(400);
      expect(r.json, text).toMatchObject({ reason: "BadRequest", message: `invalid continue token: ${text}` });
    }
  });
});

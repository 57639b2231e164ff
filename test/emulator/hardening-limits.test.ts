/**
 * The request limits of a real server (wire-facts §11), answered as it answers them: request
 * heads, malformed request lines and CONNECT over raw sockets; bodies over the size limit,
 * even endless chunked ones; YAML alias bombs and nesting; JSON nesting; objects too large
 * for etcd.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorDepthMessage, emulatorMaxDepth } from "../../lib/emulator/apimachinery/json.js";
import { createEmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client } from "./support.js";

let emu: RunningEmulator;
let call: ReturnType<typeof client>;
let port: number;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  call = client(emu.url);
  port = Number(new URL(emu.url).port);
});
afterAll(async () => {
  await emu.close();
});

interface RawReply {
  /** Everything the server sent before closing (or before the timeout). */
  text: string;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Sends `head` on a raw connection, then `feed` (if any) over and over until the server
 * answers or closes; resolves with what came back once the connection ends or `waitMs` passes.
 */
function raw(head: string | Buffer, feed?: Buffer, waitMs = 5000): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const got: Buffer[] = [];
    let closed = false;
    let feeding = feed !== undefined;
    const finish = (): void => {
      clearTimeout(timer);
      feeding = false;
      socket.destroy();
      resolve({ text: Buffer.concat(got).toString("latin1"), closed });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (d: Buffer) => {
      got.push(d);
      feeding = false;
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closed = true;
      finish();
    });
    const pump = (): void => {
      while (feeding && feed && socket.write(feed));
      if (feeding) socket.once("drain", pump);
    };
    socket.write(head, () => pump());
  });
}

describe("request heads", () => {
  it("answers a head over 1 MiB + 4096 bytes with Go's raw 431 and closes", async () => {
    const r = await raw(`GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat((1 << 20) + 8192)}\r\n\r\n`);
    expect(r.text).toBe(
      "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large",
    );
    expect(r.closed).toBe(true);
  });

  it("serves a head of 64 KiB (far below the real limit)", async () => {
    const r = await call("GET", "/api/v1/namespaces/default", undefined, { headers: { "x-big": "a".repeat(64 * 1024) } });
    expect(r.status).toBe(200);
  });

  it("answers a malformed request line with Go's raw 400 and closes", async () => {
    const r = await raw("THIS IS NOT HTTP\r\n\r\n");
    expect(r.text).toBe("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request");
    expect(r.closed).toBe(true);
  });

  it("answers CONNECT through the handlers instead of resetting the connection", async () => {
    const r = await raw("CONNECT /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(r.text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(r.text).toContain('"reason":"MethodNotAllowed"');
    expect(r.closed).toBe(true);
  });
});

describe("the server's timeouts", () => {
  it("are kube-apiserver's: 32 s for a head, 60 s for a whole request, 90 s between keep-alive requests", async () => {
    const emulator = createEmulatorServer(resolveSettings({}));
    const { server } = emulator;
    expect({ headers: server.headersTimeout, request: server.requestTimeout, keepAlive: server.keepAliveTimeout }).toEqual({
      headers: 32_000,
      request: 60_000,
      keepAlive: 90_000,
    });
    await emulator.close();
  });
});

describe("request bodies", () => {
  it("closes the connection after answering a request whose endless body it never read", async () => {
    const chunk = Buffer.from(`1000\r\n${"x".repeat(0x1000)}\r\n`);
    const r = await raw("POST /no/such/path HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", chunk, 10_000);
    expect(r.text).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(r.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(r.closed).toBe(true);
  });

  it("answers an endless chunked body 413 once past 3 MiB, and closes the connection", async () => {
    const chunk = Buffer.from(`10000\r\n${"x".repeat(0x10000)}\r\n`);
    const started = Date.now();
    const r = await raw(
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      chunk,
      10_000,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.text).toMatch(/^HTTP\/1\.1 413 Request Entity Too Large\r\n/);
    expect(r.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(r.text).toContain('"message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge"');
    expect(r.closed).toBe(true);
    // And the server still answers.
    expect((await call("GET", "/api/v1/namespaces/default")).status).toBe(200);
  });
});

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "deeps.limits.example.com" },
  spec: {
    group: "limits.example.com",
    names: { plural: "deeps", kind: "Deep" },
    scope: "Namespaced",
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};
const DEEPS = "/apis/limits.example.com/v1/namespaces/default/deeps";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const YAML = { "content-type": "application/yaml" };
const MERGE = { "content-type": "application/merge-patch+json" };
const STRATEGIC = { "content-type": "application/strategic-merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

async function defineDeeps(): Promise<void> {
  expect([201, 409]).toContain((await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)).status);
  for (let i = 0; i < 50; i++) {
    if ((await call("GET", DEEPS)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("deeps never served");
}

describe("YAML bodies", () => {
  /** The emulator once spent 49 s and 1 GB expanding a body like this one. */
  function aliasBomb(): string {
    const list = (item: string): string => `[${Array(9).fill(item).join(",")}]`;
    let text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\nx0: &x0 ${list('"x"')}\n`;
    for (let i = 1; i < 9; i++) text += `x${i}: &x${i} ${list(`*x${i - 1}`)}\n`;
    return text;
  }

  it("refuses an alias bomb at once with go-yaml's excessive aliasing error", async () => {
    const body = aliasBomb();
    const started = Date.now();
    const r = await call("POST", CONFIGMAPS, undefined, { raw: body, headers: YAML });
    // Expanded, the bomb is 9^9 nodes: minutes, not the few seconds a loaded machine may add.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ reason: "BadRequest", code: 400 });
    const hex = Buffer.from(body).subarray(0, 30).toString("hex");
    expect(r.json.message).toBe(`the object provided is unrecognized (must be of type ConfigMap): yaml: document contains excessive aliasing (${hex} ...)`);
  });

  it("refuses a value holding an alias of itself with go-yaml's error, not a 500", async () => {
    const body = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loop}\nx: &a [1, *a]\n";
    const r = await call("POST", CONFIGMAPS, undefined, { raw: body, headers: YAML });
    expect(r.status).toBe(400);
    const hex = Buffer.from(body).subarray(0, 30).toString("hex");
    expect(r.json.message).toBe(`the object provided is unrecognized (must be of type ConfigMap): yaml: anchor 'a' value contains itself (${hex} ...)`);
  });

  it("still reads documents with a few aliases", async () => {
    const body = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aliased, labels: &l {a: b}, annotations: *l}\n";
    const r = await call("POST", CONFIGMAPS, undefined, { raw: body, headers: YAML });
    expect(r.status).toBe(201);
    expect(r.json.metadata.annotations).toEqual({ a: "b" });
  });

  it("refuses nesting over 10000 levels with go-yaml's depth error", async () => {
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ${"[".repeat(10001)}${"]".repeat(10001)}\n`;
    const r = await call("POST", CONFIGMAPS, undefined, { raw: body, headers: YAML });
    expect(r.status).toBe(400);
    const hex = Buffer.from(body).subarray(0, 30).toString("hex");
    expect(r.json.message).toBe(`the object provided is unrecognized (must be of type ConfigMap): yaml: line 4: exceeded max depth of 10000 (${hex} ...)`);
  });

  it("answers an apply body over 10000 levels with the apply decoder's wording", async () => {
    await call("POST", CONFIGMAPS, { metadata: { name: "applied" } });
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":${"[".repeat(10001)}${"]".repeat(10001)}}`;
    const r = await call("PATCH", `${CONFIGMAPS}/applied?fieldManager=limits`, undefined, { raw: body, headers: APPLY });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("error decoding patch: error converting YAML to JSON: yaml: exceeded max depth of 10000");
  });
});

describe("JSON nesting", () => {
  beforeAll(defineDeeps);

  it("refuses a body over 10000 levels as Go's scanner does, while reading apiVersion and kind", async () => {
    const body = `{"apiVersion":"limits.example.com/v1","kind":"Deep","metadata":{"name":"d"},"spec":${nested(10000)}}`;
    const r = await call("POST", DEEPS, undefined, { raw: body });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      `the object provided is unrecognized (must be of type Deep): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${body.slice(0, 30)} ...)`,
    );
  });

  it("refuses patches over 10000 levels with each patch decoder's wording", async () => {
    await call("POST", CONFIGMAPS, { metadata: { name: "patched" } });
    const deep = `{"data":${nested(10000)}}`;
    const at = `${CONFIGMAPS}/patched`;
    expect((await call("PATCH", at, undefined, { raw: deep, headers: MERGE })).json.message).toBe(
      "error decoding patch: invalid character '{' exceeded max depth",
    );
    expect((await call("PATCH", `${at}?fieldValidation=Ignore`, undefined, { raw: deep, headers: MERGE })).json.message).toBe("Invalid JSON Patch");
    expect((await call("PATCH", at, undefined, { raw: deep, headers: STRATEGIC })).json.message).toBe("invalid character '{' exceeded max depth");
    const ops = `[{"op":"add","path":"/data","value":${nested(10000)}}]`;
    const strict = await call("PATCH", at, undefined, { raw: ops, headers: JSON_PATCH });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe("error decoding patch: invalid character '{' exceeded max depth");
    expect((await call("PATCH", `${at}?fieldValidation=Ignore`, undefined, { raw: ops, headers: JSON_PATCH })).json.message).toBe(
      "invalid character '{' exceeded max depth",
    );
  });

  it("writes custom resources nested 900 levels by create, merge patch, JSON patch and apply", async () => {
    const create = await call("POST", DEEPS, undefined, {
      raw: `{"apiVersion":"limits.example.com/v1","kind":"Deep","metadata":{"name":"n"},"spec":${nested(900)}}`,
    });
    expect(create.status).toBe(201);
    expect((await call("PATCH", `${DEEPS}/n`, undefined, { raw: `{"spec":{"b":${nested(900)}}}`, headers: MERGE })).status).toBe(200);
    expect((await call("PATCH", `${DEEPS}/n`, undefined, { raw: `[{"op":"add","path":"/spec/c","value":${nested(900)}}]`, headers: JSON_PATCH })).status).toBe(
      200,
    );
    const apply = `{"apiVersion":"limits.example.com/v1","kind":"Deep","metadata":{"name":"n"},"spec":{"d":${nested(900)}}}`;
    expect((await call("PATCH", `${DEEPS}/n?fieldManager=limits&force=true`, undefined, { raw: apply, headers: APPLY })).status).toBe(200);
    const got = await call("GET", `${DEEPS}/n`);
    expect(got.status).toBe(200);
  });

  it("refuses nesting it cannot follow (past what its stack follows) with a 400 that says so, never a 500", async () => {
    const deep = `{"apiVersion":"limits.example.com/v1","kind":"Deep","metadata":{"name":"m"},"spec":${nested(emulatorMaxDepth() + 100)}}`;
    for (const [method, path, headers] of [
      ["POST", DEEPS, {}],
      ["PATCH", `${DEEPS}/n`, MERGE],
      ["PATCH", `${DEEPS}/n?fieldManager=limits`, APPLY],
      ["POST", DEEPS, YAML],
    ] as const) {
      const r = await call(method, path, undefined, { raw: deep, headers: { "content-type": "application/json", ...headers } });
      expect(r.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(400);
      expect(r.json.message).toContain(emulatorDepthMessage());
    }
  });
});

describe("objects too large for etcd", () => {
  beforeAll(defineDeeps);
  const deep = (name: string, spec: unknown): Record<string, unknown> => ({ apiVersion: "limits.example.com/v1", kind: "Deep", metadata: { name }, spec });
  const TOO_LARGE = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 };

  it("refuses an object over etcd's 1.5 MiB request limit with the real server's reasonless 500", async () => {
    const r = await call("POST", DEEPS, deep("huge", { big: "x".repeat(2 * 1024 * 1024) }));
    expect(r.status).toBe(500);
    expect(r.json).toEqual(TOO_LARGE);
    expect((await call("GET", `${DEEPS}/huge`)).status).toBe(404);
    // An update that grows an object past it is refused the same way, the object unchanged.
    expect((await call("POST", DEEPS, deep("grows", { a: "b" }))).status).toBe(201);
    const u = await call("PATCH", `${DEEPS}/grows`, undefined, { raw: JSON.stringify({ spec: { big: "x".repeat(2 * 1024 * 1024) } }), headers: MERGE });
    expect(u.json).toEqual(TOO_LARGE);
    expect((await call("GET", `${DEEPS}/grows`)).json.spec).toEqual({ a: "b" });
  });

  it("stores an object that fits only without its managedFields, without them (the handlers' retry)", async () => {
    // managedFields name every label: 6000 labels double in size with them, past the limit.
    const labels: Record<string, string> = {};
    for (let i = 0; i < 6000; i++) labels[`l${String(i).padStart(5, "0")}-${"a".repeat(50)}`] = "";
    const r = await call("POST", CONFIGMAPS, { metadata: { name: "no-ownership", labels }, data: { big: "x".repeat(1000 * 1000) } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toBeUndefined();
    expect(Object.keys(r.json.metadata.labels)).toHaveLength(6000);
  });
});

describe("the store's quota", () => {
  it("answers writes past --quota-backend-bytes with etcd's database space exceeded, history included, and still deletes", async () => {
    const small = await startEmulator({ port: 0, storageQuotaBytes: 512 * 1024 });
    try {
      const c = client(small.url);
      const value = "x".repeat(16 * 1024);
      expect((await c("POST", CONFIGMAPS, { metadata: { name: "one" }, data: { v: value } })).status).toBe(201);
      // Each update keeps the value it replaces for watches to replay: the quota fills up without new objects.
      let last = await c("PUT", `${CONFIGMAPS}/one`, { metadata: { name: "one" }, data: { v: `${value}0` } });
      for (let i = 1; i < 64 && last.status === 200; i++)
        last = await c("PUT", `${CONFIGMAPS}/one`, { metadata: { name: "one" }, data: { v: `${value}${i}` } });
      expect(last.status).toBe(500);
      expect(last.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "etcdserver: mvcc: database space exceeded",
        code: 500,
      });
      expect((await c("DELETE", `${CONFIGMAPS}/one`)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe("delete bodies", () => {
  it("refuses DeleteOptions over 10000 levels as the JSON decoder does", async () => {
    const body = `{"kind":"DeleteOptions","apiVersion":"v1","x":${nested(10000)}}`;
    const r = await call("DELETE", CONFIGMAPS, undefined, { raw: body });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      `the object provided is unrecognized (must be of type DeleteOptions): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${body.slice(0, 30)} ...)`,
    );
  });
});

describe("YAML nesting within the real limit", () => {
  it("reads a document 200 levels deep, and still reports its duplicate keys", async () => {
    const deep = `${"[".repeat(200)}${"]".repeat(200)}`;
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep-yaml\n  name: deep-yaml\ndata: {}\nx: ${deep}\n`;
    const r = await call("POST", CONFIGMAPS, undefined, { raw: body, headers: YAML });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.warning).toEqual(['299 - "line 5: key \\"name\\" already set in map"', '299 - "unknown field \\"x\\""']);
  });
});

/**
 * Defects the fuzzer (test/fuzz) found, one test each, with what a real server answers.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});

/** One request written byte for byte (a client library would normalize the target), and the parsed answer. */
function rawGet(target: string): Promise<{ status: number; body: any }> {
  const { port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let out = "";
    socket.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = out.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), body: body ? JSON.parse(body) : undefined });
    });
  });
}

const NOT_FOUND = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server could not find the requested resource",
  reason: "NotFound",
  details: {},
  code: 404,
};

describe("request targets read as Go's url.ParseRequestURI reads them (golang/go src/net/url/url.go, parse with viaRequest)", () => {
  it('answers a target starting with "//" as an unknown path (404), not a 500 "Invalid URL"', async () => {
    // Via a request, "//x" is a path: only a scheme makes "//" start an authority.
    for (const target of ["//", "//?watch=1", "//api/v1/namespaces"]) {
      const r = await rawGet(target);
      expect(r.status, target).toBe(404);
      expect(r.body, target).toEqual(NOT_FOUND);
    }
  });

  it('keeps a "#" in the path and the query after it, instead of cutting both off as a fragment', async () => {
    // ParseRequestURI splits off the query at "?" and has no fragment step, so the name is "a#b" and pretty applies.
    const r = await rawGet("/api/v1/namespaces/default/configmaps/a#b?pretty=true");
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ message: 'configmaps "a#b" not found', reason: "NotFound", details: { name: "a#b", kind: "configmaps" } });
  });
});

describe("a warning naming a field outside Latin-1", () => {
  it("goes out as the field's UTF-8 bytes instead of a 500 (Node refused the header)", async () => {
    const { request } = await import("undici");
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "warned" }, kiând: 1 });
    const r = await request(`${emu.url}/api/v1/namespaces/default/configmaps?fieldValidation=Warn`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await r.body.text();
    expect(r.statusCode, text).toBe(201);
    const warning = String(r.headers["warning"]);
    expect(Buffer.from(warning, "latin1").toString("utf8")).toBe('299 - "unknown field \\"kiând\\""');
  });
});

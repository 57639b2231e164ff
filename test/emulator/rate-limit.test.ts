/**
 * The in-flight limit (--max-requests-inflight): 429 plain text with Retry-After as API Priority
 * and Fairness answers, watches and health checks exempt, the counter back to zero afterwards;
 * and the `tollgate emulator` flag that sets it.
 */
import { PassThrough } from "node:stream";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { parseEmulatorArgs } from "../../lib/cli/emulator.js";
import { UsageError } from "../../lib/cli/usage.js";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { client, openWatch, uniq } from "./support.js";

const TEXT = "Too many requests, please try again later.";

const started: EmulatorServer[] = [];
afterEach(async () => {
  for (const e of started.splice(0)) await e.close();
});

async function emulator(maxRequestsInFlight: number): Promise<{ server: EmulatorServer; url: string; call: ReturnType<typeof client> }> {
  const server = createEmulatorServer(resolveSettings({ maxRequestsInFlight }));
  started.push(server);
  const url = await server.listen("127.0.0.1", 0);
  return { server, url, call: client(url) };
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("the in-flight limit", () => {
  it("answers the requests above the limit 429 in plain text with Retry-After: 1, and the counter returns to zero", async () => {
    const { server, url, call } = await emulator(2);
    const ns = uniq("rl");
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
    await until(() => server.inFlight() === 0);
    // Two creates whose bodies are still arriving hold both places.
    const bodies = [new PassThrough(), new PassThrough()];
    const held = bodies.map((body) =>
      request(`${url}/api/v1/namespaces/${ns}/configmaps`, { method: "POST", body, headers: { "content-type": "application/json" } }).then(async (r) => {
        await r.body.text();
        return r.statusCode;
      }),
    );
    for (const b of bodies) b.write('{"apiVersion":"v1","kind":"ConfigMap",');
    await until(() => server.inFlight() === 2);
    const limited = await call("GET", `/api/v1/namespaces/${ns}/configmaps`);
    expect(limited.status).toBe(429);
    expect(limited.text).toBe(TEXT);
    expect(limited.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(limited.headers["retry-after"]).toBe("1");
    expect(limited.json).toBeUndefined();
    // Mutating requests are limited too (one limit for both here).
    expect((await call("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "x" } })).status).toBe(429);
    // Health checks and watches pass at a full limit.
    expect((await call("GET", "/healthz")).status).toBe(200);
    const w = await openWatch(url, `/api/v1/namespaces/${ns}/configmaps?watch=true`);
    expect(w.status).toBe(200);
    w.close();
    for (const [i, b] of bodies.entries()) b.end(`"metadata":{"name":"held-${i}"}}`);
    expect(await Promise.all(held)).toEqual([201, 201]);
    await until(() => server.inFlight() === 0);
    // Back to zero: requests within the limit are served again.
    const again = await Promise.all([call("GET", `/api/v1/namespaces/${ns}/configmaps`), call("GET", `/api/v1/namespaces/${ns}`)]);
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    await until(() => server.inFlight() === 0);
  });

  it("under a burst, answers each request 200 or 429 and ends with nothing in flight", async () => {
    const { server, call } = await emulator(2);
    const replies = await Promise.all(Array.from({ length: 64 }, () => call("GET", "/api/v1/namespaces")));
    expect(replies.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2);
    await until(() => server.inFlight() === 0);
  });

  it("exempts watches (by ?watch= and by /watch/), health checks, and does not count them", async () => {
    const { server, url, call } = await emulator(1);
    const watches = await Promise.all([
      openWatch(url, "/api/v1/namespaces?watch=true"),
      openWatch(url, "/api/v1/namespaces?watch=1"),
      openWatch(url, "/api/v1/watch/namespaces"),
    ]);
    try {
      for (const w of watches) expect(w.status).toBe(200);
      expect(server.inFlight()).toBe(0);
      for (const p of ["/healthz", "/livez", "/readyz"]) expect((await call("GET", p)).status, p).toBe(200);
      // With open watches at a limit of 1, a list is still served.
      expect((await call("GET", "/api/v1/namespaces")).status).toBe(200);
    } finally {
      for (const w of watches) w.close();
    }
    await until(() => server.inFlight() === 0);
  });

  it("is off by default: a burst is served whole", async () => {
    const { server, call } = await emulator(0);
    const replies = await Promise.all(Array.from({ length: 64 }, () => call("GET", "/api/v1/namespaces")));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(server.inFlight()).toBe(0);
  });
});

describe("tollgate emulator --max-requests-inflight", () => {
  it("sets the limit, and refuses what is not a whole number", () => {
    expect(parseEmulatorArgs(["--max-requests-inflight", "5"]).maxRequestsInFlight).toBe(5);
    expect(parseEmulatorArgs(["--max-requests-inflight", "0"]).maxRequestsInFlight).toBe(0);
    expect(parseEmulatorArgs([]).maxRequestsInFlight).toBeUndefined();
    for (const bad of ["-1", "1.5", "x", ""]) expect(() => parseEmulatorArgs(["--max-requests-inflight", bad]), bad).toThrow(UsageError);
  });

  it("defaults to 0 (no limit) in the settings", () => {
    expect(resolveSettings({}).maxRequestsInFlight).toBe(0);
    expect(resolveSettings({ maxRequestsInFlight: -3 }).maxRequestsInFlight).toBe(0);
  });
});

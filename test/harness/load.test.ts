/**
 * The client's load manners (lib/harness/load.ts) against small servers of this process: the
 * token bucket, Retry-After waited out and counted, the opt-out for tests of the server's rate
 * limiting, the in-flight bound, and a timeout that names the request (a watch's covers its
 * headers only).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient, UnreachableError } from "../../lib/harness/client.js";
import { resetHealth, targetTroubleSince } from "../../lib/harness/health.js";
import {
  configureLoad,
  DEFAULT_LOAD,
  formatDuration,
  type LoadSettings,
  loadCounters,
  NO_LIMITS,
  parseDuration,
  retryAfterMs,
  TokenBucket,
} from "../../lib/harness/load.js";
import { openWatch, WatchTimeout } from "../../lib/harness/watch.js";

const servers: Server[] = [];
const clients: ApiClient[] = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<ApiClient> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const client = new ApiClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: {}, source: "test" });
  clients.push(client);
  return client;
}

const manners = (over: Partial<LoadSettings>): void => configureLoad({ ...NO_LIMITS, ...over });

afterEach(async () => {
  configureLoad(NO_LIMITS);
  resetHealth();
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

const ok = (_req: IncomingMessage, res: ServerResponse): void => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end("{}");
};

describe("load manners: the numbers", () => {
  it("kubectl's defaults: client-go's 5 requests a second with a burst of 10", () => {
    expect(DEFAULT_LOAD).toMatchObject({ qps: 5, burst: 10 });
  });

  it("a token bucket lets a burst go at once, then one request per 1/qps seconds", () => {
    let now = 0;
    const bucket = new TokenBucket(5, 3, () => now);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(200);
    expect(bucket.reserve()).toBeCloseTo(400);
    now = 1_000;
    // A second later the debt of two is paid and the bucket is full again: three at once, the fourth waits.
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(200);
  });

  it("durations as kubectl's --request-timeout takes them, and Retry-After in seconds or as a date", () => {
    expect([parseDuration("90s"), parseDuration("1m30s"), parseDuration("500ms"), parseDuration("1h"), parseDuration("0")]).toEqual([
      90_000, 90_000, 500, 3_600_000, 0,
    ]);
    for (const bad of ["", "5", "10x", "s", "1m 2s"]) expect(parseDuration(bad), bad).toBeUndefined();
    expect(retryAfterMs("3")).toBe(3_000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect([formatDuration(800), formatDuration(2_500), formatDuration(20_000), formatDuration(150_000)]).toEqual(["800 ms", "2.5 s", "20 s", "2 min 30 s"]);
  });
});

describe("load manners: the client", () => {
  it("waits for the rate limit, and counts the wait", async () => {
    const client = await serve(ok);
    manners({ qps: 20, burst: 2 });
    const before = loadCounters();
    const started = performance.now();
    // All six at once, so that the waits do not depend on how fast the server answers (on a
    // loaded machine a slow answer let the bucket refill, and the counted wait fell below 50 ms).
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.raw("GET", "/x")));
    expect(answers.map((a) => a.code)).toEqual([200, 200, 200, 200, 200, 200]);
    // Two at once, then four at 50 ms apart: waits of about 50, 100, 150 and 200 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
    expect(loadCounters().throttledMs - before.throttledMs).toBeGreaterThan(300);
    expect(loadCounters().requests - before.requests).toBe(6);
  });

  it("a 429 with Retry-After is waited out and sent again, a bounded number of times, and counted", async () => {
    let calls = 0;
    const client = await serve((_req, res) => {
      calls += 1;
      if (calls <= 2) {
        res.writeHead(429, { "retry-after": "0", "content-type": "text/plain" });
        res.end("Too many requests, please try again later.");
      } else ok(_req, res);
    });
    manners({ max429Retries: 3, maxRetryAfterMs: 10_000 });
    const before = loadCounters().retried429;
    expect((await client.raw("GET", "/x")).code).toBe(200);
    expect(calls).toBe(3);
    expect(loadCounters().retried429 - before).toBe(2);

    calls = -100;
    manners({ max429Retries: 2, maxRetryAfterMs: 10_000 });
    expect((await client.raw("GET", "/x")).code, "after its retries the 429 comes back").toBe(429);
    expect(calls).toBe(-97);
  });

  it("a check of the server's rate limiting opts out: its 429 comes back at once, and no limit holds its burst", async () => {
    let calls = 0;
    const client = await serve((_req, res) => {
      calls += 1;
      res.writeHead(429, { "retry-after": "0" });
      res.end();
    });
    manners({ qps: 1, burst: 1, maxInflight: 1, max429Retries: 5, maxRetryAfterMs: 10_000 });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 8 }, () => client.raw("GET", "/x", { bypassLimits: true })));
    expect(answers.map((a) => a.code)).toEqual(Array(8).fill(429));
    expect(calls).toBe(8);
    // Held to qps 1 the eight would take 7 s; the bound leaves room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("at most maxInflight requests are in flight at once", async () => {
    let inflight = 0;
    let most = 0;
    const client = await serve((req, res) => {
      inflight += 1;
      most = Math.max(most, inflight);
      setTimeout(() => {
        inflight -= 1;
        ok(req, res);
      }, 30);
    });
    manners({ maxInflight: 2 });
    await Promise.all(Array.from({ length: 7 }, () => client.raw("GET", "/x")));
    expect(most).toBe(2);
  });

  it("a target that accepts and never answers: the request ends at its timeout with one line naming it, recorded as the target's trouble", async () => {
    const client = await serve(() => undefined);
    manners({ requestTimeoutMs: 300 });
    const since = Date.now();
    const err = await client.raw("GET", "/api/v1/namespaces").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as Error).message).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+: no answer within 300 ms \(GET \/api\/v1\/namespaces; --request-timeout\)$/,
    );
    expect(targetTroubleSince(since, 5_000)).toBe((err as Error).message);
  });

  it("a refused connection names the request too; the caller's own abort is not the target's trouble", async () => {
    const client = await serve(() => undefined);
    const url = client.target.url;
    servers[0]?.close();
    servers[0]?.closeAllConnections();
    await new Promise((r) => setTimeout(r, 20));
    const err = await new ApiClient({ url, credentials: {}, source: "test" }).raw("DELETE", "/api/v1/namespaces/x").catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED \(.*\) \(DELETE \/api\/v1\/namespaces\/x\)$/);

    resetHealth();
    const quiet = await serve(() => undefined);
    const since = Date.now();
    const signal = AbortSignal.timeout(100);
    await expect(quiet.raw("GET", "/x", { signal })).rejects.toThrow(/aborted|timeout/i);
    expect(targetTroubleSince(since, 5_000)).toBeUndefined();
  });

  it("a watch's timeout covers its headers only: a quiet stream stays open past it", async () => {
    const client = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
    });
    manners({ requestTimeoutMs: 200 });
    const w = await openWatch(client, "/api/v1/configmaps", { watch: "true" });
    try {
      await expect(w.next(500)).rejects.toBeInstanceOf(WatchTimeout);
      expect(w.ended).toBe(false);
    } finally {
      w.close();
    }
    const silent = await serve(() => undefined);
    await expect(openWatch(silent, "/api/v1/configmaps", { watch: "true" })).rejects.toThrow(
      /no answer within 200 ms \(GET \/api\/v1\/configmaps; --request-timeout\)/,
    );
  });
});

/**
 * What the runner asks of the target when a test failed (lib/runner/declare.ts targetTrouble):
 * a target that answers, however slowly, leaves the failure standing; one that does not answer
 * within the request timeout, or a request of the test that met no answer, makes it "target
 * unavailable".
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { resetHealth, transportFailed } from "../../lib/harness/health.js";
import { targetTrouble } from "../../lib/runner/declare.js";

const servers: Server[] = [];
afterEach(async () => {
  resetHealth();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A target whose /version answers after `delayMs` (never, with Infinity). */
async function target(delayMs: number): Promise<{ url: string; credentials: Record<string, never>; source: string }> {
  const server = createServer((_req, res) => {
    if (delayMs === Number.POSITIVE_INFINITY) return;
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"gitVersion":"v1.35.0"}');
    }, delayMs);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: {}, source: "test" };
}

describe("a failed test's target", () => {
  it("answering /version late (a loaded machine) is there: the failure stands", { timeout: 15_000 }, async () => {
    expect(await targetTrouble(Date.now(), await target(2_500), 20_000)).toBeUndefined();
  });

  it("silent within the request timeout is unavailable, and says for how long it waited", async () => {
    const started = Date.now();
    expect(await targetTrouble(started, await target(Number.POSITIVE_INFINITY), 1_000)).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+: no answer within 1 s/,
    );
    // Bounded by the 1 s request timeout, not the 10 s look (a margin for a loaded machine).
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it("is blamed without a look when a request of the test met no answer", async () => {
    const since = Date.now();
    transportFailed("cannot reach http://x: ECONNREFUSED");
    expect(await targetTrouble(since, await target(Number.POSITIVE_INFINITY), 20_000)).toBe("cannot reach http://x: ECONNREFUSED");
  });
});

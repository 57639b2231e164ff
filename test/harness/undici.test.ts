/**
 * lib/harness/undici.ts: the harness's part of undici without undici's index (issue #18), and
 * its `request` sending what undici's own sends.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Agent as IndexAgent, request as indexRequest } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, request } from "../../lib/harness/undici.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** What the server saw of each request: method, path and body. */
const seen: string[] = [];
const server = createServer(async (req: IncomingMessage, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  seen.push(`${req.method} ${req.url} ${body}`);
  res.setHeader("content-type", "text/plain");
  res.end(`answer to ${req.method} ${req.url}`);
});
let base = "";
beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("the harness's undici (issue #18)", () => {
  it("sends what undici's own request sends: method (PUT with a body, else GET), path and query, body; and reads the answer", async () => {
    const ours = new Agent();
    const theirs = new IndexAgent();
    const cases = [
      { url: "/api/v1/namespaces?labelSelector=a%3Db&limit=2", opts: {} },
      { url: "/api/v1/pods", opts: { body: "{}" } },
      { url: "/api/v1/pods/x", opts: { method: "DELETE" as const } },
      { url: "/", opts: { method: "POST" as const, body: "created" } },
    ];
    for (const c of cases) {
      seen.length = 0;
      const a = await request(`${base}${c.url}`, { ...c.opts, dispatcher: ours });
      const b = await indexRequest(`${base}${c.url}`, { ...c.opts, dispatcher: theirs });
      expect([a.statusCode, await a.body.text()]).toEqual([b.statusCode, await b.body.text()]);
      expect(seen[0]).toBe(seen[1]);
    }
    expect(seen).toEqual(["POST / created", "POST / created"]);
    await Promise.all([ours.close(), theirs.close()]);
  });

  it("refuses a URL that is not http or https, as undici's does", () => {
    expect(() => request("ftp://127.0.0.1/x", { dispatcher: new Agent() })).toThrow(/only http and https/);
  });

  it("the harness's client loads no undici index: about two thirds of undici stay unloaded in every thread", () => {
    const script = `
      import { createRequire } from "node:module";
      await import(${JSON.stringify(join(ROOT, "lib/harness/client.ts"))});
      await import(${JSON.stringify(join(ROOT, "lib/harness/credentials/source.ts"))});
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ index: cache.filter((f) => f.endsWith("/undici/index.js")).length, undici: cache.filter((f) => f.includes("/node_modules/undici/")).length }));
    `;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const loaded = JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as { index: number; undici: number };
    expect(loaded.index).toBe(0);
    // undici's index loads 111 of its modules; the dispatchers and the request API about 37.
    expect(loaded.undici).toBeGreaterThan(10);
    expect(loaded.undici).toBeLessThan(60);
  });
});

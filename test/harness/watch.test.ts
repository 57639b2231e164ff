import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../lib/harness/client.js";
import { WatchProtocolError, WatchTimeout } from "../../lib/harness/watch.js";

/** A scripted server: each path answers with the frames given for it. */
const scripts: Record<string, (res: ServerResponse) => void> = {
  "/ok": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"MODI');
    setTimeout(() => {
      res.write('FIED","object":{"metadata":{"name":"a"}}}\n');
      res.end('{"type":"DELETED","object":{"metadata":{"name":"a"}}}');
    }, 20);
  },
  "/garbage": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("not json\n");
  },
  "/not-an-event": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"type":"CREATED","object":{}}\n');
  },
  "/silent": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
  },
  "/gone": (res) => {
    res.writeHead(410, { "content-type": "application/json" });
    res.end('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Expired","code":410}');
  },
};

let server: Server;
let client: ApiClient;

beforeAll(async () => {
  server = createServer((req, res) => (scripts[new URL(req.url ?? "/", "http://x").pathname] ?? scripts["/gone"])!(res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  client = new ApiClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: {}, source: "test" });
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await client.close();
});

const open = (path: string) => import("../../lib/harness/watch.js").then((m) => m.openWatch(client, path, { watch: "true" }));

describe("watch reader", () => {
  it("splits events across chunk boundaries and reports the end of the stream", async () => {
    const w = await open("/ok");
    const evs = await w.take(3);
    expect(evs.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(await w.next()).toBeUndefined();
    expect(w.ended).toBe(true);
  });

  it("fails on a frame that is not JSON, or not a watch event", async () => {
    await expect((await open("/garbage")).next()).rejects.toThrow(WatchProtocolError);
    await expect((await open("/not-an-event")).next()).rejects.toThrow(/not a watch event/);
  });

  it("times out instead of hanging on a silent stream, and closes cleanly", async () => {
    const w = await open("/silent");
    await expect(w.next(50)).rejects.toThrow(WatchTimeout);
    w.close();
  });

  it("turns an HTTP error before the stream into an ApiError with the Status", async () => {
    const err = await open("/gone").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status?.reason).toBe("Expired");
  });
});

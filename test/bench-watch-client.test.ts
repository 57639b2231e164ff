/**
 * The benchmark's hand-written watch reader (scripts/bench-watch-client.ts) against a server
 * that sends crafted bytes: its per-event checks must count what they claim and fail on a bad
 * stream, however the bytes are split across reads and chunks.
 */
import { type AddressInfo, createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openWatchers, type WatchStats } from "../scripts/bench-watch-client.js";

const event = (i: number, rv: number, namespace = "n"): string =>
  `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"w-${String(i).padStart(6, "0")}","namespace":"${namespace}","resourceVersion":"${rv}"},"data":{"payload":"ppp"}}}\n`;
const chunk = (data: string): string => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
const HEAD = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** Serves the pieces, one socket write each, a few ms apart so they arrive as separate reads; `written` settles after the last. */
async function serve(pieces: string[]): Promise<{ port: number; written: Promise<void> }> {
  let done: () => void = () => {};
  const written = new Promise<void>((resolve) => (done = resolve));
  server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.once("data", async () => {
      for (const p of pieces) {
        socket.write(p);
        await new Promise((r) => setTimeout(r, 5));
      }
      done();
    });
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, written };
}

async function run(pieces: string[], writes: number): Promise<{ stats: WatchStats; arrived: Float64Array; delivered: number }> {
  const { port, written } = await serve(pieces);
  const arrivedAt = new SharedArrayBuffer(writes * 8);
  const delivered = new SharedArrayBuffer(4);
  new Float64Array(arrivedAt).fill(NaN);
  const opened = await openWatchers({ host: "127.0.0.1", port, path: "/w?watch=true", watchers: 1, writes, arrivedAt, delivered });
  // Every piece sent, then read until the counts stop moving: a loaded machine delays both sides, so no fixed wait.
  await Promise.race([written, new Promise((r) => setTimeout(r, 5000))]);
  let last = "";
  for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 30));
    const now = JSON.stringify([opened.stats(), new Int32Array(delivered)[0]]);
    if (now === last) break;
    last = now;
  }
  const stats = opened.stats();
  opened.close();
  return { stats, arrived: new Float64Array(arrivedAt), delivered: new Int32Array(delivered)[0] ?? 0 };
}

/** The string cut at the given offsets. */
const cut = (s: string, at: number[]): string[] => [0, ...at, s.length].slice(1).map((end, k, all) => s.slice(k === 0 ? 0 : (all[k - 1] ?? 0), end));

describe("bench-watch client", () => {
  it("counts every event once, whatever the split of head, size lines, chunks and lines", async () => {
    // The third event's resourceVersion sits elsewhere: the reader's guess from the last line misses.
    const body = chunk(event(0, 5) + event(1, 6)) + chunk(event(2, 9, "a-longer-namespace"));
    const all = HEAD + body;
    // Cut inside the head, inside a size line, inside an event, and between CR and LF.
    const pieces = cut(all, [10, HEAD.length + 1, HEAD.length + 40, all.indexOf("\r\n", HEAD.length + 5) + 1]);
    const { stats, arrived, delivered } = await run(pieces, 3);
    expect(delivered).toBe(3);
    expect(stats).toMatchObject({ duplicates: 0, outOfOrder: 0, unparsedLines: 0, errors: 0, watchersWithAllEvents: 1 });
    expect(Array.from(arrived).every((t) => t > 0)).toBe(true);
  });

  it("counts a duplicate, an event out of resourceVersion order, and an unparsed line", async () => {
    const { stats, delivered } = await run([HEAD, chunk(event(0, 5) + event(0, 7)), chunk(event(1, 4, "ns-2")), chunk("{}\n")], 2);
    expect(delivered).toBe(2);
    expect(stats).toMatchObject({ duplicates: 1, outOfOrder: 1, unparsedLines: 1, watchersWithAllEvents: 1 });
  });

  it("fails on a bad chunk framing and on the end of the stream", async () => {
    const bad = await run([HEAD, `zz\r\n${event(0, 5)}\r\n`], 1);
    expect(bad.stats.errors).toBeGreaterThan(0);
    expect(bad.delivered).toBe(0);
    const ended = await run([HEAD, chunk(event(0, 5)), "0\r\n\r\n"], 1);
    expect(ended.delivered).toBe(1);
    expect(ended.stats.watchersWithAllEvents).toBe(1);
  });

  it("rejects a watch that is not answered 200 with a chunked body", async () => {
    await expect(run(["HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n"], 1)).rejects.toThrow(/410/);
    server?.close();
    await expect(run(["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"], 1)).rejects.toThrow(/not chunked/);
  });
});

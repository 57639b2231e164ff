/**
 * The request limits of a real server (wire-facts §11), answered as it answers them: request
 * heads, malformed request lines and CONNECT over raw sockets; bodies over the size limit,
 * even endless chunked ones; YAML alias bombs and nesting; JSON nesting; objects too large
 * for etcd.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
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

describe("request bodies", () => {
  it("answers an endless chunked body 413 once past 3 MiB, and closes the connection", async () => {
    const chunk = Buffer.from(`10000\r\n${"x".repeat(0x10000)}\r\n`);
    const started = Date.now();
    const r = await raw(
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      chunk,
      10_000,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(r.text).toContain('"message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge"');
    expect(r.closed).toBe(true);
    // And the server still answers.
    expect((await call("GET", "/api/v1/namespaces/default")).status).toBe(200);
  });
});

/** Serving plumbing shared by the emulated daemons: listen, answer, cap connections, close. */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

export type AnyServer = Server | HttpsServer;
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Registers `handler` so that a broken client can neither crash the process nor leave an unhandled error. */
export function serve(server: AnyServer, handler: Handler): void {
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    req.on("error", () => {});
    res.on("error", () => {});
    try {
      handler(req, res);
    } catch (e) {
      if (!res.headersSent) text(res, 500, `internal error: ${e instanceof Error ? e.message : String(e)}\n`);
      else res.destroy();
    }
  });
  server.on("clientError", (_err, socket) => socket.destroy());
}

/** Listens and answers the base URL (`scheme://host:port`, IPv6 in brackets). Port 0 takes a free port. */
export function listen(server: AnyServer, scheme: "http" | "https", host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const a = server.address() as AddressInfo;
      resolve(`${scheme}://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`);
    });
  });
}

export async function closeServer(server: AnyServer): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Ends every connection `maxMs` after it was accepted, whatever it is doing, and lets a
 * single request take as long (Node's own default would cut a request after 5 minutes). An
 * idle keep-alive connection still closes after Node's keep-alive timeout: the cap bounds
 * the lifetime, it does not extend it.
 */
export function capConnectionLifetime(server: AnyServer, maxMs: number): void {
  server.requestTimeout = maxMs;
  server.on("connection", (socket) => {
    const timer = setTimeout(() => socket.destroy(), maxMs);
    // A pending cap must not keep the process alive after close().
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  });
}

export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

export function text(res: ServerResponse, status: number, body: string, contentType = "text/plain; charset=utf-8"): void {
  res.writeHead(status, { "content-type": contentType, "x-content-type-options": "nosniff" });
  res.end(body);
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  text(res, status, `${JSON.stringify(value)}\n`, "application/json");
}

/** Go's http.NotFound, which both real daemons answer for paths they do not serve. */
export function notFound(res: ServerResponse): void {
  text(res, 404, "404 page not found\n");
}

/** The Kubernetes authorizer's verb for a non-resource request: the method in lower case. */
export const verbOf = (req: IncomingMessage): string => (req.method ?? "GET").toLowerCase();

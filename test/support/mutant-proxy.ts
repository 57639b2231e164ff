/**
 * A deliberately wrong server: a proxy in front of the emulator that breaks one rule.
 * Running a suite through it shows the suite can fail, i.e. that its checks are real.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

export interface ProxiedResponse {
  method: string;
  path: string;
  code: number;
  body: string;
}

export interface Mutant {
  name: string;
  /** Rewrites the request path and query before it goes upstream. */
  request?: (method: string, path: string) => string;
  /** Rewrites a whole (non-watch) response. */
  response?: (r: ProxiedResponse) => ProxiedResponse;
  /** Rewrites or drops (undefined) one line of a watch stream. */
  watchLine?: (line: string) => string | undefined;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startMutantProxy(upstream: string, mutant: Mutant): Promise<RunningProxy> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = mutant.request ? mutant.request(req.method ?? "GET", req.url ?? "/") : (req.url ?? "/");
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
      const up = await request(`${upstream}${path}`, {
        method: (req.method ?? "GET") as "GET",
        headers,
        body: body.length ? body : undefined,
        bodyTimeout: 0,
      });
      const isWatch = /[?&]watch=(true|1)/.test(path);
      const contentType = String(up.headers["content-type"] ?? "application/json");
      if (isWatch && up.statusCode === 200) {
        res.writeHead(200, { "content-type": contentType });
        res.flushHeaders();
        let buf = "";
        req.on("close", () => up.body.destroy());
        for await (const chunk of up.body) {
          buf += (chunk as Buffer).toString("utf8");
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            const out = mutant.watchLine ? mutant.watchLine(line) : line;
            if (out !== undefined) res.write(`${out}\n`);
          }
        }
        res.end();
        return;
      }
      const text = await up.body.text();
      const out = mutant.response
        ? mutant.response({ method: req.method ?? "GET", path, code: up.statusCode, body: text })
        : { method: req.method ?? "GET", path, code: up.statusCode, body: text };
      res.writeHead(out.code, { "content-type": contentType });
      res.end(out.body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

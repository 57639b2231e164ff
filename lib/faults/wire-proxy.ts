/**
 * A deliberately wrong server: a proxy in front of any target that rewrites what crosses the
 * wire (the wire faults of lib/faults/catalog/). Running a suite through it shows the suite can
 * fail, i.e. that its checks are real. Bodies it does not rewrite pass byte for byte (protobuf
 * and CBOR included), and watch streams pass chunk by chunk, never buffered whole.
 *
 * A rewrite may be limited to one suite: tollgate's client names its suite in the User-Agent
 * (`tollgate/… (suite <name>)`), so one proxy can carry several rewrites, each breaking only
 * the requests of its own suite.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";

export interface ProxiedResponse {
  method: string;
  path: string;
  code: number;
  body: string;
  /** The request's headers (lowercase names), for mutants that depend on who asks. */
  requestHeaders: Record<string, string>;
}

export interface WireRewrite {
  name: string;
  /** Only requests of this suite (its useSuite name) are touched; every request when absent (and `suites` too). */
  suite?: string;
  /** Only requests of these suites are touched (the self-test's shared runs). */
  suites?: readonly string[];
  /** Touches every request, the runner's detection included, even where a run scopes mutants to their suites. */
  all?: boolean;
  /** Rewrites the request path and query before it goes upstream. */
  request?: (method: string, path: string) => string;
  /** Rewrites the request headers before they go upstream. */
  requestHeaders?: (headers: Record<string, string>) => Record<string, string>;
  /** Rewrites a whole (non-watch) response with a text body (JSON, YAML); binary bodies pass unchanged. */
  response?: (r: ProxiedResponse) => ProxiedResponse;
  /** Rewrites a whole (non-watch) response of any content type, as bytes: for binary faults (a wrong protobuf envelope). */
  responseBytes?: (r: ProxiedBytes) => ProxiedBytes;
  /** Rewrites or drops (undefined) one line of a JSON watch stream. */
  watchLine?: (line: string) => string | undefined;
  /** Like watchLine, with state of its own per watch: called once per watch request with its path. */
  watchLines?: (path: string) => (line: string) => string | undefined;
}

export interface ProxiedBytes {
  method: string;
  path: string;
  code: number;
  contentType: string;
  bytes: Buffer;
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

const suiteOf = (userAgent: string | undefined): string | undefined => /\(suite ([^)]+)\)/.exec(userAgent ?? "")?.[1];
const isText = (contentType: string): boolean => /json|yaml|text/.test(contentType);

/** The upstream's response headers a client sees (Warning, Content-Encoding…), without the per-connection ones. */
function passedHeaders(h: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !["content-length", "transfer-encoding", "connection", "keep-alive"].includes(k)) out[k] = v;
  return out;
}

export async function startWireProxy(
  upstream: string,
  rewrites: WireRewrite | readonly WireRewrite[],
  listen: { host?: string; port?: number; upstreamCa?: string } = {},
): Promise<RunningProxy> {
  // An https upstream with a cluster's own CA (PEM) is verified against it.
  const dispatcher = listen.upstreamCa ? new Agent({ connect: { ca: listen.upstreamCa } }) : undefined;
  const all = Array.isArray(rewrites) ? rewrites : [rewrites as WireRewrite];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const suite = suiteOf(req.headers["user-agent"]);
      const active = all.filter((m) =>
        m.suite === undefined && m.suites === undefined ? true : suite !== undefined && (m.suite === suite || m.suites?.includes(suite) === true),
      );
      const method = req.method ?? "GET";
      let path = req.url ?? "/";
      for (const m of active) if (m.request) path = m.request(method, path);
      let headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
      const requestHeaders = { ...headers };
      for (const m of active) if (m.requestHeaders) headers = m.requestHeaders(headers);
      const up = await request(`${upstream}${path}`, {
        method: method as "GET",
        headers,
        body: body.length ? body : undefined,
        bodyTimeout: 0,
        ...(dispatcher ? { dispatcher } : {}),
      });
      const isWatch = /[?&]watch=(true|1)/.test(path) || path.includes("/watch/");
      const contentType = String(up.headers["content-type"] ?? "application/json");
      const lineMutants: ((line: string) => string | undefined)[] = [
        ...active.flatMap((m) => (m.watchLine ? [m.watchLine] : [])),
        ...active.flatMap((m) => (m.watchLines ? [m.watchLines(path)] : [])),
      ];
      if (isWatch && up.statusCode === 200) {
        res.writeHead(200, passedHeaders(up.headers));
        res.flushHeaders();
        req.on("close", () => up.body.destroy());
        if (lineMutants.length === 0 || !contentType.startsWith("application/json")) {
          for await (const chunk of up.body) res.write(chunk as Buffer);
          res.end();
          return;
        }
        let buf = "";
        for await (const chunk of up.body) {
          buf += (chunk as Buffer).toString("utf8");
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            let line: string | undefined = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            for (const m of lineMutants) if (line !== undefined) line = m(line);
            if (line !== undefined) res.write(`${line}\n`);
          }
        }
        res.end();
        return;
      }
      let bytes = Buffer.from(await up.body.arrayBuffer());
      let code = up.statusCode;
      for (const m of active) if (m.responseBytes) ({ code, bytes } = m.responseBytes({ method, path, code, contentType, bytes }));
      const responders = active.filter((m) => m.response);
      const encoding = up.headers["content-encoding"];
      if (responders.length === 0 || !isText(contentType) || encoding !== undefined) {
        res.writeHead(code, passedHeaders(up.headers));
        res.end(bytes);
        return;
      }
      let out: ProxiedResponse = { method, path, code, body: bytes.toString("utf8"), requestHeaders };
      for (const m of responders) out = m.response?.(out) ?? out;
      res.writeHead(out.code, passedHeaders(up.headers));
      res.end(out.body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  const host = listen.host ?? "127.0.0.1";
  await new Promise<void>((r, reject) => {
    server.once("error", reject);
    server.listen(listen.port ?? 0, host, r);
  });
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      // destroy, not close: close waits for every upstream request to end, and watches may never.
      await dispatcher?.destroy();
    },
  };
}

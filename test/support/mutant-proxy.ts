/**
 * A deliberately wrong server: a proxy in front of the emulator that breaks rules. Running a
 * suite through it shows the suite can fail, i.e. that its checks are real.
 *
 * A mutant may be limited to one suite: tollgate's client names its suite in the User-Agent
 * (`tollgate/… (suite <name>)`), so one proxy can carry several mutants, each breaking only
 * the requests of its own suite, and one run can show several suites failing.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

export interface ProxiedResponse {
  method: string;
  path: string;
  code: number;
  body: string;
  /** The request's headers (lowercase names), for mutants that depend on who asks. */
  requestHeaders: Record<string, string>;
}

export interface Mutant {
  name: string;
  /** Only requests of this suite (its useSuite name) are touched; every request when absent. */
  suite?: string;
  /** Touches every request, the runner's detection included, even where a run scopes mutants to their suites. */
  all?: boolean;
  /** Rewrites the request path and query before it goes upstream. */
  request?: (method: string, path: string) => string;
  /** Rewrites the request headers before they go upstream. */
  requestHeaders?: (headers: Record<string, string>) => Record<string, string>;
  /** Rewrites a whole (non-watch) response with a text body (JSON, YAML); binary bodies pass unchanged. */
  response?: (r: ProxiedResponse) => ProxiedResponse;
  /** Rewrites or drops (undefined) one line of a JSON watch stream. */
  watchLine?: (line: string) => string | undefined;
  /** Like watchLine, with state of its own per watch: called once per watch request with its path. */
  watchLines?: (path: string) => (line: string) => string | undefined;
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

export async function startMutantProxy(upstream: string, mutants: Mutant | readonly Mutant[]): Promise<RunningProxy> {
  const all = Array.isArray(mutants) ? mutants : [mutants as Mutant];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const suite = suiteOf(req.headers["user-agent"]);
      const active = all.filter((m) => m.suite === undefined || m.suite === suite);
      const method = req.method ?? "GET";
      let path = req.url ?? "/";
      for (const m of active) if (m.request) path = m.request(method, path);
      let headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
      const requestHeaders = { ...headers };
      for (const m of active) if (m.requestHeaders) headers = m.requestHeaders(headers);
      const up = await request(`${upstream}${path}`, { method: method as "GET", headers, body: body.length ? body : undefined, bodyTimeout: 0 });
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
      const bytes = Buffer.from(await up.body.arrayBuffer());
      const responders = active.filter((m) => m.response);
      const encoding = up.headers["content-encoding"];
      if (responders.length === 0 || !isText(contentType) || encoding !== undefined) {
        res.writeHead(up.statusCode, passedHeaders(up.headers));
        res.end(bytes);
        return;
      }
      let out: ProxiedResponse = { method, path, code: up.statusCode, body: bytes.toString("utf8"), requestHeaders };
      for (const m of responders) out = m.response?.(out) ?? out;
      res.writeHead(out.code, passedHeaders(up.headers));
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

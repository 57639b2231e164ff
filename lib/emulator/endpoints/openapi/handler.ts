/**
 * `/openapi/v3`, `/openapi/v3/<gv>` and `/openapi/v2` as kube-openapi's handlers serve them
 * (wire-facts §19): Etag = quoted uppercase hex SHA-512 of the JSON bytes, 304 on If-None-Match,
 * `?hash=` URLs in the index, immutable caching for a matching hash and a 301 to the current one
 * for a stale hash. Knowingly different: no protobuf form (a protobuf-only Accept is 406 for v3
 * documents and v2, where a real server answers protobuf).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import type { ResourceStrategy } from "../../registry/generic/strategy.js";
import { buildDocuments } from "./documents.js";

interface Served {
  readonly body: Buffer;
  readonly etag: string;
  readonly hash: string;
}

interface State {
  readonly index: Served;
  readonly v3: ReadonlyMap<string, Served>;
  readonly v2: Served;
  readonly modified: string;
}

function served(value: unknown): Served {
  const body = Buffer.from(JSON.stringify(value), "utf8");
  const hash = createHash("sha512").update(body).digest("hex").toUpperCase();
  return { body, hash, etag: `"${hash}"` };
}

/** Documents built once per registry state (the strategies array changes whenever a type is added or removed). */
const cache = new WeakMap<readonly ResourceStrategy[], State>();

function stateOf(strategies: readonly ResourceStrategy[]): State {
  const known = cache.get(strategies);
  if (known) return known;
  const docs = buildDocuments(strategies);
  const v3 = new Map([...docs.v3.entries()].map(([k, d]) => [k, served(d)]));
  const paths = Object.fromEntries(
    [...v3.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, s]) => [k, { serverRelativeURL: `/openapi/v3/${k}?hash=${s.hash}` }]),
  );
  const state: State = { index: served({ paths }), v3, v2: served(docs.v2), modified: new Date().toUTCString() };
  cache.set(strategies, state);
  return state;
}

/** Whether the path is one of the OpenAPI handlers'. */
export function isOpenApiPath(pathname: string): boolean {
  return pathname === "/openapi/v2" || pathname === "/openapi/v3" || pathname.startsWith("/openapi/v3/");
}

/** The Accept header's media types, without parameters. */
function acceptTypes(req: IncomingMessage): string[] {
  const header = req.headers.accept;
  if (header === undefined || header.trim() === "") return ["*/*"];
  return header.split(",").map((t) => (t.split(";")[0] ?? "").trim().toLowerCase());
}

const acceptsJson = (types: string[]): boolean => types.some((t) => t === "application/json" || t === "*/*" || t === "application/*");

function write(req: IncomingMessage, res: ServerResponse, s: Served, modified: string, extra: Record<string, string>): void {
  const headers: Record<string, string> = { ...extra, Etag: s.etag, "Last-Modified": modified };
  if (req.headers["if-none-match"] === s.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  let body = s.body;
  if ((req.headers["accept-encoding"] ?? "").split(",").some((t) => t.trim() === "gzip")) {
    body = gzipSync(body, { level: 1 });
    headers["Content-Encoding"] = "gzip";
  }
  res.writeHead(200, { ...headers, "Content-Type": "application/json", "Content-Length": String(body.length) });
  res.end(req.method === "HEAD" ? undefined : body);
}

function notAcceptable(res: ServerResponse): void {
  res.writeHead(406, { "Content-Length": "0", Vary: "Accept" });
  res.end();
}

export function handleOpenApi(strategies: readonly ResourceStrategy[], req: IncomingMessage, res: ServerResponse, url: URL): void {
  const state = stateOf(strategies);
  const types = acceptTypes(req);
  if (url.pathname === "/openapi/v2") {
    if (!acceptsJson(types)) return notAcceptable(res);
    return write(req, res, state.v2, state.modified, { Vary: "Accept" });
  }
  if (url.pathname === "/openapi/v3") return write(req, res, state.index, state.modified, {});
  const key = url.pathname.slice("/openapi/v3/".length);
  const doc = state.v3.get(key);
  if (!doc) {
    // handler3 writes nothing for an unknown group-version: an empty 200.
    res.writeHead(200, { "Content-Length": "0" });
    res.end();
    return;
  }
  // The protobuf form is not served here (see the header).
  if (!acceptsJson(types)) return notAcceptable(res);
  const hash = url.searchParams.get("hash");
  if (hash !== null && hash !== "" && hash !== doc.hash) {
    res.writeHead(301, { Location: `/openapi/v3/${key}?hash=${doc.hash}`, "Content-Length": "0" });
    res.end();
    return;
  }
  const extra: Record<string, string> = { Vary: "Accept" };
  if (hash === doc.hash) {
    extra["Cache-Control"] = "public, immutable";
    extra["Expires"] = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  }
  write(req, res, doc, state.modified, extra);
}

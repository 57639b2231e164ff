/**
 * Sends fuzzed requests and judges each answer: it arrived in time, without a reset; its status
 * is a success or a 4xx (5xx only in the exceptions a real server makes, listed in
 * ALLOWED_5XX); an error body is a Status in the encoding the client accepted. Shared by
 * test/fuzz/fuzz.test.ts and scripts/fuzz.ts; HTTP only, like the generator.
 */
import { load } from "js-yaml";
import { Agent, request } from "undici";
import { decodeCbor } from "../../lib/wire/cbor.js";
import { decodeObject } from "../../lib/wire/protobuf/index.js";
import type { Caller, FuzzRequest } from "./requests.js";

/** How long any non-watch request may take to be answered in full. */
export const DEADLINE_MS = 5_000;
/** A watch with timeoutSeconds T must have ended by T seconds and this much more. */
const WATCH_GRACE_MS = 3_000;

export type OutcomeKind = "ok" | "bad" | "reset" | "hang" | "client";

export interface Outcome {
  kind: OutcomeKind;
  status?: number;
  /** What was wrong, for "bad", "reset", "hang" and "client" (the client library refused to send it). */
  problem?: string;
  /** The 5xx exception this answer falls under (ALLOWED_5XX). */
  exception?: string;
  ms: number;
}

/** Bearer tokens of the callers; a missing one means "no Authorization header". */
export type Tokens = Partial<Record<Caller, string>>;

export function newDispatcher(connections = 64): Agent {
  return new Agent({ connections, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 4_000 });
}

function headerOf(h: Record<string, string | string[] | undefined>, name: string): string {
  const v = h[name];
  return Array.isArray(v) ? v.join(", ") : (v ?? "");
}

const RESET_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "UND_ERR_CLOSED", "ECONNREFUSED", "HPE_INVALID_CONSTANT"]);

export async function send(base: string, dispatcher: Agent, req: FuzzRequest, tokens: Tokens): Promise<Outcome> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  const headers = { ...req.headers };
  const token = tokens[req.caller];
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  const abort = new AbortController();
  const limit = req.watchSeconds !== undefined ? req.watchSeconds * 1000 + WATCH_GRACE_MS : DEADLINE_MS;
  let timedOut = false;
  let gotHeaders = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, limit);
  try {
    const res = await request(base + req.path, {
      dispatcher,
      method: req.method as "GET",
      headers,
      body: req.body,
      signal: abort.signal,
    });
    gotHeaders = true;
    let body: Buffer;
    try {
      body = Buffer.from(await res.body.arrayBuffer());
    } catch (e) {
      // An open watch (no short timeout) is cut by the client at the deadline: that is no hang.
      if (timedOut && req.openWatch) return { kind: "ok", status: res.statusCode, ms: ms() };
      throw e;
    }
    clearTimeout(timer);
    const v = judge(req, res.statusCode, res.headers, body);
    return { ...v, status: res.statusCode, ms: ms() };
  } catch (e) {
    clearTimeout(timer);
    if (timedOut) {
      if (gotHeaders && req.openWatch) return { kind: "ok", ms: ms() };
      return { kind: "hang", problem: `no ${gotHeaders ? "end of the answer" : "answer"} within ${limit} ms`, ms: ms() };
    }
    const err = e as { code?: string; message?: string; cause?: { code?: string } };
    const code = err.code ?? err.cause?.code ?? "";
    if (RESET_CODES.has(code) || /other side closed|socket hang up|ECONNRESET/.test(err.message ?? "")) {
      return { kind: "reset", problem: `${code}: ${err.message}`, ms: ms() };
    }
    return { kind: "client", problem: `${code}: ${err.message}`, ms: ms() };
  } finally {
    clearTimeout(timer);
  }
}

/** Reasons a real server pairs with each 4xx code (wire-facts §4). */
const REASONS: Record<number, string[]> = {
  400: ["BadRequest"],
  401: ["Unauthorized"],
  403: ["Forbidden"],
  404: ["NotFound"],
  405: ["MethodNotAllowed"],
  406: ["NotAcceptable"],
  409: ["AlreadyExists", "Conflict"],
  410: ["Expired", "Gone"],
  413: ["RequestEntityTooLarge"],
  415: ["UnsupportedMediaType"],
  422: ["Invalid"],
  429: ["TooManyRequests"],
};

interface StatusLike {
  kind?: unknown;
  apiVersion?: unknown;
  code?: unknown;
  reason?: unknown;
  message?: unknown;
  status?: unknown;
}

/**
 * The 5xx answers a real 1.35 server gives to requests the generator can make, each by the fact
 * it rests on; anything else in 5xx is a defect.
 */
export const ALLOWED_5XX: { name: string; source: string; matches(req: FuzzRequest, status: number, s: StatusLike): boolean }[] = [
  {
    name: "watch or get with a resourceVersion that is no uint64",
    source: "wire-facts §11 (resourceVersion): watch → 500 no reason; get of a cached resource → 500",
    matches: (req, status, s) =>
      status === 500 &&
      (s.reason === undefined || s.reason === "") &&
      /resourceVersion=/.test(req.path) &&
      /strconv\.ParseUint: parsing/.test(String(s.message)),
  },
  {
    name: "read at a resourceVersion the server has not reached",
    source: "wire-facts §4 (504 Timeout: Too large resource version)",
    matches: (req, status, s) =>
      status === 504 && s.reason === "Timeout" && /resourceVersion=/.test(req.path) && String(s.message).startsWith("Timeout: Too large resource version"),
  },
  {
    name: "impersonation of groups, a uid or extras without a user",
    source: "apiserver endpoints/filters/impersonation.go: InternalError `requested [...] without impersonating a user` (an empty Impersonate-User is none)",
    matches: (req, status, s) =>
      status === 500 &&
      s.reason === "InternalError" &&
      !req.headers["impersonate-user"] &&
      Object.keys(req.headers).some((h) => /^impersonate-(group|uid|extra-)/.test(h)) &&
      /^Internal error occurred: requested \[.*\] without impersonating a user$/s.test(String(s.message)),
  },
];

function decodeBody(contentType: string, body: Buffer): unknown {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/json") return JSON.parse(body.toString("utf8"));
  if (type === "application/yaml") return load(body.toString("utf8"));
  if (type === "application/vnd.kubernetes.protobuf") return decodeObject(new Uint8Array(body));
  if (type === "application/cbor") return decodeCbor(new Uint8Array(body));
  throw new Error(`content type "${contentType}"`);
}

/** The request path with dot segments resolved and the query dropped, as a server routes it. */
function resolvedPath(path: string): string {
  try {
    return new URL(path, "http://fuzz.invalid").pathname;
  } catch {
    return path;
  }
}

function judge(req: FuzzRequest, status: number, headers: Record<string, string | string[] | undefined>, body: Buffer): Omit<Outcome, "ms"> {
  const bad = (problem: string): Omit<Outcome, "ms"> => ({ kind: "bad", problem });
  const contentType = headerOf(headers, "content-type");
  if (status < 200 || status >= 600) return bad(`status ${status}`);
  if (status < 300) return judgeSuccess(req, contentType, body);
  if (status < 400) return headerOf(headers, "location") ? { kind: "ok" } : bad(`${status} without a Location`);
  // APF's 429 is plain text by design (wire-facts §4); a 431 or a 400 for a request Go's HTTP
  // layer cannot parse is its raw text answer (§11, Go net/http server.go conn.serve).
  if (status === 429 && contentType.startsWith("text/plain")) return { kind: "ok" };
  if (
    (status === 400 || status === 431) &&
    contentType.startsWith("text/plain") &&
    /^4(00 Bad Request|31 Request Header Fields Too Large)/.test(body.toString("latin1"))
  ) {
    return { kind: "ok" };
  }
  // kube-openapi's handlers answer an Accept they cannot serve with an empty 406 (wire-facts §19).
  // The generated path may hold dot segments (`/openapi/x/../v2`) that the server resolves first.
  if (status === 406 && body.length === 0 && /^\/openapi\/v[23](\/|$)/.test(resolvedPath(req.path))) return { kind: "ok" };
  if (body.length === 0) return req.method === "HEAD" ? { kind: "ok" } : bad(`${status} with an empty body`);
  let s: StatusLike;
  try {
    s = decodeBody(contentType, body) as StatusLike;
  } catch (e) {
    return bad(`${status} body does not decode (${(e as Error).message}): ${body.subarray(0, 200).toString("utf8")}`);
  }
  const accept = (req.headers["accept"] ?? "").toLowerCase();
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/json" && !accept.includes(type.replace("application/", "").replace("vnd.kubernetes.", ""))) {
    return bad(`${status} Status in ${type}, which the client did not accept (Accept: ${accept})`);
  }
  if (s === null || typeof s !== "object") return bad(`${status} body is no object`);
  if (s.kind !== "Status" || s.apiVersion !== "v1") return bad(`${status} body is not a Status: ${JSON.stringify(s).slice(0, 200)}`);
  if (s.code !== status) return bad(`Status code ${String(s.code)} for HTTP ${status}`);
  if (s.status !== "Failure") return bad(`${status} Status with status ${String(s.status)}`);
  if (typeof s.message !== "string" || s.message === "") return bad(`${status} Status without a message`);
  if (status >= 500) {
    const ex = ALLOWED_5XX.find((a) => a.matches(req, status, s));
    return ex ? { kind: "ok", exception: ex.name } : bad(`${status} ${String(s.reason ?? "")}: ${s.message}`);
  }
  const reasons = REASONS[status];
  if (reasons && !reasons.includes(String(s.reason))) return bad(`${status} with reason ${String(s.reason)}`);
  if (!reasons && !s.reason) return bad(`${status} without a reason`);
  return { kind: "ok" };
}

function judgeSuccess(req: FuzzRequest, contentType: string, body: Buffer): Omit<Outcome, "ms"> {
  if (req.method === "HEAD" || body.length === 0) return { kind: "ok" };
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/json") return { kind: "ok" };
  const text = body.toString("utf8");
  const watching = req.watchSeconds !== undefined || req.openWatch;
  try {
    if (!watching) {
      JSON.parse(text);
      return { kind: "ok" };
    }
    // A watch answered with one document (watch=false, or pretty-printed) rather than event lines.
    try {
      JSON.parse(text);
      return { kind: "ok" };
    } catch {}
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const ev = JSON.parse(line) as { type?: unknown; object?: StatusLike };
      if (typeof ev.type !== "string" || typeof ev.object !== "object")
        return { kind: "bad", problem: `watch line without type/object: ${line.slice(0, 200)}` };
      if (ev.type === "ERROR" && (ev.object?.kind !== "Status" || typeof ev.object.code !== "number")) {
        return { kind: "bad", problem: `watch ERROR event without a Status: ${line.slice(0, 200)}` };
      }
      if (ev.type === "ERROR" && (ev.object?.code as number) >= 500) {
        const ex = ALLOWED_5XX.find((a) => a.matches(req, ev.object?.code as number, ev.object as StatusLike));
        if (!ex) return { kind: "bad", problem: `watch ERROR ${String(ev.object?.code)}: ${String(ev.object?.message)}` };
      }
    }
    return { kind: "ok" };
  } catch (e) {
    return { kind: "bad", problem: `2xx JSON body does not parse (${(e as Error).message}): ${text.slice(0, 200)}` };
  }
}

/** Runs fn over items with at most `concurrency` at once; results in input order. */
export async function pooled<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/** Describes a request in one line (method, path, caller, headers, the body's first bytes). */
export function describe(req: FuzzRequest): string {
  const body = req.body ? ` body(${req.body.length} B): ${JSON.stringify(Buffer.from(req.body.subarray(0, 160)).toString("latin1"))}` : "";
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}…(${v.length})` : v}`)
    .join("; ");
  const path = req.path.length > 300 ? `${req.path.slice(0, 150)}…(${req.path.length})…${req.path.slice(-150)}` : req.path;
  return `${req.method} ${path} as ${req.caller} [${headers}]${body}`;
}

/** Seeds the target and returns the callers' tokens: the admin's (when auth is on) and the ServiceAccount's from its TokenRequest. */
export async function prepare(base: string, dispatcher: Agent, seed: FuzzRequest[], tokenReq: FuzzRequest, adminToken: string | undefined): Promise<Tokens> {
  const tokens: Tokens = { garbage: "garbage.not-a-token" };
  if (adminToken !== undefined) tokens.admin = adminToken;
  const auth = adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` };
  for (const r of seed) {
    const res = await request(base + r.path, { dispatcher, method: r.method as "POST", headers: { ...r.headers, ...auth }, body: r.body });
    await res.body.dump();
    // The CRD must be established before its instances are created.
    if (r.path.endsWith("/customresourcedefinitions")) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (adminToken !== undefined) {
    const res = await request(base + tokenReq.path, { dispatcher, method: "POST", headers: { ...tokenReq.headers, ...auth }, body: tokenReq.body });
    const tr = (await res.body.json()) as { status?: { token?: string } };
    if (tr.status?.token) tokens.serviceaccount = tr.status.token;
  }
  return tokens;
}

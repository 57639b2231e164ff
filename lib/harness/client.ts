/**
 * The thin client the suites use: one keep-alive undici Agent per target, typed verbs,
 * and errors that carry the server's Status. It assumes nothing about the server beyond
 * HTTP; every check of what comes back lives in the suites.
 */
import { toolVersion } from "../tool-version.js";
import { request, type Dispatcher } from "undici";
import { CredentialSource } from "./credentials/source.js";
import { isStatus, type Status } from "../wire/status.js";
import { recordExchange } from "./exchanges.js";
import type { KubeList, KubeObject } from "./objects.js";
import { resourcePath, type ResourceType } from "./resources.js";
import type { Target } from "./target.js";
import { openWatch, type WatchOptions, type WatchStream } from "./watch.js";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Raw body bytes or text, sent as is (for malformed-input tests). */
  rawBody?: string | Uint8Array;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiResponse {
  code: number;
  headers: Record<string, string>;
  /** The body as received (still compressed when the server sent content-encoding). */
  bytes: Uint8Array;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly code: number,
    readonly status: Status | undefined,
    readonly text: string,
  ) {
    super(`${method} ${path} → ${code}${status?.reason ? ` ${status.reason}` : ""}: ${status?.message ?? text.slice(0, 300)}`);
  }
}

/** Raised when the target cannot be reached at all (refused, DNS, TLS). */
export class UnreachableError extends Error {}

export function buildQuery(query: Query | undefined): string {
  if (!query) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** The User-Agent tollgate sends; a suite adds its name, so server logs (and test proxies) can tell suites apart. */
export const USER_AGENT = `tollgate/${toolVersion}`;

export class ApiClient {
  readonly dispatcher: Dispatcher;
  readonly userAgent: string;
  /** Headers and connections per request: TLS, proxy, impersonation, tokens that expire (lib/harness/credentials). */
  private readonly credentials: CredentialSource;

  constructor(
    readonly target: Target,
    opts: { suite?: string } = {},
  ) {
    this.userAgent = opts.suite ? `${USER_AGENT} (suite ${opts.suite})` : USER_AGENT;
    this.credentials = new CredentialSource(target);
    this.dispatcher = this.credentials.dispatcher;
  }

  /** The Authorization header for the next request; an exec plugin may run first (CredentialError when it fails). */
  authHeaders(): Promise<Record<string, string>> {
    return this.credentials.headers();
  }

  url(path: string, query?: Query): string {
    return `${this.target.url}${path}${buildQuery(query)}`;
  }

  /** Any request; never throws for an HTTP status, only for a transport failure. */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: opts.accept ?? "application/json", "user-agent": this.userAgent, ...(await this.authHeaders()), ...opts.headers };
    let body: string | Uint8Array | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.url(path, opts.query), {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.dispatcher,
        signal: opts.signal,
      });
    } catch (e) {
      throw new UnreachableError(`cannot reach ${this.target.url}: ${describeTransportError(e)}`);
    }
    const bytes = new Uint8Array(await res.body.arrayBuffer());
    const text = Buffer.from(bytes).toString("utf8");
    recordExchange({ method, path: `${path}${buildQuery(opts.query)}`, status: res.statusCode, headers: res.headers, text, bytes: bytes.length });
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { code: res.statusCode, headers: flattenHeaders(res.headers), bytes, text, json };
  }

  /** A request that must succeed (2xx); otherwise throws ApiError with the server's Status. */
  async call<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, opts);
    if (res.code < 200 || res.code > 299) {
      throw new ApiError(method, path, res.code, isStatus(res.json) ? res.json : undefined, res.text);
    }
    return res.json as T;
  }

  get<T extends KubeObject = KubeObject>(t: ResourceType, namespace: string | undefined, name: string, query?: Query): Promise<T> {
    return this.call<T>("GET", resourcePath(t, namespace, name), { query });
  }

  /**
   * A list. doc1 asks clients to always send resourceVersionMatch with a resourceVersion on a
   * list (the bare form means different things with and without limit); this client keeps that
   * duty and refuses a bare one. A suite checking the bare cells of the table sends them with raw().
   */
  list<T extends KubeObject = KubeObject>(t: ResourceType, namespace?: string, query?: Query): Promise<KubeList<T>> {
    if (query?.["resourceVersion"] !== undefined && query["resourceVersionMatch"] === undefined) {
      return Promise.reject(new TypeError("a list with resourceVersion needs resourceVersionMatch (doc1); send a bare one with raw() on purpose"));
    }
    return this.call<KubeList<T>>("GET", resourcePath(t, namespace), { query });
  }

  create<T extends KubeObject = KubeObject>(t: ResourceType, namespace: string | undefined, body: KubeObject, query?: Query): Promise<T> {
    return this.call<T>("POST", resourcePath(t, namespace), { body, query });
  }

  update<T extends KubeObject = KubeObject>(t: ResourceType, namespace: string | undefined, body: KubeObject, query?: Query): Promise<T> {
    const name = body.metadata.name;
    if (!name) throw new TypeError("update needs metadata.name");
    return this.call<T>("PUT", resourcePath(t, namespace, name), { body, query });
  }

  patch<T extends KubeObject = KubeObject>(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    contentType = "application/merge-patch+json",
    query?: Query,
  ): Promise<T> {
    return this.call<T>("PATCH", resourcePath(t, namespace, name), { body: patch, contentType, query });
  }

  delete(t: ResourceType, namespace: string | undefined, name: string, options?: unknown, query?: Query): Promise<unknown> {
    return this.call<unknown>("DELETE", resourcePath(t, namespace, name), { body: options, query });
  }

  deleteCollection(t: ResourceType, namespace: string | undefined, query?: Query): Promise<unknown> {
    return this.call<unknown>("DELETE", resourcePath(t, namespace), { query });
  }

  watch<T extends KubeObject = KubeObject>(
    t: ResourceType,
    namespace: string | undefined,
    query: Query = {},
    opts: WatchOptions = {},
  ): Promise<WatchStream<T>> {
    return openWatch<T>(this, resourcePath(t, namespace), { ...query, watch: "true" }, opts);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

export function describeTransportError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as Error & { cause?: unknown }).cause;
  const code = (cause as { code?: string } | undefined)?.code ?? (e as Error & { code?: string }).code;
  const msg = cause instanceof Error ? cause.message : e.message;
  return code ? `${code} (${msg})` : msg;
}

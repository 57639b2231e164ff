/**
 * The thin client the suites use: one keep-alive undici Agent per target, typed verbs,
 * and errors that carry the server's Status. It assumes nothing about the server beyond
 * HTTP; every check of what comes back lives in the suites.
 */

import type { Dispatcher } from "undici";
import { toolVersion } from "../tool-version.js";
import { isStatus } from "../wire/status.js";
import { CredentialSource } from "./credentials/source.js";
import { ApiError, describeTransportError, isTransportError, UnreachableError } from "./errors.js";
import { recordExchange } from "./exchanges.js";
import { answered, requestSent, transportFailed } from "./health.js";
import { countLoad, formatDuration, loadSettings, retryAfterMs, takeSlot, throttle } from "./load.js";
import type { KubeList, KubeObject } from "./objects.js";
import { buildQuery, type Query } from "./query.js";
import { type ResourceType, resourcePath } from "./resources.js";
import type { Target } from "./target.js";
import { request } from "./undici.js";
import { openWatch, type WatchOptions, type WatchStream } from "./watch.js";

// The errors and the query string live beside the client, so watch.ts can use them without importing it.
export { ApiError, buildQuery, describeTransportError, isTransportError, type Query, UnreachableError };

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Raw body bytes or text, sent as is (for malformed-input tests). */
  rawBody?: string | Uint8Array;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Skips tollgate's own load manners (lib/harness/load.ts): no client-side rate limit or
   * in-flight bound, and a 429 comes back as it is. For checks of the server's rate limiting.
   */
  bypassLimits?: boolean;
  /** This request's timeout in milliseconds instead of the run's --request-timeout (0: none). */
  timeoutMs?: number;
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

/** Why a request's own timer aborted it. */
class RequestTimeout extends Error {}

/** What to send in one exchange (see ApiClient.exchange). */
interface Outgoing {
  method: string;
  path: string;
  query?: Query;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  bypassLimits?: boolean;
  timeoutMs?: number;
}

/** An exchange whose headers arrived; `finish` releases its slot and timer once the body is read. */
interface Answer {
  res: Dispatcher.ResponseData;
  finish(): void;
  /** Turns a failure while reading the body into the error to throw. */
  bodyError(e: unknown): unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** The User-Agent tollgate sends; a suite adds its name, so server logs (and test proxies) can tell suites apart. */
const USER_AGENT = `tollgate/${toolVersion}`;

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

  /** Any request; never throws for an HTTP status, only when the target does not answer (UnreachableError). */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      accept: opts.accept ?? "application/json",
      "user-agent": this.userAgent,
      ...(await this.authHeaders()),
      ...opts.headers,
    };
    let body: string | Uint8Array | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
    const answer = await this.exchange(
      { method, path, query: opts.query, headers, body, signal: opts.signal, bypassLimits: opts.bypassLimits, timeoutMs: opts.timeoutMs },
      false,
    );
    const res = answer.res;
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await res.body.arrayBuffer());
    } catch (e) {
      throw answer.bodyError(e);
    } finally {
      answer.finish();
    }
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

  /**
   * A streaming GET (a watch): resolves once the headers are in, under the same manners as raw()
   * but with the timeout on the headers only and the in-flight slot given back at once, since a
   * watch may stay open for the whole test.
   */
  async openStream(path: string, query: Query, headers: Record<string, string>, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const answer = await this.exchange({ method: "GET", path, query, headers, signal }, true);
    answer.finish();
    return answer.res;
  }

  /**
   * One exchange under the run's load manners (lib/harness/load.ts): the rate limit, an in-flight
   * slot, the request timeout, and a 429 with Retry-After waited out and retried. No answer (a
   * transport failure, or none in time) is an UnreachableError naming the request, and is
   * recorded as the target's trouble (lib/harness/health.ts). An abort by the caller's own signal
   * is rethrown as the caller's reason: that is not the target's doing.
   */
  private async exchange(out: Outgoing, stream: boolean): Promise<Answer> {
    const manners = loadSettings();
    const timeoutMs = out.timeoutMs ?? manners.requestTimeoutMs;
    const what = `${out.method} ${out.path}`;
    for (let attempt = 0; ; attempt += 1) {
      if (!out.bypassLimits) await throttle();
      const release = out.bypassLimits ? () => undefined : await takeSlot();
      const own = new AbortController();
      const timer = timeoutMs > 0 ? setTimeout(() => own.abort(new RequestTimeout()), timeoutMs) : undefined;
      const signal = out.signal ? AbortSignal.any([own.signal, out.signal]) : own.signal;
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        release();
      };
      const failure = (e: unknown, reading: boolean): unknown => {
        if (out.signal?.aborted && !own.signal.aborted) return out.signal.reason ?? e;
        const message = own.signal.aborted
          ? `cannot reach ${this.target.url}: no answer within ${formatDuration(timeoutMs)} (${what}${reading ? ", reading the answer" : ""}${out.timeoutMs === undefined ? "; --request-timeout" : ""})`
          : `cannot reach ${this.target.url}: ${describeTransportError(e)} (${what}${reading ? ", reading the answer" : ""})`;
        transportFailed(message);
        return new UnreachableError(message);
      };
      countLoad({ requests: 1 });
      const sent = requestSent(what);
      let res: Dispatcher.ResponseData;
      try {
        res = await request(this.url(out.path, out.query), {
          method: out.method as Dispatcher.HttpMethod,
          headers: out.headers,
          body: out.body,
          dispatcher: this.dispatcher,
          signal,
          // Our own timer bounds the wait; undici's would end a quiet watch after 5 minutes.
          headersTimeout: 0,
          bodyTimeout: 0,
        });
      } catch (e) {
        finish();
        throw failure(e, false);
      } finally {
        answered(sent);
      }
      if (stream) clearTimeout(timer);
      const wait =
        res.statusCode === 429 && !out.bypassLimits && attempt < manners.max429Retries ? retryAfterMs(res.headers["retry-after"]?.toString()) : undefined;
      if (wait === undefined || wait > manners.maxRetryAfterMs) return { res, finish, bodyError: (e) => failure(e, true) };
      // client-go waits out a 429's Retry-After and sends the request again; so does tollgate, a bounded number of times.
      // The 429's body is thrown away before the retry; a failure to drain it changes nothing about the answer.
      await res.body.dump().catch(() => undefined);
      finish();
      countLoad({ retried429: 1, retryAfterMs: wait });
      await sleep(wait);
    }
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

/**
 * What an ApiClient asks before each request: the identity's headers (an exec plugin may run
 * first, its credentials expire during a run), and the connection the request goes over (the
 * cluster's CA and server name, the client certificate of the moment, the proxy, and the
 * kubeconfig's impersonation headers).
 *
 * Precedence, as client-go's: a static bearer token, then basic auth, then a token file, then
 * the oidc id-token, then the exec plugin; a static token, basic auth, a token file or a client
 * certificate leaves the plugin unused. A request that already carries an Authorization header
 * (a suite acting as someone else) keeps it.
 */
import { createSecureContext } from "node:tls";
import type { Dispatcher } from "undici";
import type { Target } from "../target.js";
import { Agent, DispatcherClass, ProxyAgent } from "../undici.js";
import { type ExecAuthenticator, execAuthenticator } from "./exec.js";
import { type Impersonation, impersonationHeaders } from "./impersonation.js";
import { oidcToken } from "./oidc.js";
import { type FileTokenSource, fileTokenSource } from "./token-file.js";

export interface ClientCertificate {
  cert?: string;
  key?: string;
}

export interface ConnectionSettings {
  url: string;
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  impersonate?: Impersonation;
  /** The client certificate to present now (read at each new request; a change opens new connections). */
  clientCertificate: () => ClientCertificate | undefined;
  /** Called when a request got 401, with the Authorization header it was sent with. */
  onUnauthorized?: (authorization: string | undefined) => void;
}

type Headers = Dispatcher.DispatchOptions["headers"];

/** A request's headers as name/value pairs, whatever form undici was given them in. */
function headerEntries(h: Headers): [string, unknown][] {
  if (!h) return [];
  if (Array.isArray(h)) {
    const out: [string, unknown][] = [];
    for (let i = 0; i + 1 < h.length; i += 2) out.push([String(h[i]), h[i + 1]]);
    return out;
  }
  if (typeof (h as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function") return [...(h as Iterable<[string, unknown]>)];
  return Object.entries(h);
}

function headerValue(h: Headers, name: string): string | undefined {
  for (const [k, v] of headerEntries(h)) {
    if (k.toLowerCase() === name && v !== undefined) return Array.isArray(v) ? String(v[0]) : String(v);
  }
  return undefined;
}

/** The request's headers with the impersonation headers added, unless it names an Impersonate-User of its own. */
function withImpersonation(h: Headers, imp: Impersonation): Headers {
  if (headerValue(h, "impersonate-user") !== undefined) return h;
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of headerEntries(h)) {
    if (v === undefined) continue;
    const prev = out[k];
    out[k] = prev === undefined ? (v as string | string[]) : [prev, v as string | string[]].flat();
  }
  for (const [k, vs] of impersonationHeaders(imp)) out[k] = vs.length === 1 ? (vs[0] as string) : vs;
  return out;
}

/**
 * A dispatcher that picks, per request, the connection pool for the client certificate of the
 * moment (pools of an older certificate are closed once their requests end, as client-go closes
 * an exec plugin's connections when its certificate rotates), adds impersonation headers, and
 * reports 401 answers.
 */
class CredentialDispatcher extends DispatcherClass {
  private readonly pools = new Map<string, Dispatcher>();
  private currentKey: string | undefined;

  constructor(private readonly s: ConnectionSettings) {
    super();
  }

  private pool(pair: ClientCertificate | undefined): Dispatcher {
    const key = pair ? `${pair.cert ?? ""}\0${pair.key ?? ""}` : "";
    let pool = this.pools.get(key);
    if (!pool) {
      pool = this.make(pair);
      this.pools.set(key, pool);
    }
    if (this.currentKey !== undefined && this.currentKey !== key) {
      const old = this.pools.get(this.currentKey);
      this.pools.delete(this.currentKey);
      void old?.close();
    }
    this.currentKey = key;
    return pool;
  }

  private make(pair: ClientCertificate | undefined): Dispatcher {
    const s = this.s;
    const tls = { ca: s.ca, cert: pair?.cert, key: pair?.key, rejectUnauthorized: !s.insecureSkipTlsVerify, servername: s.tlsServerName };
    const base = s.proxyUrl
      ? new ProxyAgent({
          uri: s.proxyUrl,
          keepAliveTimeout: 10_000,
          requestTls: tls,
          // Go's transport verifies an https proxy with the cluster's TLS settings (undici would take proxyTls to mean TLS to a socks5 proxy too).
          ...(new URL(s.proxyUrl).protocol === "https:" ? { proxyTls: { ca: s.ca, rejectUnauthorized: !s.insecureSkipTlsVerify } } : {}),
          // As Go's transport: a plain-http target gets absolute-form requests through an http proxy, an https one a CONNECT tunnel.
          proxyTunnel: false,
        })
      : // One TLS context for all of this agent's connections: given only ca/cert/key, tls.connect
        // parses them into a new context per connection (about a millisecond of CPU each).
        new Agent({ keepAliveTimeout: 10_000, connect: { ...tls, secureContext: createSecureContext({ ca: s.ca, cert: pair?.cert, key: pair?.key }) } });
    const onUnauthorized = s.onUnauthorized;
    if (!onUnauthorized) return base;
    return base.compose(
      (dispatch) => (opts, handler) =>
        dispatch(opts, {
          onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
          onRequestUpgrade: (c, code, h, socket) => handler.onRequestUpgrade?.(c, code, h, socket),
          onResponseStart: (c, code, h, message) => {
            if (code === 401) onUnauthorized(headerValue(opts.headers, "authorization"));
            return handler.onResponseStart?.(c, code, h, message);
          },
          onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
          onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
          onResponseError: (c, err) => handler.onResponseError?.(c, err),
        }),
    );
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const pool = this.pool(this.s.clientCertificate());
    const out = this.s.impersonate ? { ...opts, headers: withImpersonation(opts.headers, this.s.impersonate) } : opts;
    return pool.dispatch(out, handler);
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const done = Promise.all([...this.pools.values()].map((p) => p.close())).then(() => undefined);
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const err = typeof a === "function" ? null : (a ?? null);
    const callback = typeof a === "function" ? a : b;
    const done = Promise.all([...this.pools.values()].map((p) => p.destroy(err))).then(() => undefined);
    if (callback) {
      void done.then(callback);
      return;
    }
    return done;
  }
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The credentials of one ApiClient. */
export class CredentialSource {
  readonly dispatcher: CredentialDispatcher;
  private readonly file: FileTokenSource | undefined;
  private readonly exec: ExecAuthenticator | undefined;

  constructor(readonly target: Target) {
    const c = target.credentials;
    const hasToken = Boolean(c.token || c.tokenFile);
    this.file = !c.token && !c.basic && c.tokenFile ? fileTokenSource(c.tokenFile) : undefined;
    this.exec = c.exec && !hasToken && !c.basic && !c.clientCert && !c.clientKey ? execAuthenticator(c.exec) : undefined;
    const exec = this.exec;
    this.dispatcher = new CredentialDispatcher({
      url: target.url,
      ca: c.ca,
      insecureSkipTlsVerify: c.insecureSkipTlsVerify,
      tlsServerName: c.tlsServerName,
      proxyUrl: c.proxyUrl,
      impersonate: c.impersonate,
      clientCertificate: () => {
        if (c.clientCert || c.clientKey) return { cert: c.clientCert, key: c.clientKey };
        const now = exec?.current;
        return now?.cert ? { cert: now.cert, key: now.key } : undefined;
      },
      ...(exec
        ? {
            onUnauthorized: (authorization: string | undefined) => {
              const used = exec.current;
              if (used && authorization === (used.token ? `Bearer ${used.token}` : undefined)) exec.unauthorized(used);
            },
          }
        : {}),
    });
  }

  /** The Authorization header for the next request ({} when the target gets none). */
  async headers(): Promise<Record<string, string>> {
    const c = this.target.credentials;
    if (c.token) return bearer(c.token);
    if (c.basic) return { authorization: `Basic ${Buffer.from(`${c.basic.username}:${c.basic.password}`).toString("base64")}` };
    if (this.file) {
      const t = this.file.token();
      return t ? bearer(t) : {};
    }
    if (c.oidc) return bearer(oidcToken(c.oidc));
    if (this.exec) {
      const creds = await this.exec.credentials();
      return creds.token ? bearer(creds.token) : {};
    }
    return {};
  }
}

/**
 * A streaming reader of a JSON watch response: one `{"type","object"}` document per line.
 * Events are queued as they arrive so a suite can act (write) and then read what the watch
 * saw, with a timeout instead of a hang when the target sends nothing.
 */
import type { Dispatcher } from "undici";
import { isStatus } from "../wire/status.js";
import { ApiError, describeTransportError, isTransportError, UnreachableError } from "./errors.js";
import { recordExchange } from "./exchanges.js";
import { transportFailed } from "./health.js";
import type { KubeObject, WatchEvent } from "./objects.js";
import { buildQuery, type Query } from "./query.js";

export class WatchTimeout extends Error {}
export class WatchProtocolError extends Error {}

const WATCH_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

export interface WatchStream<T extends KubeObject = KubeObject> {
  readonly contentType: string;
  readonly headers: Record<string, string>;
  /** The next event; rejects with WatchTimeout after timeoutMs, or with the reason the stream failed. Resolves undefined when the stream ended. */
  next(timeoutMs?: number): Promise<WatchEvent<T> | undefined>;
  /**
   * The next event, or undefined when none arrived within timeoutMs or the stream ended (see
   * `ended`). Unlike a caught `next`, a broken stream (a frame that is not a watch event, a
   * transport failure) still throws: quiet is not the same as wrong.
   */
  nextOrIdle(timeoutMs: number): Promise<WatchEvent<T> | undefined>;
  /** Reads until `count` events arrived (ignores nothing). */
  take(count: number, timeoutMs?: number): Promise<WatchEvent<T>[]>;
  /** Events that arrived and were not yet read, without waiting. */
  drain(): WatchEvent<T>[];
  /** True once the server closed the stream. */
  readonly ended: boolean;
  close(): void;
}

/** Splits a watch response body into decoded watch-event documents. */
export interface FrameDecoder {
  push(chunk: Uint8Array): unknown[];
  /** Whatever the stream left when it ended. */
  end(): unknown[];
}

/** JSON watch framing: one compact document per line (wire-facts §2). */
export class JsonLineDecoder implements FrameDecoder {
  private readonly text = new TextDecoder();
  private buf = "";

  push(chunk: Uint8Array): unknown[] {
    this.buf += this.text.decode(chunk, { stream: true });
    const out: unknown[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf("\n")) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.trim() !== "") out.push(JsonLineDecoder.parse(line));
    }
    return out;
  }

  end(): unknown[] {
    const rest = this.buf + this.text.decode();
    this.buf = "";
    return rest.trim() === "" ? [] : [JsonLineDecoder.parse(rest)];
  }

  private static parse(line: string): unknown {
    try {
      return JSON.parse(line);
    } catch {
      throw new WatchProtocolError(`watch frame is not JSON: ${line.slice(0, 200)}`);
    }
  }
}

export interface WatchOptions {
  accept?: string;
  /** Picks the framing from the response's Content-Type; JSON lines when absent. */
  decoderFor?: (contentType: string) => FrameDecoder;
}

/** What a watch needs of the client; ApiClient has it (structural, so this module need not import the client that opens watches). */
export interface WatchTransport {
  readonly userAgent: string;
  readonly target: { readonly url: string };
  authHeaders(): Promise<Record<string, string>>;
  openStream(path: string, query: Query, headers: Record<string, string>, signal: AbortSignal): Promise<Dispatcher.ResponseData>;
}

export async function openWatch<T extends KubeObject>(client: WatchTransport, path: string, query: Query, opts: WatchOptions = {}): Promise<WatchStream<T>> {
  const abort = new AbortController();
  // The run's load manners apply to opening the watch; the request timeout covers its headers only.
  const res: Dispatcher.ResponseData = await client.openStream(
    path,
    query,
    { accept: opts.accept ?? "application/json", "user-agent": client.userAgent, ...(await client.authHeaders()) },
    abort.signal,
  );
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  // A refused watch's body is read first, so its record carries the Status; an accepted one records its opening.
  const text = res.statusCode === 200 ? undefined : await res.body.text();
  recordExchange({ method: "GET", path: `${path}${buildQuery(query)}`, status: res.statusCode, headers, text, watch: true });
  if (text !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    throw new ApiError("GET", path, res.statusCode, isStatus(json) ? json : undefined, text);
  }

  const queue: WatchEvent<T>[] = [];
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const decoder = opts.decoderFor ? opts.decoderFor(headers["content-type"] ?? "") : new JsonLineDecoder();

  void (async () => {
    const accept = (doc: unknown): void => {
      const ev = doc as { type?: unknown; object?: unknown };
      if (typeof ev.type !== "string" || !WATCH_TYPES.has(ev.type) || typeof ev.object !== "object" || ev.object === null) {
        throw new WatchProtocolError(`watch frame is not a watch event: ${JSON.stringify(doc).slice(0, 200)}`);
      }
      queue.push(ev as WatchEvent<T>);
    };
    try {
      for await (const chunk of res.body) {
        for (const doc of decoder.push(chunk as Uint8Array)) accept(doc);
        notify();
      }
      for (const doc of decoder.end()) accept(doc);
    } catch (e) {
      if (abort.signal.aborted) return;
      if (!isTransportError(e)) failure = e instanceof Error ? e : new Error(String(e));
      else {
        // The connection broke under the stream: the target's trouble, not a wrong answer.
        const message = `cannot reach ${client.target.url}: ${describeTransportError(e)} (the watch of ${path} broke)`;
        transportFailed(message);
        failure = new UnreachableError(message);
      }
    } finally {
      ended = true;
      notify();
    }
  })();

  const next = async (timeoutMs = 5_000): Promise<WatchEvent<T> | undefined> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ev = queue.shift();
      if (ev) return ev;
      if (failure) throw failure;
      if (ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new WatchTimeout(`no watch event within ${timeoutMs} ms on ${path}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };

  return {
    contentType: headers["content-type"] ?? "",
    headers,
    next,
    async nextOrIdle(timeoutMs) {
      try {
        return await next(timeoutMs);
      } catch (e) {
        if (e instanceof WatchTimeout) return undefined;
        throw e;
      }
    },
    async take(count, timeoutMs = 5_000) {
      const out: WatchEvent<T>[] = [];
      const deadline = Date.now() + timeoutMs;
      while (out.length < count) {
        const ev = await next(Math.max(1, deadline - Date.now()));
        if (!ev) throw new WatchProtocolError(`watch ended after ${out.length} of ${count} events on ${path}`);
        out.push(ev);
      }
      return out;
    },
    drain: () => queue.splice(0, queue.length),
    get ended() {
      return ended;
    },
    close() {
      abort.abort();
    },
  };
}

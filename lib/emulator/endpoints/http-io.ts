/** Reading request bodies and writing responses in the server's byte form (streamed, gzipped when asked). */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline, type Writable } from "node:stream";
import { createGzip } from "node:zlib";
import type { Status } from "../../wire/status.js";
import { requestEntityTooLarge } from "../apimachinery/api-errors.js";
import { compactJson, prettyJson } from "../apimachinery/json.js";

/** The apiserver's request body limit (3 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** How long a connection closed with a request body unread stays open, discarding it (Go's rstAvoidanceDelay). */
const LINGER_MS = 500;

/**
 * Closing a socket with unread input makes the kernel reset the connection, and a client still
 * sending may lose the answer. Like Go's closeWriteAndWait, the write side is closed first and
 * the socket dropped a little later (what arrives meanwhile is discarded); Node calls
 * destroySoon when a `Connection: close` response is done.
 */
export function lingerOnClose(req: IncomingMessage): void {
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/**
 * Called as a request arrives (server.ts). A response that starts while the request's body is
 * still unread (refused before reading it, or past the body limit) says `Connection: close` and
 * the connection closes after it, as Go's server does when more than 256 KiB of body remain
 * (here: any), instead of reading the rest, which may never end, to reach a next request.
 */
export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  // A request without a body is not complete yet while the 'request' event runs (the parser
  // marks it after), so an answer written at once (the in-flight limit's 429) must not count it.
  const length = req.headers["content-length"];
  const hasBody = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  if (!hasBody) return;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    if (!req.complete && !this.headersSent) {
      this.setHeader("Connection", "close");
      lingerOnClose(req);
    }
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}

/**
 * Reads the whole body. A body over the limit is answered with 413 as soon as the limit is
 * passed, without reading the rest (chunked bodies have no length to check first, and may not
 * end); the connection then closes (closeIfBodyUnread).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData);
      req.off("end", onEnd);
      req.pause();
      reject(requestEntityTooLarge(limit));
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", reject);
  });
}

export interface WriteOptions {
  pretty: boolean;
  headers?: Record<string, string | string[]>;
}

/** Go's status texts where Node's differ (net/http StatusText): the reason phrase of the status line. */
const GO_STATUS_TEXT: Readonly<Record<number, string>> = { 413: "Request Entity Too Large" };

function statusLineText(code: number): string | undefined {
  return GO_STATUS_TEXT[code];
}

export function writeJson(res: ServerResponse, code: number, body: unknown, options: WriteOptions): void {
  const text = options.pretty ? prettyJson(body) : compactJson(body);
  const bytes = Buffer.from(text, "utf8");
  const reason = statusLineText(code);
  if (reason !== undefined) res.statusMessage = reason;
  res.writeHead(code, {
    ...options.headers,
    "Cache-Control": "no-cache, private",
    "Content-Type": "application/json",
    "Content-Length": String(bytes.length),
  });
  res.end(bytes);
}

/**
 * A body this size or smaller goes out in one piece with Content-Length, like writeJson (and
 * like Go's net/http, which only switches to chunked encoding once its buffer overflows).
 */
const STREAM_THRESHOLD_BYTES = 64 * 1024;
/** Pieces are joined into chunks of about this size: one 1 KB chunk per item costs more in framing than in data. */
const STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * The real server gzips a response only when its body is larger than this
 * (apiserver responsewriters defaultGzipThresholdBytes, 128 KiB): small bodies are not worth it.
 */
const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** gzip level 1 (best speed), the server's defaultGzipContentEncodingLevel. */
const GZIP_LEVEL = 1;

export type BodyPiece = string | Uint8Array;

export interface BodyOptions {
  readonly contentType: string;
  readonly headers?: Record<string, string | string[]>;
  /** Compress when the body exceeds GZIP_THRESHOLD_BYTES (the client asked and the gate is on). */
  readonly gzip: boolean;
}

const byteLength = (p: BodyPiece): number => (typeof p === "string" ? Buffer.byteLength(p) : p.length);

/** The pieces as one chunk: a string when they all are (written as UTF-8), else bytes. */
function joinPieces(pieces: readonly BodyPiece[]): string | Uint8Array {
  // A piece that fills a chunk on its own (a protobuf list's) goes out as it is, uncopied.
  if (pieces.length === 1 && pieces[0] instanceof Uint8Array) return pieces[0];
  if (pieces.every((p): p is string => typeof p === "string")) return pieces.join("");
  return Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p)));
}

/** Resolves when the stream can take more (true) or has closed (false). */
function writable(stream: Writable): Promise<boolean> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (ok: boolean): void => {
      stream.off("drain", onDrain);
      stream.off("close", onClose);
      resolve(ok);
    };
    const onDrain = (): void => finish(true);
    const onClose = (): void => finish(false);
    stream.on("drain", onDrain);
    stream.on("close", onClose);
  });
}

function nextTurn(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => setImmediate(() => resolve(!res.destroyed)));
}

/**
 * Writes a body given as pieces (see collectionJsonPieces, or one Buffer for a single object).
 * Small bodies go out in one write with Content-Length. Larger ones are streamed with chunked
 * encoding, waiting for 'drain' whenever the buffer is full, so the body is never held whole
 * in memory; the pieces are pulled lazily, so work per item happens only as fast as the client
 * reads, and a client that goes away stops the iteration.
 *
 * With gzip asked for, up to GZIP_THRESHOLD_BYTES are gathered first: a body that ends within
 * them goes out plain; a longer one is piped through a gzip stream (Content-Encoding: gzip,
 * Vary: Accept-Encoding), still chunk by chunk with the same backpressure, the socket's
 * pressure reaching us through the gzip stream's own buffer.
 */
export async function writeBody(res: ServerResponse, code: number, pieces: Iterable<BodyPiece>, options: BodyOptions): Promise<void> {
  const threshold = options.gzip ? GZIP_THRESHOLD_BYTES : STREAM_THRESHOLD_BYTES;
  // One object's bytes (most answers): written as they are, with no copy or iteration.
  if (Array.isArray(pieces) && pieces.length === 1) {
    const only = (pieces as BodyPiece[])[0];
    if (only instanceof Uint8Array && only.length <= threshold) {
      res.writeHead(code, {
        ...options.headers,
        "Cache-Control": "no-cache, private",
        "Content-Type": options.contentType,
        "Content-Length": String(only.length),
      });
      res.end(only);
      return;
    }
  }
  const headers: Record<string, string | string[]> = { ...options.headers, "Cache-Control": "no-cache, private", "Content-Type": options.contentType };
  const iterator = pieces[Symbol.iterator]();
  let pending: BodyPiece[] = [];
  let size = 0;
  for (let step = iterator.next(); ; step = iterator.next()) {
    if (step.done) {
      const chunk = joinPieces(pending);
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      res.writeHead(code, { ...headers, "Content-Length": String(bytes.length) });
      res.end(bytes);
      return;
    }
    pending.push(step.value);
    size += byteLength(step.value);
    if (size > threshold) break;
  }
  let sink: Writable = res;
  if (options.gzip) {
    res.writeHead(code, { ...headers, "Content-Encoding": "gzip", Vary: "Accept-Encoding" });
    const gzip = createGzip({ level: GZIP_LEVEL });
    // pipeline: a client going away destroys the gzip stream too, and its errors end here.
    pipeline(gzip, res, () => {});
    sink = gzip;
  } else {
    res.writeHead(code, headers);
  }
  let more = true;
  while (more) {
    if (size < STREAM_CHUNK_BYTES) {
      for (let step = iterator.next(); ; step = iterator.next()) {
        if (step.done) {
          more = false;
          break;
        }
        pending.push(step.value);
        size += byteLength(step.value);
        if (size >= STREAM_CHUNK_BYTES) break;
      }
    }
    if (res.destroyed || res.writableEnded || sink.destroyed) {
      iterator.return?.();
      sink.destroy();
      return;
    }
    const chunk = joinPieces(pending);
    pending = [];
    size = 0;
    if (!more) {
      sink.end(chunk);
      return;
    }
    // Wait for 'drain' when the buffer is full, and yield to the event loop after every chunk
    // either way: on loopback the kernel takes each write at once and 'drain' comes on
    // process.nextTick, so awaiting it alone never leaves the current task, and one large
    // list would hold up every other request and watch until it was done.
    const open = (sink.write(chunk) || (await writable(sink))) && (await nextTurn(res));
    if (!open) {
      iterator.return?.();
      sink.destroy();
      return;
    }
  }
}

/** Writes a Status; a retryAfterSeconds in its details also goes out as Retry-After. */
export function writeStatus(res: ServerResponse, status: Status, options: WriteOptions): void {
  const retry = status.details?.retryAfterSeconds;
  const headers = retry ? { ...options.headers, "Retry-After": String(retry) } : options.headers;
  writeJson(res, status.code ?? 200, status, { ...options, headers });
}

export function writeText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    "Cache-Control": "no-cache, private",
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

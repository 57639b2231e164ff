/** Reading request bodies and writing JSON responses in the server's byte form. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Status } from "../wire/status.js";
import { requestEntityTooLarge } from "./api-errors.js";
import { compactJson, prettyJson } from "./json.js";

/** The apiserver's request body limit (3 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body; a body over the limit is drained and answered with 413. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on("end", () => (tooLarge ? reject(requestEntityTooLarge(limit)) : resolve(Buffer.concat(chunks))));
    req.on("error", reject);
  });
}

export interface WriteOptions {
  pretty: boolean;
  headers?: Record<string, string | string[]>;
}

export function writeJson(res: ServerResponse, code: number, body: unknown, options: WriteOptions): void {
  const text = options.pretty ? prettyJson(body) : compactJson(body);
  const bytes = Buffer.from(text, "utf8");
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

/** Resolves when the response can take more (true) or has closed (false). */
function writable(res: ServerResponse): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (ok: boolean): void => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = (): void => finish(true);
    const onClose = (): void => finish(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

function nextTurn(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => setImmediate(() => resolve(!res.destroyed)));
}

/**
 * Writes a JSON body given as text pieces (see collectionJsonPieces). Small bodies are sent
 * exactly as writeJson sends them; larger ones are streamed with chunked encoding, waiting for
 * 'drain' whenever the socket buffer is full, so the body is never held whole in memory. The
 * pieces are pulled lazily: work per item happens only as fast as the client reads. A client
 * that goes away stops the iteration.
 */
export async function writeJsonPieces(res: ServerResponse, code: number, pieces: Iterable<string>, options: WriteOptions): Promise<void> {
  const headers = { ...options.headers, "Cache-Control": "no-cache, private", "Content-Type": "application/json" };
  const iterator = pieces[Symbol.iterator]();
  let pending: string[] = [];
  let size = 0;
  for (let step = iterator.next(); ; step = iterator.next()) {
    if (step.done) {
      const bytes = Buffer.from(pending.join(""), "utf8");
      res.writeHead(code, { ...headers, "Content-Length": String(bytes.length) });
      res.end(bytes);
      return;
    }
    pending.push(step.value);
    size += step.value.length;
    if (size > STREAM_THRESHOLD_BYTES) break;
  }
  res.writeHead(code, headers);
  let more = true;
  while (more) {
    for (let step = iterator.next(); ; step = iterator.next()) {
      if (step.done) {
        more = false;
        break;
      }
      pending.push(step.value);
      size += step.value.length;
      if (size >= STREAM_CHUNK_BYTES) break;
    }
    if (res.destroyed || res.writableEnded) {
      iterator.return?.();
      return;
    }
    const chunk = pending.join("");
    pending = [];
    size = 0;
    if (!more) {
      res.end(chunk);
      return;
    }
    // Wait for 'drain' when the buffer is full, and yield to the event loop after every chunk
    // either way: on loopback the kernel takes each write at once and 'drain' comes on
    // process.nextTick, so awaiting it alone never leaves the current task, and one large
    // list would hold up every other request and watch until it was done.
    const open = (res.write(chunk) || (await writable(res))) && (await nextTurn(res));
    if (!open) {
      iterator.return?.();
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

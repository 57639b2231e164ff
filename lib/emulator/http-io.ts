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

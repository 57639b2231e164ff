/**
 * List continue tokens (wire-facts §9): base64url without padding of the compact JSON
 * {"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<last key relative to the list prefix>\u0000"}.
 * rv -1 means "continue from start at the latest revision" (handed out with a 410).
 */
import { posix } from "node:path";

const VERSION = "meta.k8s.io/v1";

export interface ContinuePosition {
  /** The list revision the first page was read at; -1 for "latest". */
  readonly rv: number;
  /** Absolute store key to resume at (inclusive). */
  readonly startKey: string;
}

export class ContinueTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContinueTokenError";
  }
}

/** Token that resumes right after lastKey (which lies under keyPrefix, a path ending in "/"). */
export function encodeContinue(lastKey: string, keyPrefix: string, rv: number): string {
  const start = `${lastKey.slice(keyPrefix.length)}\u0000`;
  const json = `{"v":${JSON.stringify(VERSION)},"rv":${rv},"start":${JSON.stringify(start)}}`;
  return Buffer.from(json, "utf8").toString("base64url");
}

const INVALID = "continue key is not valid";

export function decodeContinue(token: string, keyPrefix: string): ContinuePosition {
  const badChar = /[^A-Za-z0-9_-]/.exec(token);
  if (badChar || token.length % 4 === 1) {
    throw new ContinueTokenError(`${INVALID}: illegal base64 data at input byte ${badChar ? badChar.index : token.length - 1}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch (e) {
    throw new ContinueTokenError(`${INVALID}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ContinueTokenError(`${INVALID}: json: cannot unmarshal into continueToken`);
  }
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== VERSION) {
    throw new ContinueTokenError(`${INVALID} server does not recognize this encoded version ${JSON.stringify(String(v ?? ""))}`);
  }
  if (typeof rv !== "number" || !Number.isInteger(rv) || rv === 0) {
    throw new ContinueTokenError(`${INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  }
  if (typeof start !== "string" || start.length === 0) {
    throw new ContinueTokenError(`${INVALID}: encoded start key empty (version meta.k8s.io/v1)`);
  }
  // Path cleaning stops a token from reaching above the list's prefix.
  const key = start.startsWith("/") ? start : `/${start}`;
  if (posix.normalize(key) !== key || (key.length > 1 && key.endsWith("/"))) {
    throw new ContinueTokenError(`${INVALID}: ${start}`);
  }
  return { rv, startKey: keyPrefix + key.slice(1) };
}

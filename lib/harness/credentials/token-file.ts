/**
 * A bearer token read from a file and re-read while the run goes on, as client-go does for a
 * kubeconfig `tokenFile` and the in-cluster service-account token (wire-facts §14,
 * transport/token_source.go): a read is good for one minute less ten seconds of leeway; a
 * failed read or an empty file keeps the token read before (and is tried again on the next
 * request); before any good read, the token read when the configuration was loaded is used.
 * A 401 forces no re-read.
 */
import { readFileSync } from "node:fs";

export interface TokenFile {
  path: string;
  /** The token as read when the configuration was loaded (or the kubeconfig's `token` when both are given). */
  fallback?: string;
}

/** How long a read token is used before the file is read again: client-go's 1 min period less 10 s leeway. */
export const TOKEN_FILE_REREAD_MS = 50_000;

export class FileTokenSource {
  private cached: { token: string; readAt: number } | undefined;

  constructor(
    readonly file: TokenFile,
    private readonly now: () => number = Date.now,
    private readonly read: (path: string) => string = (p) => readFileSync(p, "utf8"),
  ) {}

  /** The current token, or undefined when the file never gave one and nothing was loaded before. */
  token(): string | undefined {
    const now = this.now();
    if (this.cached && now < this.cached.readAt + TOKEN_FILE_REREAD_MS) return this.cached.token;
    let fresh: string | undefined;
    try {
      fresh = this.read(this.file.path).trim();
    } catch {
      fresh = undefined;
    }
    if (fresh) {
      this.cached = { token: fresh, readAt: now };
      return fresh;
    }
    return this.cached?.token ?? this.file.fallback;
  }
}

/** One source per file and process, so that every client of a run shares the reads. */
const SOURCES = Symbol.for("tollgate.token-file-sources");
const shared = globalThis as { [SOURCES]?: Map<string, FileTokenSource> };

export function fileTokenSource(file: TokenFile): FileTokenSource {
  const map = (shared[SOURCES] ??= new Map());
  const key = JSON.stringify([file.path, file.fallback ?? ""]);
  let s = map.get(key);
  if (!s) {
    s = new FileTokenSource(file);
    map.set(key, s);
  }
  return s;
}

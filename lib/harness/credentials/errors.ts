/**
 * Errors of the credential machinery. Every message is one line and never carries a secret:
 * no token, key, password or plugin output, only names, paths and client-go's wording.
 */

/** A credential could not be had for a request (a plugin failed, a token expired); `tollgate run` exits 2 with it. */
export class CredentialError extends Error {}

/** Go's words for a failed file operation (`open /p: no such file or directory`), as client-go prints them. */
export function goFileError(op: string, path: string, e: unknown): string {
  const code = (e as { code?: string } | undefined)?.code;
  const words: Record<string, string> = {
    ENOENT: "no such file or directory",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EISDIR: "is a directory",
    ENOTDIR: "not a directory",
  };
  if (code === "EISDIR") return `read ${path}: is a directory`;
  return `${op} ${path}: ${(code && words[code]) ?? (e instanceof Error ? e.message : String(e))}`;
}

/** One line: newlines and runs of blanks collapsed, at most `max` characters. */
export function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A URL with any user:password removed, for messages (a proxy URL may carry credentials). */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (!u.username && !u.password) return raw;
    u.username = "";
    u.password = "";
    return `${u.toString()} (credentials hidden)`;
  } catch {
    return raw.replace(/\/\/[^/@]*@/, "//");
  }
}

/**
 * The parts of Go's net/url.Parse that webhook URL validation reads: scheme (lowercased), host,
 * user information, fragment and raw query, and Parse's common errors (`parse "<url>": missing
 * protocol scheme`, `invalid port ":x" after host`, `net/url: invalid control character in
 * URL`, `first path segment in URL cannot contain colon`). Percent-decoding errors of the host
 * and user parts are not reproduced (the text is kept as written).
 */

export interface GoUrl {
  readonly scheme: string;
  readonly host: string;
  /** Userinfo.String() when the authority had an `@`, else undefined. */
  readonly user: string | undefined;
  readonly path: string;
  readonly rawQuery: string;
  readonly fragment: string;
}

export type GoUrlResult = { readonly ok: true; readonly url: GoUrl } | { readonly ok: false; readonly error: string };

const fail = (raw: string, reason: string): GoUrlResult => ({ ok: false, error: `parse ${JSON.stringify(raw)}: ${reason}` });

/** getScheme: letters, then letters, digits, '+', '-', '.', up to a ':'. */
function splitScheme(raw: string): { scheme: string; rest: string } | "missing" {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? "";
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") return i === 0 ? "missing" : { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

export function parseGoUrl(raw: string): GoUrlResult {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail(raw, "net/url: invalid control character in URL");
  const hash = raw.indexOf("#");
  const withoutFragment = hash < 0 ? raw : raw.slice(0, hash);
  const fragment = hash < 0 ? "" : raw.slice(hash + 1);
  const split = splitScheme(withoutFragment);
  if (split === "missing") return fail(raw, "missing protocol scheme");
  const scheme = split.scheme.toLowerCase();
  let rest = split.rest;
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith("/")) {
    if (scheme !== "") return { ok: true, url: { scheme, host: "", user: undefined, path: "", rawQuery, fragment } };
    const colon = rest.indexOf(":");
    const slash = rest.indexOf("/");
    if (colon >= 0 && (slash < 0 || colon < slash)) return fail(raw, "first path segment in URL cannot contain colon");
  }
  let host = "";
  let user: string | undefined;
  if (rest.startsWith("//")) {
    const afterSlashes = rest.slice(2);
    const end = afterSlashes.indexOf("/");
    const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
    rest = end < 0 ? "" : afterSlashes.slice(end);
    const at = authority.lastIndexOf("@");
    host = at < 0 ? authority : authority.slice(at + 1);
    if (at >= 0) user = authority.slice(0, at);
    const portError = checkPort(host);
    if (portError) return fail(raw, portError);
  }
  return { ok: true, url: { scheme, host, user, path: rest, rawQuery, fragment } };
}

/** parseHost's port check: after the last ':' (outside an IPv6 literal) only digits. */
function checkPort(host: string): string | undefined {
  let portPart: string | undefined;
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) return "missing ']' in host";
    portPart = host.slice(close + 1);
    if (portPart !== "" && !portPart.startsWith(":")) return `invalid port ${JSON.stringify(portPart)} after host`;
  } else {
    const colon = host.lastIndexOf(":");
    if (colon >= 0) portPart = host.slice(colon);
  }
  if (portPart && !/^:[0-9]*$/.test(portPart)) return `invalid port ${JSON.stringify(portPart)} after host`;
  return undefined;
}

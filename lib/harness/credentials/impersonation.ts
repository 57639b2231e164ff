/**
 * Impersonation from a kubeconfig user (`as`, `as-uid`, `as-groups`, `as-user-extra`) as the
 * headers client-go sends (transport/round_trippers.go; the server side is wire-facts §15):
 * Impersonate-User, Impersonate-Uid, one Impersonate-Group per group, and one
 * Impersonate-Extra-<key> per value with the key percent-encoded where a header name may not
 * hold the byte. A request that already names an Impersonate-User is left alone.
 */

export interface Impersonation {
  user: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Bytes a header name may hold (RFC 7230 tchar); '%' is escaped too, so that decoding is unambiguous. */
function legalHeaderByte(b: number): boolean {
  if (b >= 0x30 && b <= 0x39) return true; // 0-9
  if (b >= 0x41 && b <= 0x5a) return true; // A-Z
  if (b >= 0x61 && b <= 0x7a) return true; // a-z
  return "!#$&'*+-.^_`|~".includes(String.fromCharCode(b));
}

/** client-go's headerKeyEscape: every byte of the UTF-8 key that is no header-name byte becomes %XX. */
function headerKeyEscape(key: string): string {
  let out = "";
  for (const b of Buffer.from(key, "utf8")) {
    out += legalHeaderByte(b) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The headers as name → values (a name with several values is sent as several header lines). */
export function impersonationHeaders(imp: Impersonation): [string, string[]][] {
  const out: [string, string[]][] = [["impersonate-user", [imp.user]]];
  if (imp.uid) out.push(["impersonate-uid", [imp.uid]]);
  if (imp.groups?.length) out.push(["impersonate-group", [...imp.groups]]);
  for (const [k, values] of Object.entries(imp.extra ?? {})) {
    if (values.length) out.push([`impersonate-extra-${headerKeyEscape(k)}`, [...values]]);
  }
  return out;
}

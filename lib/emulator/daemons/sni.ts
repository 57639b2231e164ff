/**
 * --tls-sni-cert-key on the emulated controller manager: which certificate a TLS client gets
 * for the server name it asks for. Each entry is a certificate and key, with explicit name
 * patterns or, without them, the names taken from the certificate. A name maps to one entry:
 * explicit patterns overwrite names taken from certificates, and among entries of the same
 * kind the earlier one wins. A client's name is looked up exactly (lower-cased) first, then
 * with its first label replaced by `*`; no match gets the default certificate.
 * Not emulated: a client that sends no server name gets the default certificate even when an
 * entry names the IP address it connected to.
 */
import type { X509Certificate } from "node:crypto";
import { createSecureContext, type SecureContext } from "node:tls";
import { extractedNames } from "../../daemons/sni.js";
import { parseSniCertKey } from "../../daemons/values/tls.js";
import { DaemonFileError, parseBundle, type ReadFile } from "./certificates.js";

export interface SniEntry {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
  /** Explicit patterns; empty: the certificate's own names. */
  readonly patterns: readonly string[];
}

/** The entries of the --tls-sni-cert-key values, in order, with their files read. */
export function sniEntries(values: readonly string[], readFile: ReadFile): SniEntry[] {
  return values.map((v) => {
    const p = parseSniCertKey(v);
    // The command-line check has already refused a malformed value.
    if (!p.ok) throw new DaemonFileError("controller manager", "--tls-sni-cert-key", v, p.error);
    const read = (path: string): string => {
      try {
        return readFile(path);
      } catch (e) {
        throw new DaemonFileError("controller manager", "--tls-sni-cert-key", path, e instanceof Error ? e.message : String(e));
      }
    };
    const cert = read(p.value.cert);
    try {
      parseBundle(cert);
    } catch (e) {
      throw new DaemonFileError("controller manager", "--tls-sni-cert-key", p.value.cert, e instanceof Error ? e.message : String(e));
    }
    return { certFile: p.value.cert, keyFile: p.value.key, cert, key: read(p.value.key), patterns: p.value.domains };
  });
}

/** Name → index of the entry that serves it. */
function sniNameMap(entries: readonly SniEntry[]): Map<string, number> {
  const byName = new Map<string, number>();
  // Later entries first, so that earlier ones overwrite them; explicit patterns last, over everything extracted.
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const e = entries[i] as SniEntry;
    if (e.patterns.length === 0) for (const n of extractedNames(parseBundle(e.cert)[0] as X509Certificate)) byName.set(n, i);
  }
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    for (const n of (entries[i] as SniEntry).patterns) byName.set(n, i);
  }
  return byName;
}

/** The entry index for a client's server name, or undefined for the default certificate. */
function sniLookup(byName: ReadonlyMap<string, number>, serverName: string): number | undefined {
  const name = serverName.toLowerCase();
  const exact = byName.get(name);
  if (exact !== undefined) return exact;
  const labels = name.split(".");
  // One label becomes `*` alone, as in Go's lookup.
  return byName.get(["*", ...labels.slice(1)].join("."));
}

/** Node's SNICallback over the entries; `ca` keeps the client-certificate request the same on every certificate. */
export function sniCallback(
  entries: readonly SniEntry[],
  ca: readonly string[],
  firstMatch = false,
): (name: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void {
  // Test-only: no precedence, the first entry that matches in any way.
  const byName = firstMatch ? firstMatchMap(entries) : sniNameMap(entries);
  const contexts = entries.map((e) => createSecureContext({ cert: e.cert, key: e.key, ...(ca.length > 0 ? { ca: [...ca] } : {}) }));
  return (name, cb) => {
    const i = sniLookup(byName, name);
    cb(null, i === undefined ? undefined : contexts[i]);
  };
}

/** The "sni-first-match" fault: every name goes to the first entry that has it, explicit or extracted. */
function firstMatchMap(entries: readonly SniEntry[]): Map<string, number> {
  const byName = new Map<string, number>();
  entries.forEach((e, i) => {
    const names = [...e.patterns, ...(e.patterns.length === 0 ? extractedNames(parseBundle(e.cert)[0] as X509Certificate) : [])];
    for (const n of names) if (!byName.has(n)) byName.set(n, i);
  });
  // A wildcard listed before an exact name wins for it too: point the exact names it covers at it.
  for (const [name, i] of byName) {
    const wildcard = ["*", ...name.split(".").slice(1)].join(".");
    const w = byName.get(wildcard);
    if (w !== undefined && w < i) byName.set(name, w);
  }
  return byName;
}

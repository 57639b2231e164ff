/**
 * What a controller manager started with --tls-sni-cert-key entries must serve for a server
 * name (doc3 "--tls-sni-cert-key": non-wildcard matches beat wildcard ones, explicit patterns
 * beat names extracted from the certificate). Pure: the caller reads the certificate files and
 * compares what a TLS handshake brought back. Written as a ranking of matches, not as the
 * name table a server builds, so that it checks the emulator's table independently.
 */
import { X509Certificate } from "node:crypto";

export interface SniCertificateEntry {
  /** PEM of the entry's certificate (the first one of the file is the served one). */
  readonly certPem: string;
  /** Explicit patterns after `:`; empty: the certificate's own names. */
  readonly patterns: readonly string[];
}

/**
 * The names an entry without explicit patterns is chosen for: the common name when it is a DNS
 * name (wildcards allowed) rather than an IP address, and the DNS subject alternative names.
 * IP addresses in the certificate do not count, since SNI carries no IP addresses.
 */
export function extractedNames(cert: X509Certificate): string[] {
  const names: string[] = [];
  const cn = (cert.subject.split("\n").find((l) => l.startsWith("CN=")) ?? "CN=").slice(3);
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  const bare = cn.startsWith("*.") ? cn.slice(2) : cn;
  const isIp = /^[0-9.]+$/.test(cn) || cn.includes(":");
  if (cn === "*" || (!isIp && bare !== "" && bare.length <= 253 && bare.split(".").every((l) => label.test(l)))) names.push(cn);
  for (const part of (cert.subjectAltName ?? "").split(/,\s*/)) if (part.startsWith("DNS:")) names.push(part.slice(4));
  return names;
}

/** A name to ask for, the entry expected to answer (undefined: the default certificate), and what the answer shows. */
export interface SniExpectation {
  readonly serverName: string;
  readonly entry: number | undefined;
  /** The precedence this name exercises: a wildcard entry also matches it, or an extracted name also matches it. */
  readonly shows: readonly ("non-wildcard-over-wildcard" | "explicit-over-extracted")[];
}

type Kind = "explicit-exact" | "extracted-exact" | "explicit-wildcard" | "extracted-wildcard";
const RANK: readonly Kind[] = ["explicit-exact", "extracted-exact", "explicit-wildcard", "extracted-wildcard"];

/** Every entry matching `name`, by kind, in entry order. */
function matches(entries: readonly string[][], explicit: readonly boolean[], name: string): { kind: Kind; entry: number }[] {
  const out: { kind: Kind; entry: number }[] = [];
  const labels = name.split(".");
  const wildcard = ["*", ...labels.slice(1)].join(".");
  entries.forEach((names, i) => {
    const how = explicit[i] ? "explicit" : "extracted";
    if (names.includes(name)) out.push({ kind: `${how}-exact`, entry: i });
    else if (names.includes(wildcard)) out.push({ kind: `${how}-wildcard`, entry: i });
  });
  return out;
}

/** Names to ask a controller manager with these entries for, each with the entry that must answer. */
export function sniExpectations(entries: readonly SniCertificateEntry[]): SniExpectation[] {
  const names = entries.map((e) => (e.patterns.length > 0 ? [...e.patterns] : extractedNames(new X509Certificate(e.certPem))));
  const explicit = entries.map((e) => e.patterns.length > 0);
  const all = [...new Set(names.flat())];
  // A wildcard pattern is asked for with a name of its own that no entry names exactly.
  const asked = new Set<string>();
  for (const n of all) {
    if (!n.startsWith("*")) asked.add(n.toLowerCase());
    else {
      const probe = n === "*" ? "tollgate-sni-probe" : `tollgate-sni-probe${n.slice(1)}`;
      if (!all.includes(probe)) asked.add(probe.toLowerCase());
    }
  }
  return [...asked].map((serverName) => {
    const found = matches(names, explicit, serverName);
    const best = RANK.map((k) => found.find((m) => m.kind === k)).find((m) => m !== undefined);
    const shows: SniExpectation["shows"][number][] = [];
    if (best) {
      const others = found.filter((m) => m.entry !== best.entry);
      if (best.kind.endsWith("exact") && others.some((m) => m.kind.endsWith("wildcard"))) shows.push("non-wildcard-over-wildcard");
      if (best.kind.startsWith("explicit") && others.some((m) => m.kind.startsWith("extracted"))) shows.push("explicit-over-extracted");
    }
    return { serverName, entry: best?.entry, shows };
  });
}

/**
 * Certificates as the emulated daemons use them: CA bundles read from the files their command
 * lines name, and client certificates checked against such a bundle.
 */
import { X509Certificate } from "node:crypto";

/** A file a daemon's command line names that cannot be read or holds no usable certificate; a real daemon would not start either. */
export class DaemonFileError extends Error {
  constructor(daemon: string, option: string, path: string, why: string) {
    super(`emulated ${daemon} cannot use ${option} ${path}: ${why}`);
    this.name = "DaemonFileError";
  }
}

/** Reads a file named on a command line (injectable so that tests need no files). */
export type ReadFile = (path: string) => string;

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; throws on a bundle without one or with one that does not parse. */
export function parseBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new Error("no PEM certificate in it");
  return blocks.map((b) => new X509Certificate(b));
}

/** The values of one attribute of a subject, in Node's one-attribute-a-line form (`CN=x\nO=y`). */
export function subjectValues(cert: X509Certificate, attribute: string): string[] {
  const prefix = `${attribute}=`;
  return cert.subject
    .split("\n")
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
}

export const commonName = (cert: X509Certificate): string => subjectValues(cert, "CN")[0] ?? "";

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const ANY_USAGE = "2.5.29.37.0";

/**
 * Whether `leaf` is a client certificate issued by one of `cas`: signed by it, within both
 * validity periods, and usable for client authentication (no extended key usage at all counts
 * as any). Only leaves issued directly by a bundle certificate: intermediates are not followed.
 */
export function issuedBy(leaf: X509Certificate, cas: readonly X509Certificate[], now = new Date()): boolean {
  const current = (c: X509Certificate): boolean => new Date(c.validFrom) <= now && now <= new Date(c.validTo);
  const usages = leaf.keyUsage;
  if (usages !== undefined && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_USAGE)) return false;
  if (!current(leaf)) return false;
  return cas.some((ca) => current(ca) && leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
}

/** The CA bundle of a file a command line names; DaemonFileError when it cannot be read or holds no certificate. */
export function readBundle(daemon: string, option: string, path: string, readFile: ReadFile): X509Certificate[] {
  try {
    return parseBundle(readFile(path));
  } catch (e) {
    throw new DaemonFileError(daemon, option, path, e instanceof Error ? e.message : String(e));
  }
}

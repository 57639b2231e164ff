/**
 * The serving certificate of the emulator's HTTPS front: a CA and a certificate it issues for
 * the names a client dials, made at start (kube-apiserver likewise makes a self-signed pair when
 * given none), or a pair read from files (its --tls-cert-file / --tls-private-key-file).
 * The generated ones are made in tls-certificates.ts, loaded only then.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";

/** What the HTTPS server serves with, and what its clients trust. */
export interface ServingTls {
  /** PEM: the serving certificate (then its chain, if any). */
  cert: string;
  /** PEM: its private key. */
  key: string;
  /** PEM: the certificate authority a client should trust (for a kubeconfig's certificate-authority-data). */
  ca: string;
}

/** The names every generated certificate carries, then `host` when it is another. */
export function servingHosts(host: string | undefined): string[] {
  const hosts = ["localhost", "127.0.0.1", "::1"];
  const h = host?.replace(/^\[(.*)\]$/, "$1");
  // An unspecified address is no name a client dials.
  if (h && !hosts.includes(h) && h !== "0.0.0.0" && h !== "::") hosts.push(h);
  return hosts;
}

/**
 * A fresh CA (CA:TRUE, keyCertSign) and a serving certificate it issues (serverAuth, the hosts
 * as subject alternative names), both ECDSA P-256 and valid a year.
 */
export async function generateServingTls(hosts: readonly string[], now = new Date()): Promise<ServingTls> {
  return (await import("./tls-certificates.js")).makeServingTls(hosts, now);
}

/** A problem with a certificate or key file; its message is one line, fit for the command line. */
export class TlsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TlsFileError";
  }
}

/**
 * A pair given as PEM text, checked as Go's tls.X509KeyPair checks it: a certificate that
 * parses, a key that parses, and the two matching. The CA clients trust is the last certificate
 * of the file (the pair's own when it holds one).
 */
export function servingTlsFromPem(cert: string, key: string, certFile: string, keyFile: string): ServingTls {
  const blocks = cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new TlsFileError(`--tls-cert-file ${certFile}: no PEM certificate in it`);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(blocks[0] as string);
  } catch {
    throw new TlsFileError(`--tls-cert-file ${certFile}: the certificate does not parse`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsFileError(`--tls-private-key-file ${keyFile}: no private key that parses`);
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new TlsFileError(`--tls-private-key-file ${keyFile} does not match the certificate of ${certFile}`);
  return { cert, key, ca: `${blocks[blocks.length - 1] as string}\n` };
}

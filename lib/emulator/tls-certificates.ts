/**
 * The certificates `generateServingTls` makes (tls.ts), in a module of their own: pkijs and
 * asn1js take about 0.1 s to load, which only a start with a generated certificate needs.
 *
 * Node can parse X.509 but not write it, so the certificates are built with pkijs (and asn1js,
 * its ASN.1 layer) on Node's WebCrypto: a maintained library of few dependencies and no global
 * polyfill (@peculiar/x509 needs reflect-metadata installed on the global Reflect).
 */
import { randomBytes, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;
const DAY_MS = 86_400_000;
/** Backdated an hour, so a client whose clock is a little behind still accepts the certificate. */
const BACKDATE_MS = 3_600_000;

let engineSet = false;
function engine(): void {
  if (engineSet) return;
  pkijs.setEngine("node", new pkijs.CryptoEngine({ name: "node", crypto: webcrypto as unknown as Crypto }));
  engineSet = true;
}

const name = (cn: string): pkijs.RelativeDistinguishedNames =>
  new pkijs.RelativeDistinguishedNames({ typesAndValues: [new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: cn }) })] });

function extension(extnID: string, critical: boolean, value: { toSchema(): asn1js.AsnType } | asn1js.AsnType): pkijs.Extension {
  const schema = "toSchema" in value ? value.toSchema() : value;
  return new pkijs.Extension({ extnID, critical, extnValue: schema.toBER(false) });
}

/** The key usage bit string: digitalSignature is bit 0, keyCertSign bit 5 (RFC 5280 4.2.1.3). */
function keyUsage(ca: boolean): asn1js.BitString {
  const byte = ca ? 0x80 | 0x04 : 0x80;
  return new asn1js.BitString({ valueHex: new Uint8Array([byte]).buffer, unusedBits: ca ? 2 : 7 });
}

/** IPv4 or IPv6 text as the bytes of an iPAddress general name. */
function ipBytes(ip: string): ArrayBuffer {
  if (isIP(ip) === 4) return new Uint8Array(ip.split(".").map(Number)).buffer;
  // IPv6: expand "::" and any embedded IPv4 tail into 8 groups.
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const p = v4.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4.length)}${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = Number.parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  });
  return out.buffer;
}

function subjectAltNames(hosts: readonly string[]): pkijs.GeneralNames {
  return new pkijs.GeneralNames({
    names: hosts.map((h) =>
      isIP(h) ? new pkijs.GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: ipBytes(h) }) }) : new pkijs.GeneralName({ type: 2, value: h }),
    ),
  });
}

const pem = (label: string, der: ArrayBuffer): string =>
  `-----BEGIN ${label}-----\n${(
    Buffer.from(der)
      .toString("base64")
      .match(/.{1,64}/g) ?? []
  ).join("\n")}\n-----END ${label}-----\n`;

async function certificate(opts: {
  subject: string;
  issuer: string;
  publicKey: CryptoKey;
  signingKey: CryptoKey;
  ca: boolean;
  hosts: readonly string[];
  now: Date;
  days: number;
}): Promise<string> {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  // A positive 16-byte serial in minimal DER: the top bit cleared (no sign byte needed) and the
  // next one set, so the first byte is never 0x00 (a leading zero is padding OpenSSL refuses,
  // ERR_OSSL_ASN1_ILLEGAL_PADDING, which a random serial hit about once in 256 certificates).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] as number) & 0x7f) | 0x40;
  cert.serialNumber = new asn1js.Integer({ valueHex: new Uint8Array(serial).buffer });
  cert.subject = name(opts.subject);
  cert.issuer = name(opts.issuer);
  cert.notBefore.value = new Date(opts.now.getTime() - BACKDATE_MS);
  cert.notAfter.value = new Date(opts.now.getTime() + opts.days * DAY_MS);
  const extensions = [extension("2.5.29.19", true, new pkijs.BasicConstraints({ cA: opts.ca })), extension("2.5.29.15", true, keyUsage(opts.ca))];
  if (!opts.ca) {
    // extendedKeyUsage serverAuth, and the names a client dials.
    extensions.push(extension("2.5.29.37", false, new pkijs.ExtKeyUsage({ keyPurposes: ["1.3.6.1.5.5.7.3.1"] })));
    extensions.push(extension("2.5.29.17", false, subjectAltNames(opts.hosts)));
  }
  cert.extensions = extensions;
  await cert.subjectPublicKeyInfo.importKey(opts.publicKey);
  await cert.sign(opts.signingKey, "SHA-256");
  return pem("CERTIFICATE", cert.toSchema(true).toBER(false));
}

/**
 * A fresh CA (CA:TRUE, keyCertSign) and a serving certificate it issues (serverAuth, the hosts
 * as subject alternative names), both ECDSA P-256 and valid a year.
 */
export async function makeServingTls(hosts: readonly string[], now = new Date()): Promise<{ cert: string; key: string; ca: string }> {
  engine();
  const subtle = webcrypto.subtle;
  const caKeys = (await subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
  const leafKeys = (await subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as CryptoKeyPair;
  const stamp = Math.floor(now.getTime() / 1000);
  const caName = `tollgate-ca@${stamp}`;
  const ca = await certificate({
    subject: caName,
    issuer: caName,
    publicKey: caKeys.publicKey,
    signingKey: caKeys.privateKey,
    ca: true,
    hosts,
    now,
    days: 365,
  });
  const cert = await certificate({
    subject: `${hosts[0] ?? "localhost"}@${stamp}`,
    issuer: caName,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    ca: false,
    hosts,
    now,
    days: 365,
  });
  const key = pem("PRIVATE KEY", await subtle.exportKey("pkcs8", leafKeys.privateKey));
  return { cert, key, ca };
}

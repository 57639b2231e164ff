/**
 * The HTTP client of the daemon suites: GET over http or https; TLS trusts the run's daemon CA
 * (or the system's), or nothing with `insecure`; a request may present a client certificate.
 * Also a bare TLS handshake, to see which certificate a server name gets.
 */
import { X509Certificate } from "node:crypto";
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:tls";
import type { HttpClient, ProbeResponse } from "../../lib/daemons/probes.js";
import type { DaemonSettings } from "../../lib/runner/settings.js";

const REQUEST_TIMEOUT_MS = 10_000;

export function daemonClient(d: DaemonSettings): HttpClient {
  return ({ url, headers, clientCert }) =>
    new Promise<ProbeResponse>((resolve, reject) => {
      const u = new URL(url);
      const options: RequestOptions = { method: "GET", headers: { ...headers }, agent: false, timeout: REQUEST_TIMEOUT_MS };
      const onResponse = (res: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      };
      const req =
        u.protocol === "https:"
          ? httpsRequest(u, { ...options, ca: d.ca, rejectUnauthorized: !d.insecure, ...(clientCert ? { cert: clientCert.cert, key: clientCert.key } : {}) }, onResponse)
          : httpRequest(u, options, onResponse);
      req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on("error", reject);
      req.end();
    });
}

/**
 * The certificate a TLS server presents to a client asking for `serverName` (none: no SNI).
 * Not verified: which certificate comes back is the question, not whether it is trusted.
 */
export function servedCertificate(baseUrl: string, serverName: string | undefined): Promise<X509Certificate> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const socket = connect({ host, port: Number(u.port || 443), rejectUnauthorized: false, ...(serverName ? { servername: serverName } : {}), timeout: REQUEST_TIMEOUT_MS }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.end();
      if (cert) resolve(cert);
      else reject(new Error("the server presented no certificate"));
    });
    socket.on("timeout", () => socket.destroy(new Error(`no handshake within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    socket.on("error", reject);
  });
}

/**
 * The HTTP client the daemon suites and the daemon capability detection share: GET over http
 * or https; TLS trusts the run's daemon CA (or the system's), or nothing with `insecure`; a
 * request may present a client certificate. Also a bare TLS handshake, to see which
 * certificate a server name gets. Every request and handshake ends within its timeout.
 */
import type { X509Certificate } from "node:crypto";
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect } from "node:tls";
import type { HttpClient, ProbeResponse } from "./probes.js";

const DAEMON_REQUEST_TIMEOUT_MS = 10_000;

/** How the run reaches the daemons' HTTPS ports (a subset of the run's DaemonSettings). */
export interface DaemonTrust {
  /** PEM certificates to trust (default: the system's). */
  readonly ca?: string;
  /** No TLS verification at all. */
  readonly insecure: boolean;
}

export function daemonClient(trust: DaemonTrust, timeoutMs = DAEMON_REQUEST_TIMEOUT_MS): HttpClient {
  return ({ url, headers, clientCert }) =>
    new Promise<ProbeResponse>((resolveAnswer, rejectAnswer) => {
      const u = new URL(url);
      // `timeout` only notices silence; a server trickling bytes is cut off at the same bound.
      const deadline = setTimeout(() => req.destroy(new Error(`no complete answer within ${timeoutMs / 1000} s`)), timeoutMs);
      const resolve = (r: ProbeResponse): void => {
        clearTimeout(deadline);
        resolveAnswer(r);
      };
      const reject = (e: Error): void => {
        clearTimeout(deadline);
        rejectAnswer(e);
      };
      const options: RequestOptions = { method: "GET", headers: { ...headers }, agent: false, timeout: timeoutMs };
      const onResponse = (res: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      };
      const req =
        u.protocol === "https:"
          ? httpsRequest(
              u,
              { ...options, ca: trust.ca, rejectUnauthorized: !trust.insecure, ...(clientCert ? { cert: clientCert.cert, key: clientCert.key } : {}) },
              onResponse,
            )
          : httpRequest(u, options, onResponse);
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      req.on("error", reject);
      req.end();
    });
}

/**
 * The certificate a TLS server presents to a client asking for `serverName` (none: no SNI).
 * Not verified: which certificate comes back is the question, not whether it is trusted.
 */
export function servedCertificate(baseUrl: string, serverName: string | undefined, timeoutMs = DAEMON_REQUEST_TIMEOUT_MS): Promise<X509Certificate> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const socket = connect(
      { host, port: Number(u.port || 443), rejectUnauthorized: false, ...(serverName ? { servername: serverName } : {}), timeout: timeoutMs },
      () => {
        const cert = socket.getPeerX509Certificate();
        socket.end();
        if (cert) resolve(cert);
        else reject(new Error("the server presented no certificate"));
      },
    );
    socket.on("timeout", () => socket.destroy(new Error(`no handshake within ${timeoutMs / 1000} s`)));
    socket.on("error", reject);
  });
}

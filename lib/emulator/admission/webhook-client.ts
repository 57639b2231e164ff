/**
 * Posting an AdmissionReview to a webhook, as the real server's webhook client does: HTTPS POST
 * of JSON to clientConfig.url with `?timeout=<n>s` added, trusting only clientConfig.caBundle
 * when one is given (the system roots otherwise), given up after timeoutSeconds. Asynchronous:
 * other requests are served while a webhook answers.
 *
 * Failures are CallFailure errors whose text is what Go's client would say after
 * `failed to call webhook: ` (`Post "<url>": dial tcp 127.0.0.1:1: connect: connection
 * refused`, `…: context deadline exceeded`, `…: tls: failed to verify certificate: x509:
 * certificate signed by unknown authority`), or after `could not get REST client: ` for a
 * caBundle without a PEM certificate. An answer outside 200-206 is described as client-go
 * describes it (the Status's message when the body is a Status, else its generic text by code).
 *
 * Service references: the emulator has no Services, so a call to one fails as a real server's
 * does when the service does not exist (`service "<name>" not found`).
 */
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isJsonObject, type Json } from "../apimachinery/json.js";
import type { WebhookClientConfig } from "./webhooks.js";

/** Why a call failed, in Go's words; `stage` says which prefix the dispatcher gives it. */
export class CallFailure extends Error {
  constructor(
    message: string,
    readonly stage: "client" | "call",
  ) {
    super(message);
    this.name = "CallFailure";
  }
}

export interface WebhookResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Posts the body and resolves with the answer; rejects with a CallFailure. */
export type WebhookPoster = (config: WebhookClientConfig, body: string, timeoutSeconds: number) => Promise<WebhookResponse>;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/** The URL the server posts to, with the timeout parameter the real client adds. */
function callUrl(config: WebhookClientConfig, timeoutSeconds: number): string {
  const query = `timeout=${timeoutSeconds}s`;
  if (config.url !== undefined) return `${config.url}${config.url.includes("?") ? "&" : "?"}${query}`;
  const s = config.service;
  const path = s?.path ?? "";
  return `https://${s?.name ?? ""}.${s?.namespace ?? ""}.svc:${s?.port ?? 443}${path}?${query}`;
}

/** x509.HostnameError's text for a certificate that does not name the host. */
function hostnameError(host: string, subjectAltName: string | undefined): string {
  const entries = (subjectAltName ?? "").split(/,\s*/).filter(Boolean);
  const ips = entries.filter((e) => e.startsWith("IP Address:")).map((e) => e.slice("IP Address:".length));
  const dns = entries.filter((e) => e.startsWith("DNS:")).map((e) => e.slice("DNS:".length));
  if (isIP(host)) {
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.map((ip) => (ip === "0:0:0:0:0:0:0:1" ? "::1" : ip.toLowerCase())).join(", ")}, not ${host}`;
  }
  return `x509: certificate is valid for ${dns.join(", ")}, not ${host}`;
}

interface NodeError extends Error {
  code?: string;
  cert?: { subjectaltname?: string };
  host?: string;
}

/** The Go text of a transport failure. */
function transportError(e: NodeError, url: URL): string {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port || "443";
  const hostPort = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  switch (e.code) {
    case "ECONNREFUSED":
      return `dial tcp ${hostPort}: connect: connection refused`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `dial tcp: lookup ${host}: no such host`;
    case "EHOSTUNREACH":
      return `dial tcp ${hostPort}: connect: no route to host`;
    case "ECONNRESET":
      return "EOF";
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case "CERT_HAS_EXPIRED":
    case "CERT_NOT_YET_VALID":
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `tls: failed to verify certificate: ${hostnameError(host, e.cert?.subjectaltname)}`;
    default:
      return e.message;
  }
}

/** client-go's NewGenericServerResponse texts, for an answer whose body is not a Status. */
function genericResponseText(status: number, body: string, isText: boolean): string {
  const serverMessage = isText ? body.trim() : "unknown";
  switch (status) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return serverMessage;
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 406:
      return "the server was unable to respond with a content type that the client supports";
    case 409:
      return "the server reported a conflict";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default:
      if (status >= 500) return `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${status} but did not return more information`;
  }
}

/** The error text client-go gives an answer outside 200-206 (Result.Error). */
export function unexpectedStatusText(response: WebhookResponse): string {
  try {
    const parsed = JSON.parse(response.body) as Json;
    if (isJsonObject(parsed) && parsed["kind"] === "Status" && typeof parsed["message"] === "string") return parsed["message"];
  } catch {
    // Not JSON: the generic text below.
  }
  return genericResponseText(response.status, response.body, /^text\//i.test(response.contentType));
}

/** The default poster: node:https with the webhook's CA bundle and timeout. */
export const postWebhook: WebhookPoster = (config, body, timeoutSeconds) => {
  const target = callUrl(config, timeoutSeconds);
  const post = `Post ${JSON.stringify(target)}`;
  if (config.url === undefined) {
    return Promise.reject(new CallFailure(`${post}: service ${JSON.stringify(config.service?.name ?? "")} not found`, "call"));
  }
  let ca: string | undefined;
  if (config.caBundle) {
    const pem = Buffer.from(config.caBundle, "base64").toString("utf8");
    if (!PEM_CERTIFICATE.test(pem)) return Promise.reject(new CallFailure("unable to load root certificates: unable to parse bytes as PEM block", "client"));
    ca = pem;
  }
  const url = new URL(target);
  return new Promise<WebhookResponse>((resolve, reject) => {
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutSeconds * 1000);
    const fail = (e: NodeError): void => {
      clearTimeout(timer);
      reject(new CallFailure(`${post}: ${timedOut ? "context deadline exceeded" : transportError(e, url)}`, "call"));
    };
    const req = httpsRequest(
      url,
      {
        method: "POST",
        signal: abort.signal,
        ...(ca !== undefined ? { ca } : {}),
        headers: { "Content-Type": "application/json", Accept: "application/json, */*", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", fail);
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    req.on("error", fail);
    req.end(body);
  });
};

/** What a probe sends and gets back, and what it reports: a leaf module, so the checks beside the probes (agent-pods.ts, client-certs.ts) share the types without importing probes.ts. */

export interface ProbeRequest {
  url: string;
  /** Extra request headers (credentials, when a probe is given some). */
  headers?: Readonly<Record<string, string>>;
  /** A client certificate and key (PEM) to present in the TLS handshake. */
  clientCert?: { readonly cert: string; readonly key: string };
}

export interface ProbeResponse {
  status: number;
  body: string;
}

/** Sends a GET; rejects only when no HTTP answer came back at all. */
export type HttpClient = (request: ProbeRequest) => Promise<ProbeResponse>;

export interface ProbeResult {
  rule: string;
  url: string;
  ok: boolean;
  expected: string;
  /** What came back: `HTTP 200 "ok"`, or the transport error. */
  actual: string;
}

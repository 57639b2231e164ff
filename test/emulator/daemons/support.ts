/** What the emulated daemons' tests share: the fixture TLS pair, an HTTP(S) client that trusts it, tokens. */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { daemonTls } from "../../../fixtures/daemons/tls.js";
import type { DaemonAccess } from "../../../lib/emulator/daemons/index.js";
import type { HttpClient, ProbeResponse } from "../../../lib/daemons/probes.js";

export const TLS = daemonTls();

export const ALLOWED_TOKEN = "allowed-token";
export const DENIED_TOKEN = "denied-token";
export const ACCESS: DaemonAccess = { tokens: { [ALLOWED_TOKEN]: "alice", [DENIED_TOKEN]: "bob" }, allowedUsers: ["alice"] };

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

export interface Answer extends ProbeResponse {
  headers: IncomingMessage["headers"];
}

/** GET `url`, trusting only the fixture certificate on https; `cert` is a client certificate and key to present. */
export function get(url: string, headers: Record<string, string> = {}, cert?: { cert: string; key: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
      res.on("error", reject);
    };
    const req = u.protocol === "https:" ? httpsRequest(u, { headers, agent: false, ca: TLS.cert, ...cert }, onResponse) : httpRequest(u, { headers, agent: false }, onResponse);
    req.on("error", reject);
    req.end();
  });
}

/** The probes' client over `get`. */
export const client: HttpClient = ({ url, headers }) => get(url, { ...headers });

/** What the emulated daemons' tests share: the fixture TLS pair, an HTTP(S) client that trusts it, tokens. */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { daemonTls } from "../../../fixtures/daemons/tls.js";
import type { HttpClient, ProbeResponse } from "../../../lib/daemons/probes.js";
import {
  type DaemonAccess,
  type EmulatedControllerManagerOptions,
  type RunningEmulatedDaemons,
  startEmulatedDaemons,
} from "../../../lib/emulator/daemons/index.js";

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
    const req =
      u.protocol === "https:"
        ? httpsRequest(u, { headers, agent: false, ca: TLS.cert, ...cert }, onResponse)
        : httpRequest(u, { headers, agent: false }, onResponse);
    req.on("error", reject);
    req.end();
  });
}

/** The probes' client over `get`. */
export const client: HttpClient = ({ url, headers }) => get(url, { ...headers });

/** Credential files a controller manager command line names (so it authenticates and authorizes by them). */
export const WITH_FILES = [
  "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
  "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
];

/**
 * Starts emulated controller managers on free ports for one test file; `closeAll` goes in
 * its afterAll. `start` answers the secure port's URL; `track` adds daemons started otherwise.
 */
export function controllerManagers(): {
  start(options: EmulatedControllerManagerOptions): Promise<string>;
  track(d: RunningEmulatedDaemons): void;
  closeAll(): Promise<void>;
} {
  const running: RunningEmulatedDaemons[] = [];
  return {
    track: (d) => void running.push(d),
    async start(options) {
      const d = await startEmulatedDaemons({ tls: TLS, access: ACCESS, controllerManager: { port: 0, ...options } });
      running.push(d);
      const url = d.controllerManager?.url;
      if (!url) throw new Error("no secure port");
      return url;
    },
    async closeAll() {
      await Promise.all(running.map((d) => d.close()));
    },
  };
}

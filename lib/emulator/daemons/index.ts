/**
 * Emulated cluster daemons (doc3): a controller manager's secure port and a node agent's
 * three servers, each configured by a real command line of its daemon, for the probes of
 * suites/daemons/probes.test.ts to have something to talk to without a cluster. See
 * controller-manager.ts and node-agent.ts for what each one emulates, and access.ts for the
 * stand-in of the token and subject access reviews a real daemon would send to the API server.
 *
 * The default TLS certificate is the caller's (tollgate passes the self-signed pair of
 * fixtures/daemons/tls/). The files the command lines name (--client-ca-file,
 * --requestheader-client-ca-file, --tls-sni-cert-key) are read at start, as a real daemon
 * reads them; `readFile` can stand in for the file system.
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { hostname } from "node:os";
import { type DaemonAccess, NO_ACCESS } from "./access.js";
import { type Authentication, clientCaHints, wantsClientCertificate } from "./authenticate.js";
import type { ReadFile } from "./certificates.js";
import { readDaemonCommandLine } from "./command-line.js";
import {
  type ControllerManagerConfig,
  type ControllerManagerFault,
  controllerManagerAuthentication,
  controllerManagerConfig,
  controllerManagerHandler,
} from "./controller-manager.js";
import { type AnyServer, capConnectionLifetime, closeServer, listen, serve } from "./http.js";
import {
  NODE_AGENT_MAX_CONNECTION_MS,
  type NodeAgentConfig,
  type NodeAgentFault,
  nodeAgentAuthentication,
  nodeAgentConfig,
  nodeAgentHealthzHandler,
  nodeAgentMainHandler,
  nodeAgentReadOnlyHandler,
} from "./node-agent.js";
import type { NodePods } from "./pod-views.js";
import { sniCallback, sniEntries } from "./sni.js";
import { fetchManifestUrl, nodeNameOf, readManifestPath } from "./static-pods.js";

export { ANONYMOUS_GROUP, ANONYMOUS_USER, type DaemonAccess, NO_ACCESS } from "./access.js";
export { DaemonFileError } from "./certificates.js";
export { DaemonCommandLineError } from "./command-line.js";
export { CONTROLLER_MANAGER_FAULTS, type ControllerManagerConfig, type ControllerManagerFault } from "./controller-manager.js";
export { NODE_AGENT_FAULTS, NODE_AGENT_MAX_CONNECTION_MS, type NodeAgentConfig, type NodeAgentFault } from "./node-agent.js";

export interface DaemonTls {
  /** PEM certificate (chain) served on the HTTPS ports. */
  readonly cert: string | Buffer;
  /** PEM private key of the certificate. */
  readonly key: string | Buffer;
}

export interface EmulatedControllerManagerOptions {
  /** The controller manager's command line (a leading `kube-controller-manager` is dropped). */
  readonly args?: readonly string[];
  /** Port of the secure port, in place of --secure-port's value (0 = a free port); --secure-port=0 still turns HTTPS off. */
  readonly port?: number;
  /** Test-only: misbehave on purpose. */
  readonly faults?: readonly ControllerManagerFault[];
}

export interface EmulatedNodeAgentOptions {
  /** The node agent's command line (a leading `kubelet` is dropped). */
  readonly args?: readonly string[];
  /** Ports in place of --port, --read-only-port, --healthz-port (0 = a free port); a 0 on the command line still turns that server off. */
  readonly port?: number;
  readonly readOnlyPort?: number;
  readonly healthzPort?: number;
  /** Test-only: misbehave on purpose. */
  readonly faults?: readonly NodeAgentFault[];
  /** Test-only: the connection lifetime cap, so a test can see it enforced (default doc3's 4 hours). */
  readonly maxConnectionMs?: number;
  /** The machine's hostname, the node name without --hostname-override (default os.hostname()). */
  readonly hostname?: string;
}

export interface EmulatedDaemonsOptions {
  /** Listening address of every server (default 127.0.0.1). */
  readonly host?: string;
  readonly tls: DaemonTls;
  /** Reads the files the command lines name (default: the file system, as UTF-8). */
  readonly readFile?: ReadFile;
  /** The token and subject access review stand-in, shared by both daemons (default: no tokens, nobody allowed). */
  readonly access?: DaemonAccess;
  /** Started when present. */
  readonly controllerManager?: EmulatedControllerManagerOptions;
  /** Started when present. */
  readonly nodeAgent?: EmulatedNodeAgentOptions;
}

export interface RunningControllerManager {
  /** `https://host:port` of the secure port; undefined when the command line turns HTTPS off. */
  readonly url?: string;
  readonly args: readonly string[];
  readonly config: ControllerManagerConfig;
}

export interface RunningNodeAgent {
  /** `https://host:port` of the main server; undefined with --enable-server=false. */
  readonly url?: string;
  /** `http://host:port` of the read-only server; undefined with --read-only-port=0. */
  readonly readOnlyUrl?: string;
  /** `http://host:port` of the health server; undefined with --healthz-port=0. */
  readonly healthzUrl?: string;
  readonly args: readonly string[];
  readonly config: NodeAgentConfig;
  /** The lifetime cap of every connection to its servers. */
  readonly maxConnectionMs: number;
  /** The node name it registered and the static pods it runs. */
  readonly pods: NodePods;
}

/** The node name and the static pods of --pod-manifest-path and --manifest-url (fetched once). */
async function nodePodsOf(config: NodeAgentConfig, o: EmulatedNodeAgentOptions): Promise<NodePods> {
  const nodeName = nodeNameOf(config.hostnameOverride, o.hostname ?? hostname());
  const faults = new Set(o.faults ?? []);
  return {
    nodeName,
    pods: [
      ...(config.podManifestPath ? readManifestPath(config.podManifestPath, nodeName) : []),
      ...(config.manifestUrl ? await fetchManifestUrl(config.manifestUrl, nodeName) : []),
    ],
    startedAt: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    foreignContainer: faults.has("foreign-container"),
    wrongNodeName: faults.has("wrong-node-name"),
    stoppedContainer: faults.has("stopped-container"),
    sourceMissing: faults.has("pod-source-missing"),
  };
}

export interface RunningEmulatedDaemons {
  readonly controllerManager?: RunningControllerManager;
  readonly nodeAgent?: RunningNodeAgent;
  close(): Promise<void>;
}

/** HTTPS options: ask for a client certificate only when an authenticator reads one, and verify it there, not in the handshake. */
function httpsOptions(
  tls: DaemonTls,
  authn: Authentication,
): { cert: string | Buffer; key: string | Buffer; requestCert: boolean; rejectUnauthorized: boolean; ca?: string[] } {
  if (!wantsClientCertificate(authn)) return { cert: tls.cert, key: tls.key, requestCert: false, rejectUnauthorized: false };
  return { cert: tls.cert, key: tls.key, requestCert: true, rejectUnauthorized: false, ca: clientCaHints(authn) };
}

/**
 * Reads both command lines and the files they name first (a DaemonCommandLineError or
 * DaemonFileError rejects before anything listens), then starts the servers; if one cannot
 * listen, the ones already started are closed and the error is passed on.
 */
export async function startEmulatedDaemons(opts: EmulatedDaemonsOptions): Promise<RunningEmulatedDaemons> {
  const host = opts.host ?? "127.0.0.1";
  const access = opts.access ?? NO_ACCESS;
  const cmLine = opts.controllerManager ? readDaemonCommandLine("controller-manager", opts.controllerManager.args ?? []) : undefined;
  const agentLine = opts.nodeAgent ? readDaemonCommandLine("node-agent", opts.nodeAgent.args ?? []) : undefined;
  const readFile = opts.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const cmConfig = cmLine ? controllerManagerConfig(cmLine.view) : undefined;
  const cmFaults = new Set(opts.controllerManager?.faults ?? []);
  const cmAuthn = cmConfig ? controllerManagerAuthentication(cmConfig, readFile, cmFaults) : undefined;
  const cmSni = cmConfig ? sniEntries(cmConfig.sniCertKeys, readFile) : [];
  const agentConfig = agentLine ? nodeAgentConfig(agentLine.view) : undefined;
  const agentAuthn = agentConfig ? nodeAgentAuthentication(agentConfig, readFile, new Set(opts.nodeAgent?.faults ?? [])) : undefined;
  const agentPods = agentConfig && opts.nodeAgent ? await nodePodsOf(agentConfig, opts.nodeAgent) : undefined;

  const servers: AnyServer[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(servers.map(closeServer));
  };
  // Ports from the options win; the command line's value applies when the caller gives none.
  const start = async (server: AnyServer, scheme: "http" | "https", port: number): Promise<string> => {
    servers.push(server);
    return listen(server, scheme, host, port);
  };

  try {
    let controllerManager: RunningControllerManager | undefined;
    if (opts.controllerManager && cmLine && cmConfig && cmAuthn) {
      const config = cmConfig;
      let url: string | undefined;
      if (config.securePort !== 0) {
        const https = httpsOptions(opts.tls, cmAuthn);
        const server = createHttpsServer(
          cmSni.length > 0 ? { ...https, SNICallback: sniCallback(cmSni, https.ca ?? [], cmFaults.has("sni-first-match")) } : https,
        );
        serve(server, controllerManagerHandler(config, cmAuthn, access, cmFaults));
        url = await start(server, "https", opts.controllerManager.port ?? config.securePort);
      }
      controllerManager = { url, args: cmLine.args, config };
    }

    let nodeAgent: RunningNodeAgent | undefined;
    if (opts.nodeAgent && agentLine && agentConfig && agentAuthn && agentPods) {
      const o = opts.nodeAgent;
      const config = agentConfig;
      const faults = new Set(o.faults ?? []);
      const maxConnectionMs = o.maxConnectionMs ?? NODE_AGENT_MAX_CONNECTION_MS;
      const capped = <S extends AnyServer>(server: S): S => {
        capConnectionLifetime(server, maxConnectionMs);
        return server;
      };
      let url: string | undefined;
      let readOnlyUrl: string | undefined;
      let healthzUrl: string | undefined;
      if (config.enableServer) {
        const server = capped(createHttpsServer(httpsOptions(opts.tls, agentAuthn)));
        serve(server, nodeAgentMainHandler(config, agentAuthn, access, agentPods, faults));
        url = await start(server, "https", o.port ?? config.port);
      }
      if (config.readOnlyPort !== 0) {
        const server = capped(createHttpServer());
        serve(server, nodeAgentReadOnlyHandler(faults, agentPods));
        readOnlyUrl = await start(server, "http", o.readOnlyPort ?? config.readOnlyPort);
      }
      if (config.healthzPort !== 0) {
        const server = capped(createHttpServer());
        serve(server, nodeAgentHealthzHandler(faults));
        healthzUrl = await start(server, "http", o.healthzPort ?? config.healthzPort);
      }
      nodeAgent = { url, readOnlyUrl, healthzUrl, args: agentLine.args, config, maxConnectionMs, pods: agentPods };
    }

    return { controllerManager, nodeAgent, close };
  } catch (e) {
    await close();
    throw e;
  }
}

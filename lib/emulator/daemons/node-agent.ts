/**
 * The emulated node agent: its three servers (doc3 "Endpoints"), no pods. The main server is
 * HTTPS with the certificate it is given; the read-only and health servers are plain HTTP,
 * as on a real node agent.
 *
 * Options it emulates (everything else is read, must parse, and then has no effect):
 * - --port, --read-only-port, --healthz-port: 0 turns the read-only and health servers off;
 *   any other value is replaced by the port the caller asks for, so that tests can take free
 *   ports. --enable-server=false turns the main server off.
 * - --anonymous-auth (default true): a request without credentials is system:anonymous in
 *   group system:unauthenticated; when false it is 401.
 * - --authentication-token-webhook (default false): bearer tokens are checked against the
 *   token table (the token review stand-in), an unknown one is 401. When false no
 *   authenticator looks at tokens, so a token is ignored and the request is anonymous.
 * - --client-ca-file: a client certificate issued by these CAs authenticates as its common
 *   name; one from another CA is 401, also when anonymous requests are allowed (the rules of
 *   authenticate.ts, without identity headers: the node agent has none). The file is read
 *   when the daemon starts. The node agent has no --tls-sni-cert-key.
 * - --authorization-mode: AlwaysAllow (default) permits everything; Webhook asks the allow
 *   list (the subject access review stand-in) and answers 403 to anyone not on it.
 * - --enable-debugging-handlers (default true): /logs/ is served; when false the debugging
 *   paths answer 405 "Debug endpoints are disabled.", as the real node agent does.
 * - --pod-manifest-path, --manifest-url, --hostname-override: the static pods it runs and the
 *   node name it registers (static-pods.ts, pod-views.ts): /pods, /runningpods/ and
 *   /stats/summary show them; no pod comes from an API server.
 * --address and --healthz-bind-address are not emulated: the caller chooses the host.
 * Options left to a --config file, which the emulation does not read, take doc3's defaults.
 *
 * doc3 "Limits": every connection to the node agent server lasts at most 4 hours, whatever
 * the idle settings; NODE_AGENT_MAX_CONNECTION_MS is applied to all three servers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OptionView } from "../../daemons/options/view.js";
import { type DaemonAccess, reviewAccess } from "./access.js";
import { type Authentication, authenticate } from "./authenticate.js";
import { type ReadFile, readBundle } from "./certificates.js";
import { present } from "./command-line.js";
import type { NodeAgentFault } from "./fault-names.js";
import { type Handler, json, notFound, pathOf, text } from "./http.js";
import { type NodePods, podListOf, runningPodsOf, statsSummaryOf } from "./pod-views.js";

export { NODE_AGENT_FAULTS, type NodeAgentFault } from "./fault-names.js";

/** doc3 "Limits": 4 hours. */
export const NODE_AGENT_MAX_CONNECTION_MS = 4 * 60 * 60 * 1000;

/** What the emulated node agent takes from its command line. */
export interface NodeAgentConfig {
  readonly port: number;
  /** 0: off. */
  readonly readOnlyPort: number;
  /** 0: off. */
  readonly healthzPort: number;
  readonly enableServer: boolean;
  readonly anonymousAuth: boolean;
  readonly tokenWebhook: boolean;
  readonly authorizationMode: "AlwaysAllow" | "Webhook";
  readonly debuggingHandlers: boolean;
  /** --client-ca-file; undefined when not set. */
  readonly clientCaFile?: string;
  /** --pod-manifest-path; undefined when not set. */
  readonly podManifestPath?: string;
  /** --manifest-url; undefined when not set. */
  readonly manifestUrl?: string;
  /** --hostname-override; undefined when not set. */
  readonly hostnameOverride?: string;
}

export function nodeAgentConfig(view: OptionView): NodeAgentConfig {
  return {
    port: present(view.int("--port"), "--port"),
    readOnlyPort: present(view.int("--read-only-port"), "--read-only-port"),
    healthzPort: present(view.int("--healthz-port"), "--healthz-port"),
    enableServer: present(view.bool("--enable-server"), "--enable-server"),
    anonymousAuth: present(view.bool("--anonymous-auth"), "--anonymous-auth"),
    tokenWebhook: present(view.bool("--authentication-token-webhook"), "--authentication-token-webhook"),
    authorizationMode: view.raw("--authorization-mode") === "Webhook" ? "Webhook" : "AlwaysAllow",
    debuggingHandlers: present(view.bool("--enable-debugging-handlers"), "--enable-debugging-handlers"),
    clientCaFile: view.set("--client-ca-file") ? view.raw("--client-ca-file") : undefined,
    podManifestPath: view.raw("--pod-manifest-path") || undefined,
    manifestUrl: view.raw("--manifest-url") || undefined,
    hostnameOverride: view.raw("--hostname-override") || undefined,
  };
}

/** The authenticators the command line configures, with the CA file read. */
export function nodeAgentAuthentication(config: NodeAgentConfig, readFile: ReadFile, faults: ReadonlySet<NodeAgentFault> = new Set()): Authentication {
  return {
    faults: new Set((["any-client-cert", "cert-user-not-cn", "unknown-token-anonymous"] as const).filter((f) => faults.has(f))),
    clientCas: config.clientCaFile === undefined ? undefined : readBundle("node agent", "--client-ca-file", config.clientCaFile, readFile),
    tokens: config.tokenWebhook,
    anonymous: config.anonymousAuth,
  };
}

/** The paths the real node agent registers as debugging handlers (logs, running commands in containers). */
const DEBUGGING_PREFIXES = ["/logs/", "/run/", "/exec/", "/attach/", "/portForward/", "/containerLogs/", "/runningpods/"];

/**
 * The subresource of `nodes` the real node agent asks a subject access review about, by path;
 * only the 403 message shows it here.
 */
function subresourceOf(path: string): string {
  if (path === "/metrics" || path.startsWith("/metrics/")) return "metrics";
  if (path === "/stats" || path.startsWith("/stats/")) return "stats";
  if (path === "/logs" || path.startsWith("/logs/")) return "log";
  return "proxy";
}

const VERBS: Record<string, string> = { GET: "get", HEAD: "get", POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" };

function configz(config: NodeAgentConfig): unknown {
  return {
    kubeletconfig: {
      kind: "KubeletConfiguration",
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      port: config.port,
      readOnlyPort: config.readOnlyPort,
      healthzPort: config.healthzPort,
      enableServer: config.enableServer,
      enableDebuggingHandlers: config.debuggingHandlers,
      authentication: {
        anonymous: { enabled: config.anonymousAuth },
        webhook: { enabled: config.tokenWebhook },
        x509: config.clientCaFile === undefined ? {} : { clientCAFile: config.clientCaFile },
      },
      authorization: { mode: config.authorizationMode },
    },
  };
}

/** /stats/summary, also served on the read-only server as on a real node agent. */
const isSummary = (path: string): boolean => path === "/stats/summary" || path === "/stats/summary/";

export function nodeAgentMainHandler(
  config: NodeAgentConfig,
  authn: Authentication,
  access: DaemonAccess,
  pods: NodePods,
  faults: ReadonlySet<NodeAgentFault> = new Set(),
): Handler {
  const route = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const debugging = DEBUGGING_PREFIXES.find((p) => path.startsWith(p) || path === p.slice(0, -1));
    if (debugging) {
      if (!config.debuggingHandlers) return text(res, 405, "Debug endpoints are disabled.\n");
      if (faults.has("logs-missing") && debugging === "/logs/") return notFound(res);
      if (debugging === "/logs/" && (req.method === "GET" || req.method === "HEAD")) {
        // The real one lists the node's log directory; the emulated node has no logs.
        return path === "/logs/" ? text(res, 200, "<pre>\n</pre>\n", "text/html; charset=utf-8") : notFound(res);
      }
      if (debugging === "/runningpods/") return json(res, 200, runningPodsOf(pods));
      // No container to run a command in or to read logs from: the emulated runtime runs none.
      return notFound(res);
    }
    if (req.method !== "GET" && req.method !== "HEAD") return text(res, 405, "405 method not allowed\n");
    if (path === "/healthz") return text(res, 200, "ok");
    if (path === "/pods" || path === "/pods/") {
      const list = podListOf(pods) as { items: unknown[] };
      return json(res, 200, faults.has("pods-bare-array") ? list.items : list);
    }
    if (isSummary(path)) return json(res, 200, statsSummaryOf(pods));
    if (path === "/configz") return json(res, 200, configz(config));
    return notFound(res);
  };

  return (req, res) => {
    const path = pathOf(req);
    const user = authenticate(req, authn, access);
    if (user === "unauthorized") return text(res, 401, "Unauthorized");
    if (faults.has("anonymous-refused") && user.name === "system:anonymous") return text(res, 401, "Unauthorized");
    if (config.authorizationMode === "Webhook" && !faults.has("webhook-denial-ignored") && !reviewAccess(access, user.name, user.groups)) {
      const verb = VERBS[req.method ?? "GET"] ?? (req.method ?? "get").toLowerCase();
      return text(res, 403, `Forbidden (user=${user.name}, verb=${verb}, resource=nodes, subresource=${subresourceOf(path)})`);
    }
    if (config.authorizationMode === "AlwaysAllow" && faults.has("always-allow-refuses-configz") && path === "/configz") {
      return text(res, 403, `Forbidden (user=${user.name}, verb=get, resource=nodes, subresource=configz)`);
    }
    return route(req, res, path);
  };
}

/** The read-only server: no authentication, no authorization (doc3 "Authentication" 4). */
export function nodeAgentReadOnlyHandler(faults: ReadonlySet<NodeAgentFault>, pods: NodePods): Handler {
  return (req, res) => {
    if (faults.has("read-only-auth")) return text(res, 401, "Unauthorized");
    if (req.method !== "GET" && req.method !== "HEAD") return text(res, 405, "405 method not allowed\n");
    const path = pathOf(req);
    if (path === "/healthz") return text(res, 200, "ok");
    if (path === "/pods" || path === "/pods/") return json(res, 200, podListOf(pods));
    if (isSummary(path)) return json(res, 200, statsSummaryOf(pods));
    return notFound(res);
  };
}

/** The local health server: /healthz only. */
export function nodeAgentHealthzHandler(faults: ReadonlySet<NodeAgentFault>): Handler {
  return (req, res) => {
    if (pathOf(req) !== "/healthz") return notFound(res);
    if (faults.has("healthz-not-ok")) return text(res, 500, "[-]syncloop failed: reason withheld\nhealthz check failed\n");
    return text(res, 200, "ok");
  };
}

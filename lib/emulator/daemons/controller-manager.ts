/**
 * The emulated controller manager: its secure port only (doc3 "Endpoints"), no control
 * loops. HTTPS with the certificate it is given; /healthz, /readyz and /livez answer "ok";
 * /healthz?verbose lists the named checks a real one has once it leads (doc3 "What the
 * service does"): `leaderElection` with --leader-elect, then one per controller it starts
 * (lib/daemons/controllers.ts; a real one lists those after the token controller in Go map
 * order, here in name order), `?exclude=<name>` as in the real healthz handler. As on a real
 * one, /healthz/<check> is not served (its mux registers /healthz alone): 404 when authorized;
 * the always-allow path `/healthz` does not cover it.
 * /metrics, /configz and /debug/pprof/ (when profiling is on) answer only those the
 * authorization stand-in allows.
 *
 * Options it emulates (everything else is read, must parse, and then has no effect):
 * - --secure-port: 0 turns HTTPS off (nothing is served); any other value is replaced by the
 *   port the caller asks for, so that tests can take free ports.
 * - --authorization-always-allow-paths: served without authorization; a trailing `*` matches
 *   a prefix, as in the real path authorizer.
 * - --profiling: /debug/pprof/ is served (to authorized users) only when on.
 * - --authentication-kubeconfig: when set, bearer tokens are checked against the token table
 *   (the token review stand-in) and an unknown one is 401 on every path, since authentication
 *   comes before the always-allow authorizer. When empty, doc3 "Authentication" 3: every token
 *   request is anonymous, so a token is ignored.
 * - --authorization-kubeconfig: when set, the allow list decides (the subject access review
 *   stand-in); when empty, doc3 "Authentication" 4: everything off the always-allow paths is
 *   forbidden.
 * - --client-ca-file: a client certificate issued by these CAs authenticates as its common
 *   name (groups: its organizations); one from another CA is 401 (authenticate.ts).
 * - --requestheader-client-ca-file, --requestheader-allowed-names, --requestheader-username-
 *   headers, -group-headers, -extra-headers-prefix: identity headers are taken only from a
 *   client whose certificate these CAs issued and, when the list is not empty, whose common
 *   name is on it; a certificate they did not issue, or a name not on the list, is 401 unless
 *   another authenticator recognizes the request.
 * - --tls-sni-cert-key: the certificate served for the server name a client asks for (sni.ts).
 * The files these options name are read when the daemon starts (a file that cannot be read
 * stops it, as it stops a real one). Not emulated: with --authentication-kubeconfig and no
 * CA files, a real controller manager looks both CAs up in the cluster; here there is no cluster
 * to ask, so neither is configured.
 * A request without credentials is system:anonymous in both cases and so, unless the allow
 * list names system:anonymous, gets 403 off the always-allow paths. That is what a real
 * controller manager with both connection files answers (`forbidden: User "system:anonymous"
 * cannot get path "/metrics"`): its delegated authentication admits anonymous requests.
 * --bind-address is not emulated: the caller chooses the host (loopback by default).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { CORE_CONTROL_LOOPS, controllerManagerHealthChecks } from "../../daemons/controllers.js";
import type { OptionView } from "../../daemons/options/view.js";
import { type DaemonAccess, reviewAccess } from "./access.js";
import { type Authentication, type AuthenticationFault, authenticate } from "./authenticate.js";
import { type ReadFile, readBundle } from "./certificates.js";
import { present } from "./command-line.js";
import type { ControllerManagerFault } from "./fault-names.js";
import { type Handler, json, notFound, pathOf, text, verbOf } from "./http.js";

export { CONTROLLER_MANAGER_FAULTS, type ControllerManagerFault } from "./fault-names.js";

/** What the emulated controller manager takes from its command line. */
export interface ControllerManagerConfig {
  /** --secure-port; 0 means HTTPS is off. */
  readonly securePort: number;
  readonly alwaysAllowPaths: readonly string[];
  readonly profiling: boolean;
  readonly authenticationKubeconfig: boolean;
  readonly authorizationKubeconfig: boolean;
  /** --client-ca-file; undefined when not set. */
  readonly clientCaFile?: string;
  readonly requestHeader: {
    /** --requestheader-client-ca-file; undefined when not set (then no identity header is read). */
    readonly clientCaFile?: string;
    readonly allowedNames: readonly string[];
    readonly usernameHeaders: readonly string[];
    readonly groupHeaders: readonly string[];
    readonly extraHeaderPrefixes: readonly string[];
  };
  /** The --tls-sni-cert-key values, in order. */
  readonly sniCertKeys: readonly string[];
  /** The named checks of /healthz?verbose: leaderElection and the controllers started (lib/daemons/controllers.ts). */
  readonly healthChecks: readonly string[];
}

export function controllerManagerConfig(view: OptionView): ControllerManagerConfig {
  return {
    securePort: present(view.int("--secure-port"), "--secure-port"),
    alwaysAllowPaths: present(view.list("--authorization-always-allow-paths"), "--authorization-always-allow-paths"),
    profiling: present(view.bool("--profiling"), "--profiling"),
    authenticationKubeconfig: view.set("--authentication-kubeconfig"),
    authorizationKubeconfig: view.set("--authorization-kubeconfig"),
    clientCaFile: view.set("--client-ca-file") ? view.raw("--client-ca-file") : undefined,
    requestHeader: {
      clientCaFile: view.set("--requestheader-client-ca-file") ? view.raw("--requestheader-client-ca-file") : undefined,
      allowedNames: nonEmpty(view.list("--requestheader-allowed-names")),
      usernameHeaders: nonEmpty(view.list("--requestheader-username-headers")),
      groupHeaders: nonEmpty(view.list("--requestheader-group-headers")),
      extraHeaderPrefixes: nonEmpty(view.list("--requestheader-extra-headers-prefix")),
    },
    sniCertKeys: view.occurrences("--tls-sni-cert-key").map((o) => o.value),
    healthChecks: controllerManagerHealthChecks(view),
  };
}

const nonEmpty = (list: string[] | undefined): string[] => (list ?? []).filter((v) => v !== "");

/** The authenticators the command line configures, with the CA files read. */
export function controllerManagerAuthentication(
  config: ControllerManagerConfig,
  readFile: ReadFile,
  faults: ReadonlySet<ControllerManagerFault> = new Set(),
): Authentication {
  const rh = config.requestHeader;
  return {
    faults: new Set(
      [...faults].filter((f): f is AuthenticationFault => f === "any-client-cert" || f === "headers-from-any-cert" || f === "unknown-token-anonymous"),
    ),
    requestHeader:
      rh.clientCaFile === undefined
        ? undefined
        : {
            cas: readBundle("controller manager", "--requestheader-client-ca-file", rh.clientCaFile, readFile),
            allowedNames: rh.allowedNames,
            usernameHeaders: rh.usernameHeaders,
            groupHeaders: rh.groupHeaders,
            extraHeaderPrefixes: rh.extraHeaderPrefixes,
          },
    clientCas: config.clientCaFile === undefined ? undefined : readBundle("controller manager", "--client-ca-file", config.clientCaFile, readFile),
    // doc3 Authentication 3: without the connection file no token is reviewed, so a token is ignored.
    tokens: config.authenticationKubeconfig || faults.has("tokens-without-authn-file"),
    // The delegated authentication of a controller manager always admits anonymous requests.
    anonymous: true,
  };
}

const HEALTH_PATHS = new Set(["/healthz", "/readyz", "/livez"]);

/** The healthz handler's answer over passing checks: "ok", or with `verbose` one line per check then "healthz check passed". */
function healthz(res: ServerResponse, checks: readonly string[], query: URLSearchParams): void {
  const excluded = new Set(query.getAll("exclude"));
  let out = "";
  for (const name of checks) {
    if (excluded.delete(name)) out += `[+]${name} excluded: ok\n`;
    else out += `[+]${name} ok\n`;
  }
  if (excluded.size > 0)
    out += `warn: some health checks cannot be excluded: no matches for ${[...excluded]
      .sort()
      .map((n) => JSON.stringify(n))
      .join(",")}\n`;
  res.setHeader("X-Content-Type-Options", "nosniff");
  text(res, 200, query.has("verbose") ? `${out}healthz check passed\n` : "ok");
}

function alwaysAllowed(paths: readonly string[], path: string): boolean {
  return paths.some((p) => (p.endsWith("*") ? path.startsWith(p.slice(0, -1)) : p === path));
}

/** The API machinery's Status body, which the real daemon's authentication and authorization filters answer with. */
function status(res: ServerResponse, code: 401 | 403, reason: "Unauthorized" | "Forbidden", message: string): void {
  json(res, code, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, details: {}, code });
}

const METRICS = [
  "# HELP tollgate_emulated_controller_manager Always 1: this is tollgate's emulated controller manager.",
  "# TYPE tollgate_emulated_controller_manager gauge",
  "tollgate_emulated_controller_manager 1",
  "",
].join("\n");

export function controllerManagerHandler(
  config: ControllerManagerConfig,
  authn: Authentication,
  access: DaemonAccess,
  faults: ReadonlySet<ControllerManagerFault>,
): Handler {
  const checks = faults.has("core-loops-unchecked") ? config.healthChecks.filter((c) => !CORE_CONTROL_LOOPS.includes(c)) : config.healthChecks;
  const isProtectedRoute = (path: string): boolean => path === "/metrics" || path === "/configz" || (config.profiling && path.startsWith("/debug/pprof/"));

  const route = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    if (req.method !== "GET" && req.method !== "HEAD") return text(res, 405, "405 method not allowed\n");
    if (path === "/healthz") return healthz(res, checks, new URL(req.url ?? "/", "http://x").searchParams);
    if (HEALTH_PATHS.has(path)) return text(res, 200, "ok");
    if (path === "/metrics") return text(res, 200, METRICS, "text/plain; version=0.0.4; charset=utf-8");
    if (path === "/configz") {
      return json(res, 200, {
        componentconfig: {
          generic: { leaderElection: {}, controllers: ["*"] },
          // Only what the emulation reads from its command line.
          tollgateEmulated: { ...config },
        },
      });
    }
    if (config.profiling && !faults.has("pprof-missing") && path.startsWith("/debug/pprof/")) {
      return text(
        res,
        200,
        "<html><head><title>/debug/pprof/</title></head><body>/debug/pprof/<br>\nno profiles: this is an emulated daemon\n</body></html>\n",
        "text/html; charset=utf-8",
      );
    }
    return notFound(res);
  };

  return (req, res) => {
    const path = pathOf(req);
    if (faults.has("metrics-open") && isProtectedRoute(path)) return route(req, res, path);

    const user = authenticate(req, authn, access);
    if (user === "unauthorized") return status(res, 401, "Unauthorized", "Unauthorized");

    const skipAuthorization =
      (!faults.has("health-protected") && alwaysAllowed(config.alwaysAllowPaths, path)) ||
      (faults.has("anonymous-authorized") && user.name === "system:anonymous");
    // doc3 Authentication 4: without the connection file there is no subject access review to allow anything.
    const reviews = config.authorizationKubeconfig || faults.has("allow-list-without-authz-file");
    if (!skipAuthorization && !(reviews && reviewAccess(access, user.name, user.groups))) {
      return status(res, 403, "Forbidden", `forbidden: User "${user.name}" cannot ${verbOf(req)} path "${path}"`);
    }
    return route(req, res, path);
  };
}

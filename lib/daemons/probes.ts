/**
 * Probes of doc3's "Endpoints" and "Authentication" sections against a running daemon: pure
 * functions over an HTTP client callback, so that they can be run against any transport (and
 * are shown to fail against a wrong server in test/daemons/probes.test.ts). Each result names
 * the doc3 rule it checks. Where the endpoints are depends on the daemon's command line;
 * controllerManagerTarget and nodeAgentTargets read it through the option model (options/view.ts).
 */

import { parseAgentPods } from "./agent-pods.js";
import { forbiddenUser } from "./client-certs.js";
import { CORE_CONTROL_LOOPS, controllerEnabled, controllersDisabledByName, parseVerboseHealth } from "./controllers.js";
import { readOptionView } from "./options/view.js";
import type { HttpClient, ProbeRequest, ProbeResponse, ProbeResult } from "./probe-types.js";

export type { HttpClient, ProbeRequest, ProbeResponse, ProbeResult };

async function get(client: HttpClient, request: ProbeRequest): Promise<ProbeResponse | Error> {
  try {
    return await client(request);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

const describe = (r: ProbeResponse | Error): string =>
  r instanceof Error ? `no answer: ${r.message}` : `HTTP ${r.status}${r.body ? ` ${JSON.stringify(r.body.slice(0, 80))}` : ""}`;

async function expectStatus(
  client: HttpClient,
  rule: string,
  request: ProbeRequest,
  expected: string,
  accept: (r: ProbeResponse) => boolean,
): Promise<ProbeResult> {
  const r = await get(client, request);
  return { rule, url: request.url, ok: !(r instanceof Error) && accept(r), expected, actual: describe(r) };
}

const join = (base: string, path: string): string => `${base.replace(/\/+$/, "")}${path}`;
const isHealthyOk = (r: ProbeResponse): boolean => r.status === 200 && r.body.trim() === "ok";
const isDenied = (r: ProbeResponse): boolean => r.status === 401 || r.status === 403;
const is2xx = (r: ProbeResponse): boolean => r.status >= 200 && r.status < 300;

// ── Controller manager ──────────────────────────────────────────────────────────────────

export interface ControllerManagerTarget {
  /** `https://host:port` of the secure port. */
  baseUrl: string;
  /** The always-allow paths (--authorization-always-allow-paths; doc3 default /healthz, /readyz, /livez). */
  alwaysAllowPaths: string[];
  profiling: boolean;
}

/** Where a controller manager started with `argv` serves, by its options and doc3's defaults; undefined when HTTPS is off. */
export function controllerManagerTarget(host: string, argv: readonly string[]): ControllerManagerTarget | undefined {
  const view = readOptionView("controller-manager", argv);
  const port = view.int("--secure-port") ?? 10257;
  if (port === 0) return undefined;
  return {
    baseUrl: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
    alwaysAllowPaths: view.list("--authorization-always-allow-paths") ?? ["/healthz", "/readyz", "/livez"],
    profiling: view.bool("--profiling") !== false,
  };
}

export interface ControllerManagerProbeOptions {
  /** Paths that need authorization (default /metrics, /configz, and /debug/pprof/ when profiling is on). */
  protectedPaths?: string[];
  /** Headers that authenticate an authorized client, for the checks that need one (profiling). */
  authorizedHeaders?: Readonly<Record<string, string>>;
}

/**
 * Without credentials: the always-allow paths answer 200 "ok"; every other path is refused
 * with 401 or 403. With authorized credentials and profiling on: /debug/pprof/ is served.
 */
export async function probeControllerManager(
  client: HttpClient,
  target: ControllerManagerTarget,
  options: ControllerManagerProbeOptions = {},
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const path of target.alwaysAllowPaths) {
    results.push(
      await expectStatus(
        client,
        "doc3.endpoints.cm-health-paths-always-allowed",
        { url: join(target.baseUrl, path) },
        'HTTP 200 "ok" without credentials',
        isHealthyOk,
      ),
    );
  }
  const protectedPaths = options.protectedPaths ?? ["/metrics", "/configz", ...(target.profiling ? ["/debug/pprof/"] : [])];
  for (const path of protectedPaths) {
    results.push(
      await expectStatus(client, "doc3.endpoints.cm-https-secure-port", { url: join(target.baseUrl, path) }, "HTTP 401 or 403 without credentials", isDenied),
    );
  }
  if (target.profiling && options.authorizedHeaders) {
    results.push(
      await expectStatus(
        client,
        "doc3.endpoints.cm-pprof",
        { url: join(target.baseUrl, "/debug/pprof/"), headers: options.authorizedHeaders },
        "HTTP 200 with authorized credentials",
        (r) => r.status === 200,
      ),
    );
  }
  return results;
}

/** What a controller manager's `/healthz?verbose` says of the control loops its command line runs. */
export type ControlLoopsProbe =
  | { readonly kind: "results"; readonly results: ProbeResult[] }
  /** The answer lists no controller check: a standby of a leader-elected pair (its loops run elsewhere), or no loop runs. */
  | { readonly kind: "no-controllers"; readonly checks: string[] };

const CONTROL_LOOPS_RULE = "doc3.service.cm-control-loops";

/** What /healthz?verbose can show of a command line: the core loops --controllers enables, and the controllers it disables by name. */
export function controlLoopExpectations(argv: readonly string[]): { enabled: string[]; disabled: string[] } {
  const entries = readOptionView("controller-manager", argv).list("--controllers");
  return { enabled: CORE_CONTROL_LOOPS.filter((loop) => controllerEnabled(loop, entries)), disabled: controllersDisabledByName(entries) };
}

/**
 * The check names of a `/healthz?verbose` answer; undefined when it is not one: a real healthz
 * answers ?verbose with 200 and one line per check (at least leaderElection or ping), then
 * "healthz check passed".
 */
export function verboseHealthChecks(response: ProbeResponse): string[] | undefined {
  const checks = parseVerboseHealth(response.body).map((c) => c.name);
  return response.status === 200 && checks.length > 0 ? checks : undefined;
}

/** Whether the checks include a controller's: a real controller manager adds one per controller it starts. */
export const listsControllers = (checks: readonly string[]): boolean => checks.some((c) => c.endsWith("-controller"));

/**
 * doc3.service.cm-control-loops through the health checks: a real controller manager adds a
 * check named after each controller it starts, so the core loops (doc3's examples) that
 * --controllers enables must be listed, and every controller it disables by name must not.
 * `argv` is the command line the daemon was started with; `response` its `/healthz?verbose`.
 */
export function checkControlLoops(argv: readonly string[], url: string, response: ProbeResponse): ControlLoopsProbe {
  const checks = verboseHealthChecks(response);
  if (checks === undefined) {
    return {
      kind: "results",
      results: [{ rule: CONTROL_LOOPS_RULE, url, ok: false, expected: "HTTP 200 with the [+]<check> ok lines", actual: describe(response) }],
    };
  }
  if (!listsControllers(checks)) return { kind: "no-controllers", checks };
  const listed = new Set(checks);
  const { enabled, disabled } = controlLoopExpectations(argv);
  const actual = `checks: ${checks.join(", ")}`;
  return {
    kind: "results",
    results: [
      ...enabled.map((loop) => ({ rule: CONTROL_LOOPS_RULE, url, ok: listed.has(loop), expected: `a [+]${loop} check (--controllers enables it)`, actual })),
      ...disabled.map((off) => ({ rule: CONTROL_LOOPS_RULE, url, ok: !listed.has(off), expected: `no ${off} check (--controllers disables it)`, actual })),
    ],
  };
}

// ── Node agent ──────────────────────────────────────────────────────────────────────────

export interface NodeAgentTargets {
  /** `http://address:port` of the local health server; undefined when --healthz-port is 0. */
  healthzUrl?: string;
  /** `http://host:port` of the read-only server; undefined when --read-only-port is 0. */
  readOnlyUrl?: string;
  /** `https://host:port` of the main server; undefined when --enable-server=false. */
  mainUrl?: string;
  anonymousAuth: boolean;
  authorizationMode: "AlwaysAllow" | "Webhook";
}

const hostPort = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/**
 * Where a node agent started with `argv` serves. Options the command line leaves to a
 * --config file are taken at doc3's defaults, so pass what the file says in `argv` when
 * there is one.
 */
export function nodeAgentTargets(host: string, argv: readonly string[]): NodeAgentTargets {
  const view = readOptionView("node-agent", argv);
  const healthzPort = view.int("--healthz-port") ?? 10248;
  const readOnlyPort = view.int("--read-only-port") ?? 10255;
  const port = view.int("--port") ?? 10250;
  const healthzHost = view.raw("--healthz-bind-address") ?? "127.0.0.1";
  return {
    healthzUrl: healthzPort === 0 ? undefined : `http://${hostPort(healthzHost === "0.0.0.0" || healthzHost === "::" ? host : healthzHost, healthzPort)}`,
    readOnlyUrl: readOnlyPort === 0 ? undefined : `http://${hostPort(host, readOnlyPort)}`,
    mainUrl: view.bool("--enable-server") === false ? undefined : `https://${hostPort(host, port)}`,
    anonymousAuth: view.bool("--anonymous-auth") !== false,
    authorizationMode: view.raw("--authorization-mode") === "Webhook" ? "Webhook" : "AlwaysAllow",
  };
}

/** What a node agent serves on `path` (doc3 does not show its paths; these are a real 1.35 one's): "ok" on /healthz, a PodList on /pods. */
function servedBy(path: string): { what: string; ok: (r: ProbeResponse) => boolean } {
  if (path === "/healthz") return { what: 'HTTP 200 "ok"', ok: isHealthyOk };
  if (path === "/pods") return { what: "HTTP 200 with a PodList", ok: (r) => typeof parseAgentPods(r) !== "string" };
  return { what: "HTTP 200", ok: (r) => r.status === 200 };
}

export interface NodeAgentProbeOptions {
  /** doc3 does not show the node agent's paths; the real one serves /healthz on every server. */
  readOnlyPath?: string;
  mainPath?: string;
}

/**
 * The health server answers 200 "ok"; the read-only server answers without credentials; the
 * main server, asked without credentials, follows --anonymous-auth and --authorization-mode:
 * anonymous off is 401, anonymous with AlwaysAllow is served, anonymous with Webhook is
 * served or 403 (as the subject access review decides), never 401.
 */
export async function probeNodeAgent(client: HttpClient, targets: NodeAgentTargets, options: NodeAgentProbeOptions = {}): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  if (targets.healthzUrl) {
    results.push(
      await expectStatus(client, "doc3.endpoints.agent-healthz-server", { url: join(targets.healthzUrl, "/healthz") }, 'HTTP 200 "ok"', isHealthyOk),
    );
  }
  if (targets.readOnlyUrl) {
    const path = options.readOnlyPath ?? "/healthz";
    const url = join(targets.readOnlyUrl, path);
    // Whether it asks for credentials is agent-read-only-no-auth's question; here, that it is the read-only server.
    const served = servedBy(path);
    results.push(
      await expectStatus(
        client,
        "doc3.endpoints.agent-read-only-server",
        { url },
        `${served.what}, or a refusal (401, 403)`,
        (r) => served.ok(r) || isDenied(r),
      ),
    );
    results.push(await expectStatus(client, "doc3.auth.agent-read-only-no-auth", { url }, "HTTP 2xx without credentials", is2xx));
  }
  if (targets.mainUrl) {
    const path = options.mainPath ?? "/healthz";
    const url = join(targets.mainUrl, path);
    const served = servedBy(path);
    results.push(
      await expectStatus(
        client,
        "doc3.endpoints.agent-main-server",
        { url },
        `${served.what}, 401 or 403 without credentials`,
        (r) => served.ok(r) || isDenied(r),
      ),
    );
    if (!targets.anonymousAuth) {
      results.push(
        await expectStatus(
          client,
          "doc3.auth.agent-anonymous-default",
          { url },
          "HTTP 401 without credentials (anonymous requests are off)",
          (r) => r.status === 401,
        ),
      );
    } else {
      // Taken as system:anonymous: served, or refused by name (the node agent's 403 names the user).
      const anonymous = (r: ProbeResponse): boolean => is2xx(r) || (r.status === 403 && forbiddenUser("node-agent", r) === "system:anonymous");
      results.push(
        await expectStatus(
          client,
          "doc3.auth.agent-anonymous-default",
          { url },
          "HTTP 2xx, or 403 naming user system:anonymous, without credentials (anonymous requests are on)",
          anonymous,
        ),
      );
      if (targets.authorizationMode === "AlwaysAllow") {
        results.push(await expectStatus(client, "doc3.auth.agent-always-allow-default", { url }, "HTTP 2xx without credentials (AlwaysAllow)", is2xx));
      } else {
        results.push(
          await expectStatus(
            client,
            "doc3.auth.agent-webhook-sar",
            { url },
            "HTTP 2xx or 403 without credentials (Webhook decides)",
            (r) => is2xx(r) || r.status === 403,
          ),
        );
      }
    }
  }
  return results;
}

/**
 * The main server is the node agent's API, not merely some HTTPS server with a /healthz (a
 * controller manager has one, and refuses /pods to anonymous callers just the same): to a
 * client allowed everything, /pods is a PodList.
 */
export async function probeNodeAgentMainApi(client: HttpClient, mainUrl: string, credentials?: Readonly<Record<string, string>>): Promise<ProbeResult> {
  return expectStatus(
    client,
    "doc3.endpoints.agent-main-server",
    { url: join(mainUrl, "/pods"), headers: credentials },
    "HTTP 200 with a PodList to an authorized client",
    (r) => r.status === 200 && typeof parseAgentPods(r) !== "string",
  );
}

// The node agent's "What the service does" rules, checked across /pods, /runningpods/ and /stats/summary.
export {
  type AgentPod,
  checkNoForeignContainers,
  checkPodSources,
  checkPodsRunning,
  checkRegisteredNode,
  parseAgentPods,
  parseRuntimePods,
  type RuntimePod,
  reportsRunningContainer,
} from "./agent-pods.js";

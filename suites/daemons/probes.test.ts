/**
 * doc3's "Endpoints" and "Authentication" sections, checked over HTTP against running
 * daemons: a controller manager's secure port and a node agent's main, read-only and health
 * servers; and "What the service does" for the controller manager's core loops, seen through
 * the named health checks a real one adds per controller it starts (/healthz?verbose). The targets are `inject("tollgate").daemons` (`tollgate run --controller-manager
 * URL ...`, or the emulated daemons of an embedded run); a test whose server is not given
 * skips with the reason. What a test expects depends on how the daemon was started, so the
 * command lines come with the targets (doc3's defaults when not given): a test about a
 * setting the daemon does not have (Webhook on an AlwaysAllow node agent...) skips.
 *
 * Tokens: one of a user the daemons authenticate and authorize, one of a user they
 * authenticate but do not authorize; a third, random one names nobody. Paths beyond doc3's
 * (doc3 does not show the node agent's): /metrics and /configz on the controller manager,
 * /pods and /logs/ on the node agent, as a real 1.35 daemon serves them.
 *
 * The node agent's "What the service does" rules are seen across its endpoints: /pods (the
 * pods it manages and their config.source), /runningpods/ (what the runtime runs for it) and
 * /stats/summary (the node it registered), asked on the main server as an authorized client.
 *
 * These tests do not use the API session, so they are plain vitest tests with the rule ids
 * in their meta, like suites/daemons/flags.test.ts.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, inject, it, type TestContext } from "vitest";
import { check } from "../support/conformance.js";
import type { DaemonSettings } from "../../lib/runner/settings.js";
import { analyze } from "../../lib/daemons/checker.js";
import {
  checkControlLoops,
  checkNoForeignContainers,
  checkPodSources,
  checkPodsRunning,
  checkRegisteredNode,
  controllerManagerTarget,
  nodeAgentTargets,
  probeControllerManager,
  probeNodeAgent,
  type ControllerManagerTarget,
  type HttpClient,
  type NodeAgentTargets,
  type ProbeResponse,
  type ProbeResult,
} from "../../lib/daemons/probes.js";
import { daemonClient } from "../support/daemon-client.js";

const clientFor = daemonClient;

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
/** A token no daemon knows. */
const unknownToken = (): string => `tollgate-unknown-${randomBytes(12).toString("hex")}`;

const show = (rs: readonly ProbeResult[]): string => rs.map((r) => `  ${r.ok ? "ok  " : "FAIL"} ${r.rule} ${r.url}: expected ${r.expected}, got ${r.actual}`).join("\n");

function expectAllOk(rs: readonly ProbeResult[], rule: string): void {
  const mine = rs.filter((r) => r.rule === rule);
  expect(mine.length, `no probe of ${rule} ran:\n${show(rs)}`).toBeGreaterThan(0);
  expect(mine.filter((r) => !r.ok), show(mine)).toEqual([]);
}

const describeResponse = (r: ProbeResponse): string => `HTTP ${r.status} ${JSON.stringify(r.body.slice(0, 120))}`;

function daemonsOrSkip(ctx: TestContext): DaemonSettings {
  const d = inject("tollgate").daemons;
  if (!d) ctx.skip("no daemon target given (tollgate run --controller-manager URL / --node-agent URL ...; an embedded run emulates both)");
  return d;
}

// ── Controller manager ──────────────────────────────────────────────────────────────────

interface Cm {
  d: DaemonSettings;
  client: HttpClient;
  target: ControllerManagerTarget;
  authenticationFile: boolean;
  authorizationFile: boolean;
  get(path: string, headers?: Record<string, string>): Promise<ProbeResponse>;
}

function controllerManagerOrSkip(ctx: TestContext): Cm {
  const d = daemonsOrSkip(ctx);
  if (!d.controllerManager) ctx.skip("no controller manager target given (--controller-manager URL)");
  const fromArgs = controllerManagerTarget("127.0.0.1", d.controllerManagerArgs);
  if (!fromArgs) ctx.skip("the controller manager's command line given says --secure-port=0: it serves nothing");
  const { view } = analyze("controller-manager", d.controllerManagerArgs);
  const client = clientFor(d);
  const base = d.controllerManager;
  return {
    d,
    client,
    target: { ...fromArgs, baseUrl: base },
    authenticationFile: view.set("--authentication-kubeconfig"),
    authorizationFile: view.set("--authorization-kubeconfig"),
    get: (path, headers) => client({ url: `${base}${path}`, headers }),
  };
}

describe("controller manager", () => {
  check({ title: "the secure port is HTTPS and refuses every other path without credentials", rules: ["doc3.endpoints.cm-https-secure-port"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    expect(new URL(cm.target.baseUrl).protocol).toBe("https:");
    expectAllOk(await probeControllerManager(cm.client, cm.target), "doc3.endpoints.cm-https-secure-port");
  });

  check({ title: "the always-allow paths answer ok without credentials", rules: ["doc3.endpoints.cm-health-paths-always-allowed"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    if (cm.target.alwaysAllowPaths.length === 0) ctx.skip("the command line given sets no always-allow path");
    // A pattern with `*` names no single path to ask.
    const target = { ...cm.target, alwaysAllowPaths: cm.target.alwaysAllowPaths.filter((p) => !p.includes("*")) };
    expectAllOk(await probeControllerManager(cm.client, target, { protectedPaths: [] }), "doc3.endpoints.cm-health-paths-always-allowed");
  });

  check({ title: "profiling is served under /debug/pprof/ to an authorized client when on, and not when off", rules: ["doc3.endpoints.cm-pprof"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    if (!cm.d.token) ctx.skip("no daemon token given (--daemon-token): nobody to be authorized as");
    if (!cm.authenticationFile || !cm.authorizationFile) {
      ctx.skip("the controller manager's command line given has no --authentication-kubeconfig or --authorization-kubeconfig: no token can be authorized");
    }
    if (cm.target.profiling) {
      expectAllOk(await probeControllerManager(cm.client, cm.target, { protectedPaths: [], authorizedHeaders: bearer(cm.d.token) }), "doc3.endpoints.cm-pprof");
    } else {
      const r = await cm.get("/debug/pprof/", bearer(cm.d.token));
      expect(r.status, `--profiling=false, yet /debug/pprof/ answered ${describeResponse(r)}`).not.toBe(200);
    }
  });

  check({ title: "with an authentication connection file, bearer tokens are reviewed: one naming nobody gets 401", rules: ["doc3.auth.cm-token-review-cached"] }, async (ctx: TestContext) => {
    // Caching (doc3: answers are cached) shows no difference over HTTP; the review itself does.
    const cm = controllerManagerOrSkip(ctx);
    if (!cm.authenticationFile) ctx.skip("the controller manager's command line given has no --authentication-kubeconfig: tokens are not reviewed");
    const unknown = await cm.get("/metrics", bearer(unknownToken()));
    expect(unknown.status, `an unknown token on /metrics: ${describeResponse(unknown)}`).toBe(401);
    if (cm.d.token) {
      const known = await cm.get("/metrics", bearer(cm.d.token));
      expect(known.status, `the allowed user's token on /metrics: ${describeResponse(known)}`).not.toBe(401);
    }
  });

  check({ title: "with an authorization connection file, a subject access review decides: allowed 200, not allowed 403", rules: ["doc3.auth.cm-sar-authorization"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    if (!cm.authorizationFile) ctx.skip("the controller manager's command line given has no --authorization-kubeconfig: no subject access review is made");
    if (!cm.authenticationFile) ctx.skip("the controller manager's command line given has no --authentication-kubeconfig: every request is anonymous, so no token names a user");
    if (!cm.d.token && !cm.d.deniedToken) ctx.skip("no daemon token given (--daemon-token, --daemon-denied-token)");
    if (cm.d.token) {
      const allowed = await cm.get("/metrics", bearer(cm.d.token));
      expect(allowed.status, `the allowed user's token on /metrics: ${describeResponse(allowed)}`).toBe(200);
    }
    if (cm.d.deniedToken) {
      const denied = await cm.get("/metrics", bearer(cm.d.deniedToken));
      expect(denied.status, `the not-allowed user's token on /metrics: ${describeResponse(denied)}`).toBe(403);
    }
  });

  check({ title: "without an authentication connection file, token requests are anonymous", rules: ["doc3.auth.cm-anonymous-without-authn-file"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    if (cm.authenticationFile) ctx.skip("the controller manager's command line given has --authentication-kubeconfig");
    const anonymous = await cm.get("/metrics");
    const tokens = [unknownToken(), ...(cm.d.token ? [cm.d.token] : [])];
    for (const token of tokens) {
      const r = await cm.get("/metrics", bearer(token));
      const who = token === cm.d.token ? "the allowed user's token" : "an unknown token";
      expect(r.status, `${who} on /metrics: ${describeResponse(r)}; without credentials: ${describeResponse(anonymous)}`).toBe(anonymous.status);
    }
  });

  check({ title: "without an authorization connection file, everything off the always-allow paths is forbidden", rules: ["doc3.auth.cm-forbidden-without-authz-file"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    if (cm.authorizationFile) ctx.skip("the controller manager's command line given has --authorization-kubeconfig");
    for (const path of ["/metrics", "/configz"]) {
      for (const [who, headers] of [["without credentials", undefined], ...(cm.d.token ? [["with the allowed user's token", bearer(cm.d.token)] as const] : [])] as const) {
        const r = await cm.get(path, headers);
        expect(r.status, `${path} ${who}: ${describeResponse(r)}`).toBe(403);
      }
    }
  });

  check({ title: "the core control loops it runs have their health checks; a controller disabled by name has none", rules: ["doc3.service.cm-control-loops"] }, async (ctx: TestContext) => {
    const cm = controllerManagerOrSkip(ctx);
    // A real controller manager adds a check named after each controller it starts: /healthz?verbose shows the loops.
    const open = cm.target.alwaysAllowPaths.some((p) => (p.endsWith("*") ? "/healthz".startsWith(p.slice(0, -1)) : p === "/healthz"));
    const canAuthorize = cm.authenticationFile && cm.authorizationFile && cm.d.token !== undefined;
    if (!open && !canAuthorize) ctx.skip("/healthz is not an always-allow path and no daemon token can be authorized (--daemon-token, both connection files)");
    const r = await cm.get("/healthz?verbose", open ? undefined : bearer(cm.d.token ?? ""));
    const probe = checkControlLoops(cm.d.controllerManagerArgs, `${cm.target.baseUrl}/healthz?verbose`, r);
    if (probe.kind === "no-controllers") ctx.skip(`/healthz?verbose lists no controller (${probe.checks.join(", ") || "no check"}): a standby that does not lead, or one that runs no loop`);
    if (probe.results.length === 0) ctx.skip("the command line given enables none of the core loops and disables none by name");
    expect(probe.results.filter((x) => !x.ok), show(probe.results)).toEqual([]);
  });
});

// ── Node agent ──────────────────────────────────────────────────────────────────────────

interface Agent {
  d: DaemonSettings;
  client: HttpClient;
  targets: NodeAgentTargets;
  tokenWebhook: boolean;
  debuggingHandlers: boolean;
  main(path: string, headers?: Record<string, string>): Promise<ProbeResponse>;
}

/** The node agent's settings from its command line; options left to a --config file count at doc3's defaults. */
function nodeAgent(ctx: TestContext): Agent {
  const d = daemonsOrSkip(ctx);
  const fromArgs = nodeAgentTargets("127.0.0.1", d.nodeAgentArgs);
  const { view } = analyze("node-agent", d.nodeAgentArgs);
  const client = clientFor(d);
  return {
    d,
    client,
    // Where the servers are is what the run was told; how they behave is what the command line says.
    targets: { ...fromArgs, mainUrl: d.nodeAgent, readOnlyUrl: d.nodeAgentReadOnly, healthzUrl: d.nodeAgentHealthz },
    tokenWebhook: view.bool("--authentication-token-webhook") ?? false,
    debuggingHandlers: view.bool("--enable-debugging-handlers") ?? true,
    main: (path, headers) => client({ url: `${d.nodeAgent}${path}`, headers }),
  };
}

/**
 * Headers of a client the main server serves everything to: the allowed user's token when
 * tokens are reviewed, none when anonymous requests are permitted everything; else it skips.
 */
function authorizedOrSkip(ctx: TestContext, a: Agent): Record<string, string> | undefined {
  if (a.tokenWebhook && a.d.token) return bearer(a.d.token);
  if (a.targets.anonymousAuth && a.targets.authorizationMode === "AlwaysAllow") return undefined;
  return ctx.skip("no authorized client: anonymous requests are not permitted everything and no token can be authenticated (--authentication-token-webhook and --daemon-token)");
}

/**
 * /pods and /runningpods/ read together; a pod starting or stopping between the two answers
 * can look inconsistent, so `judge` is run on a second pair when the first fails.
 */
async function acrossPodsAndRuntime(a: Agent, headers: Record<string, string> | undefined, judge: (pods: ProbeResponse, running: ProbeResponse) => ProbeResult[]): Promise<ProbeResult[]> {
  let results: ProbeResult[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const pods = await a.main("/pods", headers);
    const running = await a.main("/runningpods/", headers);
    results = judge(pods, running);
    if (results.every((r) => r.ok)) break;
  }
  return results;
}

function mainOrSkip(ctx: TestContext): Agent {
  const agent = nodeAgent(ctx);
  if (!agent.targets.mainUrl) ctx.skip("no node agent main server given (--node-agent URL)");
  return agent;
}

/** Only the main server, so that a probe's results are about it alone. */
const mainOnly = (a: Agent): NodeAgentTargets => ({ ...a.targets, healthzUrl: undefined, readOnlyUrl: undefined });

describe("node agent", () => {
  check({ title: "the health server answers ok", rules: ["doc3.endpoints.agent-healthz-server"] }, async (ctx: TestContext) => {
    const a = nodeAgent(ctx);
    if (!a.targets.healthzUrl) ctx.skip("no node agent health server given (--node-agent-healthz URL)");
    expectAllOk(await probeNodeAgent(a.client, { ...a.targets, mainUrl: undefined, readOnlyUrl: undefined }), "doc3.endpoints.agent-healthz-server");
  });

  check({ title: "the read-only server answers /healthz and /pods without credentials", rules: ["doc3.endpoints.agent-read-only-server", "doc3.auth.agent-read-only-no-auth"] }, async (ctx: TestContext) => {
    const a = nodeAgent(ctx);
    if (!a.targets.readOnlyUrl) ctx.skip("no node agent read-only server given (--node-agent-read-only URL)");
    const only = { ...a.targets, mainUrl: undefined, healthzUrl: undefined };
    const rs = [...(await probeNodeAgent(a.client, only, { readOnlyPath: "/healthz" })), ...(await probeNodeAgent(a.client, only, { readOnlyPath: "/pods" }))];
    expectAllOk(rs, "doc3.endpoints.agent-read-only-server");
    expectAllOk(rs, "doc3.auth.agent-read-only-no-auth");
  });

  check({ title: "the main server answers over HTTPS", rules: ["doc3.endpoints.agent-main-server"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    expect(new URL(a.targets.mainUrl as string).protocol).toBe("https:");
    expectAllOk(await probeNodeAgent(a.client, mainOnly(a)), "doc3.endpoints.agent-main-server");
  });

  check({ title: "a request without credentials follows --anonymous-auth: system:anonymous when on, 401 when off", rules: ["doc3.auth.agent-anonymous-default"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    expectAllOk(await probeNodeAgent(a.client, mainOnly(a), { mainPath: "/pods" }), "doc3.auth.agent-anonymous-default");
  });

  check({ title: "authorization mode AlwaysAllow permits everything", rules: ["doc3.auth.agent-always-allow-default"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    if (a.targets.authorizationMode !== "AlwaysAllow") ctx.skip(`the node agent's command line given says --authorization-mode=${a.targets.authorizationMode}`);
    const askers: [string, Record<string, string> | undefined][] = [];
    if (a.targets.anonymousAuth) askers.push(["without credentials", undefined]);
    if (a.tokenWebhook && a.d.deniedToken) askers.push(["with the not-allowed user's token", bearer(a.d.deniedToken)]);
    if (a.tokenWebhook && a.d.token) askers.push(["with the allowed user's token", bearer(a.d.token)]);
    if (askers.length === 0) ctx.skip("anonymous requests are off and no token can be authenticated (--authentication-token-webhook and --daemon-token): nobody to ask as");
    for (const path of ["/healthz", "/pods", "/configz"]) {
      for (const [who, headers] of askers) {
        const r = await a.main(path, headers);
        expect(r.status >= 200 && r.status < 300, `${path} ${who}: ${describeResponse(r)}`).toBe(true);
      }
    }
  });

  check({ title: "authorization mode Webhook asks a subject access review: allowed served, not allowed 403", rules: ["doc3.auth.agent-webhook-sar"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    if (a.targets.authorizationMode !== "Webhook") ctx.skip(`the node agent's command line given says --authorization-mode=${a.targets.authorizationMode}`);
    const withTokens = a.tokenWebhook && (a.d.token !== undefined || a.d.deniedToken !== undefined);
    if (!a.targets.anonymousAuth && !withTokens) ctx.skip("anonymous requests are off and no token can be authenticated (--authentication-token-webhook and --daemon-token): nobody to ask as");
    const rs = a.targets.anonymousAuth ? await probeNodeAgent(a.client, mainOnly(a), { mainPath: "/pods" }) : [];
    if (rs.length > 0) expectAllOk(rs, "doc3.auth.agent-webhook-sar");
    if (a.tokenWebhook && a.d.token) {
      const r = await a.main("/pods", bearer(a.d.token));
      expect(r.status, `/pods with the allowed user's token: ${describeResponse(r)}`).toBe(200);
    }
    if (a.tokenWebhook && a.d.deniedToken) {
      const r = await a.main("/pods", bearer(a.d.deniedToken));
      expect(r.status, `/pods with the not-allowed user's token: ${describeResponse(r)}`).toBe(403);
    }
  });

  check({ title: "with --authentication-token-webhook, bearer tokens are reviewed: one naming nobody gets 401", rules: ["doc3.auth.agent-bearer-token-review"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    if (!a.tokenWebhook) ctx.skip("the node agent's command line given does not set --authentication-token-webhook: tokens are not reviewed");
    const unknown = await a.main("/pods", bearer(unknownToken()));
    expect(unknown.status, `/pods with an unknown token: ${describeResponse(unknown)}`).toBe(401);
    for (const [who, token] of [["the allowed user's token", a.d.token], ["the not-allowed user's token", a.d.deniedToken]] as const) {
      if (!token) continue;
      const r = await a.main("/pods", bearer(token));
      expect(r.status, `/pods with ${who}: ${describeResponse(r)}`).not.toBe(401);
    }
  });

  check({ title: "the debugging handlers (/logs/) are served when --enable-debugging-handlers is on, and refused when off", rules: ["doc3.endpoints.agent-debugging-handlers"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    let headers: Record<string, string> | undefined;
    if (a.tokenWebhook && a.d.token) headers = bearer(a.d.token);
    else if (!(a.targets.anonymousAuth && a.targets.authorizationMode === "AlwaysAllow")) {
      ctx.skip("no authorized client: anonymous requests are not permitted everything and no token can be authenticated (--authentication-token-webhook and --daemon-token)");
    }
    const r = await a.main("/logs/", headers);
    if (a.debuggingHandlers) expect(r.status, `/logs/: ${describeResponse(r)}`).toBe(200);
    // The real node agent answers 405 "Debug endpoints are disabled."; doc3 only says they are not served.
    else expect(r.status >= 200 && r.status < 300, `--enable-debugging-handlers=false, yet /logs/ answered ${describeResponse(r)}`).toBe(false);
  });

  check({ title: "every pod it runs names its source (API server, file path or HTTP endpoint); static pods are named <name>-<node name>", rules: ["doc3.service.agent-podspec-sources"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    const headers = authorizedOrSkip(ctx, a);
    const rs = checkPodSources(a.d.nodeAgentArgs, `${a.d.nodeAgent}/pods`, await a.main("/pods", headers));
    if (rs.length === 0) ctx.skip("/pods lists no pod: no source to see");
    expect(rs.filter((r) => !r.ok), show(rs)).toEqual([]);
  });

  check({ title: "registers its node as --hostname-override (lowercased) or the hostname, and binds its pods to it", rules: ["doc3.service.agent-registers-node"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    const headers = authorizedOrSkip(ctx, a);
    const rs = checkRegisteredNode(a.d.nodeAgentArgs, `${a.d.nodeAgent}/stats/summary`, await a.main("/stats/summary", headers), `${a.d.nodeAgent}/pods`, await a.main("/pods", headers));
    expect(rs.filter((r) => !r.ok), show(rs)).toEqual([]);
  });

  check({ title: "the containers of the pods it reports running are running in the runtime (/runningpods/)", rules: ["doc3.service.agent-podspec-running"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    const headers = authorizedOrSkip(ctx, a);
    if (!a.debuggingHandlers) ctx.skip("--enable-debugging-handlers=false: /runningpods/ is not served");
    const rs = await acrossPodsAndRuntime(a, headers, (pods, running) => checkPodsRunning(`${a.d.nodeAgent}/pods`, pods, `${a.d.nodeAgent}/runningpods/`, running));
    if (rs.length === 0) ctx.skip("/pods reports no running container");
    expect(rs.filter((r) => !r.ok), show(rs)).toEqual([]);
  });

  check({ title: "the runtime pods it lists (/runningpods/) are all its own pods: no container the cluster did not create", rules: ["doc3.service.agent-ignores-foreign-containers"] }, async (ctx: TestContext) => {
    const a = mainOrSkip(ctx);
    const headers = authorizedOrSkip(ctx, a);
    if (!a.debuggingHandlers) ctx.skip("--enable-debugging-handlers=false: /runningpods/ is not served");
    const rs = await acrossPodsAndRuntime(a, headers, (pods, running) => checkNoForeignContainers(`${a.d.nodeAgent}/pods`, pods, `${a.d.nodeAgent}/runningpods/`, running));
    if (rs.length === 0) ctx.skip("/runningpods/ lists no pod");
    expect(rs.filter((r) => !r.ok), show(rs)).toEqual([]);
  });
});

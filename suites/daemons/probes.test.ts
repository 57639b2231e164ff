/**
 * doc3's "Endpoints" and "Authentication" sections, checked over HTTP against running
 * daemons: a controller manager's secure port and a node agent's main, read-only and health
 * servers; and "What the service does" for the controller manager's core loops, seen through
 * the named health checks a real one adds per controller it starts (/healthz?verbose). The targets are `inject("tollgate").daemons` (`tollgate run --controller-manager
 * URL ...`, or the emulated daemons of an embedded run). What a test expects depends on how
 * the daemon was started, so the command lines come with the targets (doc3's defaults when
 * not given). Each test declares what it needs (lib/runner/daemon-capabilities.ts): its
 * server, the setting it is about (Webhook on the node agent...), the credentials it asks
 * with, and what only an answer tells (a controller manager that leads, pods to look at); the
 * runner marks it not applicable otherwise, and its body takes all of that as given.
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
 * These tests do not use the API session. A test needs `controller-manager` or the node agent
 * server it talks to even when another need implies it, so that a test about a setting's
 * absence (`!cm-authentication-file`) does not apply without a daemon.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, inject } from "vitest";
import { daemonClient } from "../../lib/daemons/daemon-client.js";
import {
  checkControlLoops,
  checkNoForeignContainers,
  checkPodSources,
  checkPodsRunning,
  checkRegisteredNode,
  type HttpClient,
  type NodeAgentTargets,
  type ProbeResponse,
  type ProbeResult,
  probeControllerManager,
  probeNodeAgent,
  probeNodeAgentMainApi,
} from "../../lib/daemons/probes.js";
import {
  bearer,
  type ControllerManagerView,
  type Credentials,
  controllerManagerView,
  given,
  type NodeAgentView,
  nodeAgentView,
} from "../../lib/runner/daemon-views.js";
import type { DaemonSettings } from "../../lib/runner/settings.js";
import { check } from "../support/conformance.js";

/** A token no daemon knows. */
const unknownToken = (): string => `tollgate-unknown-${randomBytes(12).toString("hex")}`;

const show = (rs: readonly ProbeResult[]): string =>
  rs.map((r) => `  ${r.ok ? "ok  " : "FAIL"} ${r.rule} ${r.url}: expected ${r.expected}, got ${r.actual}`).join("\n");

function expectAllOk(rs: readonly ProbeResult[], rule: string): void {
  const mine = rs.filter((r) => r.rule === rule);
  expect(mine.length, `no probe of ${rule} ran:\n${show(rs)}`).toBeGreaterThan(0);
  expect(
    mine.filter((r) => !r.ok),
    show(mine),
  ).toEqual([]);
}

const describeResponse = (r: ProbeResponse): string => `HTTP ${r.status} ${JSON.stringify(r.body.slice(0, 120))}`;
const is2xx = (r: ProbeResponse): boolean => r.status >= 200 && r.status < 300;

const daemons = (): DaemonSettings => given(inject("tollgate").daemons, "the daemon settings");

// ── Controller manager ──────────────────────────────────────────────────────────────────

interface Cm extends ControllerManagerView {
  d: DaemonSettings;
  client: HttpClient;
  get(path: string, credentials?: Credentials): Promise<ProbeResponse>;
}

/** The controller manager given, read as the capability detection read it. */
function controllerManager(): Cm {
  const d = daemons();
  const cm = given(controllerManagerView(d), "the controller manager target");
  const client = daemonClient(d);
  return { ...cm, d, client, get: (path, credentials) => client({ url: `${cm.url}${path}`, headers: credentials }) };
}

describe("controller manager", () => {
  check(
    {
      title: "the secure port is HTTPS and refuses every other path without credentials",
      rules: ["doc3.endpoints.cm-https-secure-port"],
      needs: ["controller-manager", "cm-secure-port"],
    },
    async () => {
      const cm = controllerManager();
      const target = given(cm.target, "the secure port");
      expect(new URL(target.baseUrl).protocol).toBe("https:");
      expectAllOk(await probeControllerManager(cm.client, target), "doc3.endpoints.cm-https-secure-port");
    },
  );

  check(
    {
      title: "the always-allow paths answer ok without credentials",
      rules: ["doc3.endpoints.cm-health-paths-always-allowed"],
      needs: ["controller-manager", "cm-secure-port", "cm-always-allow-paths"],
    },
    async () => {
      const cm = controllerManager();
      // A pattern with `*` names no single path to ask.
      const target = { ...given(cm.target, "the secure port"), alwaysAllowPaths: [...cm.askableAlwaysAllowPaths] };
      expectAllOk(await probeControllerManager(cm.client, target, { protectedPaths: [] }), "doc3.endpoints.cm-health-paths-always-allowed");
    },
  );

  check(
    {
      title: "profiling is served under /debug/pprof/ to an authorized client when on, and not when off",
      rules: ["doc3.endpoints.cm-pprof"],
      needs: ["controller-manager", "cm-secure-port", "daemon-token", "cm-authentication-file", "cm-authorization-file"],
    },
    async () => {
      const cm = controllerManager();
      const target = given(cm.target, "the secure port");
      const token = given(cm.d.token, "the daemon token");
      if (target.profiling) {
        expectAllOk(await probeControllerManager(cm.client, target, { protectedPaths: [], authorizedHeaders: bearer(token) }), "doc3.endpoints.cm-pprof");
      } else {
        // Asked as an authorized client, a path that is not served is 404; a refusal would show nothing.
        const r = await cm.get("/debug/pprof/", bearer(token));
        expect(r.status, `--profiling=false, yet /debug/pprof/ answered ${describeResponse(r)}`).toBe(404);
      }
    },
  );

  check(
    {
      title: "with an authentication connection file, bearer tokens are reviewed: one naming nobody gets 401",
      rules: ["doc3.auth.cm-token-review-cached"],
      needs: ["controller-manager", "cm-secure-port", "cm-authentication-file"],
    },
    async () => {
      // Caching (doc3: answers are cached) shows no difference over HTTP; the review itself does.
      const cm = controllerManager();
      const unknown = await cm.get("/metrics", bearer(unknownToken()));
      expect(unknown.status, `an unknown token on /metrics: ${describeResponse(unknown)}`).toBe(401);
      if (cm.d.token) {
        // Authenticated, its user is then allowed (200) or not (403).
        const known = await cm.get("/metrics", bearer(cm.d.token));
        expect([200, 403], `the allowed user's token on /metrics: ${describeResponse(known)}`).toContain(known.status);
      }
    },
  );

  check(
    {
      title: "with an authorization connection file, a subject access review decides: allowed 200, not allowed 403",
      rules: ["doc3.auth.cm-sar-authorization"],
      needs: ["controller-manager", "cm-secure-port", "cm-authorization-file", "cm-authentication-file", "daemon-any-token"],
    },
    async () => {
      const cm = controllerManager();
      if (cm.d.token) {
        const allowed = await cm.get("/metrics", bearer(cm.d.token));
        expect(allowed.status, `the allowed user's token on /metrics: ${describeResponse(allowed)}`).toBe(200);
      }
      if (cm.d.deniedToken) {
        const denied = await cm.get("/metrics", bearer(cm.d.deniedToken));
        expect(denied.status, `the not-allowed user's token on /metrics: ${describeResponse(denied)}`).toBe(403);
      }
    },
  );

  check(
    {
      title: "without an authentication connection file, token requests are anonymous",
      rules: ["doc3.auth.cm-anonymous-without-authn-file"],
      needs: ["controller-manager", "cm-secure-port", "!cm-authentication-file"],
    },
    async () => {
      const cm = controllerManager();
      const anonymous = await cm.get("/metrics");
      // Without authentication there is no 401: system:anonymous is allowed (200) or not (403). Equal answers that are no decision would show nothing.
      expect([200, 403], `/metrics without credentials: ${describeResponse(anonymous)}`).toContain(anonymous.status);
      const tokens = [unknownToken(), ...(cm.d.token ? [cm.d.token] : [])];
      for (const token of tokens) {
        const r = await cm.get("/metrics", bearer(token));
        const who = token === cm.d.token ? "the allowed user's token" : "an unknown token";
        expect(r.status, `${who} on /metrics: ${describeResponse(r)}; without credentials: ${describeResponse(anonymous)}`).toBe(anonymous.status);
      }
    },
  );

  check(
    {
      title: "without an authorization connection file, everything off the always-allow paths is forbidden",
      rules: ["doc3.auth.cm-forbidden-without-authz-file"],
      needs: ["controller-manager", "cm-secure-port", "!cm-authorization-file"],
    },
    async () => {
      const cm = controllerManager();
      for (const path of ["/metrics", "/configz"]) {
        for (const [who, credentials] of [
          ["without credentials", undefined],
          ...(cm.d.token ? [["with the allowed user's token", bearer(cm.d.token)] as const] : []),
        ] as const) {
          const r = await cm.get(path, credentials);
          expect(r.status, `${path} ${who}: ${describeResponse(r)}`).toBe(403);
        }
      }
    },
  );

  check(
    {
      title: "the core control loops it runs have their health checks; a controller disabled by name has none",
      rules: ["doc3.service.cm-control-loops"],
      needs: ["controller-manager", "cm-secure-port", "cm-healthz-access", "cm-core-loops", "cm-controller-checks"],
    },
    async () => {
      const cm = controllerManager();
      // A real controller manager adds a check named after each controller it starts: /healthz?verbose shows the loops.
      const reader = given(cm.healthzReader, "a way to read /healthz?verbose");
      const r = await cm.get("/healthz?verbose", reader.credentials);
      const probe = checkControlLoops(cm.d.controllerManagerArgs, `${cm.url}/healthz?verbose`, r);
      // Detection saw controller checks before the tests; none now is a controller manager that stopped running its loops.
      expect(
        probe.kind === "results" ? "controller checks" : `no controller check (${probe.checks.join(", ")})`,
        `/healthz?verbose: ${describeResponse(r)}`,
      ).toBe("controller checks");
      const results = probe.kind === "results" ? probe.results : [];
      expect(results.length, "no core loop or controller disabled by name to look for").toBeGreaterThan(0);
      expect(
        results.filter((x) => !x.ok),
        show(results),
      ).toEqual([]);
    },
  );
});

// ── Node agent ──────────────────────────────────────────────────────────────────────────

interface Agent extends NodeAgentView {
  d: DaemonSettings;
  client: HttpClient;
  /** GET on the main server. */
  main(path: string, credentials?: Credentials): Promise<ProbeResponse>;
}

/** The node agent given, read as the capability detection read it. */
function nodeAgent(): Agent {
  const d = daemons();
  const agent = given(nodeAgentView(d), "the node agent target");
  const client = daemonClient(d);
  return {
    ...agent,
    d,
    client,
    main: (path, credentials) => client({ url: `${given(d.nodeAgent, "the node agent main server")}${path}`, headers: credentials }),
  };
}

/** The credentials of a client the main server serves everything to (needs: agent-authorized-client). */
const authorized = (a: Agent): Credentials => given(a.authorized, "an authorized client").credentials;

/**
 * /pods and /runningpods/ read together; a pod starting or stopping between the two answers
 * can look inconsistent, so `judge` is run on a second pair when the first fails.
 */
async function acrossPodsAndRuntime(
  a: Agent,
  credentials: Credentials,
  judge: (pods: ProbeResponse, running: ProbeResponse) => ProbeResult[],
): Promise<ProbeResult[]> {
  let results: ProbeResult[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const pods = await a.main("/pods", credentials);
    const running = await a.main("/runningpods/", credentials);
    results = judge(pods, running);
    if (results.every((r) => r.ok)) break;
  }
  return results;
}

/** Only the main server, so that a probe's results are about it alone. */
const mainOnly = (a: Agent): NodeAgentTargets => ({ ...a.targets, healthzUrl: undefined, readOnlyUrl: undefined });

describe("node agent", () => {
  check({ title: "the health server answers ok", rules: ["doc3.endpoints.agent-healthz-server"], needs: ["agent-healthz-server"] }, async () => {
    const a = nodeAgent();
    expectAllOk(await probeNodeAgent(a.client, { ...a.targets, mainUrl: undefined, readOnlyUrl: undefined }), "doc3.endpoints.agent-healthz-server");
  });

  check(
    {
      title: "the read-only server answers /healthz and /pods without credentials",
      rules: ["doc3.endpoints.agent-read-only-server", "doc3.auth.agent-read-only-no-auth"],
      needs: ["agent-read-only-server"],
    },
    async () => {
      const a = nodeAgent();
      const only = { ...a.targets, mainUrl: undefined, healthzUrl: undefined };
      const rs = [
        ...(await probeNodeAgent(a.client, only, { readOnlyPath: "/healthz" })),
        ...(await probeNodeAgent(a.client, only, { readOnlyPath: "/pods" })),
      ];
      expectAllOk(rs, "doc3.endpoints.agent-read-only-server");
      expectAllOk(rs, "doc3.auth.agent-read-only-no-auth");
    },
  );

  check({ title: "the main server answers over HTTPS", rules: ["doc3.endpoints.agent-main-server"], needs: ["agent-main-server"] }, async () => {
    const a = nodeAgent();
    expect(new URL(given(a.targets.mainUrl, "the main server")).protocol).toBe("https:");
    expectAllOk(await probeNodeAgent(a.client, mainOnly(a)), "doc3.endpoints.agent-main-server");
  });

  check(
    {
      title: "the main server is the node agent's API: /pods to an authorized client is a PodList",
      rules: ["doc3.endpoints.agent-main-server"],
      needs: ["agent-main-server", "agent-authorized-client"],
    },
    async () => {
      const a = nodeAgent();
      expectAllOk([await probeNodeAgentMainApi(a.client, given(a.targets.mainUrl, "the main server"), authorized(a))], "doc3.endpoints.agent-main-server");
    },
  );

  check(
    {
      title: "a request without credentials follows --anonymous-auth: system:anonymous when on, 401 when off",
      rules: ["doc3.auth.agent-anonymous-default"],
      needs: ["agent-main-server"],
    },
    async () => {
      const a = nodeAgent();
      expectAllOk(await probeNodeAgent(a.client, mainOnly(a), { mainPath: "/pods" }), "doc3.auth.agent-anonymous-default");
    },
  );

  check(
    {
      title: "authorization mode AlwaysAllow permits everything",
      rules: ["doc3.auth.agent-always-allow-default"],
      needs: ["agent-main-server", "!agent-authorization-webhook", "agent-asker"],
    },
    async () => {
      const a = nodeAgent();
      expect(a.askers.length, "nobody to ask as").toBeGreaterThan(0);
      for (const path of ["/healthz", "/pods", "/configz"]) {
        for (const [who, credentials] of a.askers) {
          const r = await a.main(path, credentials);
          expect(is2xx(r), `${path} ${who}: ${describeResponse(r)}`).toBe(true);
        }
      }
    },
  );

  check(
    {
      title: "authorization mode Webhook asks a subject access review: allowed served, not allowed 403",
      rules: ["doc3.auth.agent-webhook-sar"],
      needs: ["agent-main-server", "agent-authorization-webhook", "agent-asker"],
    },
    async () => {
      const a = nodeAgent();
      if (a.targets.anonymousAuth) expectAllOk(await probeNodeAgent(a.client, mainOnly(a), { mainPath: "/pods" }), "doc3.auth.agent-webhook-sar");
      if (a.reviewedTokens.allowed) {
        const r = await a.main("/pods", bearer(a.reviewedTokens.allowed));
        expect(r.status, `/pods with the allowed user's token: ${describeResponse(r)}`).toBe(200);
      }
      if (a.reviewedTokens.denied) {
        const r = await a.main("/pods", bearer(a.reviewedTokens.denied));
        expect(r.status, `/pods with the not-allowed user's token: ${describeResponse(r)}`).toBe(403);
      }
    },
  );

  check(
    {
      title: "with --authentication-token-webhook, bearer tokens are reviewed: one naming nobody gets 401",
      rules: ["doc3.auth.agent-bearer-token-review"],
      needs: ["agent-main-server", "agent-token-webhook"],
    },
    async () => {
      const a = nodeAgent();
      const unknown = await a.main("/pods", bearer(unknownToken()));
      expect(unknown.status, `/pods with an unknown token: ${describeResponse(unknown)}`).toBe(401);
      for (const [who, token] of [
        ["the allowed user's token", a.d.token],
        ["the not-allowed user's token", a.d.deniedToken],
      ] as const) {
        if (!token) continue;
        // Authenticated, its user is then served or refused by authorization (403).
        const r = await a.main("/pods", bearer(token));
        expect(is2xx(r) || r.status === 403, `/pods with ${who}: ${describeResponse(r)}`).toBe(true);
      }
    },
  );

  check(
    {
      title: "the debugging handlers (/logs/) are served when --enable-debugging-handlers is on, and refused when off",
      rules: ["doc3.endpoints.agent-debugging-handlers"],
      needs: ["agent-main-server", "agent-authorized-client"],
    },
    async () => {
      const a = nodeAgent();
      const r = await a.main("/logs/", authorized(a));
      if (a.debuggingHandlers) expect(r.status, `/logs/: ${describeResponse(r)}`).toBe(200);
      // The real node agent answers 405 "Debug endpoints are disabled."; doc3 only says they are not served (404 says so too).
      // Asked as an authorized client, a refusal (401, 403) would show nothing about the handlers.
      else expect([404, 405], `--enable-debugging-handlers=false, yet /logs/ answered ${describeResponse(r)}`).toContain(r.status);
    },
  );

  check(
    {
      title: "every pod it runs names its source (API server, file path or HTTP endpoint); static pods are named <name>-<node name>",
      rules: ["doc3.service.agent-podspec-sources"],
      needs: ["agent-main-server", "agent-authorized-client", "agent-pods"],
    },
    async () => {
      const a = nodeAgent();
      const rs = checkPodSources(a.d.nodeAgentArgs, `${a.d.nodeAgent}/pods`, await a.main("/pods", authorized(a)));
      expect(rs.length, "/pods lists no pod now, though it listed some before the tests").toBeGreaterThan(0);
      expect(
        rs.filter((r) => !r.ok),
        show(rs),
      ).toEqual([]);
    },
  );

  check(
    {
      title: "registers its node as --hostname-override (lowercased) or the hostname, and binds its pods to it",
      rules: ["doc3.service.agent-registers-node"],
      needs: ["agent-main-server", "agent-authorized-client"],
    },
    async () => {
      const a = nodeAgent();
      const credentials = authorized(a);
      const rs = checkRegisteredNode(
        a.d.nodeAgentArgs,
        `${a.d.nodeAgent}/stats/summary`,
        await a.main("/stats/summary", credentials),
        `${a.d.nodeAgent}/pods`,
        await a.main("/pods", credentials),
      );
      expect(
        rs.filter((r) => !r.ok),
        show(rs),
      ).toEqual([]);
    },
  );

  check(
    {
      title: "the containers of the pods it reports running are running in the runtime (/runningpods/)",
      rules: ["doc3.service.agent-podspec-running"],
      needs: ["agent-main-server", "agent-authorized-client", "agent-debugging-handlers", "agent-running-containers"],
    },
    async () => {
      const a = nodeAgent();
      const rs = await acrossPodsAndRuntime(a, authorized(a), (pods, running) =>
        checkPodsRunning(`${a.d.nodeAgent}/pods`, pods, `${a.d.nodeAgent}/runningpods/`, running),
      );
      expect(rs.length, "/pods reports no running container now, though it did before the tests").toBeGreaterThan(0);
      expect(
        rs.filter((r) => !r.ok),
        show(rs),
      ).toEqual([]);
    },
  );

  check(
    {
      title: "the runtime pods it lists (/runningpods/) are all its own pods: no container the cluster did not create",
      rules: ["doc3.service.agent-ignores-foreign-containers"],
      needs: ["agent-main-server", "agent-authorized-client", "agent-debugging-handlers", "agent-runtime-pods"],
    },
    async () => {
      const a = nodeAgent();
      const rs = await acrossPodsAndRuntime(a, authorized(a), (pods, running) =>
        checkNoForeignContainers(`${a.d.nodeAgent}/pods`, pods, `${a.d.nodeAgent}/runningpods/`, running),
      );
      expect(rs.length, "/runningpods/ lists no pod now, though it did before the tests").toBeGreaterThan(0);
      expect(
        rs.filter((r) => !r.ok),
        show(rs),
      ).toEqual([]);
    },
  );
});

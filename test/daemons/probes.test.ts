/** The endpoint probes pass against servers that behave as doc3 says and fail against ones that do not. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkControlLoops,
  controlLoopExpectations,
  controllerManagerTarget,
  type HttpClient,
  listsControllers,
  type NodeAgentTargets,
  nodeAgentTargets,
  type ProbeResult,
  probeControllerManager,
  probeNodeAgent,
  probeNodeAgentMainApi,
  verboseHealthChecks,
} from "../../lib/daemons/probes.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

const client: HttpClient = async ({ url, headers }) => {
  const res = await fetch(url, { headers: { ...headers } });
  return { status: res.status, body: await res.text() };
};

const reply = (res: ServerResponse, status: number, body = ""): void => {
  res.writeHead(status, { "content-type": "text/plain" }).end(body);
};

const failed = (rs: ProbeResult[]): ProbeResult[] => rs.filter((r) => !r.ok);
const rulesOf = (rs: ProbeResult[]): string[] => [...new Set(rs.map((r) => r.rule))].sort();

describe("controller manager probes", () => {
  const ALWAYS = ["/healthz", "/readyz", "/livez"];
  let good = "";
  let wrong = "";
  beforeAll(async () => {
    good = await serve((req, res) => {
      if (ALWAYS.includes(req.url ?? "")) return reply(res, 200, "ok");
      if (req.headers.authorization !== "Bearer admin") return reply(res, req.headers.authorization ? 403 : 401, "Unauthorized");
      return reply(res, 200, "profiles");
    });
    // Health behind authentication, metrics open: both doc3 rules broken.
    wrong = await serve((req, res) => {
      if (req.url === "/healthz" || req.url === "/livez") return reply(res, 200, "ok");
      if (req.url === "/readyz") return reply(res, 401, "Unauthorized");
      return reply(res, 200, "# metrics");
    });
  });

  it("pass against a server that behaves as doc3 says", async () => {
    const rs = await probeControllerManager(
      client,
      { baseUrl: good, alwaysAllowPaths: ALWAYS, profiling: true },
      { authorizedHeaders: { authorization: "Bearer admin" } },
    );
    expect(failed(rs)).toEqual([]);
    expect(rulesOf(rs)).toEqual(["doc3.endpoints.cm-health-paths-always-allowed", "doc3.endpoints.cm-https-secure-port", "doc3.endpoints.cm-pprof"]);
  });

  it("fail against a server with a protected health path and open metrics", async () => {
    const rs = await probeControllerManager(client, { baseUrl: wrong, alwaysAllowPaths: ALWAYS, profiling: true });
    const bad = failed(rs).map((r) => `${r.rule} ${r.url.replace(wrong, "")}`);
    expect(bad).toEqual(
      expect.arrayContaining([
        "doc3.endpoints.cm-health-paths-always-allowed /readyz",
        "doc3.endpoints.cm-https-secure-port /metrics",
        "doc3.endpoints.cm-https-secure-port /debug/pprof/",
      ]),
    );
    expect(bad).not.toContain("doc3.endpoints.cm-health-paths-always-allowed /healthz");
  });

  it("report an unreachable server as failed, not as a thrown error", async () => {
    const rs = await probeControllerManager(client, { baseUrl: "http://127.0.0.1:1", alwaysAllowPaths: ["/healthz"], profiling: false });
    expect(rs.every((r) => !r.ok && r.actual.startsWith("no answer"))).toBe(true);
  });

  it("find the secure port and always-allow paths from the command line", () => {
    expect(controllerManagerTarget("10.0.0.1", [])).toEqual({ baseUrl: "https://10.0.0.1:10257", alwaysAllowPaths: ALWAYS, profiling: true });
    expect(controllerManagerTarget("::1", ["--secure-port=9443", "--authorization-always-allow-paths=/healthz", "--profiling=false"])).toEqual({
      baseUrl: "https://[::1]:9443",
      alwaysAllowPaths: ["/healthz"],
      profiling: false,
    });
    expect(controllerManagerTarget("10.0.0.1", ["--secure-port=0"])).toBeUndefined();
  });
});

describe("node agent probes", () => {
  let healthz = "";
  let readOnly = "";
  let mainAnonymous = "";
  let mainStrict = "";
  let mainWebhook = "";
  let wrongReadOnly = "";
  beforeAll(async () => {
    healthz = await serve((req, res) => (req.url === "/healthz" ? reply(res, 200, "ok") : reply(res, 404)));
    readOnly = await serve((_req, res) => reply(res, 200, "ok"));
    mainAnonymous = await serve((_req, res) => reply(res, 200, "ok"));
    mainStrict = await serve((req, res) => (req.headers.authorization ? reply(res, 200, "ok") : reply(res, 401, "Unauthorized")));
    mainWebhook = await serve((_req, res) => reply(res, 403, "Forbidden (user=system:anonymous)"));
    wrongReadOnly = await serve((_req, res) => reply(res, 401, "Unauthorized"));
  });

  const targets = (over: Partial<NodeAgentTargets>): NodeAgentTargets => ({
    healthzUrl: healthz,
    readOnlyUrl: readOnly,
    mainUrl: mainAnonymous,
    anonymousAuth: true,
    authorizationMode: "AlwaysAllow",
    ...over,
  });

  it("pass with the defaults: anonymous requests and AlwaysAllow", async () => {
    const rs = await probeNodeAgent(client, targets({}));
    expect(failed(rs)).toEqual([]);
    expect(rulesOf(rs)).toEqual([
      "doc3.auth.agent-always-allow-default",
      "doc3.auth.agent-anonymous-default",
      "doc3.auth.agent-read-only-no-auth",
      "doc3.endpoints.agent-healthz-server",
      "doc3.endpoints.agent-main-server",
      "doc3.endpoints.agent-read-only-server",
    ]);
  });

  it("pass with anonymous requests off (401) and with Webhook (403)", async () => {
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: mainStrict, anonymousAuth: false })))).toEqual([]);
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: mainWebhook, authorizationMode: "Webhook" })))).toEqual([]);
  });

  it("fail when the read-only port asks for credentials", async () => {
    const rs = failed(await probeNodeAgent(client, targets({ readOnlyUrl: wrongReadOnly })));
    expect(rs.map((r) => r.rule)).toEqual(["doc3.auth.agent-read-only-no-auth"]);
  });

  it("fail when the main port refuses anonymous requests that the flags allow, or serves ones they forbid", async () => {
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: mainStrict }))).map((r) => r.rule)).toEqual([
      "doc3.auth.agent-anonymous-default",
      "doc3.auth.agent-always-allow-default",
    ]);
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: mainAnonymous, anonymousAuth: false }))).map((r) => r.rule)).toEqual([
      "doc3.auth.agent-anonymous-default",
    ]);
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: mainStrict, authorizationMode: "Webhook" }))).map((r) => r.rule)).toEqual([
      "doc3.auth.agent-anonymous-default",
      "doc3.auth.agent-webhook-sar",
    ]);
  });

  it("fail when the health server does not answer ok", async () => {
    const rs = failed(await probeNodeAgent(client, targets({ healthzUrl: mainWebhook })));
    expect(rs.map((r) => r.rule)).toEqual(["doc3.endpoints.agent-healthz-server"]);
  });

  it("the main server's API: /pods to an authorized client is a PodList; a controller manager's 404, a refusal or another body fails", async () => {
    const podList = JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [] });
    const agent = await serve((req, res) =>
      req.url === "/pods" && req.headers.authorization === "Bearer allowed" ? reply(res, 200, podList) : reply(res, 403),
    );
    const ok = await probeNodeAgentMainApi(client, agent, { authorization: "Bearer allowed" });
    expect(ok, JSON.stringify(ok)).toMatchObject({ rule: "doc3.endpoints.agent-main-server", ok: true });
    expect((await probeNodeAgentMainApi(client, agent, { authorization: "Bearer other" })).ok).toBe(false);
    const notAgent = await serve((req, res) => (req.url === "/healthz" ? reply(res, 200, "ok") : reply(res, 404, "404 page not found")));
    expect((await probeNodeAgentMainApi(client, notAgent, { authorization: "Bearer allowed" })).ok).toBe(false);
    expect((await probeNodeAgentMainApi(client, mainAnonymous, undefined)).ok, "a 200 that is no PodList").toBe(false);
  });

  it("fail when a server answers what no node agent answers (a 5xx, or a path it serves missing), whatever else it does", async () => {
    const broken = await serve((_req, res) => reply(res, 500, "boom"));
    const missing = await serve((_req, res) => reply(res, 404, "404 page not found"));
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: broken, readOnlyUrl: missing, healthzUrl: undefined }))).map((r) => r.rule)).toEqual([
      "doc3.endpoints.agent-read-only-server",
      "doc3.auth.agent-read-only-no-auth",
      "doc3.endpoints.agent-main-server",
      "doc3.auth.agent-anonymous-default",
      "doc3.auth.agent-always-allow-default",
    ]);
    // /pods must be a PodList where it is served; a refusal is the other rules' business.
    const notPods = await serve((_req, res) => reply(res, 200, "ok"));
    expect(failed(await probeNodeAgent(client, targets({ readOnlyUrl: notPods, mainUrl: undefined }), { readOnlyPath: "/pods" })).map((r) => r.rule)).toEqual([
      "doc3.endpoints.agent-read-only-server",
    ]);
    expect(failed(await probeNodeAgent(client, targets({ mainUrl: mainStrict, anonymousAuth: false }), { mainPath: "/pods" }))).toEqual([]);
  });

  it("fail when a request without credentials is refused as someone other than system:anonymous", async () => {
    const otherUser = await serve((_req, res) => reply(res, 403, "Forbidden (user=kubelet-api, verb=get, resource=nodes, subresource=proxy)"));
    const rs = failed(await probeNodeAgent(client, targets({ mainUrl: otherUser, authorizationMode: "Webhook" })));
    expect(rs.map((r) => r.rule)).toEqual(["doc3.auth.agent-anonymous-default"]);
  });

  it("find the three servers and the auth settings from the command line", () => {
    expect(nodeAgentTargets("10.0.0.7", [])).toEqual({
      healthzUrl: "http://127.0.0.1:10248",
      readOnlyUrl: "http://10.0.0.7:10255",
      mainUrl: "https://10.0.0.7:10250",
      anonymousAuth: true,
      authorizationMode: "AlwaysAllow",
    });
    expect(
      nodeAgentTargets("10.0.0.7", ["--read-only-port=0", "--healthz-port=0", "--port=11250", "--anonymous-auth=false", "--authorization-mode=Webhook"]),
    ).toEqual({
      healthzUrl: undefined,
      readOnlyUrl: undefined,
      mainUrl: "https://10.0.0.7:11250",
      anonymousAuth: false,
      authorizationMode: "Webhook",
    });
    expect(nodeAgentTargets("10.0.0.7", ["--enable-server=false", "--healthz-bind-address=0.0.0.0"])).toMatchObject({
      mainUrl: undefined,
      healthzUrl: "http://10.0.0.7:10248",
    });
  });
});

describe("control-loops probe (doc3.service.cm-control-loops)", () => {
  const URL_ = "https://cm:10257/healthz?verbose";
  const verbose = (...checks: string[]): { status: number; body: string } => ({
    status: 200,
    body: `${checks.map((c) => `[+]${c} ok\n`).join("")}healthz check passed\n`,
  });
  const CORE = ["replicationcontroller-controller", "endpoints-controller", "namespace-controller", "serviceaccount-controller"];
  const failedOf = (argv: string[], r: { status: number; body: string }): string[] => {
    const p = checkControlLoops(argv, URL_, r);
    if (p.kind !== "results") throw new Error(`no results: ${p.checks.join(",")}`);
    return p.results.filter((x) => !x.ok).map((x) => x.expected);
  };

  it("passes when the enabled core loops are listed and the disabled ones are not", () => {
    expect(failedOf([], verbose("leaderElection", ...CORE, "job-controller"))).toEqual([]);
    expect(
      failedOf(
        ["--controllers=*,-endpoint"],
        verbose("leaderElection", "replicationcontroller-controller", "namespace-controller", "serviceaccount-controller"),
      ),
    ).toEqual([]);
  });

  it("fails on a missing core loop, a disabled controller listed, and a refused or failing /healthz", () => {
    expect(failedOf([], verbose("leaderElection", "endpoints-controller", "namespace-controller", "serviceaccount-controller"))).toEqual([
      "a [+]replicationcontroller-controller check (--controllers enables it)",
    ]);
    expect(failedOf(["--controllers=*,-ttl-controller"], verbose(...CORE, "ttl-controller"))).toEqual(["no ttl-controller check (--controllers disables it)"]);
    expect(failedOf([], { status: 403, body: "forbidden" })).toEqual(["HTTP 200 with the [+]<check> ok lines"]);
    // ?verbose not honoured: a real healthz always lists its checks.
    expect(failedOf([], { status: 200, body: "ok" })).toEqual(["HTTP 200 with the [+]<check> ok lines"]);
    expect(failedOf([], { status: 500, body: "[-]namespace-controller failed: reason withheld\nhealthz check failed" })).toHaveLength(1);
  });

  it("reports a list without controllers (a standby) instead of judging", () => {
    expect(checkControlLoops([], URL_, verbose("leaderElection")).kind).toBe("no-controllers");
  });

  it("says what a command line lets /healthz?verbose show, and reads its checks", () => {
    expect(controlLoopExpectations([])).toEqual({ enabled: CORE, disabled: [] });
    expect(controlLoopExpectations(["--controllers=-ttl-controller"])).toEqual({ enabled: [], disabled: ["ttl-controller"] });
    expect(controlLoopExpectations(["--controllers=job-controller"])).toEqual({ enabled: [], disabled: [] });
    expect(verboseHealthChecks(verbose("leaderElection", "job-controller"))).toEqual(["leaderElection", "job-controller"]);
    expect(verboseHealthChecks({ status: 200, body: "ok" })).toBeUndefined();
    expect(verboseHealthChecks({ status: 500, body: "[-]leaderElection failed: reason withheld\n" })).toBeUndefined();
    expect(listsControllers(["leaderElection"])).toBe(false);
    expect(listsControllers(["leaderElection", "job-controller"])).toBe(true);
  });
});

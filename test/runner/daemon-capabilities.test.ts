/**
 * The daemon capabilities (lib/runner/daemon-capabilities.ts): each one derived from the run's
 * settings and the daemons' command lines, true and false with its evidence; and the probes of
 * the daemons' answers, which leave a capability unavailable when nothing answers and record a
 * violation of the rule they exercise when the answer is one no real daemon gives.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { PKI, readPair } from "../../fixtures/daemons/pki.js";
import { STATIC_POD_DIR } from "../../fixtures/daemons/static-pods.js";
import { type EmulatedDaemonsOptions, type RunningEmulatedDaemons, startEmulatedDaemons } from "../../lib/emulator/daemons/index.js";
import type { Capability } from "../../lib/runner/capabilities.js";
import { type DaemonCapabilities, type DaemonDetection, type DaemonDetectionOptions, detectDaemons } from "../../lib/runner/daemon-capabilities.js";
import { DAEMON_CAPABILITIES } from "../../lib/runner/daemon-capability-names.js";
import { EMBEDDED_CONTROLLER_MANAGER_ARGS, EMBEDDED_NODE_AGENT_ARGS } from "../../lib/runner/global-setup.js";
import type { DaemonSettings } from "../../lib/runner/settings.js";
import { ACCESS, ALLOWED_TOKEN, DENIED_TOKEN, TLS } from "../emulator/daemons/support.js";

type Name = keyof DaemonCapabilities & Capability;

/** Nothing listens on port 1: every request there is refused at once. */
const CLOSED = "https://127.0.0.1:1";
const WITH_FILES = [
  "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
  "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
];

const settings = (over: Partial<DaemonSettings> = {}): DaemonSettings => ({
  controllerManagerArgs: [],
  nodeAgentArgs: [],
  insecure: false,
  source: "test",
  ...over,
});
const detect = (over: Partial<DaemonSettings>, options: DaemonDetectionOptions = {}): Promise<DaemonDetection> =>
  detectDaemons(settings(over), { timeoutMs: 2_000, ...options });

function expectState(found: DaemonDetection, name: Name, available: boolean, evidence: RegExp): void {
  const state = found.capabilities[name];
  expect({ name, ...state }).toMatchObject({ name, available, evidence: expect.stringMatching(evidence) });
}

// ── Local servers ───────────────────────────────────────────────────────────────────────

const servers: Server[] = [];
const running: RunningEmulatedDaemons[] = [];
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all([...servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))), ...running.map((d) => d.close())]);
});

/** A plain HTTP server standing in for a daemon's port; the probes take its http URL as they would an https one. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const reply = (res: ServerResponse, status: number, body: string): void => void res.writeHead(status, { "content-type": "text/plain" }).end(body);

async function emulated(options: Omit<EmulatedDaemonsOptions, "tls" | "access">): Promise<RunningEmulatedDaemons> {
  const d = await startEmulatedDaemons({ tls: TLS, access: ACCESS, ...options });
  running.push(d);
  return d;
}

// ── What the run was given ──────────────────────────────────────────────────────────────

describe("detectDaemons: the servers and credentials given", () => {
  it("without daemon settings, every daemon capability is unavailable and nothing is asked", async () => {
    const found = await detectDaemons(undefined);
    expect(found.violations).toEqual([]);
    for (const name of Object.keys(DAEMON_CAPABILITIES) as Name[]) expectState(found, name, false, /^no daemon target given/);
  });

  it("names each server given, and each one missing", async () => {
    const all = await detect({ controllerManager: CLOSED, nodeAgent: CLOSED, nodeAgentHealthz: "http://127.0.0.1:1", nodeAgentReadOnly: "http://127.0.0.1:2" });
    expectState(all, "controller-manager", true, /127\.0\.0\.1:1 \(test\)/);
    expectState(all, "node-agent", true, /127\.0\.0\.1:1/);
    expectState(all, "agent-main-server", true, /^https:\/\/127\.0\.0\.1:1$/);
    expectState(all, "agent-healthz-server", true, /^http:\/\/127\.0\.0\.1:1$/);
    expectState(all, "agent-read-only-server", true, /^http:\/\/127\.0\.0\.1:2$/);
    const healthzOnly = await detect({ nodeAgentHealthz: "http://127.0.0.1:1" });
    expectState(healthzOnly, "controller-manager", false, /no controller manager target given \(--controller-manager URL\)/);
    expectState(healthzOnly, "cm-authentication-file", false, /no controller manager target given/);
    expectState(healthzOnly, "node-agent", true, /127\.0\.0\.1:1/);
    expectState(healthzOnly, "agent-main-server", false, /no node agent main server given \(--node-agent URL\)/);
    expectState(healthzOnly, "agent-read-only-server", false, /no node agent read-only server given \(--node-agent-read-only URL\)/);
    expectState(healthzOnly, "agent-pods", false, /no node agent main server given/);
    const cmOnly = await detect({ controllerManager: CLOSED });
    expectState(cmOnly, "node-agent", false, /no node agent server given/);
    expectState(cmOnly, "agent-healthz-server", false, /no node agent server given/);
  });

  it("says which tokens and certificates were given", async () => {
    const none = await detect({ controllerManager: CLOSED });
    expectState(none, "daemon-token", false, /no daemon token given \(--daemon-token\): nobody to be authorized as/);
    expectState(none, "daemon-any-token", false, /no daemon token given \(--daemon-token, --daemon-denied-token\)/);
    expectState(none, "daemon-client-cert", false, /no client certificate given \(--daemon-client-cert FILE --daemon-client-key FILE\)/);
    expectState(none, "daemon-proxy-cert", false, /no front-proxy certificate given/);
    const deniedOnly = await detect({ controllerManager: CLOSED, deniedToken: "d" });
    expectState(deniedOnly, "daemon-token", false, /no daemon token/);
    expectState(deniedOnly, "daemon-any-token", true, /not-allowed user's token/);
    const all = await detect({ controllerManager: CLOSED, token: "t", clientCert: readPair(PKI.client), proxyCert: readPair(PKI.proxy) });
    expectState(all, "daemon-token", true, /--daemon-token/);
    expectState(all, "daemon-any-token", true, /allowed user's token/);
    expectState(all, "daemon-client-cert", true, /--daemon-client-cert/);
    expectState(all, "daemon-proxy-cert", true, /--daemon-proxy-cert/);
  });
});

// ── Command lines ───────────────────────────────────────────────────────────────────────

/** [capability, command line, more settings, available, evidence]. */
type Case = [Name, string[], Partial<DaemonSettings>, boolean, RegExp];

const CM_CASES: Case[] = [
  ["cm-secure-port", [], {}, true, /serves HTTPS/],
  ["cm-secure-port", ["--secure-port=0"], {}, false, /command line given says --secure-port=0: it serves nothing/],
  ["cm-always-allow-paths", [], {}, true, /\/healthz, \/readyz, \/livez/],
  ["cm-always-allow-paths", ["--authorization-always-allow-paths="], {}, false, /sets no always-allow path/],
  ["cm-always-allow-paths", ["--authorization-always-allow-paths=/health*"], {}, false, /only always-allow patterns with \*.*no single path to ask/],
  ["cm-always-allow-paths", ["--secure-port=0"], {}, false, /--secure-port=0/],
  ["cm-authentication-file", WITH_FILES, {}, true, /has --authentication-kubeconfig: tokens are reviewed/],
  ["cm-authentication-file", [], {}, false, /command line given has no --authentication-kubeconfig: tokens are not reviewed/],
  ["cm-authorization-file", WITH_FILES, {}, true, /has --authorization-kubeconfig/],
  ["cm-authorization-file", [], {}, false, /has no --authorization-kubeconfig: no subject access review is made/],
  ["cm-healthz-access", [], {}, true, /read without credentials/],
  ["cm-healthz-access", ["--authorization-always-allow-paths=/healthz*"], {}, true, /read without credentials/],
  ["cm-healthz-access", [...WITH_FILES, "--authorization-always-allow-paths=/readyz"], { token: "t" }, true, /as the allowed user/],
  [
    "cm-healthz-access",
    [...WITH_FILES, "--authorization-always-allow-paths=/readyz"],
    {},
    false,
    /\/healthz is not an always-allow path and no daemon token can be authorized/,
  ],
  ["cm-healthz-access", ["--authorization-always-allow-paths=/readyz"], { token: "t" }, false, /no daemon token can be authorized/],
  ["cm-core-loops", [], {}, true, /enables replicationcontroller-controller, endpoints-controller/],
  ["cm-core-loops", ["--controllers=job-controller,-ttl-controller"], {}, true, /disables ttl-controller/],
  ["cm-core-loops", ["--controllers=job-controller"], {}, false, /enables none of the core loops and disables none by name/],
  ["cm-client-ca", ["--client-ca-file=/ca.pem"], {}, true, /has --client-ca-file/],
  ["cm-client-ca", WITH_FILES, {}, true, /looked up through --authentication-kubeconfig/],
  [
    "cm-client-ca",
    [...WITH_FILES, "--authentication-skip-lookup"],
    {},
    false,
    /has no --client-ca-file \(and no lookup of the cluster's\): it reads no client certificate/,
  ],
  ["cm-client-ca", [], {}, false, /reads no client certificate/],
  ["cm-request-header-ca", ["--requestheader-client-ca-file=/ca.pem"], {}, true, /has --requestheader-client-ca-file/],
  ["cm-request-header-ca", WITH_FILES, {}, true, /looked up/],
  ["cm-request-header-ca", [], {}, false, /has no --requestheader-client-ca-file \(and no lookup of the cluster's\): it trusts no identity header/],
  ["cm-client-certificates", ["--requestheader-client-ca-file=/ca.pem"], {}, true, /--requestheader-client-ca-file/],
  ["cm-client-certificates", [], {}, false, /has no --client-ca-file or --requestheader-client-ca-file: it asks for no client certificate/],
  ["cm-username-headers", [], {}, true, /names x-remote-user/],
  ["cm-username-headers", ["--requestheader-username-headers="], {}, false, /sets no --requestheader-username-headers/],
];

const AGENT_CASES: Case[] = [
  ["agent-token-webhook", ["--authentication-token-webhook"], {}, true, /sets --authentication-token-webhook: tokens are reviewed/],
  ["agent-token-webhook", [], {}, false, /does not set --authentication-token-webhook: tokens are not reviewed/],
  ["agent-authorization-webhook", ["--authorization-mode=Webhook"], {}, true, /says --authorization-mode=Webhook/],
  ["agent-authorization-webhook", [], {}, false, /says --authorization-mode=AlwaysAllow/],
  ["agent-asker", [], {}, true, /without credentials/],
  ["agent-asker", ["--anonymous-auth=false", "--authentication-token-webhook"], { deniedToken: "d" }, true, /with the not-allowed user's token/],
  [
    "agent-asker",
    ["--anonymous-auth=false", "--authentication-token-webhook"],
    {},
    false,
    /anonymous requests are off and no token can be authenticated.*nobody to ask as/,
  ],
  // A token the node agent does not review names nobody.
  ["agent-asker", ["--anonymous-auth=false"], { token: "t" }, false, /nobody to ask as/],
  ["agent-authorized-client", [], {}, true, /without credentials \(anonymous, AlwaysAllow\)/],
  ["agent-authorized-client", ["--authentication-token-webhook", "--authorization-mode=Webhook"], { token: "t" }, true, /as the allowed user/],
  [
    "agent-authorized-client",
    ["--authorization-mode=Webhook"],
    { token: "t" },
    false,
    /^no authorized client: anonymous requests are not permitted everything/,
  ],
  ["agent-authorized-client", ["--anonymous-auth=false", "--authentication-token-webhook"], { deniedToken: "d" }, false, /^no authorized client/],
  ["agent-debugging-handlers", [], {}, true, /does not turn --enable-debugging-handlers off/],
  ["agent-debugging-handlers", ["--enable-debugging-handlers=false"], {}, false, /^--enable-debugging-handlers=false: \/runningpods\/ is not served/],
  ["agent-client-ca", ["--client-ca-file=/ca.pem"], {}, true, /has --client-ca-file/],
  ["agent-client-ca", [], {}, false, /has no --client-ca-file: it reads no client certificate/],
  ["agent-client-ca", ["--config=/var/lib/kubelet/config.yaml"], {}, false, /leaves --client-ca-file to its --config file/],
  ["agent-client-ca", ["--config=/var/lib/kubelet/config.yaml", "--client-ca-file=/ca.pem"], {}, true, /has --client-ca-file/],
];

describe("detectDaemons: from the controller manager's command line", () => {
  it.each(CM_CASES)("%s with %j %j: %s", async (name, args, more, available, evidence) => {
    expectState(await detect({ controllerManager: CLOSED, controllerManagerArgs: args, ...more }), name, available, evidence);
  });

  const sni = (entries: string[]): string[] => entries.map((e) => `--tls-sni-cert-key=${e}`);
  const wildcard = `${PKI.sniWildcard.cert},${PKI.sniWildcard.key}`;
  const exact = `${PKI.sniExact.cert},${PKI.sniExact.key}`;

  it("reads the --tls-sni-cert-key entries and their certificate files", async () => {
    const none = await detect({ controllerManager: CLOSED });
    for (const name of ["cm-sni-cert-key", "cm-sni-files", "cm-sni-overlap"] as const)
      expectState(none, name, false, /command line given has no --tls-sni-cert-key/);
    const malformed = await detect({ controllerManager: CLOSED, controllerManagerArgs: sni(["only-a-cert.pem"]) });
    expectState(malformed, "cm-sni-cert-key", false, /^--tls-sni-cert-key /);
    const unreadable = await detect(
      { controllerManager: CLOSED, controllerManagerArgs: sni([wildcard]) },
      {
        readFile: () => {
          throw new Error("EACCES: permission denied");
        },
      },
    );
    expectState(unreadable, "cm-sni-cert-key", true, /has 1 --tls-sni-cert-key entry/);
    expectState(
      unreadable,
      "cm-sni-files",
      false,
      /^cannot read .*sni-wildcard\.pem here \(EACCES: permission denied\): the check compares the served certificates with the files/,
    );
    expectState(unreadable, "cm-sni-overlap", false, /cannot read/);
    const notPem = await detect({ controllerManager: CLOSED, controllerManagerArgs: sni([wildcard]) }, { readFile: () => "not a certificate" });
    expectState(notPem, "cm-sni-files", false, /^cannot read .*sni-wildcard\.pem here/);
    const alone = await detect({ controllerManager: CLOSED, controllerManagerArgs: sni([wildcard]) });
    expectState(alone, "cm-sni-files", true, /read here/);
    expectState(
      alone,
      "cm-sni-overlap",
      false,
      /no server name is matched by two of the command line's --tls-sni-cert-key entries: nothing shows which one wins/,
    );
    const both = await detect({ controllerManager: CLOSED, controllerManagerArgs: sni([wildcard, exact]) });
    expectState(both, "cm-sni-overlap", true, /exact\.sni\.tollgate\.test \(non-wildcard-over-wildcard\)/);
  });
});

describe("detectDaemons: from the node agent's command line", () => {
  it.each(AGENT_CASES)("%s with %j %j: %s", async (name, args, more, available, evidence) => {
    expectState(await detect({ nodeAgent: CLOSED, nodeAgentArgs: args, ...more }), name, available, evidence);
  });
});

// ── Probes of the daemons' answers ──────────────────────────────────────────────────────

const PROBED: Name[] = ["cm-controller-checks", "agent-pods", "agent-running-containers", "agent-runtime-pods", "agent-anonymous-pods"];

describe("detectDaemons: what only the daemons' answers tell", () => {
  it("asks faithful emulated daemons (the embedded run's) and finds everything the suites look at", async () => {
    const d = await emulated({
      controllerManager: { args: EMBEDDED_CONTROLLER_MANAGER_ARGS, port: 0 },
      nodeAgent: { args: EMBEDDED_NODE_AGENT_ARGS, port: 0, readOnlyPort: 0, healthzPort: 0 },
    });
    const found = await detect({
      controllerManager: d.controllerManager?.url,
      nodeAgent: d.nodeAgent?.url,
      controllerManagerArgs: [...EMBEDDED_CONTROLLER_MANAGER_ARGS],
      nodeAgentArgs: [...EMBEDDED_NODE_AGENT_ARGS],
      token: ALLOWED_TOKEN,
      deniedToken: DENIED_TOKEN,
      ca: TLS.cert,
    });
    expect(found.violations).toEqual([]);
    expectState(found, "cm-controller-checks", true, /\/healthz\?verbose lists \d+ controller checks/);
    expectState(found, "agent-pods", true, /\/pods lists 2 pods/);
    expectState(found, "agent-running-containers", true, /running containers/);
    expectState(found, "agent-runtime-pods", true, /\/runningpods\/ lists 2 pods/);
    // Webhook: the anonymous user is refused by name.
    expectState(found, "agent-anonymous-pods", false, /^\/pods answered 403 without credentials$/);
  });

  it("finds no pod on a node agent without static pods, and does not ask /runningpods/ where the debugging handlers are off", async () => {
    const d = await emulated({ nodeAgent: { args: ["--enable-debugging-handlers=false"], port: 0, readOnlyPort: 0, healthzPort: 0 } });
    const found = await detect({ nodeAgent: d.nodeAgent?.url, nodeAgentArgs: ["--enable-debugging-handlers=false"], ca: TLS.cert });
    expect(found.violations).toEqual([]);
    expectState(found, "agent-pods", false, /^\/pods lists no pod: no source to see$/);
    expectState(found, "agent-running-containers", false, /^\/pods reports no running container$/);
    expectState(found, "agent-runtime-pods", false, /^--enable-debugging-handlers=false: \/runningpods\/ is not served$/);
    // AlwaysAllow with anonymous requests on (the defaults): served to anyone.
    expectState(found, "agent-anonymous-pods", true, /anonymous requests are served too, so a 2xx does not show whom a certificate was taken for/);
  });

  it("finds an empty runtime, and asks nothing it has no authorized client for", async () => {
    const d = await emulated({ nodeAgent: { args: [], port: 0, readOnlyPort: 0, healthzPort: 0 } });
    const empty = await detect({ nodeAgent: d.nodeAgent?.url, ca: TLS.cert });
    expectState(empty, "agent-runtime-pods", false, /^\/runningpods\/ lists no pod$/);
    const webhook = await detect({ nodeAgent: d.nodeAgent?.url, nodeAgentArgs: ["--authorization-mode=Webhook"], ca: TLS.cert });
    for (const name of ["agent-pods", "agent-running-containers", "agent-runtime-pods"] as const) expectState(webhook, name, false, /^no authorized client/);
  });

  it("a standby controller manager (no controller check) is no violation, only unavailable", async () => {
    const url = await serve((_req, res) => reply(res, 200, "[+]leaderElection ok\nhealthz check passed\n"));
    const found = await detect({ controllerManager: url });
    expect(found.violations).toEqual([]);
    expectState(
      found,
      "cm-controller-checks",
      false,
      /^\/healthz\?verbose lists no controller \(leaderElection\): a standby that does not lead, or one that runs no loop$/,
    );
  });

  it("without /healthz to read, it does not ask", async () => {
    const found = await detect({ controllerManager: CLOSED, controllerManagerArgs: ["--authorization-always-allow-paths=/readyz"] });
    expectState(found, "cm-controller-checks", false, /^\/healthz is not an always-allow path/);
    expectState(await detect({ controllerManager: CLOSED, controllerManagerArgs: ["--secure-port=0"] }), "cm-controller-checks", false, /--secure-port=0/);
  });

  it("no answer at all: unavailable with where it asked, and no violation", async () => {
    const found = await detect({ controllerManager: CLOSED, nodeAgent: CLOSED });
    expect(found.violations).toEqual([]);
    for (const name of PROBED) expectState(found, name, false, /^no answer from https:\/\/127\.0\.0\.1:1\//);
  });

  it("a daemon that never answers is given up on within the timeout", async () => {
    const silent = await serve(() => undefined);
    const started = Date.now();
    const found = await detect({ controllerManager: silent, nodeAgent: silent }, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(found.violations).toEqual([]);
    for (const name of PROBED) expectState(found, name, false, /^no answer from http:\/\/127\.0\.0\.1:\d+\/.*within 0\.3 s/);
  });

  it("answers no real daemon gives are violations of the rules the probes exercise", async () => {
    const wrong = await serve((req, res) => {
      const path = req.url ?? "";
      if (path.startsWith("/healthz")) return reply(res, 500, "internal error");
      if (path === "/runningpods/") return reply(res, 200, JSON.stringify({ kind: "Status" }));
      // /pods: not a PodList for the authorized client, a 500 for a request without credentials.
      return req.headers.authorization ? reply(res, 200, "ok") : reply(res, 500, "boom");
    });
    const found = await detect({ controllerManager: wrong, nodeAgent: wrong, nodeAgentArgs: ["--authentication-token-webhook"], token: "t" });
    expect(found.violations.map((v) => [v.probe, v.rules]).sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
      ["controller manager /healthz?verbose", ["doc3.service.cm-control-loops"]],
      ["node agent /pods", ["doc3.service.agent-podspec-sources", "doc3.service.agent-podspec-running"]],
      ["node agent /pods without credentials", ["doc3.auth.agent-anonymous-default"]],
      ["node agent /runningpods/", ["doc3.service.agent-ignores-foreign-containers"]],
    ]);
    expect(found.violations.find((v) => v.probe === "controller manager /healthz?verbose")?.message).toMatch(/answered HTTP 500 "internal error"/);
    expectState(found, "cm-controller-checks", false, /answered 500, not the list of checks/);
    expectState(found, "agent-pods", false, /answered no PodList/);
    expectState(found, "agent-running-containers", false, /answered no PodList/);
    expectState(found, "agent-runtime-pods", false, /answered no PodList/);
    expectState(found, "agent-anonymous-pods", false, /answered 500 without credentials/);
  });

  it("a /healthz that ignores ?verbose is a violation too: a real one lists its checks", async () => {
    const plain = await serve((_req, res) => reply(res, 200, "ok"));
    const found = await detect({ controllerManager: plain });
    expect(found.violations.map((v) => v.rules)).toEqual([["doc3.service.cm-control-loops"]]);
  });

  it("static pods and the command line together: running containers come from /pods", async () => {
    const args = [`--pod-manifest-path=${STATIC_POD_DIR}`];
    const d = await emulated({ nodeAgent: { args, port: 0, readOnlyPort: 0, healthzPort: 0, faults: ["stopped-container"] } });
    const found = await detect({ nodeAgent: d.nodeAgent?.url, nodeAgentArgs: args, ca: TLS.cert });
    expect(found.violations).toEqual([]);
    // The fault leaves /pods reporting the stopped container running: exactly what the podspec-running test must look at.
    expectState(found, "agent-running-containers", true, /running containers/);
  });
});

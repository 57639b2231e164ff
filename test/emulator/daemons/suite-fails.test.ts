/**
 * The probe suite (suites/daemons/probes.test.ts) must be able to fail. Each run puts
 * emulated daemons that break doc3 rules (test-only faults, or a command line other than the
 * one the run is told) behind `tollgate run --controller-manager URL ...`, runs the suite
 * through the real CLI, and expects exit 1 with those rules failed in summary.json; a
 * faithful pair passes the same way.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, it, type TestContext } from "vitest";
import { PKI } from "../../../fixtures/daemons/pki.js";
import { STATIC_POD_DIR } from "../../../fixtures/daemons/static-pods.js";
import { DAEMON_TLS_CERT_FILE } from "../../../fixtures/daemons/tls.js";
import {
  type ControllerManagerFault,
  type EmulatedDaemonsOptions,
  type NodeAgentFault,
  type RunningEmulatedDaemons,
  startEmulatedDaemons,
} from "../../../lib/emulator/daemons/index.js";
import { type RunningEmulator, startEmulator } from "../../../lib/emulator/index.js";
import type { Summary } from "../../../lib/report/summary.js";
import { withoutOptions } from "../../../lib/runner/embedded-daemons.js";
import { EMBEDDED_CONTROLLER_MANAGER_ARGS, EMBEDDED_NODE_AGENT_ARGS } from "../../../lib/runner/global-setup.js";
import { runViaCli } from "../../support/run-suite.js";
import { ACCESS, ALLOWED_TOKEN, DENIED_TOKEN, TLS } from "./support.js";

const WITH_FILES = [
  "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
  "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
];
const FREE = { port: 0, readOnlyPort: 0, healthzPort: 0 };
/** A node agent that runs the fixture static pods and authorizes tokens by Webhook. */
const PODS_ARGS = [`--pod-manifest-path=${STATIC_POD_DIR}`, "--hostname-override=Tollgate-Node-1"];
const AGENT_WEBHOOK = ["--authentication-token-webhook", "--authorization-mode=Webhook"];

/**
 * The runs' API target: the suites here talk to the daemons only, and a run given a --target
 * neither starts the embedded emulator (with its TLS and its daemons) nor loads its modules,
 * about half a run's CPU. One for the file, shared by the runs (each has its own daemons): the
 * runs go at the same time, each mostly waiting on its child process.
 */
let api: RunningEmulator;
beforeAll(async () => {
  api = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await api?.close();
});

/** Daemons for one test, closed when it ends. */
async function daemonsOfThisTest(onTestFinished: TestContext["onTestFinished"], options: EmulatedDaemonsOptions): Promise<RunningEmulatedDaemons> {
  const daemons = await startEmulatedDaemons(options);
  onTestFinished(() => daemons.close());
  return daemons;
}

interface Told {
  controllerManagerArgs: string;
  nodeAgentArgs: string;
  /** How the run trusts the HTTPS ports: the fixture CA (default) or no verification. */
  trust?: "ca" | "insecure";
}

/** Starts the daemons as `actual`, and runs the suite against them told they were started with `told`. */
async function runAgainst(
  onTestFinished: TestContext["onTestFinished"],
  actual: Omit<EmulatedDaemonsOptions, "tls" | "access">,
  told: Told,
  extra: readonly string[] = [],
): Promise<{ code: number | null; summary: Summary; output: string }> {
  const daemons = await daemonsOfThisTest(onTestFinished, { tls: TLS, access: ACCESS, ...actual });
  const cm = daemons.controllerManager;
  const agent = daemons.nodeAgent;
  if (!cm?.url || !agent?.url || !agent.readOnlyUrl || !agent.healthzUrl) throw new Error("a daemon server did not start");
  return runViaCli([
    "--target",
    api.url,
    "--suite",
    "suites/daemons/probes",
    "--controller-manager",
    cm.url,
    "--controller-manager-args",
    told.controllerManagerArgs,
    "--node-agent",
    agent.url,
    "--node-agent-read-only",
    agent.readOnlyUrl,
    "--node-agent-healthz",
    agent.healthzUrl,
    "--node-agent-args",
    told.nodeAgentArgs,
    "--daemon-token",
    ALLOWED_TOKEN,
    "--daemon-denied-token",
    DENIED_TOKEN,
    ...(told.trust === "insecure" ? ["--daemon-insecure"] : ["--daemon-ca", fileURLToPath(DAEMON_TLS_CERT_FILE)]),
    ...extra,
  ]);
}

/** The certificates the certificate suite presents (fixtures/daemons/pki/). */
const CERT_FLAGS = [
  "--daemon-client-cert",
  PKI.client.cert,
  "--daemon-client-key",
  PKI.client.key,
  "--daemon-proxy-cert",
  PKI.proxy.cert,
  "--daemon-proxy-key",
  PKI.proxy.key,
  "--daemon-unlisted-proxy-cert",
  PKI.proxyUnlisted.cert,
  "--daemon-unlisted-proxy-key",
  PKI.proxyUnlisted.key,
];

const withStatus = (s: Summary, status: string): string[] =>
  s.rules
    .filter((r) => r.id.startsWith("doc3.") && r.status === status)
    .map((r) => r.id)
    .sort();

describe.concurrent("the daemon probe suite against daemons", () => {
  it("passes against emulated daemons that behave as their command lines say", { timeout: 90_000 }, async ({ expect, onTestFinished }) => {
    const { code, summary, output } = await runAgainst(
      onTestFinished,
      { controllerManager: { args: WITH_FILES, port: 0 }, nodeAgent: { args: [...AGENT_WEBHOOK, ...PODS_ARGS], ...FREE } },
      { controllerManagerArgs: WITH_FILES.join(" "), nodeAgentArgs: [...AGENT_WEBHOOK, ...PODS_ARGS].join(" ") },
    );
    expect(summary.totals.tests.failed, output).toBe(0);
    expect(summary.totals.tests.passed, output).toBeGreaterThanOrEqual(10);
    expect(withStatus(summary, "passed"), output).toEqual(
      expect.arrayContaining([
        "doc3.service.agent-ignores-foreign-containers",
        "doc3.service.agent-podspec-running",
        "doc3.service.agent-podspec-sources",
        "doc3.service.agent-registers-node",
        "doc3.service.cm-control-loops",
      ]),
    );
    expect(code, output).toBe(0);
  });

  it("fails on open metrics, protected health paths, missing profiling, a bad health server, an authenticating read-only server, and auth settings other than told", {
    timeout: 90_000,
  }, async ({ expect, onTestFinished }) => {
    const { code, summary, output } = await runAgainst(
      onTestFinished,
      {
        controllerManager: { args: WITH_FILES, port: 0, faults: ["metrics-open", "health-protected", "pprof-missing"] },
        nodeAgent: { args: ["--anonymous-auth=false"], ...FREE, faults: ["read-only-auth", "healthz-not-ok"] },
      },
      { controllerManagerArgs: WITH_FILES.join(" "), nodeAgentArgs: "--authorization-mode=Webhook --authentication-token-webhook" },
    );
    expect(withStatus(summary, "failed"), output).toEqual([
      "doc3.auth.agent-anonymous-default",
      "doc3.auth.agent-bearer-token-review",
      "doc3.auth.agent-read-only-no-auth",
      "doc3.auth.agent-webhook-sar",
      "doc3.auth.cm-sar-authorization",
      "doc3.auth.cm-token-review-cached",
      "doc3.endpoints.agent-debugging-handlers",
      "doc3.endpoints.agent-healthz-server",
      // Its /pods refuses the token it is said to review (401), as below.
      "doc3.endpoints.agent-main-server",
      "doc3.endpoints.agent-read-only-server",
      "doc3.endpoints.cm-health-paths-always-allowed",
      "doc3.endpoints.cm-https-secure-port",
      "doc3.endpoints.cm-pprof",
      // /healthz?verbose is refused as well (health-protected).
      "doc3.service.agent-ignores-foreign-containers",
      "doc3.service.agent-podspec-running",
      "doc3.service.agent-podspec-sources",
      // The node agent's endpoints refuse the token it is said to review (401).
      "doc3.service.agent-registers-node",
      "doc3.service.cm-control-loops",
    ]);
    expect(code, output).toBe(1);
  });

  it("fails when the controller manager has connection files it is said not to have and no checks of the core loops, and the node agent authorizes by Webhook and has no debugging handlers", {
    timeout: 90_000,
  }, async ({ expect, onTestFinished }) => {
    const { code, summary, output } = await runAgainst(
      onTestFinished,
      {
        controllerManager: { args: WITH_FILES, port: 0, faults: ["core-loops-unchecked"] },
        nodeAgent: { args: ["--authentication-token-webhook", "--authorization-mode=Webhook", "--enable-debugging-handlers=false"], ...FREE },
      },
      { controllerManagerArgs: "", nodeAgentArgs: "--authentication-token-webhook", trust: "insecure" },
    );
    expect(withStatus(summary, "failed"), output).toEqual(
      expect.arrayContaining([
        "doc3.auth.agent-always-allow-default",
        "doc3.auth.cm-anonymous-without-authn-file",
        "doc3.auth.cm-forbidden-without-authz-file",
        "doc3.endpoints.agent-debugging-handlers",
        "doc3.service.cm-control-loops",
      ]),
    );
    expect(code, output).toBe(1);
  });
});

/**
 * The node agent's "What the service does" rules, each broken by its own fault, in one run; the
 * same run has the certificate suite find a node agent that takes a trusted certificate for
 * someone other than its common name (a run costs about 10 s of CPU: one run, two suites).
 * Tokens are all the probe suite uses and certificates all the certificate suite uses, so
 * neither fault can fail the other suite's rules; the exact list shows each fault found.
 */
describe.concurrent("the daemon probe and certificate suites against a node agent that mismanages its pods and certificates", () => {
  it("fails on a foreign container, a wrong node name, a stopped container reported running, static pods from a path it is said not to have, and a certificate taken for someone other than its common name", {
    timeout: 90_000,
  }, async ({ expect, onTestFinished }) => {
    const { code, summary, output } = await runAgainst(
      onTestFinished,
      {
        controllerManager: { args: EMBEDDED_CONTROLLER_MANAGER_ARGS, port: 0 },
        nodeAgent: { args: EMBEDDED_NODE_AGENT_ARGS, ...FREE, faults: ["foreign-container", "wrong-node-name", "stopped-container", "cert-user-not-cn"] },
      },
      {
        controllerManagerArgs: shellQuote(EMBEDDED_CONTROLLER_MANAGER_ARGS),
        nodeAgentArgs: shellQuote(withoutOptions(EMBEDDED_NODE_AGENT_ARGS, "--pod-manifest-path")),
      },
      ["--suite", "suites/daemons/certificates", ...CERT_FLAGS],
    );
    expect(withStatus(summary, "failed"), output).toEqual([
      "doc3.auth.agent-client-cert-cn",
      "doc3.service.agent-ignores-foreign-containers",
      "doc3.service.agent-podspec-running",
      "doc3.service.agent-podspec-sources",
      "doc3.service.agent-registers-node",
    ]);
    // The certificate suite did run its checks: the controller manager's rules passed.
    expect(withStatus(summary, "passed"), output).toEqual(expect.arrayContaining(["doc3.auth.cm-client-cert-cn", "doc3.auth.cm-request-header-trust"]));
    expect(code, output).toBe(1);
  });
});

/** The certificate suite (suites/daemons/certificates.test.ts) against emulated daemons that take certificates wrongly. */
describe.concurrent("the daemon certificate suite against daemons", () => {
  async function runCertificates(
    onTestFinished: TestContext["onTestFinished"],
    cmFaults: ControllerManagerFault[],
    agentFaults: NodeAgentFault[],
    toldCm: readonly string[] = EMBEDDED_CONTROLLER_MANAGER_ARGS,
  ): Promise<{ code: number | null; summary: Summary; output: string }> {
    const daemons = await daemonsOfThisTest(onTestFinished, {
      tls: TLS,
      access: ACCESS,
      controllerManager: { args: EMBEDDED_CONTROLLER_MANAGER_ARGS, port: 0, faults: cmFaults },
      nodeAgent: { args: EMBEDDED_NODE_AGENT_ARGS, ...FREE, faults: agentFaults },
    });
    const cm = daemons.controllerManager?.url;
    const agent = daemons.nodeAgent?.url;
    if (!cm || !agent) throw new Error("a daemon server did not start");
    return runViaCli([
      "--target",
      api.url,
      "--suite",
      "suites/daemons/certificates",
      "--controller-manager",
      cm,
      "--controller-manager-args",
      shellQuote(toldCm),
      "--node-agent",
      agent,
      "--node-agent-args",
      shellQuote(EMBEDDED_NODE_AGENT_ARGS),
      "--daemon-ca",
      fileURLToPath(DAEMON_TLS_CERT_FILE),
      ...CERT_FLAGS,
    ]);
  }

  it("fails on certificates from any CA, identity headers from any certificate, and SNI without precedence", { timeout: 90_000 }, async ({
    expect,
    onTestFinished,
  }) => {
    const { code, summary, output } = await runCertificates(
      onTestFinished,
      ["any-client-cert", "headers-from-any-cert", "sni-first-match"],
      ["any-client-cert"],
    );
    expect(withStatus(summary, "failed"), output).toEqual([
      "doc3.auth.agent-client-cert-cn",
      "doc3.auth.cm-client-cert-cn",
      "doc3.auth.cm-request-header-trust",
      "doc3.cm-general.sni-match-precedence",
    ]);
    expect(code, output).toBe(1);
  });
});

/** Words joined for --*-args (the fixture paths hold no quote or space that needs more). */
const shellQuote = (words: readonly string[]): string => words.map((w) => `'${w}'`).join(" ");

/**
 * `tollgate run` with the credentials real clusters use, through the real CLI against the
 * emulator with authentication on: the pod's service account (--in-cluster, behind a TLS front
 * on 127.0.0.1), and what goes wrong (a failing plugin, a removed auth-provider) as one line and
 * exit 2. No secret may appear in the output or in any file of the report. A whole run on a
 * kubeconfig whose user is an exec plugin is test/gates-on-run.test.ts's.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { daemonTls } from "../../fixtures/daemons/tls.js";
import { main } from "../../lib/cli/main.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { execCredential, fakePlugin } from "../support/fake-exec-plugin.js";
import { runViaCli } from "../support/run-suite.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");
const ADMIN_TOKEN = `tollgate-known-admin-token-${Math.random().toString(36).slice(2)}`;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, auth: true, adminToken: ADMIN_TOKEN });
});
afterAll(async () => {
  await emulator?.close();
});

function kubeconfig(server: string, user: string): string {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-kc-run-"));
  const path = join(dir, "config");
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
current-context: emu
clusters: [{ name: emu, cluster: { server: "${server}" } }]
users: [{ name: me, user: ${user} }]
contexts: [{ name: emu, context: { cluster: emu, user: me } }]
`,
  );
  return path;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function expectNoSecret(where: string, text: string, secrets: readonly string[]): void {
  for (const s of secrets) expect(text.includes(s), `${where} holds a secret (${s.slice(0, 6)}…)`).toBe(false);
}

/** A bare run without the emulator: spawnSync with a clean environment (no pod variables, no KUBECONFIG). */
function bare(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string; stdout: string } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KUBERNETES_") && k !== "KUBECONFIG"));
  return spawnSync(process.execPath, [BIN, "run", ...args], { encoding: "utf8", timeout: 60_000, env: { ...clean, ...env } });
}

describe("tollgate run with an exec credential plugin", () => {
  // A whole run on the plugin's token (exit 0, neither the token nor the client key in the output
  // or the report): test/gates-on-run.test.ts, whose run takes its credentials from a plugin.

  it("a plugin that fails is one line naming it, and exit 2, before anything runs", () => {
    const plugin = fakePlugin("get-token");
    plugin.respond({
      exitCode: 1,
      stderr: "error: the profile has no credentials",
      stdout: execCredential("client.authentication.k8s.io/v1", { token: "printed-by-a-failing-plugin" }),
    });
    const file = kubeconfig(
      "http://127.0.0.1:1",
      `{ exec: { command: "${plugin.command}", apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never } }`,
    );
    const r = bare(["--kubeconfig", file]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      `tollgate: exec plugin ${plugin.command}: getting credentials: exec: executable ${plugin.command} failed with exit code 1`,
    ]);
    expect(r.stdout + r.stderr).not.toContain("printed-by-a-failing-plugin");
    expect(r.stdout + r.stderr).not.toContain("the profile has no credentials");
  });

  it("a removed auth-provider and a mixed-up selection are one line and exit 2", async () => {
    const gcp = bare(["--kubeconfig", kubeconfig("https://127.0.0.1:1", `{ auth-provider: { name: gcp } }`)]);
    expect(gcp.status).toBe(2);
    expect(gcp.stderr).toMatch(
      /^tollgate: kubeconfig .*: user "me": auth-provider gcp: The gcp auth plugin has been removed\. Please use the "gke-gcloud-auth-plugin" kubectl\/client-go credential plugin instead\./,
    );
    expect(gcp.stderr).not.toMatch(/\n\s+at /);
    // The other two through main() in this process, with the same clean environment: the real CLI's
    // exit code and single line are shown above, and a child costs about 2 s of CPU.
    for (const k of Object.keys(process.env)) if (k.startsWith("KUBERNETES_") || k === "KUBECONFIG") vi.stubEnv(k, undefined);
    const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      for (const [args, line] of [
        [["run", "--in-cluster", "--context", "x"], /^tollgate: --in-cluster takes the server and credentials from the pod/],
        [["run", "--in-cluster"], /^tollgate: unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined\b/],
      ] as const) {
        err.mockClear();
        expect(await main([...args]), args.join(" ")).toBe(2);
        expect(
          err.mock.calls.map((c) => String(c[0])),
          args.join(" "),
        ).toEqual([expect.stringMatching(line)]);
      }
    } finally {
      err.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});

describe("tollgate run --in-cluster", () => {
  // A whole CLI run of a suite: 11-19 s on a quiet machine, so the unit project's 20 s is too tight.
  // The same run shows --focus (moved here from test/cli/cli.test.ts: a run costs about 10 s of CPU):
  // the pod's credentials do not depend on which tests run, and the report holds no exchange of a passed test either way.
  it("runs the crud suite as the pod's service account, over TLS with the pod's CA (exit 0), without the token in output or report; with --focus, the tests left out are in no verdict and their rules are untested", {
    timeout: 90_000,
  }, async () => {
    const tls = daemonTls();
    // A TLS front for the emulator, as the API server's service is HTTPS.
    const front = createTlsServer({ cert: tls.cert, key: tls.key }, (sock) => {
      const up = connect(Number(new URL(emulator.url).port), "127.0.0.1");
      sock.pipe(up).pipe(sock);
      up.on("error", () => sock.destroy());
      sock.on("error", () => up.destroy());
    });
    front.listen(0, "127.0.0.1");
    await once(front, "listening");
    try {
      const root = mkdtempSync(join(tmpdir(), "tollgate-sa-run-"));
      writeFileSync(join(root, "token"), `${ADMIN_TOKEN}\n`);
      writeFileSync(join(root, "ca.crt"), tls.cert);
      const env = {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "KUBECONFIG")),
        KUBERNETES_SERVICE_HOST: "127.0.0.1",
        KUBERNETES_SERVICE_PORT: String((front.address() as AddressInfo).port),
        TOLLGATE_SERVICE_ACCOUNT_DIR: root,
      };
      const run = await runViaCli(["--in-cluster", "--suite", "suites/crud", "--focus", "doc1.paths.list-all-namespaces"], env);
      expect(run.code, run.output).toBe(0);
      expect(run.summary.target.url).toBe(`https://127.0.0.1:${env.KUBERNETES_SERVICE_PORT}`);
      expect(run.summary.totals.tests).toMatchObject({ passed: 2, failed: 0, "not-applicable": 0, total: 2 });
      expect(run.summary.totals.leftOut).toBe(23);
      expect(run.summary.selection).toEqual({ focus: ["doc1.paths.list-all-namespaces"], skip: [] });
      expect(run.summary.tests.every((t) => t.rules.includes("doc1.paths.list-all-namespaces"))).toBe(true);
      expect(run.status("doc1.paths.list-all-namespaces")).toBe("passed");
      expect(run.status("doc1.verbs.create-post"), "a rule only the left-out tests name").toBe("untested");
      expectNoSecret("the output", run.output, [ADMIN_TOKEN]);
      for (const f of filesUnder(run.dir)) expectNoSecret(f, readFileSync(f, "latin1"), [ADMIN_TOKEN]);
    } finally {
      front.close();
    }
  });
});

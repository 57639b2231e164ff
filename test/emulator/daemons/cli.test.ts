/** The daemon flags of `tollgate emulator` and `tollgate run`. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { PKI } from "../../../fixtures/daemons/pki.js";
import { parseEmulatorArgs, parseEmulatorCommand } from "../../../lib/cli/emulator.js";
import { main } from "../../../lib/cli/main.js";
import { daemonEnvironment } from "../../../lib/cli/run.js";
import { UsageError } from "../../../lib/cli/usage.js";
import { DaemonSettingsError, daemonSettingsFromEnv } from "../../../lib/runner/settings.js";
import { get } from "./support.js";

const BIN = resolve(import.meta.dirname, "../../../bin/tollgate.js");
/**
 * `tollgate ARGS` through main() in this process: its exit code and what it printed to stderr.
 * test/cli/cli.test.ts shows the real CLI passes both on; a child costs about 2 s of CPU.
 */
async function run(...args: string[]): Promise<{ status: number; stderr: string }> {
  const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const out = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    const status = await main(args);
    return { status, stderr: err.mock.calls.map((c) => `${String(c[0])}\n`).join("") };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

describe("tollgate emulator: daemon flags", () => {
  it("starts no daemon unless a daemon flag is given, and parseEmulatorArgs is unchanged", () => {
    expect(parseEmulatorCommand([]).daemons).toBeUndefined();
    expect(parseEmulatorArgs(["--controller-manager-port", "0"])).toEqual({ host: "127.0.0.1", port: 8080, admin: false });
  });

  it("reads ports and shell-quoted command lines, a daemon for each flag family given", () => {
    const c = parseEmulatorCommand([
      "--controller-manager-port",
      "10257",
      "--node-agent-args",
      "--anonymous-auth=false --authorization-mode='Webhook'",
      "--node-agent-healthz-port",
      "0",
      "--daemon-token",
      "-starts-with-a-dash",
    ]);
    expect(c.daemons?.controllerManager).toEqual({ port: 10257 });
    expect(c.daemons?.nodeAgent).toEqual({ healthzPort: 0, args: ["--anonymous-auth=false", "--authorization-mode=Webhook"] });
    expect(c.daemons?.token).toBe("-starts-with-a-dash");
    expect(c.daemons?.deniedToken).toMatch(/^[0-9a-f]{40}$/);
    expect(parseEmulatorCommand(["--controller-manager-args", ""]).daemons).toMatchObject({ controllerManager: { args: [] }, nodeAgent: undefined });
  });

  it("pass certificate files as absolute paths, and the global setup reads them in pairs", () => {
    const env = daemonEnvironment({
      "controller-manager": "https://127.0.0.1:10257",
      "daemon-client-cert": PKI.client.cert,
      "daemon-client-key": PKI.client.key,
    });
    expect(env).toMatchObject({ TOLLGATE_DAEMON_CLIENT_CERT: PKI.client.cert, TOLLGATE_DAEMON_CLIENT_KEY: PKI.client.key });
    const settings = daemonSettingsFromEnv(
      { ...env, TOLLGATE_DAEMON_PROXY_CERT: PKI.proxy.cert, TOLLGATE_DAEMON_PROXY_KEY: PKI.proxy.key },
      (p) => `read ${p}`,
    );
    expect(settings?.clientCert).toEqual({ cert: `read ${PKI.client.cert}`, key: `read ${PKI.client.key}` });
    expect(settings?.proxyCert).toEqual({ cert: `read ${PKI.proxy.cert}`, key: `read ${PKI.proxy.key}` });
    expect(settings?.unlistedProxyCert).toBeUndefined();
    expect(() => daemonSettingsFromEnv({ TOLLGATE_CONTROLLER_MANAGER: "https://x:1", TOLLGATE_DAEMON_CLIENT_KEY: "k" }, (p) => p)).toThrow(DaemonSettingsError);
  });

  it("refuses bad daemon flags as usage errors", () => {
    for (const args of [
      ["--node-agent-port", "x"],
      ["--controller-manager-port", "70000"],
      ["--controller-manager-args", "--profiling='"],
      ["--daemon-token", "t"],
      ["--node-agent-port", "0", "--daemon-token", "t", "--daemon-denied-token", "t"],
    ]) {
      expect(() => parseEmulatorCommand(args), args.join(" ")).toThrow(UsageError);
    }
  });

  it("prints one listening line per daemon server, serves there, and stops on SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "emulator",
        "--port",
        "0",
        "--controller-manager-port",
        "0",
        "--node-agent-port",
        "0",
        "--node-agent-read-only-port",
        "0",
        "--node-agent-healthz-port",
        "0",
        "--daemon-token",
        "tok",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.setEncoding("utf8");
    await new Promise<void>((resolveOut, reject) => {
      child.stdout.on("data", (d: string) => {
        out += d;
        if (/daemon certificate authority: .*\n/.test(out)) resolveOut();
      });
      child.once("exit", () => reject(new Error(`emulator exited early: ${out}`)));
    });
    const url = (label: string): string => {
      const m = new RegExp(`^${label} listening on (\\S+)$`, "m").exec(out);
      if (!m) throw new Error(`no "${label} listening on" line in:\n${out}`);
      return m[1] as string;
    };
    expect(url("controller manager")).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(`${url("controller manager")}/healthz`)).toMatchObject({ status: 200, body: "ok" });
    expect((await get(`${url("controller manager")}/metrics`, { authorization: "Bearer tok" })).status).toBe(403);
    expect((await get(`${url("node agent")}/pods`)).status).toBe(200);
    expect((await get(`${url("node agent read-only port")}/pods`)).status).toBe(200);
    expect(await get(`${url("node agent healthz port")}/healthz`)).toMatchObject({ status: 200, body: "ok" });
    expect(out).toMatch(/^daemon token of an allowed user \(tollgate-probe\): tok$/m);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("exits 2 with one line naming the problem when a daemon command line does not parse", async () => {
    const r = await run("emulator", "--port", "0", "--controller-manager-args", "--leader-elect-renew-deadline=20 --leader-elect-lease-duration=10s");
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^tollgate: emulated controller manager refuses its command line: --leader-elect-renew-deadline: .*"20" is not a Go duration/);
  });
});

describe("tollgate run: daemon flags", () => {
  it("become the environment of the global setup", () => {
    const env = daemonEnvironment({
      "controller-manager": "https://127.0.0.1:10257/",
      "node-agent-healthz": "http://127.0.0.1:10248",
      "node-agent-args": "--anonymous-auth=false",
      "daemon-token": "t",
      "daemon-insecure": true,
    });
    expect(env).toMatchObject({
      TOLLGATE_CONTROLLER_MANAGER: "https://127.0.0.1:10257",
      TOLLGATE_NODE_AGENT: undefined,
      TOLLGATE_NODE_AGENT_HEALTHZ: "http://127.0.0.1:10248",
      TOLLGATE_NODE_AGENT_ARGS: "--anonymous-auth=false",
      TOLLGATE_DAEMON_TOKEN: "t",
      TOLLGATE_DAEMON_INSECURE: "1",
    });
  });

  it("pass certificate files as absolute paths, and the global setup reads them in pairs", () => {
    const env = daemonEnvironment({
      "controller-manager": "https://127.0.0.1:10257",
      "daemon-client-cert": PKI.client.cert,
      "daemon-client-key": PKI.client.key,
    });
    expect(env).toMatchObject({ TOLLGATE_DAEMON_CLIENT_CERT: PKI.client.cert, TOLLGATE_DAEMON_CLIENT_KEY: PKI.client.key });
    const settings = daemonSettingsFromEnv(
      { ...env, TOLLGATE_DAEMON_PROXY_CERT: PKI.proxy.cert, TOLLGATE_DAEMON_PROXY_KEY: PKI.proxy.key },
      (p) => `read ${p}`,
    );
    expect(settings?.clientCert).toEqual({ cert: `read ${PKI.client.cert}`, key: `read ${PKI.client.key}` });
    expect(settings?.proxyCert).toEqual({ cert: `read ${PKI.proxy.cert}`, key: `read ${PKI.proxy.key}` });
    expect(settings?.unlistedProxyCert).toBeUndefined();
    expect(() => daemonSettingsFromEnv({ TOLLGATE_CONTROLLER_MANAGER: "https://x:1", TOLLGATE_DAEMON_CLIENT_KEY: "k" }, (p) => p)).toThrow(DaemonSettingsError);
  });

  it("refuses bad daemon flags as usage errors", () => {
    for (const values of [
      { "controller-manager": "http://127.0.0.1:10257" },
      { "node-agent": "https://127.0.0.1:10250/pods" },
      { "node-agent-healthz": "not a url" },
      { "daemon-token": "t" },
      { "node-agent-read-only": "http://127.0.0.1:10255", "node-agent-args": "--port='" },
      { "node-agent-read-only": "http://127.0.0.1:10255", "daemon-ca": "/no/such/file.pem" },
      { "node-agent-read-only": "http://127.0.0.1:10255", "daemon-ca": BIN, "daemon-insecure": true },
      { "controller-manager": "https://127.0.0.1:10257", "daemon-client-cert": PKI.client.cert },
      { "controller-manager": "https://127.0.0.1:10257", "daemon-proxy-key": PKI.proxy.key },
      { "controller-manager": "https://127.0.0.1:10257", "daemon-proxy-cert": "/no/such/cert.pem", "daemon-proxy-key": PKI.proxy.key },
      { "daemon-client-cert": PKI.client.cert, "daemon-client-key": PKI.client.key },
    ]) {
      expect(() => daemonEnvironment(values), JSON.stringify(values)).toThrow(UsageError);
    }
  });

  it("exits 2 on one, before probing the target", async () => {
    const r = await run("run", "--target", "http://127.0.0.1:1", "--controller-manager", "http://127.0.0.1:10257");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tollgate: --controller-manager is an HTTPS server/);
  });
});

/**
 * `tollgate emulator` as a fake cluster (issue #16): HTTPS with --auth, the kubeconfig it writes
 * (taken as is by undici and, when on PATH, by kubectl), --plain-http, a given pair, and bad
 * files refused in one line.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { load } from "js-yaml";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorKubeconfig, parseEmulatorCommand } from "../../lib/cli/emulator.js";
import { UsageError } from "../../lib/cli/usage.js";
import { generateServingTls } from "../../lib/emulator/tls.js";
import { kubectlOnPath } from "../support/kubectl.js";

const BIN = fileURLToPath(new URL("../../bin/tollgate.js", import.meta.url));
const FIXTURE_CERT = fileURLToPath(new URL("../../fixtures/daemons/tls/cert.pem", import.meta.url));
const FIXTURE_KEY = fileURLToPath(new URL("../../fixtures/daemons/tls/key.pem", import.meta.url));
const KUBECTL = kubectlOnPath("emulator-tls");

const dir = mkdtempSync(join(tmpdir(), "tollgate-tls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the CLI emulator; resolves with the URL it says it listens on, once its output also matches `until`. */
async function startCli(args: string[], until = /listening on/): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, [BIN, "emulator", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    out += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: string) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m && until.test(out)) resolve(m[1] as string);
    });
    child.once("exit", () => reject(new Error(`emulator exited early: ${out}`)));
  });
  return { child, url, out: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

interface Kubeconfig {
  clusters: { name: string; cluster: { server: string; "certificate-authority-data": string } }[];
  users: { name: string; user: { token: string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  "current-context": string;
}

describe("tollgate emulator --auth --kubeconfig-out", () => {
  const file = join(dir, "kubeconfig");
  let emu: Awaited<ReturnType<typeof startCli>>;
  let config: Kubeconfig;
  let ca: string;

  beforeAll(async () => {
    // The last line of its banner: the admin token's is before it.
    emu = await startCli(["--auth", "--kubeconfig-out", file], /kubeconfig written to/);
    config = load(readFileSync(file, "utf8")) as Kubeconfig;
    ca = Buffer.from(config.clusters[0]?.cluster["certificate-authority-data"] ?? "", "base64").toString("utf8");
  }, 120_000);
  afterAll(async () => {
    await stop(emu.child);
  });

  it("serves HTTPS and writes a kubeconfig of one context, readable by its owner only", () => {
    expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = /admin token \(group system:masters\): (\S+)/.exec(emu.out())?.[1];
    expect(config).toEqual({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "tollgate", cluster: { server: emu.url, "certificate-authority-data": expect.any(String) } }],
      users: [{ name: "tollgate-admin", user: { token } }],
      contexts: [{ name: "tollgate", context: { cluster: "tollgate", user: "tollgate-admin" } }],
      "current-context": "tollgate",
      preferences: {},
    });
    expect(new X509Certificate(ca).ca).toBe(true);
    expect(emu.out()).toContain(`kubeconfig written to ${file} (context tollgate)`);
  });

  it("takes the kubeconfig's token over TLS verified against its CA", async () => {
    const agent = new Agent({ connect: { ca } });
    try {
      const token = config.users[0]?.user.token;
      const r = await request(`${emu.url}/api/v1/namespaces`, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
      expect(r.statusCode).toBe(200);
      const body = (await r.body.json()) as { items: { metadata: { name: string } }[] };
      expect(body.items.map((n) => n.metadata.name)).toEqual(expect.arrayContaining(["default", "kube-system"]));
      const anonymous = await request(`${emu.url}/api/v1/namespaces`, { dispatcher: agent });
      expect(anonymous.statusCode).toBe(403);
      await anonymous.body.dump();
    } finally {
      await agent.close();
    }
  });

  it.skipIf(!KUBECTL)(
    "drives kubectl unchanged (get, create configmap)",
    async () => {
      const cache = join(dir, "kcache");
      const kubectl = (...args: string[]): Promise<{ code: number; out: string }> =>
        new Promise((resolve) => {
          execFile(KUBECTL as string, ["--kubeconfig", file, "--cache-dir", cache, ...args], { timeout: 60_000 }, (e, stdout, stderr) =>
            resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
          );
        });
      const ns = await kubectl("get", "ns");
      expect(ns.out).toMatch(/^NAME\s+STATUS\s+AGE\n/);
      expect(ns.out).toMatch(/\ndefault\s+Active\s/);
      expect(ns.code).toBe(0);
      const created = await kubectl("create", "configmap", "from-kubectl", "-n", "default", "--from-literal=a=b");
      expect(created.out.trim()).toBe("configmap/from-kubectl created");
      const got = await kubectl("get", "configmap", "from-kubectl", "-n", "default", "-o", "jsonpath={.data.a}");
      expect(got.out).toBe("b");
      // A token the server does not know is refused: the kubeconfig's was the one sent.
      const wrong = await kubectl("get", "ns", "--token", "not-a-token");
      expect(wrong.out).toContain("error: You must be logged in to the server (Unauthorized)");
      expect(wrong.code).toBe(1);
    },
    180_000,
  );
});

describe("tollgate emulator's other TLS flags", () => {
  it("--plain-http keeps plain HTTP under --auth", async () => {
    const emu = await startCli(["--auth", "--plain-http"]);
    try {
      expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const r = await request(`${emu.url}/version`);
      expect(r.statusCode).toBe(200);
      expect(((await r.body.json()) as { major: string }).major).toBe("1");
    } finally {
      await stop(emu.child);
    }
  }, 120_000);

  it("--tls-cert-file and --tls-private-key-file are served as given", async () => {
    const emu = await startCli(["--tls-cert-file", FIXTURE_CERT, "--tls-private-key-file", FIXTURE_KEY]);
    try {
      expect(emu.url).toMatch(/^https:\/\//);
      const agent = new Agent({ connect: { ca: readFileSync(FIXTURE_CERT, "utf8") } });
      const r = await request(`${emu.url}/version`, { dispatcher: agent });
      expect(r.statusCode).toBe(200);
      await r.body.dump();
      await agent.close();
    } finally {
      await stop(emu.child);
    }
  }, 120_000);

  it("refuses a missing or unmatched file in one line with exit 2", async () => {
    const run = (args: string[]): Promise<{ code: number | null; stderr: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [BIN, "emulator", "--port", "0", ...args], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (d: string) => {
          stderr += d;
        });
        child.once("exit", (code) => resolve({ code, stderr }));
      });
    const missing = join(dir, "missing.pem");
    const a = await run(["--tls-cert-file", missing, "--tls-private-key-file", FIXTURE_KEY]);
    expect(a.code).toBe(2);
    expect(a.stderr).toBe(`tollgate: --tls-cert-file ${missing}: ENOENT (see tollgate emulator --help)\n`);
    // The same check, without a process each: a file that is no key, and a key that is another's.
    expect(() => parseEmulatorCommand(["--tls-cert-file", FIXTURE_CERT, "--tls-private-key-file", FIXTURE_CERT])).toThrow(
      new UsageError(`--tls-private-key-file ${FIXTURE_CERT}: no private key that parses`),
    );
    const otherKey = join(dir, "other-key.pem");
    writeFileSync(otherKey, (await generateServingTls(["localhost"])).key);
    expect(() => parseEmulatorCommand(["--tls-cert-file", FIXTURE_CERT, "--tls-private-key-file", otherKey])).toThrow(
      new UsageError(`--tls-private-key-file ${otherKey} does not match the certificate of ${FIXTURE_CERT}`),
    );
  }, 120_000);

  it("checks how the flags go together", () => {
    expect(() => parseEmulatorCommand(["--tls-cert-file", FIXTURE_CERT])).toThrow("--tls-cert-file and --tls-private-key-file go together");
    expect(() => parseEmulatorCommand(["--tls", "--plain-http"])).toThrow("--plain-http goes with neither --tls nor --tls-cert-file");
    expect(parseEmulatorCommand(["--auth"]).api.tls).toBe("generate");
    expect(parseEmulatorCommand(["--tls"]).api.tls).toBe("generate");
    expect(parseEmulatorCommand(["--auth", "--plain-http"]).api.tls).toBeUndefined();
    expect(parseEmulatorCommand([]).api.tls).toBeUndefined();
    expect(parseEmulatorCommand(["--kubeconfig-out", "f"]).kubeconfigOut).toBe("f");
  });

  it("writes a kubeconfig without credentials or CA for a plain emulator, dialing loopback for 0.0.0.0", () => {
    expect(load(emulatorKubeconfig("http://0.0.0.0:8080", undefined, undefined))).toMatchObject({
      clusters: [{ name: "tollgate", cluster: { server: "http://127.0.0.1:8080" } }],
      users: [{ name: "tollgate-admin", user: {} }],
    });
    expect(load(emulatorKubeconfig("https://[::]:6443", "PEM", "t"))).toMatchObject({
      clusters: [{ cluster: { server: "https://[::1]:6443", "certificate-authority-data": Buffer.from("PEM").toString("base64") } }],
      users: [{ user: { token: "t" } }],
    });
  });
});

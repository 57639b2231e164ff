/**
 * Exec credential plugins as client-go runs them (wire-facts §13), against a fake plugin: the
 * ExecCredential versions, what the plugin is given, caching until expirationTimestamp, and
 * client-go's error for each bad answer; plus tollgate's own bounds (a hanging plugin, a
 * plugin that wants a terminal).
 */
import { describe, expect, it } from "vitest";
import { PKI, readPair } from "../../fixtures/daemons/pki.js";
import { CredentialError } from "../../lib/harness/credentials/errors.js";
import { ExecAuthenticator, type ExecConfig, execInfo, lookPath, runExecPlugin } from "../../lib/harness/credentials/exec.js";
import { execCredential, type FakePlugin, fakePlugin } from "../support/fake-exec-plugin.js";

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";
const pair = readPair(PKI.client);
const other = readPair(PKI.proxy);

function config(p: FakePlugin, over: Partial<ExecConfig> = {}): ExecConfig {
  return {
    command: p.command,
    args: [],
    env: [],
    apiVersion: V1,
    interactiveMode: "Never",
    provideClusterInfo: false,
    cluster: { server: "https://k.example:6443" },
    ...over,
  };
}

const notTerminal = { isTerminal: () => false };

describe("exec plugin output", () => {
  it.each([V1, V1BETA1])("reads a token from %s", async (v) => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(v, { token: "tok-1" }) });
    await expect(runExecPlugin(config(p, { apiVersion: v }), notTerminal)).resolves.toEqual({ token: "tok-1" });
  });

  it.each([V1, V1BETA1])("reads a client certificate and key from %s, with the expiry", async (v) => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(v, { clientCertificateData: pair.cert, clientKeyData: pair.key, expirationTimestamp: "2099-01-02T03:04:05Z" }) });
    const c = await runExecPlugin(config(p, { apiVersion: v }), notTerminal);
    expect(c).toEqual({ cert: pair.cert, key: pair.key, expiry: Date.parse("2099-01-02T03:04:05Z") });
  });

  it("passes args and the kubeconfig's env after the inherited environment, and KUBERNETES_EXEC_INFO without cluster info by default", async () => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1, { token: "t" }) });
    await runExecPlugin(
      config(p, {
        args: ["get-token", "--cluster", "c 1"],
        env: [
          { name: "FAKE_ENV", value: "from-kubeconfig" },
          { name: "FAKE_OVERRIDE", value: "kubeconfig wins" },
        ],
      }),
      { ...notTerminal, environ: { ...process.env, FAKE_OVERRIDE: "inherited", HOME: "/home/inherited" } },
    );
    const [run] = p.runs();
    expect(run?.args).toEqual(["get-token", "--cluster", "c 1"]);
    expect(run?.env).toEqual({ FAKE_ENV: "from-kubeconfig", FAKE_OVERRIDE: "kubeconfig wins", HOME: "/home/inherited" });
    expect(run?.info).toBe(`{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}\n`);
    expect(run?.stdinTTY).toBe(false);
  });

  it("with provideClusterInfo, tells the cluster: server, tls-server-name, insecure flag, CA data, proxy-url, disable-compression, and the exec extension", async () => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1BETA1, { token: "t" }) });
    const cluster = {
      server: "https://k.example:6443",
      tlsServerName: "api.internal",
      insecureSkipTlsVerify: true,
      ca: "CA-PEM\n",
      proxyUrl: "http://proxy.example:3128",
      disableCompression: true,
      config: { zone: "z1", audience: { b: 2, a: 1 } },
    };
    await runExecPlugin(config(p, { apiVersion: V1BETA1, provideClusterInfo: true, cluster }), notTerminal);
    const info = p.runs()[0]?.info;
    expect(info).toBe(
      `{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"cluster":{"server":"https://k.example:6443","tls-server-name":"api.internal","insecure-skip-tls-verify":true,"certificate-authority-data":"${Buffer.from("CA-PEM\n").toString("base64")}","proxy-url":"http://proxy.example:3128","disable-compression":true,"config":{"audience":{"a":1,"b":2},"zone":"z1"}},"interactive":false}}\n`,
    );
    // Without the extension and the optional fields: config is null, the rest left out.
    expect(execInfo(config(p, { provideClusterInfo: true }), false)).toBe(
      `{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"cluster":{"server":"https://k.example:6443","config":null},"interactive":false}}\n`,
    );
  });

  const bad: [string, unknown, RegExp][] = [
    ["no status", execCredential(V1, undefined), /exec plugin didn't return a status field$/],
    ["a null status", { ...execCredential(V1, undefined), status: null }, /exec plugin didn't return a status field$/],
    ["an empty status", execCredential(V1, {}), /exec plugin didn't return a token or cert\/key pair$/],
    ["a certificate without key", execCredential(V1, { clientCertificateData: pair.cert }), /exec plugin returned only certificate or key, not both$/],
    ["a key without certificate", execCredential(V1, { clientKeyData: pair.key }), /exec plugin returned only certificate or key, not both$/],
    [
      "another version",
      execCredential(V1BETA1, { token: "t" }),
      /exec plugin is configured to use API version client.authentication.k8s.io\/v1, plugin returned version client.authentication.k8s.io\/v1beta1$/,
    ],
    [
      "an unknown version",
      execCredential("client.authentication.k8s.io/v9", { token: "t" }),
      /decoding stdout: no kind "ExecCredential" is registered for version "client.authentication.k8s.io\/v9"$/,
    ],
    ["another kind", { kind: "Secret", apiVersion: V1, status: { token: "t" } }, /decoding stdout: no kind "Secret" is registered/],
    ["no kind", { apiVersion: V1, status: { token: "t" } }, /decoding stdout: Object 'Kind' is missing/],
    ["no JSON", "token: [unclosed", /decoding stdout: couldn't get version\/kind; json parse error/],
    ["nothing", "", /decoding stdout: Object 'Kind' is missing in the plugin's output \(it printed nothing\)$/],
    [
      "a bad expiry",
      execCredential(V1, { token: "t", expirationTimestamp: "secret-tomorrow" }),
      /decoding stdout: parsing time: status.expirationTimestamp is not an RFC 3339 time/,
    ],
    [
      "a kind that is no name",
      { kind: "secret kind with spaces", apiVersion: V1, status: { token: "t" } },
      /decoding stdout: no kind \(not shown\) is registered for version "client.authentication.k8s.io\/v1"$/,
    ],
    [
      "a token of the wrong type",
      execCredential(V1, { token: 42 }),
      /cannot unmarshal number into Go struct field ExecCredentialStatus.status.token of type string$/,
    ],
    [
      "a key that does not match",
      execCredential(V1, { clientCertificateData: pair.cert, clientKeyData: other.key }),
      /failed parsing client key\/certificate: tls: private key does not match public key$/,
    ],
    [
      "a certificate that is no PEM",
      execCredential(V1, { clientCertificateData: "nope", clientKeyData: pair.key }),
      /failed parsing client key\/certificate: tls: failed to find any PEM data in certificate input$/,
    ],
  ];
  it.each(bad)("refuses %s with client-go's message, one line, naming the plugin and showing none of the output", async (_what, stdout, message) => {
    const p = fakePlugin();
    p.respond({ stdout });
    const err = await runExecPlugin(config(p), notTerminal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CredentialError);
    const m = (err as Error).message;
    expect(m).toMatch(message);
    expect(m.startsWith(`exec plugin ${p.command}: getting credentials: `)).toBe(true);
    expect(m).not.toContain("\n");
    expect(m).not.toContain("PRIVATE KEY");
    expect(m).not.toContain("unclosed");
    expect(m).not.toContain("secret");
  });

  it("a plugin that exits non-zero: client-go's message with the exit code, and nothing it wrote", async () => {
    const p = fakePlugin();
    p.respond({ exitCode: 3, stderr: "error: token secret-xyz expired", stdout: execCredential(V1, { token: "printed-anyway" }) });
    await expect(runExecPlugin(config(p), notTerminal)).rejects.toThrow(
      new CredentialError(`exec plugin ${p.command}: getting credentials: exec: executable ${p.command} failed with exit code 3`),
    );
  });

  it("a plugin that hangs is stopped after the time limit, with one line", async () => {
    const p = fakePlugin();
    p.respond({ hang: true, stderr: "waiting for the browser" });
    const started = Date.now();
    await expect(runExecPlugin(config(p), { ...notTerminal, timeoutMs: 500 })).rejects.toThrow(
      new CredentialError(`exec plugin ${p.command}: getting credentials: exec: executable ${p.command} did not finish within 0.5 s and was stopped`),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a command that is not there: client-go's not-found message with the install hint, on one line", async () => {
    const p = fakePlugin();
    const err = (await runExecPlugin(
      config(p, { command: "tollgate-no-such-plugin", installHint: "Install it with:\n  brew install tollgate-no-such-plugin" }),
      notTerminal,
    ).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^exec plugin tollgate-no-such-plugin: getting credentials: exec: executable tollgate-no-such-plugin not found\. It looks like you are trying to use a client-go credential plugin that is not installed\./,
    );
    expect(err.message).toMatch(/Install it with: brew install tollgate-no-such-plugin$/);
  });

  it("looks a bare command up in PATH, and skips relative PATH entries as Go does", () => {
    const p = fakePlugin("tollgate-fake-in-path");
    expect(lookPath("tollgate-fake-in-path", `/nonexistent:${p.dir}`)).toBe(p.command);
    expect(lookPath("tollgate-fake-in-path", `.:nonexistent`)).toBeUndefined();
    expect(lookPath("./x/plugin", "")).toBe("./x/plugin");
  });

  it("interactiveMode: Never and IfAvailable run without a terminal; Always is refused with client-go's message", async () => {
    for (const mode of ["Never", "IfAvailable"] as const) {
      const p = fakePlugin();
      p.respond({ stdout: execCredential(V1, { token: "t" }) });
      await expect(runExecPlugin(config(p, { interactiveMode: mode }), notTerminal)).resolves.toEqual({ token: "t" });
      expect(JSON.parse(p.runs()[0]?.info ?? "{}").spec.interactive).toBe(false);
    }
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1, { token: "t" }) });
    await expect(runExecPlugin(config(p, { interactiveMode: "Always" }), notTerminal)).rejects.toThrow(
      `exec plugin ${p.command}: getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal`,
    );
    // Even at a terminal: tollgate never hands its standard input to a plugin (client-go's "unavailable").
    await expect(runExecPlugin(config(p, { interactiveMode: "Always" }), { isTerminal: () => true })).rejects.toThrow(
      /exec plugin cannot support interactive mode: standard input is unavailable: /,
    );
    expect(p.runs()).toHaveLength(0);
  });
});

describe("exec credential caching", () => {
  it("runs the plugin once while the credential is valid, and again once it expired", async () => {
    const p = fakePlugin();
    let now = Date.parse("2030-01-01T00:00:00Z");
    p.respond({ stdout: execCredential(V1, { token: "first", expirationTimestamp: "2030-01-01T00:01:00Z" }) });
    const a = new ExecAuthenticator(config(p), { ...notTerminal, now: () => now });
    const [x, y, z] = await Promise.all([a.credentials(), a.credentials(), a.credentials()]);
    expect([x?.token, y?.token, z?.token]).toEqual(["first", "first", "first"]);
    now += 60_000; // exactly the expiry: still valid (client-go expires when now is after it)
    expect((await a.credentials()).token).toBe("first");
    expect(p.runs()).toHaveLength(1);
    p.respond({ stdout: execCredential(V1, { token: "second", expirationTimestamp: "2030-01-01T00:10:00Z" }) });
    now += 1;
    expect((await a.credentials()).token).toBe("second");
    expect((await a.credentials()).token).toBe("second");
    expect(p.runs()).toHaveLength(2);
  });

  it("without an expiry, keeps the credential until a 401; then runs the plugin at once, once", async () => {
    const p = fakePlugin();
    p.respond({ stdout: execCredential(V1, { token: "first" }) });
    const a = new ExecAuthenticator(config(p), notTerminal);
    const first = await a.credentials();
    expect((await a.credentials()).token).toBe("first");
    p.respond({ stdout: execCredential(V1, { token: "second" }) });
    a.unauthorized(first);
    a.unauthorized(first); // a second 401 of the same credentials while the plugin runs: no second run
    expect((await a.credentials()).token).toBe("second");
    a.unauthorized(first); // a late 401 of credentials already replaced
    expect((await a.credentials()).token).toBe("second");
    expect(p.runs()).toHaveLength(2);
  });

  it("a failing plugin keeps failing with its message, and works again once it does", async () => {
    const p = fakePlugin();
    p.respond({ exitCode: 1 });
    const a = new ExecAuthenticator(config(p), notTerminal);
    await expect(a.credentials()).rejects.toThrow(/failed with exit code 1$/);
    p.respond({ stdout: execCredential(V1, { token: "ok" }) });
    expect((await a.credentials()).token).toBe("ok");
  });
});

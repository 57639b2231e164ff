import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadKubeconfig } from "../../lib/harness/kubeconfig.js";
import { resolveTarget, TargetError } from "../../lib/harness/target.js";

const dir = mkdtempSync(join(tmpdir(), "tollgate-kc-"));
function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const b64 = (s: string): string => Buffer.from(s).toString("base64");

const config = write(
  "config",
  `apiVersion: v1
kind: Config
current-context: a
clusters:
- name: ca
  cluster: { server: "https://a.example:6443/", certificate-authority-data: ${b64("CA-PEM")} }
- name: cb
  cluster: { server: "http://127.0.0.1:8080", insecure-skip-tls-verify: true }
users:
- name: ua
  user: { token: "tok-a" }
- name: ub
  user: { client-certificate-data: ${b64("CERT")}, client-key: key.pem }
- name: uexec
  user: { exec: { command: aws } }
contexts:
- name: a
  context: { cluster: ca, user: ua }
- name: b
  context: { cluster: cb, user: ub }
- name: e
  context: { cluster: ca, user: uexec }
`,
);
write("key.pem", "KEY");

describe("kubeconfig", () => {
  it("reads the current context: server, CA data and bearer token", () => {
    const t = loadKubeconfig(config);
    expect(t.url).toBe("https://a.example:6443");
    expect(t.credentials).toMatchObject({ token: "tok-a", ca: "CA-PEM" });
  });

  it("reads a named context with a client certificate, a key file relative to the config, and insecure TLS", () => {
    const t = loadKubeconfig(config, "b");
    expect(t.credentials).toMatchObject({ clientCert: "CERT", clientKey: "KEY", insecureSkipTlsVerify: true });
  });

  it("refuses an exec plugin without apiVersion and interactiveMode, and unknown contexts, with a clear message", () => {
    expect(() => loadKubeconfig(config, "e")).toThrow(
      /invalid configuration: \[apiVersion must be specified for uexec to use exec authentication plugin, interactiveMode must be specified for uexec to use exec authentication plugin\]$/,
    );
    expect(() => loadKubeconfig(config, "nope")).toThrow(/no context named "nope"/);
    expect(() => loadKubeconfig(join(dir, "missing"))).toThrow(/cannot read kubeconfig/);
    expect(() => loadKubeconfig(write("bad", "a: [\n"))).toThrow(/not valid YAML/);
  });
});

describe("target selection", () => {
  it("uses --target before anything else and checks it is an http(s) URL", () => {
    expect(resolveTarget({ target: "http://127.0.0.1:1/" })?.url).toBe("http://127.0.0.1:1");
    expect(() => resolveTarget({ target: "127.0.0.1:1" })).toThrow(TargetError);
    expect(() => resolveTarget({ target: "ftp://x" })).toThrow(/only http and https/);
  });

  it("uses a kubeconfig only when asked by --kubeconfig or --context, never because KUBECONFIG is set", () => {
    expect(resolveTarget({}, { KUBECONFIG: config })).toBeUndefined();
    expect(resolveTarget({ context: "b" }, { KUBECONFIG: config })?.url).toBe("http://127.0.0.1:8080");
    expect(resolveTarget({ kubeconfig: config })?.credentials.token).toBe("tok-a");
    expect(() => resolveTarget({ kubeconfig: join(dir, "none") })).toThrow(/does not exist/);
  });
});

/**
 * The in-cluster configuration (wire-facts §14) from a fake pod: a temp directory with the
 * service account's token and CA, and the service environment variables.
 */
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { daemonTls } from "../../fixtures/daemons/tls.js";
import { ApiClient } from "../../lib/harness/client.js";
import { loadInCluster } from "../../lib/harness/credentials/in-cluster.js";
import { resolveTarget } from "../../lib/harness/target.js";

const tls = daemonTls();

function pod(files: { token?: string; ca?: string }): string {
  const root = mkdtempSync(join(tmpdir(), "tollgate-sa-"));
  if (files.token !== undefined) writeFileSync(join(root, "token"), files.token);
  if (files.ca !== undefined) writeFileSync(join(root, "ca.crt"), files.ca);
  return root;
}

const env = (port = "443", host = "10.0.0.1"): NodeJS.ProcessEnv => ({ KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port });

let server: Server | undefined;
afterAll(() => {
  server?.closeAllConnections();
  server?.close();
});

describe("in-cluster configuration", () => {
  it("reads the service host and port, the token and the CA", () => {
    const root = pod({ token: "sa-token\n", ca: tls.cert });
    const t = loadInCluster({ env: env(), root });
    expect(t.url).toBe("https://10.0.0.1:443");
    expect(t.credentials).toEqual({ tokenFile: { path: join(root, "token"), fallback: "sa-token" }, ca: tls.cert });
    expect(loadInCluster({ env: env("6443", "fd00::1"), root }).url).toBe("https://[fd00::1]:6443");
  });

  it("without KUBERNETES_SERVICE_HOST or _PORT: client-go's error", () => {
    const root = pod({ token: "t" });
    const message = "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined";
    expect(() => loadInCluster({ env: {}, root })).toThrow(message);
    expect(() => loadInCluster({ env: { KUBERNETES_SERVICE_HOST: "h" }, root })).toThrow(message);
  });

  it("a token that does not read is an error in Go's words; an empty one as client-go's token source refuses it", () => {
    const root = pod({});
    expect(() => loadInCluster({ env: env(), root })).toThrow(`open ${join(root, "token")}: no such file or directory`);
    const empty = pod({ token: "\n" });
    expect(() => loadInCluster({ env: env(), root: empty })).toThrow(`read empty token from file "${join(empty, "token")}"`);
  });

  it("a CA that does not load is only a warning, as client-go only logs it, and no CA is used", () => {
    const warnings: string[] = [];
    const missing = pod({ token: "t" });
    expect(loadInCluster({ env: env(), root: missing, warn: (m) => warnings.push(m) }).credentials.ca).toBeUndefined();
    const junk = pod({ token: "t", ca: "not a certificate" });
    expect(loadInCluster({ env: env(), root: junk, warn: (m) => warnings.push(m) }).credentials.ca).toBeUndefined();
    expect(warnings).toEqual([
      `Expected to load root CA config from ${join(missing, "ca.crt")}, but got err: open ${join(missing, "ca.crt")}: no such file or directory`,
      `Expected to load root CA config from ${join(junk, "ca.crt")}, but got err: error reading ${join(junk, "ca.crt")}: data does not contain any valid RSA or ECDSA certificates`,
    ]);
  });

  it("is used only when asked for, never because the service variables are set, and not with another target", () => {
    const root = pod({ token: "t", ca: tls.cert });
    const podEnv = { ...env(), TOLLGATE_SERVICE_ACCOUNT_DIR: root };
    expect(resolveTarget({}, podEnv)).toBeUndefined();
    expect(resolveTarget({ inCluster: true }, podEnv)?.url).toBe("https://10.0.0.1:443");
    expect(resolveTarget({ inCluster: true, token: "given" }, podEnv)?.credentials.token).toBe("given");
    expect(() => resolveTarget({ inCluster: true, target: "https://x" }, podEnv)).toThrow(
      /--in-cluster .* goes with neither --target, --kubeconfig nor --context/,
    );
    const empty = pod({});
    expect(() => resolveTarget({ inCluster: true }, { ...env(), TOLLGATE_SERVICE_ACCOUNT_DIR: empty })).toThrow(
      `open ${join(empty, "token")}: no such file or directory`,
    );
  });

  it("requests go to the service over TLS with the service account's CA and the token from the file", async () => {
    const seen: (string | undefined)[] = [];
    server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      seen.push(req.headers.authorization);
      res.end("{}");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const root = pod({ token: "first-token\n", ca: tls.cert });
    const c = new ApiClient(loadInCluster({ env: env(String((server.address() as AddressInfo).port), "127.0.0.1"), root }));
    try {
      expect((await c.raw("GET", "/version")).code).toBe(200);
    } finally {
      await c.close();
    }
    expect(seen).toEqual(["Bearer first-token"]);
  });
});

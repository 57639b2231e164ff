/**
 * A client for another identity is made with asIdentity(), never by spreading the run's
 * credentials and replacing the token: that would keep an exec plugin's client certificate, a
 * token file or the kubeconfig's impersonation on requests meant to be someone else's.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { asIdentity } from "../../lib/harness/credentials/identity.js";

const ROOT = resolve(import.meta.dirname, "../..");
function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("another identity", () => {
  it("keeps the route (CA, server name, proxy) and drops every part of the run's identity", () => {
    const t = asIdentity(
      {
        url: "https://k",
        source: "s",
        credentials: {
          token: "run",
          basic: { username: "u", password: "p" },
          clientCert: "C",
          clientKey: "K",
          tokenFile: { path: "/t" },
          oidc: { canRefresh: false, issuer: "i" },
          exec: {
            command: "x",
            args: [],
            env: [],
            apiVersion: "client.authentication.k8s.io/v1",
            interactiveMode: "Never",
            provideClusterInfo: false,
            cluster: { server: "" },
          },
          impersonate: { user: "alice" },
          ca: "CA",
          tlsServerName: "n",
          proxyUrl: "http://p",
          disableCompression: true,
        },
      },
      "other",
    );
    expect(t).toEqual({
      url: "https://k",
      source: "s",
      credentials: { ca: "CA", tlsServerName: "n", proxyUrl: "http://p", disableCompression: true, token: "other" },
    });
  });

  it("no suite or runner file builds a client's credentials by spreading the run's", () => {
    const files = ["suites", "lib/runner", "lib/daemons", "lib/report"].flatMap((d) => tsFiles(join(ROOT, d)));
    const spreading = files.filter((f) => /credentials:\s*\{\s*\.\.\.[\w.]*credentials/.test(readFileSync(f, "utf8")));
    expect(spreading.map((f) => relative(ROOT, f))).toEqual([]);
  });
});

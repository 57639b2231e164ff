/**
 * The kubeconfig as kubectl reads it (client-go tools/clientcmd): KUBECONFIG files merged,
 * relative paths against the file that names them, every field that changes where a request
 * goes or who it acts as, and client-go's refusals.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kubeconfigFiles, loadKubeconfig } from "../../lib/harness/kubeconfig.js";
import { resolveTarget } from "../../lib/harness/target.js";

const root = mkdtempSync(join(tmpdir(), "tollgate-kcf-"));
let n = 0;
function file(text: string, name = `config-${(n += 1)}`, dir = root): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const b64 = (s: string): string => Buffer.from(s).toString("base64");

/** A one-context kubeconfig with the given cluster and user bodies (YAML flow maps). */
function single(cluster: string, user: string): string {
  return file(`apiVersion: v1
kind: Config
current-context: c
clusters: [{ name: k, cluster: ${cluster} }]
users: [{ name: u, user: ${user} }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
`);
}

describe("KUBECONFIG with several files", () => {
  const dirA = join(root, "a");
  const dirB = join(root, "b");
  const a = file(
    `current-context: from-a
clusters:
- name: shared
  cluster: { server: "https://a.example", certificate-authority: ca.pem }
users:
- name: shared
  user: { token: token-from-a }
contexts:
- name: from-a
  context: { cluster: shared, user: shared }
`,
    "config",
    dirA,
  );
  file("CA OF A", "ca.pem", dirA);
  const b = file(
    `current-context: from-b
clusters:
- name: shared
  cluster: { server: "https://b.example", tls-server-name: only-in-b }
- name: only-b
  cluster: { server: "https://only-b.example", certificate-authority: ca.pem }
users:
- name: shared
  user: { token: token-from-b }
- name: only-b
  user: { tokenFile: token.txt, as: alice }
contexts:
- name: from-b
  context: { cluster: only-b, user: only-b }
`,
    "config",
    dirB,
  );
  file("CA OF B", "ca.pem", dirB);
  file("token-of-b\n", "token.txt", dirB);

  it("merges as kubectl: the first file wins for current-context and for each named entry, taken whole", () => {
    const t = loadKubeconfig([a, b]);
    expect(t.url).toBe("https://a.example");
    expect(t.credentials.token).toBe("token-from-a");
    expect(t.credentials.tlsServerName).toBeUndefined();
    expect(t.source).toBe(`kubeconfig ${a}:${b}, context from-a`);
    const reversed = loadKubeconfig([b, a]);
    expect(reversed.url).toBe("https://only-b.example");
    expect(loadKubeconfig([b, a], "from-a").credentials).toMatchObject({ token: "token-from-b", tlsServerName: "only-in-b" });
  });

  it("resolves relative paths against the file that names them", () => {
    expect(loadKubeconfig([a, b]).credentials.ca).toBe("CA OF A");
    const fromB = loadKubeconfig([a, b], "from-b");
    expect(fromB.credentials.ca).toBe("CA OF B");
    expect(fromB.credentials.tokenFile).toEqual({ path: join(dirB, "token.txt"), fallback: "token-of-b" });
    expect(fromB.credentials.impersonate).toEqual({ user: "alice" });
  });

  it("takes the files from KUBECONFIG (deduplicated, missing ones skipped) unless --kubeconfig names one", () => {
    const missing = join(root, "nope");
    expect(kubeconfigFiles(undefined, { KUBECONFIG: `${missing}:${b}:${a}:${b}` })).toEqual([b, a]);
    expect(kubeconfigFiles(a, { KUBECONFIG: b })).toEqual([a]);
    expect(() => kubeconfigFiles(undefined, { KUBECONFIG: missing })).toThrow(`none of the files KUBECONFIG lists exists (${missing})`);
    expect(resolveTarget({ context: "from-a" }, { KUBECONFIG: `${b}:${a}` })?.credentials.token).toBe("token-from-b");
  });

  it("refuses a name given twice in one file", () => {
    const dup = file(`clusters: [{ name: x, cluster: { server: "https://1" } }, { name: x, cluster: { server: "https://2" } }]\n`);
    expect(() => loadKubeconfig(dup)).toThrow(`error loading config file "${dup}": duplicate name "x" in clusters`);
  });
});

describe("kubeconfig fields", () => {
  it("still reads a token, basic auth, client certificate and key (data and files), CA data, insecure and tls-server-name", () => {
    file("KEY", "k.pem");
    expect(loadKubeconfig(single(`{ server: "https://s", certificate-authority-data: ${b64("CA")}, tls-server-name: n }`, `{ token: t }`)).credentials).toEqual(
      { ca: "CA", tlsServerName: "n", token: "t" },
    );
    expect(loadKubeconfig(single(`{ server: "http://s", insecure-skip-tls-verify: true }`, `{ username: ann, password: pw }`)).credentials).toEqual({
      insecureSkipTlsVerify: true,
      basic: { username: "ann", password: "pw" },
    });
    expect(loadKubeconfig(single(`{ server: "https://s" }`, `{ client-certificate-data: ${b64("CERT")}, client-key: k.pem }`)).credentials).toEqual({
      clientCert: "CERT",
      clientKey: "KEY",
    });
  });

  it("reads proxy-url, disable-compression and impersonation", () => {
    const t = loadKubeconfig(
      single(
        `{ server: "https://s", proxy-url: "socks5://127.0.0.1:1080", disable-compression: true }`,
        `{ token: t, as: "system:serviceaccount:ns:sa", as-uid: "u-1", as-groups: [g1, g2], as-user-extra: { scopes: [a, b], "dotted.key/x": [v] } }`,
      ),
    );
    expect(t.credentials).toMatchObject({
      proxyUrl: "socks5://127.0.0.1:1080",
      disableCompression: true,
      impersonate: { user: "system:serviceaccount:ns:sa", uid: "u-1", groups: ["g1", "g2"], extra: { scopes: ["a", "b"], "dotted.key/x": ["v"] } },
    });
  });

  it("a tokenFile is read at load and wins over a token given with it", () => {
    file("from-file\n", "tok");
    expect(loadKubeconfig(single(`{ server: "https://s" }`, `{ tokenFile: tok }`)).credentials).toEqual({
      tokenFile: { path: join(root, "tok"), fallback: "from-file" },
    });
    expect(loadKubeconfig(single(`{ server: "https://s" }`, `{ tokenFile: tok, token: inline }`)).credentials).toEqual({
      tokenFile: { path: join(root, "tok"), fallback: "inline" },
    });
  });

  it("reads an exec plugin: a command with a separator relative to the file, a bare one left for PATH, v1beta1's default interactiveMode, the cluster it is told", () => {
    const ext = `extensions: [{ name: client.authentication.k8s.io/exec, extension: { region: eu } }]`;
    const t = loadKubeconfig(
      single(
        `{ server: "https://s:6443", certificate-authority-data: ${b64("CA")}, proxy-url: "http://p:3128", ${ext} }`,
        `{ exec: { command: ./bin/get-token, args: [a], env: [{ name: X, value: "1" }], apiVersion: client.authentication.k8s.io/v1beta1, provideClusterInfo: true, installHint: "get it" } }`,
      ),
    );
    expect(t.credentials.exec).toEqual({
      command: join(root, "bin/get-token"),
      args: ["a"],
      env: [{ name: "X", value: "1" }],
      apiVersion: "client.authentication.k8s.io/v1beta1",
      interactiveMode: "IfAvailable",
      provideClusterInfo: true,
      installHint: "get it",
      cluster: { server: "https://s:6443", ca: "CA", proxyUrl: "http://p:3128", config: { region: "eu" } },
    });
    const bare = loadKubeconfig(
      single(`{ server: "https://s" }`, `{ exec: { command: aws, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never } }`),
    );
    expect(bare.credentials.exec?.command).toBe("aws");
    // --target replaces the cluster's server, also in what the plugin is told (as kubectl --server).
    const withTarget = resolveTarget({
      target: "https://other:443",
      kubeconfig: single(`{ server: "https://s" }`, `{ exec: { command: aws, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never } }`),
    });
    expect(withTarget?.credentials.exec?.cluster.server).toBe("https://other:443");
  });

  it("the oidc auth-provider: a valid id-token is used; an expired one is refused with what to do", () => {
    const jwt = (exp: number): string => `h.${Buffer.from(JSON.stringify({ exp })).toString("base64url")}.s`;
    const valid = jwt(Math.floor(Date.now() / 1000) + 3600);
    const provider = (cfg: string): string =>
      single(`{ server: "https://s" }`, `{ auth-provider: { name: oidc, config: { idp-issuer-url: "https://idp", client-id: k, ${cfg} } } }`);
    expect(loadKubeconfig(provider(`id-token: "${valid}"`)).credentials.oidc).toEqual({ idToken: valid, canRefresh: false, issuer: "https://idp" });
    const expired = jwt(Math.floor(Date.now() / 1000) - 5);
    expect(() => loadKubeconfig(provider(`id-token: "${expired}"`))).toThrow(
      /user "u": oidc auth-provider: No valid id-token, and cannot refresh without refresh-token$/,
    );
    expect(() => loadKubeconfig(provider(`id-token: "${expired}", refresh-token: secret-refresh`))).toThrow(
      /the id-token has expired; tollgate does not refresh it .*run a kubectl command with this context to refresh it/,
    );
    expect(() => loadKubeconfig(provider(`id-token: "${expired}", refresh-token: secret-refresh`))).not.toThrow(/secret-refresh/);
    expect(() => loadKubeconfig(provider(`id-token: not-a-jwt`))).toThrow(/ID Token is not a valid JWT$/);
    expect(() => loadKubeconfig(single(`{ server: "https://s" }`, `{ auth-provider: { name: oidc, config: { client-id: k } } }`))).toThrow(
      /Must provide idp-issuer-url$/,
    );
  });

  it("refuses the gcp and azure auth-providers with client-go 1.35's words, and unknown ones", () => {
    expect(() => loadKubeconfig(single(`{ server: "https://s" }`, `{ auth-provider: { name: gcp } }`))).toThrow(
      /auth-provider gcp: The gcp auth plugin has been removed\. Please use the "gke-gcloud-auth-plugin" kubectl\/client-go credential plugin instead\./,
    );
    expect(() => loadKubeconfig(single(`{ server: "https://s" }`, `{ auth-provider: { name: azure } }`))).toThrow(
      /The azure auth plugin has been removed\. Please use the https:\/\/github.com\/Azure\/kubelogin kubectl\/client-go credential plugin instead\./,
    );
    expect(() => loadKubeconfig(single(`{ server: "https://s" }`, `{ auth-provider: { name: openstack } }`))).toThrow(
      /no Auth Provider found for name "openstack"$/,
    );
  });

  const invalid: [string, string, string, string][] = [
    [
      "token and basic auth",
      `{ server: "https://s" }`,
      `{ token: secret-t, username: a, password: secret-p }`,
      "more than one authentication method found for u; found [token basicAuth], only one is allowed",
    ],
    [
      "a certificate without key",
      `{ server: "https://s" }`,
      `{ client-certificate-data: ${b64("C")} }`,
      "client-key-data or client-key must be specified for u to use the clientCert authentication method.",
    ],
    [
      "a certificate file that is not there",
      `{ server: "https://s" }`,
      `{ client-certificate: nope.pem, client-key-data: ${b64("K")} }`,
      `unable to read client-cert ${join(root, "nope.pem")} for u due to open ${join(root, "nope.pem")}: no such file or directory`,
    ],
    [
      "CA data and file",
      `{ server: "https://s", certificate-authority: x, certificate-authority-data: ${b64("C")} }`,
      `{}`,
      "certificate-authority-data and certificate-authority are both specified for k. certificate-authority-data will override.",
    ],
    ["no server", `{ tls-server-name: x }`, `{}`, `no server found for cluster "k"`],
    [
      "a proxy of another scheme",
      `{ server: "https://s", proxy-url: "ftp://user:secret-p@p" }`,
      `{}`,
      `invalid 'proxy-url' "ftp://p/ (credentials hidden)" for cluster "k": unsupported scheme "ftp", must be http, https, or socks5`,
    ],
    [
      "groups without a user",
      `{ server: "https://s" }`,
      `{ token: t, as-groups: [g] }`,
      "requesting uid, groups or user-extra for u without impersonating a user",
    ],
    [
      "exec with an auth-provider",
      `{ server: "https://s" }`,
      `{ exec: { command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never }, auth-provider: { name: oidc } }`,
      "authProvider cannot be provided in combination with an exec plugin for u",
    ],
    [
      "an exec plugin of an unknown version",
      `{ server: "https://s" }`,
      `{ exec: { command: x, apiVersion: client.authentication.k8s.io/v1alpha1, interactiveMode: Never } }`,
      `exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"`,
    ],
    [
      "an unknown interactiveMode",
      `{ server: "https://s" }`,
      `{ exec: { command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Sometimes } }`,
      `invalid interactiveMode for u: "Sometimes"`,
    ],
    [
      "an env entry without name",
      `{ server: "https://s" }`,
      `{ exec: { command: x, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, env: [{ value: v }] } }`,
      "env variable name must be specified for u to use exec authentication plugin",
    ],
    [
      "a tokenFile that is not there",
      `{ server: "https://s" }`,
      `{ tokenFile: missing-token }`,
      `open ${join(root, "missing-token")}: no such file or directory`,
    ],
  ];
  it.each(invalid)("refuses %s with client-go's message and no secret", (_what, cluster, user, message) => {
    const p = single(cluster, user);
    expect(() => loadKubeconfig(p)).toThrow(`kubeconfig ${p}: invalid configuration: ${message}`);
    expect(() => loadKubeconfig(p)).not.toThrow(/secret-/);
  });

  it("refuses a CA with insecure-skip-tls-verify, as client-go's transport does", () => {
    expect(() => loadKubeconfig(single(`{ server: "https://s", insecure-skip-tls-verify: true, certificate-authority-data: ${b64("C")} }`, `{}`))).toThrow(
      /specifying a root certificates file with the insecure flag is not allowed$/,
    );
  });
});

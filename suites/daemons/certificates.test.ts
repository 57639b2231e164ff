/**
 * doc3 "Authentication" by certificate, checked over HTTPS against running daemons: client
 * certificates (controller manager and node agent), identity headers from a front proxy
 * (controller manager), and which serving certificate a server name gets (--tls-sni-cert-key).
 *
 * What a daemon took a request for shows in its 403 answer, which names the user (see
 * lib/daemons/client-certs.ts); so the requests go to paths that need authorization
 * (/metrics on the controller manager, /pods on the node agent). The certificates come with
 * the run (`--daemon-client-cert`, `--daemon-proxy-cert`, `--daemon-unlisted-proxy-cert`, each
 * with its key; an embedded run passes the test PKI of fixtures/daemons/pki/). One is always
 * at hand: fixtures/daemons/pki/stranger.pem, from a CA no daemon trusts. The --tls-sni-cert-key
 * check reads the certificate files the command line names, so it applies where those paths
 * can be read. Each test declares the daemon, certificates and options it needs
 * (lib/runner/daemon-capabilities.ts); the runner marks it not applicable otherwise.
 */
import { randomBytes, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, inject } from "vitest";
import { PKI, readPair } from "../../fixtures/daemons/pki.js";
import {
  certificateCommonName,
  describeAnswer,
  forbiddenUser,
  type Judgement,
  judgeHeadersIgnored,
  judgeRefused,
  judgeTakenFor,
} from "../../lib/daemons/client-certs.js";
import { daemonClient, servedCertificate } from "../../lib/daemons/daemon-client.js";
import type { OptionView } from "../../lib/daemons/options/view.js";
import type { HttpClient, ProbeResponse } from "../../lib/daemons/probes.js";
import { controllerManagerView, given, nodeAgentView, sniSetup } from "../../lib/runner/daemon-views.js";
import type { DaemonSettings, PemPair } from "../../lib/runner/settings.js";
import { check } from "../support/conformance.js";

/** Signed by a CA made for tollgate's tests and then thrown away: no daemon trusts it. */
const STRANGER = readPair(PKI.stranger);

const headerUser = (): string => `tollgate-header-user-${randomBytes(6).toString("hex")}`;

function expectOk(judgements: readonly [string, Judgement][]): void {
  const bad = judgements.filter(([, j]) => !j.ok).map(([what, j]) => `${what}: expected ${j.expected}, got ${j.actual}`);
  expect(judgements.length, "nothing was judged").toBeGreaterThan(0);
  expect(bad, bad.join("\n")).toEqual([]);
}

interface Daemon {
  d: DaemonSettings;
  view: OptionView;
  get(path: string, headers?: Record<string, string>, cert?: PemPair): Promise<ProbeResponse>;
  url: string;
}

function daemon(d: DaemonSettings, url: string, view: OptionView): Daemon {
  const client: HttpClient = daemonClient(d);
  return { d, view, url, get: (path, headers, cert) => client({ url: `${url}${path}`, headers, clientCert: cert }) };
}

const daemons = (): DaemonSettings => given(inject("tollgate").daemons, "the daemon settings");

// ── Controller manager ──────────────────────────────────────────────────────────────────

function controllerManager(): Daemon & { requestHeaderCaFile: boolean; usernameHeader: string | undefined } {
  const d = daemons();
  const cm = given(controllerManagerView(d), "the controller manager target");
  return { ...daemon(d, cm.url, cm.view), requestHeaderCaFile: cm.view.set("--requestheader-client-ca-file"), usernameHeader: cm.usernameHeader };
}

describe("controller manager", () => {
  check(
    {
      title: "a client certificate issued by --client-ca-file is taken for its common name",
      rules: ["doc3.auth.cm-client-cert-cn"],
      needs: ["controller-manager", "cm-client-ca", "daemon-client-cert"],
    },
    async () => {
      const cm = controllerManager();
      const cert = given(cm.d.clientCert, "the client certificate");
      const user = certificateCommonName(cert.cert);
      const anonymous = await cm.get("/metrics");
      expectOk([
        [`/metrics with the client certificate of "${user}"`, judgeTakenFor("controller-manager", await cm.get("/metrics", undefined, cert), anonymous, user)],
      ]);
    },
  );

  check(
    {
      title: "a client certificate from an authority it does not trust is refused with 401, also on the always-allow paths",
      rules: ["doc3.auth.cm-client-cert-cn"],
      needs: ["controller-manager", "cm-client-certificates"],
    },
    async () => {
      const cm = controllerManager();
      const paths = ["/metrics", ...(cm.view.list("--authorization-always-allow-paths") ?? []).filter((p) => !p.includes("*")).slice(0, 1)];
      const judgements: [string, Judgement][] = [];
      for (const path of paths) judgements.push([`${path} with a certificate from an unknown CA`, judgeRefused(await cm.get(path, undefined, STRANGER))]);
      expectOk(judgements);
    },
  );

  check(
    {
      title: "identity headers from a front-proxy certificate with an allowed name are trusted",
      rules: ["doc3.auth.cm-request-header-trust"],
      needs: ["controller-manager", "cm-request-header-ca", "daemon-proxy-cert", "cm-username-headers"],
    },
    async () => {
      const cm = controllerManager();
      const proxyCert = given(cm.d.proxyCert, "the front-proxy certificate");
      const userHeader = given(cm.usernameHeader, "--requestheader-username-headers");
      const user = headerUser();
      const r = await cm.get("/metrics", { [userHeader]: user }, proxyCert);
      // A made-up user is allowed nothing, so the answer is a 403 that names it.
      expect(forbiddenUser("controller-manager", r), `/metrics with the front-proxy certificate and ${userHeader}: ${user}: ${describeAnswer(r)}`).toBe(user);
    },
  );

  check(
    {
      title: "identity headers from anyone else change nothing: no certificate, an untrusted one, a client certificate, a front-proxy name not allowed",
      rules: ["doc3.auth.cm-request-header-trust"],
      needs: ["controller-manager", "cm-request-header-ca"],
    },
    async () => {
      const cm = controllerManager();
      const userHeader = cm.view.list("--requestheader-username-headers")?.[0] ?? "x-remote-user";
      const groupHeader = cm.view.list("--requestheader-group-headers")?.[0] ?? "x-remote-group";
      const user = headerUser();
      const headers = { [userHeader]: user, [groupHeader]: "system:masters" };
      const judgements: [string, Judgement][] = [];
      const compare = async (who: string, cert: PemPair | undefined): Promise<void> => {
        const [withHeaders, without] = [await cm.get("/metrics", headers, cert), await cm.get("/metrics", undefined, cert)];
        judgements.push([`/metrics ${who} with ${userHeader}: ${user}`, judgeHeadersIgnored("controller-manager", withHeaders, without, user)]);
      };
      await compare("without a certificate", undefined);
      judgements.push([`/metrics with a certificate from an unknown CA and ${userHeader}: ${user}`, judgeRefused(await cm.get("/metrics", headers, STRANGER))]);
      if (cm.d.clientCert) await compare("with the client certificate", cm.d.clientCert);
      const allowed = cm.view.list("--requestheader-allowed-names") ?? [];
      if (cm.d.unlistedProxyCert && allowed.some((n) => n !== "") && cm.requestHeaderCaFile) {
        await compare(
          `with the front-proxy certificate "${certificateCommonName(cm.d.unlistedProxyCert.cert)}" not in --requestheader-allowed-names`,
          cm.d.unlistedProxyCert,
        );
      }
      expectOk(judgements);
    },
  );

  check(
    {
      title: "--tls-sni-cert-key: a server name gets its certificate; non-wildcard matches beat wildcard ones, explicit patterns beat names from certificates",
      rules: ["doc3.cm-general.sni-match-precedence"],
      needs: ["controller-manager", "cm-sni-cert-key", "cm-sni-files", "cm-sni-overlap"],
    },
    async () => {
      const cm = controllerManager();
      const sni = sniSetup(cm.view, (path) => readFileSync(path, "utf8"));
      // Detection read these files before the tests (cm-sni-files).
      if (sni.kind !== "entries") throw new Error(`the --tls-sni-cert-key entries cannot be read now: ${JSON.stringify(sni)}`);
      const { values, entries, expectations } = sni;
      expect(
        expectations.some((e) => e.shows.length > 0),
        "no server name is matched by two entries",
      ).toBe(true);
      const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
      const defaultCert = (await servedCertificate(cm.url, undefined)).fingerprint256;
      const bad: string[] = [];
      for (const e of expectations) {
        const served = await servedCertificate(cm.url, e.serverName);
        const entry = e.entry === undefined ? undefined : given(entries[e.entry], `entry ${e.entry}`);
        const want = entry === undefined ? defaultCert : fingerprint(entry.certPem);
        if (served.fingerprint256 !== want) {
          const which = e.entry === undefined ? "the default certificate" : `the certificate of --tls-sni-cert-key=${values[e.entry]}`;
          bad.push(`${e.serverName}${e.shows.length ? ` (${e.shows.join(", ")})` : ""}: expected ${which}, got subject ${JSON.stringify(served.subject)}`);
        }
      }
      expect(bad, bad.join("\n")).toEqual([]);
    },
  );
});

// ── Node agent ──────────────────────────────────────────────────────────────────────────

function nodeAgent(): Daemon {
  const d = daemons();
  const agent = given(nodeAgentView(d), "the node agent target");
  return daemon(d, given(d.nodeAgent, "the node agent main server"), agent.view);
}

describe("node agent", () => {
  check(
    {
      title: "a client certificate issued by its client CA is taken for its common name",
      rules: ["doc3.auth.agent-client-cert-cn"],
      // Where anonymous requests are served, a 2xx would not show whom the certificate was taken for.
      needs: ["agent-main-server", "agent-client-ca", "daemon-client-cert", "!agent-anonymous-pods"],
    },
    async () => {
      const agent = nodeAgent();
      const cert = given(agent.d.clientCert, "the client certificate");
      const user = certificateCommonName(cert.cert);
      const anonymous = await agent.get("/pods");
      const r = await agent.get("/pods", undefined, cert);
      expectOk([[`/pods with the client certificate of "${user}"`, judgeTakenFor("node-agent", r, anonymous, user)]]);
    },
  );

  check(
    {
      title: "a client certificate from an authority it does not trust is refused with 401, even with anonymous requests on",
      rules: ["doc3.auth.agent-client-cert-cn"],
      needs: ["agent-main-server", "agent-client-ca"],
    },
    async () => {
      const agent = nodeAgent();
      expectOk([["/pods with a certificate from an unknown CA", judgeRefused(await agent.get("/pods", undefined, STRANGER))]]);
    },
  );
});

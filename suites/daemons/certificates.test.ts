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
 * check reads the certificate files the command line names, so it runs where those paths can
 * be read. A test whose daemon, certificate or option is missing skips with the reason.
 */
import { randomBytes, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, inject, it, type TestContext } from "vitest";
import { check } from "../support/conformance.js";
import { PKI, readPair } from "../../fixtures/daemons/pki.js";
import { analyze, type OptionView } from "../../lib/daemons/checker.js";
import { certificateCommonName, describeAnswer, forbiddenUser, judgeHeadersIgnored, judgeRefused, judgeTakenFor, type Judgement } from "../../lib/daemons/client-certs.js";
import type { HttpClient, ProbeResponse } from "../../lib/daemons/probes.js";
import { sniExpectations, type SniCertificateEntry } from "../../lib/daemons/sni.js";
import { parseSniCertKey } from "../../lib/daemons/values.js";
import type { DaemonSettings, PemPair } from "../../lib/runner/settings.js";
import { daemonClient, servedCertificate } from "../support/daemon-client.js";

/** Signed by a CA made for tollgate's tests and then thrown away: no daemon trusts it. */
const STRANGER = readPair(PKI.stranger);

const headerUser = (): string => `tollgate-header-user-${randomBytes(6).toString("hex")}`;

function expectOk(judgements: readonly [string, Judgement][]): void {
  const bad = judgements.filter(([, j]) => !j.ok).map(([what, j]) => `${what}: expected ${j.expected}, got ${j.actual}`);
  expect(bad, bad.join("\n")).toEqual([]);
}

interface Daemon {
  d: DaemonSettings;
  view: OptionView;
  get(path: string, headers?: Record<string, string>, cert?: PemPair): Promise<ProbeResponse>;
  url: string;
}

function daemonOrSkip(ctx: TestContext, which: "controller-manager" | "node-agent"): Daemon {
  const d = inject("tollgate").daemons;
  if (!d) ctx.skip("no daemon target given (tollgate run --controller-manager URL / --node-agent URL ...; an embedded run emulates both)");
  const url = which === "controller-manager" ? d.controllerManager : d.nodeAgent;
  if (!url) ctx.skip(`no ${which === "controller-manager" ? "controller manager target given (--controller-manager URL)" : "node agent main server given (--node-agent URL)"}`);
  const { view } = analyze(which, which === "controller-manager" ? d.controllerManagerArgs : d.nodeAgentArgs);
  const client: HttpClient = daemonClient(d);
  return { d, view, url, get: (path, headers, cert) => client({ url: `${url}${path}`, headers, clientCert: cert }) };
}

// ── Controller manager ──────────────────────────────────────────────────────────────────

/**
 * Whether the controller manager reads client certificates: --client-ca-file, or, with an
 * authentication connection file and lookups on, the CA it reads from the cluster.
 */
const cmLooksUp = (view: OptionView): boolean => view.set("--authentication-kubeconfig") && view.bool("--authentication-skip-lookup") !== true;
const cmClientCa = (view: OptionView): boolean => view.set("--client-ca-file") || cmLooksUp(view);
const cmRequestHeaderCa = (view: OptionView): boolean => view.set("--requestheader-client-ca-file") || cmLooksUp(view);

describe("controller manager", () => {
  check({ title: "a client certificate issued by --client-ca-file is taken for its common name", rules: ["doc3.auth.cm-client-cert-cn"] }, async (ctx: TestContext) => {
    const cm = daemonOrSkip(ctx, "controller-manager");
    if (!cmClientCa(cm.view)) ctx.skip("the controller manager's command line given has no --client-ca-file (and no lookup of the cluster's): it reads no client certificate");
    if (!cm.d.clientCert) ctx.skip("no client certificate given (--daemon-client-cert FILE --daemon-client-key FILE)");
    const user = certificateCommonName(cm.d.clientCert.cert);
    const anonymous = await cm.get("/metrics");
    expectOk([[`/metrics with the client certificate of "${user}"`, judgeTakenFor("controller-manager", await cm.get("/metrics", undefined, cm.d.clientCert), anonymous, user)]]);
  });

  check({ title: "a client certificate from an authority it does not trust is refused with 401, also on the always-allow paths", rules: ["doc3.auth.cm-client-cert-cn"] }, async (ctx: TestContext) => {
    const cm = daemonOrSkip(ctx, "controller-manager");
    if (!cmClientCa(cm.view) && !cmRequestHeaderCa(cm.view)) ctx.skip("the controller manager's command line given has no --client-ca-file or --requestheader-client-ca-file: it asks for no client certificate");
    const paths = ["/metrics", ...(cm.view.list("--authorization-always-allow-paths") ?? []).filter((p) => !p.includes("*")).slice(0, 1)];
    const judgements: [string, Judgement][] = [];
    for (const path of paths) judgements.push([`${path} with a certificate from an unknown CA`, judgeRefused(await cm.get(path, undefined, STRANGER))]);
    expectOk(judgements);
  });

  check({ title: "identity headers from a front-proxy certificate with an allowed name are trusted", rules: ["doc3.auth.cm-request-header-trust"] }, async (ctx: TestContext) => {
    const cm = daemonOrSkip(ctx, "controller-manager");
    if (!cmRequestHeaderCa(cm.view)) ctx.skip("the controller manager's command line given has no --requestheader-client-ca-file (and no lookup of the cluster's): it trusts no identity header");
    if (!cm.d.proxyCert) ctx.skip("no front-proxy certificate given (--daemon-proxy-cert FILE --daemon-proxy-key FILE)");
    const userHeader = cm.view.list("--requestheader-username-headers")?.[0];
    if (!userHeader) ctx.skip("the controller manager's command line given sets no --requestheader-username-headers");
    const user = headerUser();
    const r = await cm.get("/metrics", { [userHeader]: user }, cm.d.proxyCert);
    // A made-up user is allowed nothing, so the answer is a 403 that names it.
    expect(forbiddenUser("controller-manager", r), `/metrics with the front-proxy certificate and ${userHeader}: ${user}: ${describeAnswer(r)}`).toBe(user);
  });

  check({ title: "identity headers from anyone else change nothing: no certificate, an untrusted one, a client certificate, a front-proxy name not allowed", rules: ["doc3.auth.cm-request-header-trust"] }, async (ctx: TestContext) => {
    const cm = daemonOrSkip(ctx, "controller-manager");
    if (!cmRequestHeaderCa(cm.view)) ctx.skip("the controller manager's command line given has no --requestheader-client-ca-file (and no lookup of the cluster's): it trusts no identity header");
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
    if (cm.d.unlistedProxyCert && allowed.some((n) => n !== "") && cm.view.set("--requestheader-client-ca-file")) {
      await compare(`with the front-proxy certificate "${certificateCommonName(cm.d.unlistedProxyCert.cert)}" not in --requestheader-allowed-names`, cm.d.unlistedProxyCert);
    }
    expectOk(judgements);
  });

  check({ title: "--tls-sni-cert-key: a server name gets its certificate; non-wildcard matches beat wildcard ones, explicit patterns beat names from certificates", rules: ["doc3.cm-general.sni-match-precedence"] }, async (ctx: TestContext) => {
    const cm = daemonOrSkip(ctx, "controller-manager");
    const values = cm.view.occurrences("--tls-sni-cert-key").map((o) => o.value);
    if (values.length === 0) ctx.skip("the controller manager's command line given has no --tls-sni-cert-key");
    const entries: SniCertificateEntry[] = [];
    for (const v of values) {
      const p = parseSniCertKey(v);
      if (!p.ok) ctx.skip(`--tls-sni-cert-key ${p.error}`);
      let certPem: string;
      try {
        certPem = readFileSync(p.value.cert, "utf8");
      } catch (e) {
        ctx.skip(`cannot read ${p.value.cert} here (${(e as Error).message}): the check compares the served certificates with the files, so run it where the command line's paths can be read`);
      }
      entries.push({ certPem, patterns: p.value.domains });
    }
    const expectations = sniExpectations(entries);
    if (!expectations.some((e) => e.shows.length > 0)) ctx.skip("no server name is matched by two of the command line's --tls-sni-cert-key entries: nothing shows which one wins");
    const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
    const defaultCert = (await servedCertificate(cm.url, undefined)).fingerprint256;
    const bad: string[] = [];
    for (const e of expectations) {
      const served = await servedCertificate(cm.url, e.serverName);
      const want = e.entry === undefined ? defaultCert : fingerprint((entries[e.entry] as SniCertificateEntry).certPem);
      if (served.fingerprint256 !== want) {
        const which = e.entry === undefined ? "the default certificate" : `the certificate of --tls-sni-cert-key=${values[e.entry]}`;
        bad.push(`${e.serverName}${e.shows.length ? ` (${e.shows.join(", ")})` : ""}: expected ${which}, got subject ${JSON.stringify(served.subject)}`);
      }
    }
    expect(bad, bad.join("\n")).toEqual([]);
  });
});

// ── Node agent ──────────────────────────────────────────────────────────────────────────

function agentClientCaOrSkip(ctx: TestContext, agent: Daemon): void {
  const file = agent.view.raw("--client-ca-file");
  if (file === undefined) ctx.skip("the node agent's command line given leaves --client-ca-file to its --config file: give the file's authentication.x509.clientCAFile as --client-ca-file in --node-agent-args");
  if (file === "") ctx.skip("the node agent's command line given has no --client-ca-file: it reads no client certificate");
}

describe("node agent", () => {
  check({ title: "a client certificate issued by its client CA is taken for its common name", rules: ["doc3.auth.agent-client-cert-cn"] }, async (ctx: TestContext) => {
    const agent = daemonOrSkip(ctx, "node-agent");
    agentClientCaOrSkip(ctx, agent);
    if (!agent.d.clientCert) ctx.skip("no client certificate given (--daemon-client-cert FILE --daemon-client-key FILE)");
    const user = certificateCommonName(agent.d.clientCert.cert);
    const anonymous = await agent.get("/pods");
    const r = await agent.get("/pods", undefined, agent.d.clientCert);
    if (anonymous.status >= 200 && anonymous.status < 300 && r.status >= 200 && r.status < 300) {
      ctx.skip("anonymous requests are served too (AlwaysAllow with anonymous requests on): a 2xx does not show whom the certificate was taken for");
    }
    expectOk([[`/pods with the client certificate of "${user}"`, judgeTakenFor("node-agent", r, anonymous, user)]]);
  });

  check({ title: "a client certificate from an authority it does not trust is refused with 401, even with anonymous requests on", rules: ["doc3.auth.agent-client-cert-cn"] }, async (ctx: TestContext) => {
    const agent = daemonOrSkip(ctx, "node-agent");
    agentClientCaOrSkip(ctx, agent);
    expectOk([["/pods with a certificate from an unknown CA", judgeRefused(await agent.get("/pods", undefined, STRANGER))]]);
  });
});

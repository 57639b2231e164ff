/**
 * What the run's daemon settings say of each daemon, read one way for the capability
 * detection (daemon-capabilities.ts) and for the daemon suites, so that a test's needs and
 * what its body does agree: where each server is (the URLs given) and how it behaves (its
 * command line, read through the option model; options a node agent leaves to its --config
 * file count at doc3's defaults).
 */
import { X509Certificate } from "node:crypto";
import { type OptionView, readOptionView } from "../daemons/options/view.js";
import { type ControllerManagerTarget, controllerManagerTarget, type NodeAgentTargets, nodeAgentTargets } from "../daemons/probes.js";
import { type SniCertificateEntry, type SniExpectation, sniExpectations } from "../daemons/sni.js";
import { parseSniCertKey } from "../daemons/values/tls.js";
import type { DaemonSettings } from "./settings.js";

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Request headers that authenticate a client; undefined for a request without credentials. */
export type Credentials = Record<string, string> | undefined;

/** The host the command line readers put in their URLs; only the ports and settings are used, the URLs given replace them. */
const ANY_HOST = "127.0.0.1";

export interface ControllerManagerView {
  /** The secure port as given (`--controller-manager URL`). */
  readonly url: string;
  readonly view: OptionView;
  /** Its always-allow paths and profiling by the command line, at the URL given; undefined when it says --secure-port=0. */
  readonly target: ControllerManagerTarget | undefined;
  readonly authenticationFile: boolean;
  readonly authorizationFile: boolean;
  /** The always-allow paths that name one path to ask (a pattern with `*` names none). */
  readonly askableAlwaysAllowPaths: readonly string[];
  /** How /healthz?verbose is read: without credentials when /healthz is always allowed, else as the allowed user when a token can be authorized. */
  readonly healthzReader: { readonly credentials: Credentials; readonly who: string } | undefined;
  /** It reads client certificates: --client-ca-file, or the cluster's CA looked up through its authentication connection file. */
  readonly clientCa: boolean;
  /** It trusts identity headers from a front proxy: --requestheader-client-ca-file, or the cluster's looked up. */
  readonly requestHeaderCa: boolean;
  /** The first --requestheader-username-headers entry, when it names one. */
  readonly usernameHeader: string | undefined;
}

export function controllerManagerView(d: DaemonSettings): ControllerManagerView | undefined {
  if (!d.controllerManager) return undefined;
  const url = d.controllerManager;
  const view = readOptionView("controller-manager", d.controllerManagerArgs);
  const fromArgs = controllerManagerTarget(ANY_HOST, d.controllerManagerArgs);
  const target = fromArgs && { ...fromArgs, baseUrl: url };
  const authenticationFile = view.set("--authentication-kubeconfig");
  const authorizationFile = view.set("--authorization-kubeconfig");
  const paths = target?.alwaysAllowPaths ?? [];
  const healthzOpen = paths.some((p) => (p.endsWith("*") ? "/healthz".startsWith(p.slice(0, -1)) : p === "/healthz"));
  const canAuthorize = authenticationFile && authorizationFile && d.token !== undefined;
  // With an authentication connection file and lookups on, it reads both CAs from the cluster.
  const looksUp = authenticationFile && view.bool("--authentication-skip-lookup") !== true;
  return {
    url,
    view,
    target,
    authenticationFile,
    authorizationFile,
    askableAlwaysAllowPaths: paths.filter((p) => !p.includes("*")),
    healthzReader: healthzOpen
      ? { credentials: undefined, who: "without credentials" }
      : canAuthorize && d.token
        ? { credentials: bearer(d.token), who: "as the allowed user (--daemon-token)" }
        : undefined,
    clientCa: view.set("--client-ca-file") || looksUp,
    requestHeaderCa: view.set("--requestheader-client-ca-file") || looksUp,
    usernameHeader: view.list("--requestheader-username-headers")?.[0] || undefined,
  };
}

export interface NodeAgentView {
  readonly view: OptionView;
  /** The servers as given (--node-agent URL ...), with the command line's authentication and authorization. */
  readonly targets: NodeAgentTargets;
  readonly tokenWebhook: boolean;
  readonly debuggingHandlers: boolean;
  /** The run's daemon tokens, when the main server reviews tokens (--authentication-token-webhook); none otherwise. */
  readonly reviewedTokens: { readonly allowed?: string; readonly denied?: string };
  /** Whom the main server can be asked as: anonymous (when on), the not-allowed and the allowed user (their tokens reviewed). */
  readonly askers: readonly (readonly [who: string, credentials: Credentials])[];
  /** A client the main server serves everything to: the allowed user's reviewed token, or no credentials under anonymous AlwaysAllow. */
  readonly authorized: { readonly credentials: Credentials; readonly who: string } | undefined;
  /** --client-ca-file's path; undefined when the command line gives none (its --config file may, which `view.fromConfigFile` tells). */
  readonly clientCaFile: string | undefined;
}

export function nodeAgentView(d: DaemonSettings): NodeAgentView | undefined {
  if (!d.nodeAgent && !d.nodeAgentHealthz && !d.nodeAgentReadOnly) return undefined;
  const view = readOptionView("node-agent", d.nodeAgentArgs);
  // Where the servers are is what the run was told; how they behave is what the command line says.
  const targets = { ...nodeAgentTargets(ANY_HOST, d.nodeAgentArgs), mainUrl: d.nodeAgent, readOnlyUrl: d.nodeAgentReadOnly, healthzUrl: d.nodeAgentHealthz };
  const tokenWebhook = view.bool("--authentication-token-webhook") ?? false;
  const reviewedTokens = tokenWebhook ? { allowed: d.token, denied: d.deniedToken } : {};
  const askers: [string, Credentials][] = [];
  if (targets.anonymousAuth) askers.push(["without credentials", undefined]);
  if (reviewedTokens.denied) askers.push(["with the not-allowed user's token", bearer(reviewedTokens.denied)]);
  if (reviewedTokens.allowed) askers.push(["with the allowed user's token", bearer(reviewedTokens.allowed)]);
  return {
    view,
    targets,
    tokenWebhook,
    debuggingHandlers: view.bool("--enable-debugging-handlers") ?? true,
    reviewedTokens,
    askers,
    authorized: reviewedTokens.allowed
      ? { credentials: bearer(reviewedTokens.allowed), who: "as the allowed user (--daemon-token)" }
      : targets.anonymousAuth && targets.authorizationMode === "AlwaysAllow"
        ? { credentials: undefined, who: "without credentials (anonymous, AlwaysAllow)" }
        : undefined,
    clientCaFile: view.raw("--client-ca-file") || undefined,
  };
}

/** The controller manager's --tls-sni-cert-key entries with their certificates read, or why they cannot be. */
export type SniSetup =
  | { readonly kind: "none" }
  | { readonly kind: "malformed"; readonly error: string }
  | { readonly kind: "unreadable"; readonly file: string; readonly error: string }
  | {
      readonly kind: "entries";
      readonly values: readonly string[];
      readonly entries: readonly SniCertificateEntry[];
      readonly expectations: readonly SniExpectation[];
    };

/** Reads the entries' certificate files with `readFile`: the check compares what is served with them, so it runs where those paths can be read. */
export function sniSetup(view: OptionView, readFile: (path: string) => string): SniSetup {
  const values = view.occurrences("--tls-sni-cert-key").map((o) => o.value);
  if (values.length === 0) return { kind: "none" };
  const entries: SniCertificateEntry[] = [];
  for (const v of values) {
    const p = parseSniCertKey(v);
    if (!p.ok) return { kind: "malformed", error: p.error };
    let certPem: string;
    try {
      certPem = readFile(p.value.cert);
      new X509Certificate(certPem);
    } catch (e) {
      return { kind: "unreadable", file: p.value.cert, error: (e as Error).message };
    }
    entries.push({ certPem, patterns: p.value.domains });
  }
  return { kind: "entries", values, entries, expectations: sniExpectations(entries) };
}

/** A value the test's declared needs guarantee: missing, the runner and the test disagree, which is a bug to report, not a reason to skip. */
export function given<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing although the test's needs say it is there`);
  return value;
}

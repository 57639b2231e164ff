/**
 * The names of the emulated daemons' test-only faults, apart from the daemons themselves: the
 * command line checks --fault against them without loading the daemons (which only a start
 * with a daemon needs).
 */
import type { AuthenticationFault } from "./authenticate.js";

/** Test-only misbehaviours, so that the probes can be shown to fail against a wrong daemon. */
export type ControllerManagerFault =
  /** /metrics, /configz and /debug/pprof/ are served to anyone, credentials or not. */
  | "metrics-open"
  /** The always-allow paths go through authorization like any other. */
  | "health-protected"
  /** /debug/pprof/ is not served although profiling is on. */
  | "pprof-missing"
  /** --tls-sni-cert-key: the first entry matching a name in any way serves it, without precedence. */
  | "sni-first-match"
  /** /healthz?verbose leaves out the checks of doc3's core loops (namespace, endpoints...), as if they did not run. */
  | "core-loops-unchecked"
  /** A request without credentials (system:anonymous) skips authorization and is served. */
  | "anonymous-authorized"
  /** Without --authentication-kubeconfig, bearer tokens are still reviewed: a token is its user, not anonymous. */
  | "tokens-without-authn-file"
  /** Without --authorization-kubeconfig, the allow list still decides: an allowed user is served instead of forbidden. */
  | "allow-list-without-authz-file"
  | AuthenticationFault;

export const CONTROLLER_MANAGER_FAULTS: readonly ControllerManagerFault[] = [
  "metrics-open",
  "health-protected",
  "pprof-missing",
  "sni-first-match",
  "core-loops-unchecked",
  "anonymous-authorized",
  "tokens-without-authn-file",
  "allow-list-without-authz-file",
  "any-client-cert",
  "headers-from-any-cert",
  "unknown-token-anonymous",
];

/** Test-only misbehaviours, so that the probes can be shown to fail against a wrong daemon. */
export type NodeAgentFault =
  /** The read-only server asks for credentials (401). */
  | "read-only-auth"
  /** The health server answers 500 instead of "ok". */
  | "healthz-not-ok"
  /** A client certificate is taken for its common name whoever issued it. */
  | "any-client-cert"
  /** A trusted client certificate is taken for its first organization, not its common name. */
  | "cert-user-not-cn"
  /** /runningpods/ also lists a container the cluster did not create. */
  | "foreign-container"
  /** /stats/summary names another node than the one the pods are bound to. */
  | "wrong-node-name"
  /** The first static pod's first container is not running, yet /pods reports it running and ready. */
  | "stopped-container"
  /** A bearer token the review does not know is let through as anonymous instead of 401. */
  | "unknown-token-anonymous"
  /** A request without credentials is 401 although --anonymous-auth is on. */
  | "anonymous-refused"
  /** --authorization-mode=Webhook: the review's denial is not acted on, everyone authenticated is served. */
  | "webhook-denial-ignored"
  /** /logs/ is not served (404) although the debugging handlers are on. */
  | "logs-missing"
  /** The main server's /pods answers the pods as a bare JSON array, not a PodList. */
  | "pods-bare-array"
  /** /pods leaves out each pod's kubernetes.io/config.source annotation. */
  | "pod-source-missing"
  /** --authorization-mode=AlwaysAllow: /configz is still forbidden (403), as if a path check stayed in front of it. */
  | "always-allow-refuses-configz";

export const NODE_AGENT_FAULTS: readonly NodeAgentFault[] = [
  "read-only-auth",
  "healthz-not-ok",
  "any-client-cert",
  "cert-user-not-cn",
  "foreign-container",
  "wrong-node-name",
  "stopped-container",
  "unknown-token-anonymous",
  "anonymous-refused",
  "webhook-denial-ignored",
  "logs-missing",
  "pods-bare-array",
  "pod-source-missing",
  "always-allow-refuses-configz",
];

/**
 * Faults of the emulated doc3 daemons (lib/emulator/daemons/): misbehaviours of a controller
 * manager or node agent that the probe and certificate suites must catch.
 */
import { EMBEDDED_CONTROLLER_MANAGER_ARGS, EMBEDDED_NODE_AGENT_ARGS, withoutOptions } from "../../runner/embedded-daemons.js";
import type { DaemonFault } from "../types.js";

/*
 * Command-line variants: rules whose tests apply only under a setting the embedded daemons do
 * not have (no connection file, AlwaysAllow). Each keeps the embedded line but the options it
 * is about (certificates, static pods and the node name stay, for the other tests).
 */
const CM_WITHOUT_AUTHN_FILE = withoutOptions(EMBEDDED_CONTROLLER_MANAGER_ARGS, "--authentication-kubeconfig");
const CM_WITHOUT_AUTHZ_FILE = withoutOptions(EMBEDDED_CONTROLLER_MANAGER_ARGS, "--authorization-kubeconfig");
const AGENT_ALWAYS_ALLOW = withoutOptions(EMBEDDED_NODE_AGENT_ARGS, "--authorization-mode");

export const DAEMON_FAULTS: readonly DaemonFault[] = [
  {
    name: "cm-metrics-open",
    mode: "daemons",
    rules: ["doc3.auth.cm-sar-authorization"],
    models: "a controller manager that serves /metrics, /configz and /debug/pprof/ to anyone (delegated authorization not wired)",
    controllerManager: ["metrics-open"],
  },
  {
    name: "cm-health-protected",
    mode: "daemons",
    rules: ["doc3.endpoints.cm-health-paths-always-allowed"],
    models: "a controller manager whose /healthz, /readyz and /livez go through authorization (--authorization-always-allow-paths ignored)",
    controllerManager: ["health-protected"],
  },
  {
    name: "cm-pprof-missing",
    mode: "daemons",
    rules: ["doc3.endpoints.cm-pprof"],
    models: "a controller manager that does not serve /debug/pprof/ although --profiling is on",
    controllerManager: ["pprof-missing"],
  },
  {
    name: "cm-sni-first-match",
    mode: "daemons",
    rules: ["doc3.cm-general.sni-match-precedence"],
    models: "a controller manager that serves the first --tls-sni-cert-key entry matching a name, ignoring exact-over-wildcard and explicit-pattern precedence",
    controllerManager: ["sni-first-match"],
  },
  {
    name: "cm-core-loops-unchecked",
    mode: "daemons",
    rules: ["doc3.service.cm-control-loops"],
    models: "a controller manager whose /healthz?verbose lists no checks for the core control loops, as if they did not run",
    controllerManager: ["core-loops-unchecked"],
  },
  {
    name: "cm-any-client-cert",
    mode: "daemons",
    rules: ["doc3.auth.cm-client-cert-cn"],
    models: "a controller manager that takes a client certificate from any CA for its common name",
    controllerManager: ["any-client-cert"],
  },
  {
    name: "cm-headers-from-any-cert",
    mode: "daemons",
    rules: ["doc3.auth.cm-request-header-trust"],
    models: "a controller manager that takes X-Remote-User headers from any client certificate, not only the front proxy's",
    controllerManager: ["headers-from-any-cert"],
  },
  {
    name: "agent-read-only-auth",
    mode: "daemons",
    rules: ["doc3.auth.agent-read-only-no-auth", "doc3.endpoints.agent-read-only-server"],
    models: "a node agent whose read-only port asks for credentials",
    nodeAgent: ["read-only-auth"],
  },
  {
    name: "agent-healthz-not-ok",
    mode: "daemons",
    rules: ["doc3.endpoints.agent-healthz-server"],
    models: "a node agent whose health server answers 500",
    nodeAgent: ["healthz-not-ok"],
  },
  {
    name: "agent-any-client-cert",
    mode: "daemons",
    rules: ["doc3.auth.agent-client-cert-cn"],
    models: "a node agent that takes a client certificate from any CA for its common name",
    nodeAgent: ["any-client-cert"],
  },
  {
    name: "agent-cert-user-not-cn",
    mode: "daemons",
    rules: ["doc3.auth.agent-client-cert-cn"],
    models: "a node agent that takes a trusted client certificate for its first organization, not its common name",
    nodeAgent: ["cert-user-not-cn"],
  },
  {
    name: "agent-foreign-container",
    mode: "daemons",
    rules: ["doc3.service.agent-ignores-foreign-containers"],
    models: "a node agent that lists containers the cluster did not create in /runningpods/",
    nodeAgent: ["foreign-container"],
  },
  {
    name: "agent-wrong-node-name",
    mode: "daemons",
    rules: ["doc3.service.agent-registers-node"],
    models: "a node agent that reports another node name than the one it registered (--hostname-override not lowercased)",
    nodeAgent: ["wrong-node-name"],
  },
  {
    name: "cm-anonymous-authorized",
    mode: "daemons",
    rules: ["doc3.endpoints.cm-https-secure-port"],
    models: "a controller manager that serves /metrics and /configz to requests without credentials (system:anonymous let past authorization)",
    controllerManager: ["anonymous-authorized"],
  },
  {
    name: "cm-unknown-token-anonymous",
    mode: "daemons",
    rules: ["doc3.auth.cm-token-review-cached"],
    models: "a controller manager that takes a bearer token its token review rejects as an anonymous request (403) instead of answering 401",
    controllerManager: ["unknown-token-anonymous"],
  },
  {
    name: "agent-unknown-token-anonymous",
    mode: "daemons",
    rules: ["doc3.auth.agent-bearer-token-review"],
    models: "a node agent that takes a bearer token its token review rejects as an anonymous request instead of answering 401",
    nodeAgent: ["unknown-token-anonymous"],
  },
  {
    name: "agent-anonymous-refused",
    mode: "daemons",
    rules: ["doc3.auth.agent-anonymous-default"],
    models: "a node agent that answers 401 to requests without credentials although --anonymous-auth is on (its default)",
    nodeAgent: ["anonymous-refused"],
  },
  {
    name: "agent-webhook-denial-ignored",
    mode: "daemons",
    rules: ["doc3.auth.agent-webhook-sar"],
    models: "a node agent in Webhook authorization mode that serves a user the subject access review denies",
    nodeAgent: ["webhook-denial-ignored"],
  },
  {
    name: "agent-logs-missing",
    mode: "daemons",
    rules: ["doc3.endpoints.agent-debugging-handlers"],
    models: "a node agent that does not serve /logs/ (404) although --enable-debugging-handlers is on",
    nodeAgent: ["logs-missing"],
  },
  {
    name: "agent-pods-bare-array",
    mode: "daemons",
    rules: ["doc3.endpoints.agent-main-server"],
    models: "a node agent whose main server answers /pods with a bare JSON array of pods, not the PodList of the node agent's API",
    nodeAgent: ["pods-bare-array"],
  },
  {
    name: "agent-pod-source-missing",
    mode: "daemons",
    rules: ["doc3.service.agent-podspec-sources"],
    models: "a node agent whose pods do not say where their spec came from (no kubernetes.io/config.source annotation)",
    nodeAgent: ["pod-source-missing"],
  },
  {
    name: "agent-stopped-container",
    mode: "daemons",
    rules: ["doc3.service.agent-podspec-running"],
    models: "a node agent that reports a stopped container as running and ready",
    nodeAgent: ["stopped-container"],
  },
  {
    name: "cm-tokens-without-authn-file",
    mode: "daemons",
    rules: ["doc3.auth.cm-anonymous-without-authn-file"],
    models:
      "a controller manager started without --authentication-kubeconfig that still authenticates bearer tokens (a token authenticator wired regardless of the file), so a token's answer differs from an anonymous one",
    controllerManager: ["tokens-without-authn-file"],
    commandLines: { controllerManager: CM_WITHOUT_AUTHN_FILE },
  },
  {
    name: "cm-allow-list-without-authz-file",
    mode: "daemons",
    rules: ["doc3.auth.cm-forbidden-without-authz-file"],
    models:
      "a controller manager started without --authorization-kubeconfig that still authorizes by its allow list (the delegated authorizer kept), so /metrics is served to an allowed user instead of forbidden",
    controllerManager: ["allow-list-without-authz-file"],
    commandLines: { controllerManager: CM_WITHOUT_AUTHZ_FILE },
  },
  {
    name: "agent-always-allow-refuses-configz",
    mode: "daemons",
    rules: ["doc3.auth.agent-always-allow-default"],
    models: "a node agent in its default AlwaysAllow authorization mode that still refuses /configz (403), as if a path check stayed in front of it",
    nodeAgent: ["always-allow-refuses-configz"],
    commandLines: { nodeAgent: AGENT_ALWAYS_ALLOW },
  },
];

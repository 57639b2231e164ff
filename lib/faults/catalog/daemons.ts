/**
 * Faults of the emulated doc3 daemons (lib/emulator/daemons/): misbehaviours of a controller
 * manager or node agent that the probe and certificate suites must catch.
 */
import type { DaemonFault } from "../types.js";

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
    name: "agent-stopped-container",
    mode: "daemons",
    rules: ["doc3.service.agent-podspec-running"],
    models: "a node agent that reports a stopped container as running and ready",
    nodeAgent: ["stopped-container"],
  },
];

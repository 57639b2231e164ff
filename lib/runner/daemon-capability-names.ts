/**
 * The doc3 daemons' capabilities by name, with what each means (probed in daemon-capabilities.ts).
 * A leaf module: the closed capability set (capabilities.ts) is built from these names, and the
 * probes import that set's types.
 */

/** What the run was given: the servers and the credentials to ask them with. */
export const RUN_DAEMON_CAPABILITIES = {
  "controller-manager": "a controller manager secure port is given (--controller-manager URL, or the embedded run's emulated one)",
  "node-agent": "a node agent server is given (--node-agent URL ..., or the embedded run's emulated one)",
  "daemon-token": "a bearer token of a user the daemons authenticate and authorize is given (--daemon-token)",
  "daemon-any-token": "a bearer token of the allowed or of the not-allowed user is given (--daemon-token, --daemon-denied-token)",
  "daemon-client-cert": "a client certificate issued by the daemons' client CA is given (--daemon-client-cert, --daemon-client-key)",
  "daemon-proxy-cert": "a front-proxy certificate with a name the controller manager allows is given (--daemon-proxy-cert, --daemon-proxy-key)",
} as const;

export const CM_CAPABILITIES = {
  "cm-secure-port": "the controller manager's command line serves HTTPS (--secure-port is not 0)",
  "cm-always-allow-paths": "its --authorization-always-allow-paths name a path to ask (a pattern with * names none)",
  "cm-authentication-file": "it has --authentication-kubeconfig: bearer tokens are reviewed",
  "cm-authorization-file": "it has --authorization-kubeconfig: a subject access review decides",
  "cm-healthz-access": "/healthz?verbose can be read: /healthz is always allowed, or the daemon token can be authorized",
  "cm-core-loops": "its --controllers enables a core control loop or disables a controller by name (what /healthz?verbose shows)",
  "cm-controller-checks": "/healthz?verbose lists controller checks: it leads and runs its loops (asked before the tests)",
  "cm-client-ca": "it reads client certificates: --client-ca-file, or the cluster's CA looked up (--authentication-kubeconfig)",
  "cm-request-header-ca": "it trusts identity headers from a front proxy: --requestheader-client-ca-file, or the cluster's looked up",
  "cm-client-certificates": "it asks for client certificates (either CA above)",
  "cm-username-headers": "its --requestheader-username-headers names a header",
  "cm-sni-cert-key": "its command line has well-formed --tls-sni-cert-key entries",
  "cm-sni-files": "the certificate files of its --tls-sni-cert-key entries can be read here",
  "cm-sni-overlap": "a server name is matched by two of its --tls-sni-cert-key entries (what shows which one wins)",
} as const;

export const AGENT_CAPABILITIES = {
  "agent-main-server": "a node agent main server is given (--node-agent URL)",
  "agent-healthz-server": "a node agent health server is given (--node-agent-healthz URL)",
  "agent-read-only-server": "a node agent read-only server is given (--node-agent-read-only URL)",
  "agent-token-webhook": "the node agent's command line sets --authentication-token-webhook: bearer tokens are reviewed",
  "agent-authorization-webhook": "its command line says --authorization-mode=Webhook (else AlwaysAllow)",
  "agent-asker": "someone to ask its main server as: anonymous requests are on, or a daemon token it reviews",
  "agent-authorized-client": "a client its main server serves everything to: the allowed user's reviewed token, or anonymous requests under AlwaysAllow",
  "agent-debugging-handlers": "--enable-debugging-handlers is on (doc3's default): /logs/ and /runningpods/ are served",
  "agent-client-ca": "its command line names a --client-ca-file: it reads client certificates",
  "agent-pods": "/pods lists a pod (asked before the tests, as the authorized client)",
  "agent-running-containers": "/pods reports a running container in a Running pod",
  "agent-runtime-pods": "/runningpods/ lists a pod (asked as the authorized client)",
  "agent-anonymous-pods": "/pods is served (2xx) to a request without credentials",
} as const;

export const DAEMON_CAPABILITIES = { ...RUN_DAEMON_CAPABILITIES, ...CM_CAPABILITIES, ...AGENT_CAPABILITIES } as const;

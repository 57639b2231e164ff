/**
 * The command lines of the embedded run's emulated daemons (lib/runner/global-setup.ts), in a
 * module of their own so that the fault catalog can derive its command-line variants from them
 * (lib/faults/catalog/daemons.ts) without importing the global setup.
 */
import { PKI, PROXY_ALLOWED_NAME } from "../../fixtures/daemons/pki.js";
import { STATIC_POD_DIR } from "../../fixtures/daemons/static-pods.js";

/**
 * The embedded daemons' command lines: a controller manager with both connection files (so
 * that tokens are reviewed and access is decided by the allow list; these two paths are never
 * read) and a node agent that reviews tokens and authorizes with Webhook, the settings doc3's
 * "Authentication" section describes beyond the defaults. Both take client certificates from
 * the test PKI (fixtures/daemons/pki/); the controller manager also trusts identity headers
 * from its front-proxy certificate, and serves SNI certificates whose names compete: the
 * wildcard entry comes first and still loses to the exact name, and the explicit pattern of
 * the last entry wins over the same name taken from the second entry's certificate. The node
 * agent runs the static pods of fixtures/daemons/static-pods/ and registers an overridden name.
 */
export const EMBEDDED_CONTROLLER_MANAGER_ARGS: readonly string[] = [
  "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
  "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
  `--client-ca-file=${PKI.clientCa}`,
  `--requestheader-client-ca-file=${PKI.proxyCa}`,
  `--requestheader-allowed-names=${PROXY_ALLOWED_NAME}`,
  `--tls-sni-cert-key=${PKI.sniWildcard.cert},${PKI.sniWildcard.key}`,
  `--tls-sni-cert-key=${PKI.sniExact.cert},${PKI.sniExact.key}`,
  `--tls-sni-cert-key=${PKI.sniExplicit.cert},${PKI.sniExplicit.key}:extracted.sni.tollgate.test`,
];
/** The embedded node name, in mixed case: the node agent registers it lowercased. */
const EMBEDDED_NODE_NAME_OVERRIDE = "Tollgate-Node-1";
export const EMBEDDED_NODE_AGENT_ARGS: readonly string[] = [
  "--authentication-token-webhook=true",
  "--authorization-mode=Webhook",
  `--client-ca-file=${PKI.clientCa}`,
  `--pod-manifest-path=${STATIC_POD_DIR}`,
  `--hostname-override=${EMBEDDED_NODE_NAME_OVERRIDE}`,
];

/** `args` without the options named (`--name` and `--name=value` alike): a variant of an embedded line. */
export function withoutOptions(args: readonly string[], ...names: readonly string[]): string[] {
  return args.filter((a) => !names.some((n) => a === n || a.startsWith(`${n}=`)));
}

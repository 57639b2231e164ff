/**
 * The reference emulator of the resource API: an in-process HTTP server with namespaces,
 * configmaps, events served as events.k8s.io/v1 and as core v1 (one stored set, two views), and
 * admission webhook configurations whose webhooks are called on writes, with PATCH and server-side apply, an event time-to-live on the emulator clock and, on request,
 * the test-only admin endpoint. The public entry point of lib/emulator (see README.md for the
 * modules; the emulated cluster daemons are in daemons/).
 */

import { createEmulatorServer } from "./endpoints/server.js";
import { resolveSettings } from "./options.js";
import { LEADER_ELECTION_DEFAULTS, type LeaderElectionConfig } from "./registry/coordination/leader-elector.js";
import { generateServingTls, type ServingTls, servingHosts } from "./tls.js";

export type { ServingTls } from "./tls.js";

export interface EmulatorOptions {
  host?: string;
  /** 0 = a free port. */
  port?: number;
  /** Interval between BOOKMARK events on watches with allowWatchBookmarks (default 60000). */
  bookmarkIntervalMs?: number;
  /** Watch history window; older resourceVersions get 410 (default 300000, 5 minutes). */
  retentionMs?: number;
  /**
   * Delay before the namespace controller empties a terminating namespace, which stays
   * observable as Terminating meanwhile (default 1000; 0 still empties it after the DELETE's answer).
   */
  namespaceCleanupDelayMs?: number;
  /**
   * Runs the controllers that put the `default` ServiceAccount (where serviceaccounts are
   * served: with auth) and the `kube-root-ca.crt` ConfigMap in every namespace, and put them
   * back when deleted (default true, as on a real cluster).
   */
  namespaceContent?: boolean;
  /** Delay before those controllers act on a new namespace or a deletion (default 20). */
  namespaceContentDelayMs?: number;
  /** Request body limit (default 3 MiB). */
  maxRequestBodyBytes?: number;
  /**
   * etcd's --max-request-bytes (default 1.5 MiB): a write whose key and JSON value are larger
   * is retried without managedFields, then answered 500 `etcdserver: request is too large`.
   */
  maxStorageRequestBytes?: number;
  /**
   * etcd's --quota-backend-bytes (default 2 GiB): the bytes the store keeps (values and the
   * history watches replay) stay under it; a write past it is answered 500
   * `etcdserver: mvcc: database space exceeded`.
   */
  storageQuotaBytes?: number;
  /** Age after which a continue token answers 410 Expired (default 300000, 5 minutes; emulator clock). */
  continueTokenLifetimeMs?: number;
  /**
   * Time from an event's last write to its deletion, on the emulator clock, so the admin clock
   * advance can trigger it (default 3600000, the real --event-ttl of one hour; 0: never).
   */
  eventTtlMs?: number;
  /**
   * Requests served at once above which the extra ones are answered 429 `Too many requests,
   * please try again later.` (text/plain, Retry-After: 1), as API Priority and Fairness does
   * (kube-apiserver --max-requests-inflight); watches, health and admin paths are exempt
   * (default 0: unlimited).
   */
  maxRequestsInFlight?: number;
  /**
   * Bound of a watch stream's backlog in bytes: what its client has not taken yet, its initial
   * events still to send included. A stream over it that the client does not read for 200 ms
   * (or 4 times over it) is ended, as a real server ends a watcher that falls behind; the
   * client watches again (default 8 MiB).
   */
  watchBacklogBytes?: number;
  /**
   * Serves the test-only /tollgate/admin endpoint: compact the history, advance the clock
   * (default false: the path is a plain 404, as on a real server).
   */
  admin?: boolean;
  /**
   * Feature gates by name, over the 1.35 defaults: `CBORServingAndStorage` (default false)
   * serves application/cbor and application/cbor-seq; `APIResponseCompression` (default true)
   * gzips large get/list responses. An unknown name makes startEmulator reject.
   */
  featureGates?: Record<string, boolean>;
  /**
   * Authentication and RBAC (default false: every caller is served as an administrator). With
   * it on, a request without a token is system:anonymous (allowed only the health paths and
   * /version), an unknown token is 401, and `adminToken` (random when not given, see
   * RunningEmulator.adminToken) is a user in system:masters and RBAC is enforced. ServiceAccounts,
   * their token subresource, RBAC and the review types are served either way.
   */
  auth?: boolean;
  adminToken?: string;
  /**
   * The Services' cluster IP range, an IPv4 CIDR from /12 to /30 (kube-apiserver
   * --service-cluster-ip-range; default kubeadm's 10.96.0.0/12): its first address is the
   * `kubernetes` Service's. Another value makes startEmulator reject.
   */
  serviceClusterIpRange?: string;
  /** Failpoints to switch on (failpoints.ts), for tollgate's self-test; an unknown name throws. */
  failpoints?: readonly string[];
  /**
   * Serve HTTPS (default: plain HTTP): "generate" makes a CA and a certificate for localhost,
   * 127.0.0.1, ::1 and `host` at start (RunningEmulator.ca is the CA to trust); or a given pair.
   */
  tls?: "generate" | ServingTls;
  /**
   * Store on etcd instead of in memory (kube-apiserver --etcd-servers): client URLs. Several
   * emulators on one etcd serve one cluster (storage/etcd/etcd-kv.ts).
   */
  etcdServers?: string[];
  /** --etcd-prefix: where the /registry/... keys live in etcd (default /registry). */
  etcdPrefix?: string;
  /** --etcd-compaction-interval in ms (default 5 minutes; 0: never). */
  etcdCompactionIntervalMs?: number;
  /** Bound of each etcd call (default 10 s): past it, or with etcd out of reach, a request is answered 504. */
  etcdRequestTimeoutMs?: number;
  /** --etcd-healthcheck-timeout: bound of the `etcd` health check (default 2 s). */
  etcdHealthcheckTimeoutMs?: number;
  /** --etcd-readycheck-timeout: bound of the `etcd-readiness` check on /readyz (default 2 s). */
  etcdReadycheckTimeoutMs?: number;
  /**
   * kube-controller-manager's --leader-elect: the emulated controllers (namespace cleanup, the
   * namespace content) run only on the replica holding a coordination.k8s.io/v1 Lease
   * (registry/coordination/leader-elector.ts). Default: on with etcdServers (several replicas
   * may share the cluster), off in memory, where the one emulator always runs them and writes
   * no Lease; true in memory writes and renews the Lease all the same.
   */
  leaderElect?: boolean;
  /** --leader-elect-lease-duration (default 15 s; the Lease holds it in whole seconds). */
  leaderElectLeaseDurationMs?: number;
  /** --leader-elect-renew-deadline (default 10 s): below the lease duration. */
  leaderElectRenewDeadlineMs?: number;
  /** --leader-elect-retry-period (default 2 s): 1.2 times it below the renew deadline. */
  leaderElectRetryPeriodMs?: number;
  /** --leader-elect-resource-name (default kube-controller-manager). */
  leaderElectResourceName?: string;
  /** --leader-elect-resource-namespace (default kube-system). */
  leaderElectResourceNamespace?: string;
}

export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:PORT, or https://127.0.0.1:PORT when serving TLS */
  url: string;
  /** PEM of the certificate authority a client should trust, when serving TLS. */
  ca?: string;
  /** The administrator's bearer token, when started with auth on. */
  adminToken?: string;
  /** With leader election: this replica's holderIdentity (`<hostname>_<uuid>`). */
  leaderIdentity?: string;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const settings = resolveSettings(opts);
  const host = opts.host ?? "127.0.0.1";
  const tls = opts.tls === "generate" ? await generateServingTls(servingHosts(host)) : opts.tls;
  const etcd = opts.etcdServers?.length
    ? {
        endpoints: opts.etcdServers,
        prefix: opts.etcdPrefix,
        compactionIntervalMs: opts.etcdCompactionIntervalMs,
        requestTimeoutMs: opts.etcdRequestTimeoutMs,
        healthcheckTimeoutMs: opts.etcdHealthcheckTimeoutMs,
        readycheckTimeoutMs: opts.etcdReadycheckTimeoutMs,
      }
    : undefined;
  const election = (opts.leaderElect ?? etcd !== undefined) ? leaderElection(opts) : undefined;
  const emulator = createEmulatorServer(settings, tls, etcd, election);
  const url = await emulator.listen(host, opts.port ?? 0);
  return {
    url,
    ...(tls ? { ca: tls.ca } : {}),
    ...(settings.auth ? { adminToken: settings.adminToken } : {}),
    ...(emulator.leaderIdentity ? { leaderIdentity: emulator.leaderIdentity } : {}),
    close: () => emulator.close(),
  };
}

/** The election's settings over the controller manager's defaults, checked as client-go's NewLeaderElector checks them. */
export function leaderElection(opts: EmulatorOptions): LeaderElectionConfig {
  const d = LEADER_ELECTION_DEFAULTS;
  const config: LeaderElectionConfig = {
    leaseDurationMs: opts.leaderElectLeaseDurationMs ?? d.leaseDurationMs,
    renewDeadlineMs: opts.leaderElectRenewDeadlineMs ?? d.renewDeadlineMs,
    retryPeriodMs: opts.leaderElectRetryPeriodMs ?? d.retryPeriodMs,
    resourceName: opts.leaderElectResourceName ?? d.resourceName,
    resourceNamespace: opts.leaderElectResourceNamespace ?? d.resourceNamespace,
  };
  if (!(config.leaseDurationMs > config.renewDeadlineMs)) throw new Error("leaseDuration must be greater than renewDeadline");
  if (!(config.renewDeadlineMs > 1.2 * config.retryPeriodMs)) throw new Error("renewDeadline must be greater than retryPeriod*JitterFactor");
  if (!(config.retryPeriodMs >= 1)) throw new Error("retryPeriod must be greater than zero");
  if (config.resourceName === "" || config.resourceNamespace === "") throw new Error("the leader-election resource name and namespace must not be empty");
  return config;
}

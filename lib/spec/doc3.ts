/**
 * Rule catalog for document 3 (controller manager and node agent options): the structure.
 * One rule per normative statement of the service, endpoint, authentication, limits and
 * versioning sections, one rule per option table, and one rule per explicit constraint in an
 * option's meaning, plus the checks of `tollgate flags check` that follow from the text (pairs
 * given together, legacy TLS versions, insecure suites, test-only options). Ids are stable and
 * never renamed.
 */
import type { FeatureGate, Rule } from "./types.js";

// Section headings, exactly as written in doc3-daemon-options.md.
const SVC = "What the service does";
const OPTS = "Resources and their fields";
const CM_GEN = "Controller manager options: serving, authentication, general";
const CM_CONC = "Controller manager options: concurrency (`--concurrent-<name>-syncs`, int32, number of objects or operations processed at once; larger means more responsive but more CPU and network load)";
const CM_BEH = "Controller manager options: controller behaviour";
const CM_SIGN = "Controller manager options: certificate signing";
const AGENT = "Node agent options";
const TLS = "TLS cipher suite values (both daemons; `--tls-cipher-suites`)";
const EP = "Endpoints";
const AUTH = "Authentication";
const LIMITS = "Limits";
const VERS = "Versioning";

// Gates named by option meanings and by documents 1 and 3 (defaults from doc3 Versioning).
const LOGGING_ALPHA: FeatureGate = { name: "LoggingAlphaOptions", default: false };
const REQUEST_HEADER_UID: FeatureGate = { name: "RemoteRequestHeaderUID", default: true };
const ROTATE_SERVER_CERT: FeatureGate = { name: "RotateAgentServerCertificate", default: true };
const QOS_RESERVED: FeatureGate = { name: "QOSReserved", default: false };
const ALL_ALPHA: FeatureGate = { name: "AllAlpha", default: false };
const ALL_BETA: FeatureGate = { name: "AllBeta", default: false };

export const doc3Rules = [
  // ── What the service does ───────────────────────────────────────────────────────────
  { id: "doc3.service.cm-control-loops", doc: "doc3", section: SVC, level: "required", title: "The controller manager embeds the core control loops", realServer: "A 1.35 controller manager adds a /healthz check named after each controller it starts (after leaderElection with --leader-elect; ping only when it has no check): /healthz?verbose lists `[+]namespace-controller ok`... then `healthz check passed`. Controllers disabled by --controllers, disabled by default, or not applying (cloud controllers, the token controller without a key file) have none; the order after the token controller is Go map order. /healthz/<check> is not served on its secure port (its mux registers /healthz alone), and a standby that does not lead lists leaderElection only" },
  { id: "doc3.service.cm-controller-reconciles", doc: "doc3", section: SVC, level: "required", title: "A controller watches shared state through the API and moves current state toward desired state",
    realServer: "Seen through the API, not the daemon's endpoints: the namespace controller (in the controller manager on a real cluster; the API emulator runs its own, see lib/emulator/registry/core/namespace/lifecycle.ts) moves a namespace marked for deletion to its desired state: contents deleted, then the namespace removed" },
  { id: "doc3.service.agent-registers-node", doc: "doc3", section: SVC, level: "required", title: "The node agent registers its node using the hostname, an override flag or cloud-provider logic",
    realServer: "Seen on the node agent's endpoints: /stats/summary (main and read-only server) names the node in node.nodeName: --hostname-override trimmed and lowercased, else the machine hostname lowercased (1.35 has no in-tree cloud provider; an external one does not rename the node); every pod of /pods carries it as spec.nodeName. A real one will not start with an empty name" },
  { id: "doc3.service.agent-podspec-running", doc: "doc3", section: SVC, level: "required", title: "The node agent keeps the containers of the PodSpecs it receives running and healthy",
    realServer: "Seen as a consistency check between two endpoints: every container /pods reports running or ready in a Running pod (status.containerStatuses[].state.running, ready) is listed for that pod (matched by UID) in /runningpods/, the pods the runtime runs (metadata name/namespace/uid, spec.containers name and image only; a debugging handler, so needs --enable-debugging-handlers). Restarts are not provoked; a pod changing between the two answers is read again once" },
  { id: "doc3.service.agent-podspec-sources", doc: "doc3", section: SVC, level: "required", title: "PodSpecs come mainly from the API server, also from a file path and an HTTP endpoint",
    realServer: "Seen on /pods: each pod carries the annotation kubernetes.io/config.source = api, file or http; file and http pods (static pods) also kubernetes.io/config.hash (their UID) and config.seen, are named <name>-<node name lowercased>, put in namespace default when they name none, and bound to the node; file pods tolerate every NoExecute taint. The file source reads --pod-manifest-path (staticPodPath) without recursing, skipping names that start with '.', each file one Pod in YAML or JSON whatever its extension, invalid ones logged and skipped; --manifest-url (staticPodURL) answers a Pod or a PodList" },
  { id: "doc3.service.agent-file-check-20s", doc: "doc3", section: SVC, level: "required", title: "The PodSpec file path is checked every 20 seconds by default" },
  { id: "doc3.service.agent-http-check-20s", doc: "doc3", section: SVC, level: "required", title: "The PodSpec HTTP endpoint is checked every 20 seconds by default" },
  { id: "doc3.service.agent-intervals-configurable", doc: "doc3", section: SVC, level: "required", title: "Both PodSpec source check intervals are configurable" },
  { id: "doc3.service.agent-ignores-foreign-containers", doc: "doc3", section: SVC, level: "required", title: "The node agent does not manage containers the cluster did not create",
    realServer: "Seen on /runningpods/: the runtime pods the node agent lists are those of the containers it created (labelled by it); each must be one of its pods in /pods (by UID), so a container started on the node outside the cluster is never listed. A pod being torn down between the two answers can show briefly; the pair is read again once" },
  { id: "doc3.service.agent-flags-deprecated", doc: "doc3", section: SVC, level: "required", title: "Node agent flags are deprecated in favour of the --config file, except those marked not deprecated" },
  { id: "doc3.service.agent-flags-override-config", doc: "doc3", section: SVC, level: "required", title: "Node agent command-line flags override the configuration file" },

  // ── Resources and their fields (conventions) ───────────────────────────────────────
  { id: "doc3.options.duration-format", doc: "doc3", section: OPTS, level: "required", title: "Duration options use Go duration forms such as 10s, 1m0s, 8760h0m0s" },
  { id: "doc3.options.empty-default-unset", doc: "doc3", section: OPTS, level: "required", title: "A default shown as (empty) means the option is unset" },
  { id: "doc3.options.known-options", doc: "doc3", section: OPTS, level: "required", title: "A daemon accepts only the options of its tables (Go flag syntax); an unknown option or a stray argument stops it at start" },
  { id: "doc3.options.nodeagent-names", doc: "doc3", section: OPTS, level: "required", title: "Option names written with nodeagent stand for the node agent's real product name (kubelet), which a real daemon requires" },

  // ── Controller manager options: serving, authentication, general ──────────────────
  { id: "doc3.cm-general.types-defaults", doc: "doc3", section: CM_GEN, level: "required", title: "Options of table 'Controller manager options: serving, authentication, general' have the listed types and defaults" },
  { id: "doc3.cm-general.secure-port-zero-disables", doc: "doc3", section: CM_GEN, level: "required", title: "--secure-port 0 disables HTTPS" },
  { id: "doc3.cm-general.cert-dir-ignored-with-files", doc: "doc3", section: CM_GEN, level: "required", title: "--cert-dir is ignored when --tls-cert-file and --tls-private-key-file are given" },
  { id: "doc3.cm-general.self-signed-without-cert", doc: "doc3", section: CM_GEN, level: "required", title: "Without cert and key files a self-signed pair is generated and saved in --cert-dir" },
  { id: "doc3.cm-general.sni-match-precedence", doc: "doc3", section: CM_GEN, level: "required", title: "--tls-sni-cert-key: non-wildcard matches beat wildcard ones, explicit patterns beat extracted names" },
  { id: "doc3.cm-general.sni-cert-key-format", doc: "doc3", section: CM_GEN, level: "required", title: "--tls-sni-cert-key is a cert,key path pair, optionally followed by : and domain patterns" },
  { id: "doc3.cm-general.tls-cert-key-together", doc: "doc3", section: CM_GEN, level: "required", title: "--tls-cert-file and --tls-private-key-file (the matching key) are given together" },
  { id: "doc3.cm-general.tls-min-version-values", doc: "doc3", section: CM_GEN, level: "required", title: "--tls-min-version is one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13" },
  { id: "doc3.cm-general.tls-min-version-legacy", doc: "doc3", section: CM_GEN, level: "optional", title: "--tls-min-version VersionTLS10 or VersionTLS11 admits TLS versions older than 1.2" },
  { id: "doc3.cm-general.tls-cipher-suites-values", doc: "doc3", section: CM_GEN, level: "required", title: "--tls-cipher-suites values come from the cipher suite lists" },
  { id: "doc3.cm-general.http2-max-streams-zero-default", doc: "doc3", section: CM_GEN, level: "required", title: "--http2-max-streams-per-connection 0 uses the language default" },
  { id: "doc3.cm-general.authn-kubeconfig-empty-anonymous", doc: "doc3", section: CM_GEN, level: "required", title: "Empty --authentication-kubeconfig makes all token requests anonymous and skips client-CA lookup" },
  { id: "doc3.cm-general.authz-kubeconfig-empty-forbidden", doc: "doc3", section: CM_GEN, level: "required", title: "Empty --authorization-kubeconfig forbids every request not on the always-allow paths" },
  { id: "doc3.cm-general.requestheader-allowed-names-empty-any", doc: "doc3", section: CM_GEN, level: "required", title: "Empty --requestheader-allowed-names accepts any certificate validated by the request-header CA" },
  { id: "doc3.cm-general.requestheader-uid-headers-gate", doc: "doc3", section: CM_GEN, level: "gated", gate: REQUEST_HEADER_UID, title: "--requestheader-uid-headers needs gate RemoteRequestHeaderUID" },
  { id: "doc3.cm-general.master-overrides-kubeconfig", doc: "doc3", section: CM_GEN, level: "required", title: "--master overrides the API server address of --kubeconfig" },
  { id: "doc3.cm-general.renew-deadline-below-lease", doc: "doc3", section: CM_GEN, level: "required", title: "--leader-elect-renew-deadline must be less than --leader-elect-lease-duration" },
  { id: "doc3.cm-general.resource-lock-leases-only", doc: "doc3", section: CM_GEN, level: "required", title: "--leader-elect-resource-lock supports only leases" },
  { id: "doc3.cm-general.controllers-syntax", doc: "doc3", section: CM_GEN, level: "required", title: "--controllers entries are * (all on-by-default), <name> (enable) or -<name> (disable)" },
  { id: "doc3.cm-general.controllers-known-names", doc: "doc3", section: CM_GEN, level: "required", title: "--controllers names come from the listed controller name set" },
  { id: "doc3.cm-general.controllers-disabled-by-default", doc: "doc3", section: CM_GEN, level: "required", title: "bootstrap-signer, selinux-warning and token-cleaner controllers are disabled by default" },
  { id: "doc3.cm-general.contention-profiling-needs-profiling", doc: "doc3", section: CM_GEN, level: "required", title: "--contention-profiling takes effect only when profiling is on" },
  { id: "doc3.cm-general.emulated-version-range", doc: "doc3", section: CM_GEN, level: "required", title: "--emulated-version takes component=major.minor; kube must be within 1.32 to 1.35" },
  { id: "doc3.cm-general.min-compat-range", doc: "doc3", section: CM_GEN, level: "required", title: "--min-compatibility-version must be within 1.32 to 1.35" },
  { id: "doc3.cm-general.min-compat-not-above-emulated", doc: "doc3", section: CM_GEN, level: "required", title: "--min-compatibility-version must not exceed the emulated version" },
  { id: "doc3.cm-general.feature-gates-syntax", doc: "doc3", section: CM_GEN, level: "required", title: "--feature-gates takes repeatable component:key=value pairs, default component kube" },
  { id: "doc3.cm-general.disabled-metrics-precedence", doc: "doc3", section: CM_GEN, level: "required", title: "--disabled-metrics takes precedence over showing hidden metrics" },
  { id: "doc3.cm-general.show-hidden-metrics-previous-minor", doc: "doc3", section: CM_GEN, level: "required", title: "--show-hidden-metrics-for-version is a previous minor version <major>.<minor>" },
  { id: "doc3.cm-general.metric-labels-flag-overrides-manifest", doc: "doc3", section: CM_GEN, level: "required", title: "--allow-metric-labels overrides --allow-metric-labels-manifest" },
  { id: "doc3.cm-general.logging-format-text-only", doc: "doc3", section: CM_GEN, level: "required", title: "--logging-format permits only text" },
  { id: "doc3.cm-general.log-info-buffer-gate", doc: "doc3", section: CM_GEN, level: "gated", gate: LOGGING_ALPHA, title: "--log-text-info-buffer-size needs LoggingAlphaOptions" },
  { id: "doc3.cm-general.log-split-stream-gate", doc: "doc3", section: CM_GEN, level: "gated", gate: LOGGING_ALPHA, title: "--log-text-split-stream needs LoggingAlphaOptions" },
  { id: "doc3.cm-general.version-flag-forms", doc: "doc3", section: CM_GEN, level: "required", title: "--version prints and exits; --version=raw also; --version=vX.Y.Z sets the reported version" },

  // ── Controller manager options: concurrency ─────────────────────────────────────────
  { id: "doc3.cm-concurrency.types-defaults", doc: "doc3", section: CM_CONC, level: "required", title: "Options of table 'Controller manager options: concurrency' (--concurrent-<name>-syncs, int32) have the listed defaults" },
  { id: "doc3.cm-concurrency.mirroring-default-5", doc: "doc3", section: CM_CONC, level: "required", title: "--mirroring-concurrent-service-endpoint-syncs is int32 with default 5" },

  // ── Controller manager options: controller behaviour ────────────────────────────────
  { id: "doc3.cm-behaviour.types-defaults", doc: "doc3", section: CM_BEH, level: "required", title: "Options of table 'Controller manager options: controller behaviour' have the listed types and defaults" },
  { id: "doc3.cm-behaviour.allocate-cidrs-needs-cluster-cidr", doc: "doc3", section: CM_BEH, level: "required", title: "--allocate-node-cidrs needs --cluster-cidr" },
  { id: "doc3.cm-behaviour.cidr-allocator-type-values", doc: "doc3", section: CM_BEH, level: "required", title: "--cidr-allocator-type names a CIDR allocator kind the controller manager has (RangeAllocator, the default)", realServer: "doc3 lists no values; a 1.35 controller manager built without legacy cloud providers knows only RangeAllocator" },
  { id: "doc3.cm-behaviour.cluster-cidr-only-with-allocate", doc: "doc3", section: CM_BEH, level: "required", title: "--cluster-cidr is used only when --allocate-node-cidrs=true" },
  { id: "doc3.cm-behaviour.service-range-only-with-allocate", doc: "doc3", section: CM_BEH, level: "required", title: "--service-cluster-ip-range is used only when --allocate-node-cidrs=true" },
  { id: "doc3.cm-behaviour.node-cidr-mask-default-by-family", doc: "doc3", section: CM_BEH, level: "required", title: "--node-cidr-mask-size defaults to 24 for IPv4 and 64 for IPv6" },
  { id: "doc3.cm-behaviour.gc-matches-apiserver", doc: "doc3", section: CM_BEH, level: "required", title: "--enable-garbage-collector must match the API server's setting" },
  { id: "doc3.cm-behaviour.hostpath-provisioner-test-only", doc: "doc3", section: CM_BEH, level: "optional", title: "--enable-hostpath-provisioner is for testing only" },
  { id: "doc3.cm-behaviour.hostpath-recycler-development-only", doc: "doc3", section: CM_BEH, level: "optional", title: "The host-path recycler options (--pv-recycler-*-hostpath) are for development only" },
  { id: "doc3.cm-behaviour.attach-detach-sync-above-1s", doc: "doc3", section: CM_BEH, level: "required", title: "--attach-detach-reconcile-sync-period must exceed one second" },
  { id: "doc3.cm-behaviour.node-monitor-grace-multiple", doc: "doc3", section: CM_BEH, level: "required", title: "--node-monitor-grace-period must be a multiple of the node agent's status update frequency" },
  { id: "doc3.cm-behaviour.node-monitor-grace-above-http2", doc: "doc3", section: CM_BEH, level: "required", title: "--node-monitor-grace-period must exceed the sum of the HTTP/2 ping and read-idle timeouts" },
  { id: "doc3.cm-behaviour.secondary-eviction-small-clusters", doc: "doc3", section: CM_BEH, level: "required", title: "--secondary-node-eviction-rate is implicitly 0 for clusters not above --large-cluster-size-threshold" },
  { id: "doc3.cm-behaviour.large-cluster-per-zone", doc: "doc3", section: CM_BEH, level: "required", title: "--large-cluster-size-threshold counts nodes per zone in multi-zone clusters" },
  { id: "doc3.cm-behaviour.unhealthy-zone-min-3", doc: "doc3", section: CM_BEH, level: "required", title: "--unhealthy-zone-threshold applies with at least 3 not-Ready nodes" },
  { id: "doc3.cm-behaviour.unhealthy-zone-fraction", doc: "doc3", section: CM_BEH, level: "required", title: "--unhealthy-zone-threshold is a fraction of nodes, between 0 and 1" },
  { id: "doc3.cm-behaviour.terminated-pod-gc-nonpositive-disables", doc: "doc3", section: CM_BEH, level: "required", title: "--terminated-pod-gc-threshold of 0 or less disables terminated-pod collection" },
  { id: "doc3.cm-behaviour.force-detach-needs-graceful-shutdown", doc: "doc3", section: CM_BEH, level: "optional", title: "With --disable-force-detach-on-timeout, node failure must be handled by graceful node shutdown" },

  // ── Controller manager options: certificate signing ─────────────────────────────────
  { id: "doc3.cm-signing.types-defaults", doc: "doc3", section: CM_SIGN, level: "required", title: "Options of table 'Controller manager options: certificate signing' have the listed types and defaults" },
  { id: "doc3.cm-signing.generic-excludes-specific", doc: "doc3", section: CM_SIGN, level: "required", title: "When --cluster-signing-cert-file/-key-file are set, no signer-specific signing flag may be set" },
  { id: "doc3.cm-signing.cert-key-pairs", doc: "doc3", section: CM_SIGN, level: "required", title: "Each signing CA cert file is given together with its key file" },
  { id: "doc3.cm-signing.duration-maximum", doc: "doc3", section: CM_SIGN, level: "required", title: "--cluster-signing-duration caps certificate lifetime; a request may ask shorter via spec.expirationSeconds" },
  { id: "doc3.cm-signing.specific-signers", doc: "doc3", section: CM_SIGN, level: "required", title: "Signer-specific flag pairs map to kube-apiserver-client, kube-apiserver-client-nodeagent, nodeagent-serving and legacy-unknown signers" },

  // ── Node agent options ──────────────────────────────────────────────────────────────
  { id: "doc3.agent-options.types-defaults", doc: "doc3", section: AGENT, level: "required", title: "Options of table 'Node agent options' have the listed types and defaults" },
  { id: "doc3.agent-options.config-flags-override", doc: "doc3", section: AGENT, level: "required", title: "Flags override values from --config; without --config built-in defaults apply" },
  { id: "doc3.agent-options.config-dir-overrides", doc: "doc3", section: AGENT, level: "required", title: "Drop-ins in --config-dir override the defaults and the --config file" },
  { id: "doc3.agent-options.kubeconfig-mode", doc: "doc3", section: AGENT, level: "required", title: "--kubeconfig present means API server mode; absent means standalone mode" },
  { id: "doc3.agent-options.cert-dir-ignored-with-files", doc: "doc3", section: AGENT, level: "required", title: "--cert-dir is ignored when cert and key files are given" },
  { id: "doc3.agent-options.node-ip-family", doc: "doc3", section: AGENT, level: "required", title: "--node-ip unset uses the default IPv4 (else IPv6); :: prefers IPv6; comma-separated for dual-stack" },
  { id: "doc3.agent-options.node-labels-reserved", doc: "doc3", section: AGENT, level: "required", title: "--node-labels under the reserved domain must use the nodeagent./node. prefixes or the listed exact keys" },
  { id: "doc3.agent-options.cloud-provider-values", doc: "doc3", section: AGENT, level: "required", title: "--cloud-provider is empty (none) or external" },
  { id: "doc3.agent-options.register-with-taints-format", doc: "doc3", section: AGENT, level: "required", title: "--register-with-taints is comma-separated <key>=<value>:<effect>, without effect when registration is off" },
  { id: "doc3.agent-options.read-only-port-zero-disables", doc: "doc3", section: AGENT, level: "required", title: "--read-only-port 0 disables the read-only server" },
  { id: "doc3.agent-options.healthz-port-zero-disables", doc: "doc3", section: AGENT, level: "required", title: "--healthz-port 0 disables the health server" },
  { id: "doc3.agent-options.authorization-mode-values", doc: "doc3", section: AGENT, level: "required", title: "--authorization-mode is AlwaysAllow or Webhook" },
  { id: "doc3.agent-options.rotate-server-certs-gate", doc: "doc3", section: AGENT, level: "gated", gate: ROTATE_SERVER_CERT, title: "--rotate-server-certificates needs gate RotateAgentServerCertificate and approved signing requests" },
  { id: "doc3.agent-options.tls-min-version-values", doc: "doc3", section: AGENT, level: "required", title: "--tls-min-version ranges over VersionTLS10 to VersionTLS13" },
  { id: "doc3.agent-options.tls-min-version-legacy", doc: "doc3", section: AGENT, level: "optional", title: "Node agent --tls-min-version VersionTLS10 or VersionTLS11 admits TLS versions older than 1.2" },
  { id: "doc3.agent-options.tls-cert-key-together", doc: "doc3", section: AGENT, level: "required", title: "Node agent --tls-cert-file and --tls-private-key-file (the matching key) are given together" },
  { id: "doc3.agent-options.streaming-idle-zero-none", doc: "doc3", section: AGENT, level: "required", title: "--streaming-connection-idle-timeout 0 means no idle timeout" },
  { id: "doc3.agent-options.credential-config-merge-order", doc: "doc3", section: AGENT, level: "required", title: "A --image-credential-provider-config directory is merged in lexicographic order, non-recursively" },
  { id: "doc3.agent-options.runtime-endpoint-schemes", doc: "doc3", section: AGENT, level: "required", title: "--container-runtime-endpoint uses unix sockets on Linux, npipe and tcp on Windows" },
  { id: "doc3.agent-options.cgroup-driver-values", doc: "doc3", section: AGENT, level: "required", title: "--cgroup-driver is cgroupfs or systemd" },
  { id: "doc3.agent-options.cpu-manager-policy-values", doc: "doc3", section: AGENT, level: "required", title: "--cpu-manager-policy is none or static" },
  { id: "doc3.agent-options.memory-manager-policy-values", doc: "doc3", section: AGENT, level: "required", title: "--memory-manager-policy is None or Static" },
  { id: "doc3.agent-options.topology-manager-policy-values", doc: "doc3", section: AGENT, level: "required", title: "--topology-manager-policy is none, best-effort, restricted or single-numa-node" },
  { id: "doc3.agent-options.topology-manager-scope-values", doc: "doc3", section: AGENT, level: "required", title: "--topology-manager-scope is container or pod" },
  { id: "doc3.agent-options.reserved-cpus-supersedes", doc: "doc3", section: AGENT, level: "required", title: "--reserved-cpus supersedes the CPU amounts of the reserved flags" },
  { id: "doc3.agent-options.reserved-memory-sums", doc: "doc3", section: AGENT, level: "required", title: "--reserved-memory sums must match kube-reserved, system-reserved and the eviction threshold" },
  { id: "doc3.agent-options.kube-reserved-resources", doc: "doc3", section: AGENT, level: "required", title: "--kube-reserved supports cpu, memory, pid and ephemeral-storage" },
  { id: "doc3.agent-options.system-reserved-resources", doc: "doc3", section: AGENT, level: "required", title: "--system-reserved supports the same resources as --kube-reserved: cpu, memory, pid and ephemeral-storage" },
  { id: "doc3.agent-options.enforce-allocatable-values", doc: "doc3", section: AGENT, level: "required", title: "--enforce-node-allocatable takes none, pods, system-reserved(-compressible), kube-reserved(-compressible)" },
  { id: "doc3.agent-options.enforce-allocatable-none-alone", doc: "doc3", section: AGENT, level: "required", title: "--enforce-node-allocatable none must stand alone" },
  { id: "doc3.agent-options.enforce-allocatable-needs-cgroups", doc: "doc3", section: AGENT, level: "required", title: "The reserved variants of --enforce-node-allocatable need their cgroup flags" },
  { id: "doc3.agent-options.qos-reserved-gate", doc: "doc3", section: AGENT, level: "gated", gate: QOS_RESERVED, title: "--qos-reserved needs gate QOSReserved" },
  { id: "doc3.agent-options.eviction-max-pod-grace-negative", doc: "doc3", section: AGENT, level: "required", title: "A negative --eviction-max-pod-grace-period defers to the pod's value" },
  { id: "doc3.agent-options.image-gc-high-range", doc: "doc3", section: AGENT, level: "required", title: "--image-gc-high-threshold is within 0 to 100; 100 disables image collection" },
  { id: "doc3.agent-options.image-gc-low-below-high", doc: "doc3", section: AGENT, level: "required", title: "--image-gc-low-threshold must be below --image-gc-high-threshold" },
  { id: "doc3.agent-options.max-dead-containers-negative", doc: "doc3", section: AGENT, level: "required", title: "A negative --maximum-dead-containers disables the global limit" },
  { id: "doc3.agent-options.gc-flags-use-eviction", doc: "doc3", section: AGENT, level: "required", title: "--minimum-container-ttl-duration, --maximum-dead-containers and --maximum-dead-containers-per-container are deprecated in favour of the eviction flags" },
  { id: "doc3.agent-options.removal-scheduled", doc: "doc3", section: AGENT, level: "required", title: "--experimental-allocatable-ignore-eviction and --experimental-mounter-path are deprecated, for removal in 1.25 or later" },
  { id: "doc3.agent-options.container-log-max-files-min-2", doc: "doc3", section: AGENT, level: "required", title: "--container-log-max-files must be at least 2" },
  { id: "doc3.agent-options.pods-per-core-capped", doc: "doc3", section: AGENT, level: "required", title: "--pods-per-core is capped by --max-pods; 0 disables it" },
  { id: "doc3.agent-options.pod-max-pids-default", doc: "doc3", section: AGENT, level: "required", title: "--pod-max-pids -1 uses the allocatable pid capacity" },
  { id: "doc3.agent-options.pod-cidr-standalone", doc: "doc3", section: AGENT, level: "required", title: "--pod-cidr applies only in standalone mode; IPv6 allocates at most 65536 addresses" },
  { id: "doc3.agent-options.runonce-excludes-server", doc: "doc3", section: AGENT, level: "required", title: "--runonce and --enable-server are mutually exclusive" },
  { id: "doc3.agent-options.status-frequency-vs-grace", doc: "doc3", section: AGENT, level: "required", title: "--node-status-update-frequency must fit the controller manager's node monitor grace period" },
  { id: "doc3.agent-options.node-status-max-images", doc: "doc3", section: AGENT, level: "required", title: "--node-status-max-images -1 means no cap" },
  { id: "doc3.agent-options.kube-api-qps-zero", doc: "doc3", section: AGENT, level: "required", title: "--kube-api-qps 0 means 50; events and node heartbeats are excluded" },
  { id: "doc3.agent-options.kube-api-burst-zero", doc: "doc3", section: AGENT, level: "required", title: "--kube-api-burst 0 means 100; events and node heartbeats are excluded" },
  { id: "doc3.agent-options.event-qps-zero", doc: "doc3", section: AGENT, level: "required", title: "--event-qps 0 means 5" },
  { id: "doc3.agent-options.event-burst-zero", doc: "doc3", section: AGENT, level: "required", title: "--event-burst 0 means 10" },
  { id: "doc3.agent-options.registry-qps-zero-unlimited", doc: "doc3", section: AGENT, level: "required", title: "--registry-qps 0 means unlimited" },
  { id: "doc3.agent-options.registry-burst-needs-qps", doc: "doc3", section: AGENT, level: "required", title: "--registry-burst is used only when --registry-qps is above 0" },
  { id: "doc3.agent-options.hairpin-mode-values", doc: "doc3", section: AGENT, level: "required", title: "--hairpin-mode is promiscuous-bridge, hairpin-veth or none" },
  { id: "doc3.agent-options.volume-stats-negative-disables", doc: "doc3", section: AGENT, level: "required", title: "A negative --volume-stats-agg-period disables volume usage computation" },
  { id: "doc3.agent-options.unsafe-sysctls-patterns", doc: "doc3", section: AGENT, level: "required", title: "--allowed-unsafe-sysctls entries are names or patterns ending in *" },
  { id: "doc3.agent-options.oom-score-adj-range", doc: "doc3", section: AGENT, level: "required", title: "--oom-score-adj is within -1000 to 1000" },
  { id: "doc3.agent-options.feature-gates-syntax", doc: "doc3", section: AGENT, level: "required", title: "Node agent --feature-gates takes key=true|false pairs without component prefix" },
  { id: "doc3.agent-options.logging-same-as-cm", doc: "doc3", section: AGENT, level: "required", title: "Node agent logging and version flags behave as the controller manager's (format text, flush 5s)" },

  // ── TLS cipher suite values ─────────────────────────────────────────────────────────
  { id: "doc3.tls.cipher-suite-values", doc: "doc3", section: TLS, level: "required", title: "Both daemons accept the listed preferred and insecure cipher suite names for --tls-cipher-suites" },
  { id: "doc3.tls.insecure-suites", doc: "doc3", section: TLS, level: "optional", title: "Cipher suites of the insecure list are accepted but insecure; the preferred list is the safe choice" },

  // ── Endpoints ───────────────────────────────────────────────────────────────────────
  { id: "doc3.endpoints.cm-https-secure-port", doc: "doc3", section: EP, level: "required", title: "The controller manager serves HTTPS with authentication and authorization on --secure-port (default 10257)" },
  { id: "doc3.endpoints.cm-health-paths-always-allowed", doc: "doc3", section: EP, level: "required", title: "/healthz, /readyz and /livez are authorized without contacting the API server by default" },
  { id: "doc3.endpoints.cm-pprof", doc: "doc3", section: EP, level: "required", title: "Profiling is served under /debug/pprof/ when enabled" },
  { id: "doc3.endpoints.agent-main-server", doc: "doc3", section: EP, level: "required", title: "The node agent main server listens on --address:--port (default port 10250)" },
  { id: "doc3.endpoints.agent-read-only-server", doc: "doc3", section: EP, level: "required", title: "The node agent serves an unauthenticated read-only server on --read-only-port (default 10255)" },
  { id: "doc3.endpoints.agent-healthz-server", doc: "doc3", section: EP, level: "required", title: "The node agent health server listens on --healthz-bind-address:--healthz-port (default 127.0.0.1:10248)" },
  { id: "doc3.endpoints.agent-debugging-handlers", doc: "doc3", section: EP, level: "required", title: "Debugging handlers for logs and running commands in containers are served when enabled" },

  // ── Authentication ──────────────────────────────────────────────────────────────────
  { id: "doc3.auth.cm-client-cert-cn", doc: "doc3", section: AUTH, level: "required", title: "Controller manager: a client certificate signed by the client CA authenticates as its common name", realServer: "doc3 does not say what a certificate from another CA gets; a 1.35 daemon answers 401, also with anonymous requests admitted, unless another authenticator (a token) recognizes the request" },
  { id: "doc3.auth.cm-request-header-trust", doc: "doc3", section: AUTH, level: "required", title: "Controller manager: identity headers are trusted only from request-header-CA certificates with an allowed common name (when the list is non-empty)" },
  { id: "doc3.auth.cm-anonymous-without-authn-file", doc: "doc3", section: AUTH, level: "required", title: "Controller manager: without an authentication connection file all token requests are anonymous" },
  { id: "doc3.auth.cm-token-review-cached", doc: "doc3", section: AUTH, level: "required", title: "Controller manager: with an authentication connection file tokens are checked by token reviews and answers cached" },
  { id: "doc3.auth.cm-sar-authorization", doc: "doc3", section: AUTH, level: "required", title: "Controller manager: authorization uses subject access reviews through the authorization connection file" },
  { id: "doc3.auth.cm-forbidden-without-authz-file", doc: "doc3", section: AUTH, level: "required", title: "Controller manager: without an authorization connection file everything off the always-allow paths is forbidden" },
  { id: "doc3.auth.agent-anonymous-default", doc: "doc3", section: AUTH, level: "required", title: "Node agent: anonymous requests are allowed by default as system:anonymous in group system:unauthenticated" },
  { id: "doc3.auth.agent-client-cert-cn", doc: "doc3", section: AUTH, level: "required", title: "Node agent: client certificates authenticate as their common name", realServer: "a certificate from a CA other than the client CA is 401, also with --anonymous-auth on, unless a reviewed token recognizes the request" },
  { id: "doc3.auth.agent-bearer-token-review", doc: "doc3", section: AUTH, level: "required", title: "Node agent: bearer tokens are checked by token reviews when enabled" },
  { id: "doc3.auth.agent-always-allow-default", doc: "doc3", section: AUTH, level: "required", title: "Node agent: authorization mode AlwaysAllow (the default) permits everything" },
  { id: "doc3.auth.agent-anonymous-always-allow", doc: "doc3", section: AUTH, level: "optional", title: "Node agent: with anonymous requests allowed and mode AlwaysAllow (both defaults) anyone reaching the main port may do anything there" },
  { id: "doc3.auth.agent-webhook-sar", doc: "doc3", section: AUTH, level: "required", title: "Node agent: Webhook mode uses subject access reviews with separate cache times for allowed and denied answers" },
  { id: "doc3.auth.agent-read-only-no-auth", doc: "doc3", section: AUTH, level: "required", title: "Node agent: the read-only port serves without authentication or authorization" },

  // ── Limits ──────────────────────────────────────────────────────────────────────────
  { id: "doc3.limits.agent-connection-max-4h", doc: "doc3", section: LIMITS, level: "required", title: "Every connection to the node agent server lasts at most 4 hours, whatever the idle settings" },
  { id: "doc3.limits.numeric-limits-are-options", doc: "doc3", section: LIMITS, level: "required", title: "Numeric limits and defaults are those of the option tables" },

  // ── Versioning ──────────────────────────────────────────────────────────────────────
  { id: "doc3.versioning.emulated-version", doc: "doc3", section: VERS, level: "required", title: "The controller manager selects an emulated version with --emulated-version (kube 1.32 to 1.35)" },
  { id: "doc3.versioning.version-flag", doc: "doc3", section: VERS, level: "required", title: "Both daemons report their version with --version" },
  { id: "doc3.versioning.gate-values-bool", doc: "doc3", section: VERS, level: "required", title: "Feature gates take true or false" },
  { id: "doc3.versioning.beta-on-default-true", doc: "doc3", section: VERS, level: "required", title: "Gates listed as beta, default on, default to true" },
  { id: "doc3.versioning.beta-off-default-false", doc: "doc3", section: VERS, level: "required", title: "Gates listed as beta, default off, default to false" },
  { id: "doc3.versioning.alpha-default-false", doc: "doc3", section: VERS, level: "required", title: "Gates listed as alpha default to false" },
  { id: "doc3.versioning.beta-on-gate-list", doc: "doc3", section: VERS, level: "required", title: "The beta, default-on gate names are exactly those listed" },
  { id: "doc3.versioning.beta-off-gate-list", doc: "doc3", section: VERS, level: "required", title: "The beta, default-off gate names are exactly those listed" },
  { id: "doc3.versioning.alpha-gate-list", doc: "doc3", section: VERS, level: "required", title: "The alpha gate names are exactly those listed" },
  { id: "doc3.versioning.gate-known-names", doc: "doc3", section: VERS, level: "required", title: "Feature gate names are those of the three lists plus AllAlpha and AllBeta" },
  { id: "doc3.versioning.alpha-gate-enabled", doc: "doc3", section: VERS, level: "optional", title: "Setting an alpha gate, or AllAlpha, to true turns on alpha-stage features" },
  { id: "doc3.versioning.all-alpha-meta-gate", doc: "doc3", section: VERS, level: "gated", gate: ALL_ALPHA, title: "Meta gate AllAlpha (alpha, default false) exists" },
  { id: "doc3.versioning.all-beta-meta-gate", doc: "doc3", section: VERS, level: "gated", gate: ALL_BETA, title: "Meta gate AllBeta (beta, default false) exists" },
  { id: "doc3.versioning.cm-gate-syntax", doc: "doc3", section: VERS, level: "required", title: "The controller manager writes gates as kube:<Name>=<bool>" },
  { id: "doc3.versioning.agent-gate-syntax", doc: "doc3", section: VERS, level: "required", title: "The node agent writes gates as <Name>=<bool>" },
  { id: "doc3.versioning.agent-gate-name-prefix", doc: "doc3", section: VERS, level: "required", title: "Gate names written with Agent stand for names that begin with the node agent's product name" },
  // gates the other documents depend on (one rule each, so suites can key on them)
  { id: "doc3.versioning.gate-api-response-compression", doc: "doc3", section: VERS, level: "gated", gate: { name: "APIResponseCompression", default: true }, title: "APIResponseCompression is beta, default on" },
  { id: "doc3.versioning.gate-list-from-cache-snapshot", doc: "doc3", section: VERS, level: "gated", gate: { name: "ListFromCacheSnapshot", default: true }, title: "ListFromCacheSnapshot is beta, default on" },
  { id: "doc3.versioning.gate-watch-list", doc: "doc3", section: VERS, level: "gated", gate: { name: "WatchList", default: true }, title: "WatchList is beta, default on" },
  { id: "doc3.versioning.gate-remote-request-header-uid", doc: "doc3", section: VERS, level: "gated", gate: REQUEST_HEADER_UID, title: "RemoteRequestHeaderUID is beta, default on" },
  { id: "doc3.versioning.gate-rotate-agent-server-certificate", doc: "doc3", section: VERS, level: "gated", gate: ROTATE_SERVER_CERT, title: "RotateAgentServerCertificate is beta, default on" },
  { id: "doc3.versioning.gate-cbor-serving-and-storage", doc: "doc3", section: VERS, level: "gated", gate: { name: "CBORServingAndStorage", default: false }, title: "CBORServingAndStorage is alpha, default off" },
  { id: "doc3.versioning.gate-allow-unsafe-malformed-object-deletion", doc: "doc3", section: VERS, level: "gated", gate: { name: "AllowUnsafeMalformedObjectDeletion", default: false }, title: "AllowUnsafeMalformedObjectDeletion is alpha, default off" },
  { id: "doc3.versioning.gate-clients-allow-cbor", doc: "doc3", section: VERS, level: "gated", gate: { name: "ClientsAllowCBOR", default: false }, title: "ClientsAllowCBOR is alpha, default off" },
  { id: "doc3.versioning.gate-clients-prefer-cbor", doc: "doc3", section: VERS, level: "gated", gate: { name: "ClientsPreferCBOR", default: false }, title: "ClientsPreferCBOR is alpha, default off" },
  { id: "doc3.versioning.gate-logging-alpha-options", doc: "doc3", section: VERS, level: "gated", gate: LOGGING_ALPHA, title: "LoggingAlphaOptions is alpha, default off" },
  { id: "doc3.versioning.gate-qos-reserved", doc: "doc3", section: VERS, level: "gated", gate: QOS_RESERVED, title: "QOSReserved is alpha, default off" },
] as const satisfies readonly Rule[];

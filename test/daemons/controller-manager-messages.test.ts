/**
 * The controller manager's own rules (lib/daemons/checker/controller-manager.ts), each with the
 * findings `tollgate flags check` adds to those of an empty command line, message included:
 * the message is what tells an operator what to change, and the condition around it (leader
 * election on or off, the address family, the generic or the signer-specific pair) decides its
 * severity and wording.
 */
import { describe, expect, it } from "vitest";
import { checkFlags } from "../../lib/daemons/checker/index.js";

const BASE = new Set(checkFlags("controller-manager", []).map((f) => JSON.stringify(f)));
/** The findings `argv` adds to those of an empty command line. */
const added = (argv: string[]): string[] =>
  checkFlags("controller-manager", argv)
    .filter((f) => !BASE.has(JSON.stringify(f)))
    .map((f) => `${f.severity} ${f.option} [${f.rule}] ${f.message}`);

const CASES: [string[], string[]][] = [
  [
    ["--leader-elect-renew-deadline=20s", "--leader-elect-lease-duration=15s"],
    [
      "error --leader-elect-renew-deadline [doc3.cm-general.renew-deadline-below-lease] renew deadline 20s must be below the lease duration 15s",
      "note --leader-elect-lease-duration [doc3.cm-general.types-defaults] 15s is the default (15s); the option can be left out",
    ],
  ],
  [
    ["--leader-elect=false", "--leader-elect-renew-deadline=20s", "--leader-elect-lease-duration=15s"],
    [
      "warning --leader-elect-renew-deadline [doc3.cm-general.renew-deadline-below-lease] renew deadline 20s must be below the lease duration 15s (harmless only while --leader-elect=false)",
      "note --leader-elect-lease-duration [doc3.cm-general.types-defaults] 15s is the default (15s); the option can be left out",
    ],
  ],
  [
    ["--secure-port=0"],
    ["note --secure-port [doc3.cm-general.secure-port-zero-disables] --secure-port=0 turns HTTPS off: /healthz, /readyz, /livez and metrics are not served"],
  ],
  [["--tls-cert-file=/c", "--tls-private-key-file=/k"], []],
  [
    ["--http2-max-streams-per-connection=0"],
    [
      "note --http2-max-streams-per-connection [doc3.cm-general.http2-max-streams-zero-default] 0 means the Go HTTP/2 server's own limit, not unlimited",
      "note --http2-max-streams-per-connection [doc3.cm-general.types-defaults] 0 is the default (0); the option can be left out",
    ],
  ],
  [["--authentication-kubeconfig=/a"], []],
  [
    ["--authorization-always-allow-paths=", "--authentication-kubeconfig=/a"],
    [
      "note --authorization-kubeconfig [doc3.cm-general.authz-kubeconfig-empty-forbidden] no --authorization-kubeconfig: every request outside the always-allow paths (none) is forbidden",
    ],
  ],
  [["--master=https://x"], []],
  [
    ["--contention-profiling", "--profiling=false"],
    ["warning --contention-profiling [doc3.cm-general.contention-profiling-needs-profiling] has no effect while --profiling=false"],
  ],
  [
    ["--disabled-metrics=a", "--show-hidden-metrics-for-version=1.34"],
    ["note --disabled-metrics [doc3.cm-general.disabled-metrics-precedence] metrics listed here stay disabled even when hidden metrics are shown"],
  ],
  [
    ["--allow-metric-labels=a,b=c", "--allow-metric-labels-manifest=/m"],
    ["note --allow-metric-labels [doc3.cm-general.metric-labels-flag-overrides-manifest] overrides the mapping read from --allow-metric-labels-manifest"],
  ],
  [
    ["--controllers=*,-cronjob,bogusctl,attachdetach,-bootstrapsigner,tokencleaner,foo_bar,Cronjob"],
    [
      'error --controllers [doc3.cm-general.controllers-known-names] unknown controller "bogusctl"',
      'error --controllers [doc3.cm-general.controllers-syntax] --controllers=*,-cronjob,bogusctl,attachdetach,-bootstrapsigner,tokencleaner,foo_bar,Cronjob: "foo_bar", "Cronjob": entries are *, <name> or -<name>',
      "note --controllers [doc3.cm-general.controllers-disabled-by-default] bootstrap-signer-controller is already disabled by default",
      "note --controllers [doc3.cm-general.controllers-disabled-by-default] token-cleaner-controller is disabled by default; naming it enables it",
      'note --controllers [doc3.cm-general.controllers-known-names] "attachdetach" is the pre-1.28 name of persistentvolume-attach-detach-controller; still accepted',
      'note --controllers [doc3.cm-general.controllers-known-names] "bootstrapsigner" is the pre-1.28 name of bootstrap-signer-controller; still accepted',
      'note --controllers [doc3.cm-general.controllers-known-names] "cronjob" is the pre-1.28 name of cronjob-controller; still accepted',
      'note --controllers [doc3.cm-general.controllers-known-names] "tokencleaner" is the pre-1.28 name of token-cleaner-controller; still accepted',
    ],
  ],
  [
    ["--controllers=-*"],
    [
      'error --controllers [doc3.cm-general.controllers-syntax] --controllers=-*: "-*": entries are *, <name> or -<name>',
      'warning --controllers [doc3.cm-general.controllers-syntax] no "*": only the controllers named here run; write "*,-name" to keep the on-by-default ones',
    ],
  ],
  [
    ["--emulated-version=1.33", "--min-compatibility-version=1.34"],
    [
      "error --min-compatibility-version [doc3.cm-general.min-compat-not-above-emulated] kube=1.34 is above the emulated version 1.33",
      "note --emulated-version [doc3.versioning.emulated-version] the controller manager behaves as release 1.33 (its APIs, gates and defaults), not 1.35",
    ],
  ],
  [
    ["--allocate-node-cidrs"],
    ["error --allocate-node-cidrs [doc3.cm-behaviour.allocate-cidrs-needs-cluster-cidr] --allocate-node-cidrs=true needs --cluster-cidr"],
  ],
  [
    ["--cluster-cidr=10.0.0.0/16"],
    [
      "warning --cluster-cidr [doc3.cm-behaviour.cluster-cidr-only-with-allocate] has no effect without --allocate-node-cidrs=true",
      "note --node-cidr-mask-size [doc3.cm-behaviour.node-cidr-mask-default-by-family] not given: the IPv4 --cluster-cidr gets the default mask 24",
    ],
  ],
  [
    ["--service-cluster-ip-range=10.96.0.0/12"],
    ["warning --service-cluster-ip-range [doc3.cm-behaviour.service-range-only-with-allocate] has no effect without --allocate-node-cidrs=true"],
  ],
  [
    ["--allocate-node-cidrs", "--cluster-cidr=10.0.0.0/16"],
    ["note --node-cidr-mask-size [doc3.cm-behaviour.node-cidr-mask-default-by-family] not given: the IPv4 --cluster-cidr gets the default mask 24"],
  ],
  [
    ["--allocate-node-cidrs", "--cluster-cidr=fd00::/48"],
    ["note --node-cidr-mask-size [doc3.cm-behaviour.node-cidr-mask-default-by-family] not given: the IPv6 --cluster-cidr gets the default mask 64"],
  ],
  [
    ["--allocate-node-cidrs", "--cluster-cidr=10.0.0.0/16", "--node-cidr-mask-size=33"],
    ["error --node-cidr-mask-size [doc3.cm-behaviour.node-cidr-mask-default-by-family] 33 is no IPv4 mask size, and --cluster-cidr is IPv4"],
  ],
  [["--allocate-node-cidrs", "--cluster-cidr=fd00::/48", "--node-cidr-mask-size=33"], []],
  [
    ["--enable-hostpath-provisioner"],
    [
      "warning --enable-hostpath-provisioner [doc3.cm-behaviour.hostpath-provisioner-test-only] host-path provisioning is for testing only, not for a real cluster",
    ],
  ],
  [
    ["--attach-detach-reconcile-sync-period=1s"],
    ["error --attach-detach-reconcile-sync-period [doc3.cm-behaviour.attach-detach-sync-above-1s] 1s must exceed one second"],
  ],
  [
    ["--node-monitor-grace-period=30s"],
    [
      "warning --node-monitor-grace-period [doc3.cm-behaviour.node-monitor-grace-above-http2] 30s must exceed the HTTP/2 ping plus read-idle timeouts (45s with the client defaults)",
    ],
  ],
  [
    ["--node-monitor-grace-period=45s"],
    [
      "warning --node-monitor-grace-period [doc3.cm-behaviour.node-monitor-grace-above-http2] 45s must exceed the HTTP/2 ping plus read-idle timeouts (45s with the client defaults)",
      "warning --node-monitor-grace-period [doc3.cm-behaviour.node-monitor-grace-multiple] 45s is not a multiple of the node agent's default --node-status-update-frequency (10s); check both command lines together to compare the real values",
    ],
  ],
  [
    ["--secondary-node-eviction-rate=0.05"],
    [
      "note --secondary-node-eviction-rate [doc3.cm-behaviour.secondary-eviction-small-clusters] applies only above --large-cluster-size-threshold (50 nodes); smaller clusters use 0",
    ],
  ],
  [
    ["--large-cluster-size-threshold=10", "--secondary-node-eviction-rate=0.05"],
    [
      "note --large-cluster-size-threshold [doc3.cm-behaviour.large-cluster-per-zone] counts nodes per zone in a multi-zone cluster",
      "note --secondary-node-eviction-rate [doc3.cm-behaviour.secondary-eviction-small-clusters] applies only above --large-cluster-size-threshold (10 nodes); smaller clusters use 0",
    ],
  ],
  [
    ["--terminated-pod-gc-threshold=0"],
    ["note --terminated-pod-gc-threshold [doc3.cm-behaviour.terminated-pod-gc-nonpositive-disables] 0 turns terminated-pod collection off"],
  ],
  [
    ["--cluster-signing-kubelet-client-cert-file=/c"],
    [
      "error --cluster-signing-kubelet-client-key-file [doc3.cm-signing.cert-key-pairs] --cluster-signing-kubelet-client-cert-file is given without --cluster-signing-kubelet-client-key-file",
      "note --cluster-signing-kubelet-client-cert-file [doc3.cm-signing.specific-signers] signs for signer kubernetes.io/kube-apiserver-client-kubelet",
    ],
  ],
  [
    [
      "--cluster-signing-cert-file=/c",
      "--cluster-signing-key-file=/k",
      "--cluster-signing-kubelet-serving-cert-file=/c2",
      "--cluster-signing-kubelet-serving-key-file=/k2",
    ],
    [
      "error --cluster-signing-kubelet-serving-cert-file [doc3.cm-signing.generic-excludes-specific] cannot be combined with --cluster-signing-cert-file/--cluster-signing-key-file: set either the generic pair or the signer-specific ones",
      "error --cluster-signing-kubelet-serving-key-file [doc3.cm-signing.generic-excludes-specific] cannot be combined with --cluster-signing-cert-file/--cluster-signing-key-file: set either the generic pair or the signer-specific ones",
      "note --cluster-signing-kubelet-serving-cert-file [doc3.cm-signing.specific-signers] signs for signer kubernetes.io/kubelet-serving",
    ],
  ],
  [["--cluster-signing-duration=0s"], ["error --cluster-signing-duration [doc3.cm-signing.duration-maximum] 0s leaves no lifetime for signed certificates"]],
  [
    ["--disable-force-detach-on-timeout"],
    [
      "warning --disable-force-detach-on-timeout [doc3.cm-behaviour.force-detach-needs-graceful-shutdown] volumes are no longer force-detached on timeout: node failures must be handled by graceful node shutdown",
    ],
  ],
  [
    ["--unhealthy-zone-threshold=0.55"],
    [
      "note --unhealthy-zone-threshold [doc3.cm-behaviour.types-defaults] 0.55 is the default (0.55); the option can be left out",
      "note --unhealthy-zone-threshold [doc3.cm-behaviour.unhealthy-zone-min-3] a zone counts as unhealthy only with at least 3 not-Ready nodes, whatever the fraction",
    ],
  ],
];

describe("controller manager findings, as printed", () => {
  for (const [argv, expected] of CASES) {
    it(argv.join(" "), () => {
      expect(added(argv)).toEqual(expected);
    });
  }
});

describe("controller manager findings an empty command line already has", () => {
  const messages = (argv: string[], rule: string): string[] =>
    checkFlags("controller-manager", argv)
      .filter((f) => f.rule === rule)
      .map((f) => `${f.severity} ${f.option} ${f.message}`);

  it("a self-signed certificate while serving without --tls-cert-file and --tls-private-key-file", () => {
    const rule = "doc3.cm-general.self-signed-without-cert";
    const [note, ...rest] = messages([], rule);
    expect(rest).toEqual([]);
    expect(note).toMatch(/^note --tls-cert-file .*self-signed/);
    expect(messages(["--secure-port=0"], rule)).toEqual([]);
    expect(messages(["--tls-cert-file=/c"], rule)).toEqual([]);
    expect(messages(["--tls-private-key-file=/k"], rule)).toEqual([]);
  });

  it("every request forbidden outside the always-allow paths, which are named", () => {
    const rule = "doc3.cm-general.authz-kubeconfig-empty-forbidden";
    expect(messages([], rule)).toEqual([
      "note --authorization-kubeconfig no --authorization-kubeconfig: every request outside the always-allow paths (/healthz,/readyz,/livez) is forbidden",
    ]);
    expect(messages(["--authorization-kubeconfig=/a"], rule)).toEqual([]);
  });
});

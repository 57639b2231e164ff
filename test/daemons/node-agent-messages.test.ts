/**
 * The node agent's own rules (lib/daemons/checker/node-agent.ts), each with the findings
 * `tollgate flags check` adds to those of an empty command line, message included (the
 * "deprecated as a flag" warning that most of these options also get is left out: it has a
 * test of its own). The message is what tells an operator what to change.
 */
import { describe, expect, it } from "vitest";
import { checkFlags } from "../../lib/daemons/checker/index.js";

const DEPRECATED_FLAG = "doc3.service.agent-flags-deprecated";
const BASE = new Set(checkFlags("node-agent", []).map((f) => JSON.stringify(f)));
/** The findings `argv` adds to those of an empty command line. */
const added = (argv: string[]): string[] =>
  checkFlags("node-agent", argv)
    .filter((f) => !BASE.has(JSON.stringify(f)) && f.rule !== DEPRECATED_FLAG)
    .map((f) => `${f.severity} ${f.option} [${f.rule}] ${f.message}`);

const CASES: [string[], string[]][] = [
  [
    ["--config=/c", "--config-dir=/d"],
    [
      "note --config-dir [doc3.agent-options.config-dir-overrides] drop-ins in --config-dir override the defaults and the --config file; flags still override both",
    ],
  ],
  [["--runonce"], ["error --runonce [doc3.agent-options.runonce-excludes-server] --runonce cannot run with the server enabled: add --enable-server=false"]],
  [["--runonce", "--enable-server=false"], []],
  [
    ["--anonymous-auth=true", "--authorization-mode=AlwaysAllow"],
    [
      "note --anonymous-auth [doc3.agent-options.types-defaults] true is the default (true); the option can be left out",
      "note --authorization-mode [doc3.agent-options.types-defaults] AlwaysAllow is the default (`AlwaysAllow`); the option can be left out",
    ],
  ],
  [["--authorization-mode=Webhook"], []],
  [["--kubeconfig="], ['note --kubeconfig [doc3.options.empty-default-unset] --kubeconfig="" is the same as leaving the option out']],
  [["--bootstrap-kubeconfig=/b"], []],
  [
    ["--register-node=false", "--register-with-taints=a=b:NoSchedule"],
    ["warning --register-with-taints [doc3.agent-options.register-with-taints-format] has no effect with --register-node=false"],
  ],
  [
    ["--register-with-taints=a=b:Bogus"],
    [
      'error --register-with-taints [doc3.agent-options.register-with-taints-format] --register-with-taints=a=b:Bogus: "a=b:Bogus": effect "Bogus" is not one of NoSchedule, PreferNoSchedule, NoExecute',
    ],
  ],
  [["--max-pods=200"], []],
  [["--pods-per-core=10"], ["note --pods-per-core [doc3.agent-options.pods-per-core-capped] pods per core are capped by --max-pods (110)"]],
  [["--pods-per-core=0"], ["note --pods-per-core [doc3.agent-options.types-defaults] 0 is the default (0); the option can be left out"]],
  [
    ["--image-gc-high-threshold=50", "--image-gc-low-threshold=60"],
    ["error --image-gc-low-threshold [doc3.agent-options.image-gc-low-below-high] 60 must be below --image-gc-high-threshold (50)"],
  ],
  [
    ["--image-gc-high-threshold=101"],
    ["error --image-gc-high-threshold [doc3.agent-options.image-gc-high-range] --image-gc-high-threshold=101: must be within 0 to 100"],
  ],
  [
    ["--image-gc-low-threshold=85"],
    ["error --image-gc-low-threshold [doc3.agent-options.image-gc-low-below-high] 85 must be below --image-gc-high-threshold (85)"],
  ],
  [
    ["--eviction-max-pod-grace-period=-1"],
    ["note --eviction-max-pod-grace-period [doc3.agent-options.eviction-max-pod-grace-negative] negative: soft evictions use the pod's own grace period"],
  ],
  [["--eviction-max-pod-grace-period=30"], []],
  [
    ["--maximum-dead-containers=-1"],
    [
      "warning --maximum-dead-containers [doc3.agent-options.gc-flags-use-eviction] deprecated: use the eviction flags (--eviction-hard, --eviction-soft) instead",
      "note --maximum-dead-containers [doc3.agent-options.max-dead-containers-negative] negative: no global limit on old containers",
      "note --maximum-dead-containers [doc3.agent-options.types-defaults] -1 is the default (-1); the option can be left out",
    ],
  ],
  [
    ["--maximum-dead-containers=0"],
    [
      "warning --maximum-dead-containers [doc3.agent-options.gc-flags-use-eviction] deprecated: use the eviction flags (--eviction-hard, --eviction-soft) instead",
    ],
  ],
  [
    ["--node-status-max-images=-1"],
    ["note --node-status-max-images [doc3.agent-options.node-status-max-images] -1: every image is reported in the node status"],
  ],
  [["--node-status-max-images=0"], []],
  [
    ["--pod-max-pids=-1"],
    [
      "note --pod-max-pids [doc3.agent-options.pod-max-pids-default] -1: each pod may use up to the node's allocatable pid capacity",
      "note --pod-max-pids [doc3.agent-options.types-defaults] -1 is the default (-1); the option can be left out",
    ],
  ],
  [["--pod-max-pids=0"], []],
  [["--volume-stats-agg-period=0"], []],
  [
    ["--volume-stats-agg-period=-1s"],
    ["note --volume-stats-agg-period [doc3.agent-options.volume-stats-negative-disables] negative: volume usage is not computed"],
  ],
  [["--read-only-port=10255"], ["note --read-only-port [doc3.agent-options.types-defaults] 10255 is the default (10255); the option can be left out"]],
  [["--read-only-port=0"], ["note --read-only-port [doc3.agent-options.read-only-port-zero-disables] 0 turns the unauthenticated read-only server off"]],
  [["--healthz-port=0"], ["note --healthz-port [doc3.agent-options.healthz-port-zero-disables] 0 turns the local health server off"]],
  [["--pod-cidr=10.0.0.0/24"], []],
  [["--pod-cidr=bogus"], ['error --pod-cidr [doc3.agent-options.types-defaults] --pod-cidr=bogus: "bogus" is not a CIDR (address/prefix-length)']],
  [["--reserved-cpus=0-1"], []],
  [
    ["--reserved-cpus=0-1", "--kube-reserved=cpu=1"],
    ["note --reserved-cpus [doc3.agent-options.reserved-cpus-supersedes] supersedes the cpu amounts of --kube-reserved and --system-reserved"],
  ],
  [
    ["--enforce-node-allocatable=pods,kube-reserved"],
    ["error --enforce-node-allocatable [doc3.agent-options.enforce-allocatable-needs-cgroups] kube-reserved needs --kube-reserved-cgroup"],
  ],
  [
    ["--enforce-node-allocatable=none,pods"],
    ['error --enforce-node-allocatable [doc3.agent-options.enforce-allocatable-none-alone] "none" must stand alone, not with pods'],
  ],
  [
    ["--enforce-node-allocatable=bogus"],
    [
      'error --enforce-node-allocatable [doc3.agent-options.enforce-allocatable-values] --enforce-node-allocatable=bogus: "bogus" not among none, pods, system-reserved, system-reserved-compressible, kube-reserved, kube-reserved-compressible',
    ],
  ],
  [
    ["--reserved-memory=0:memory=1Gi"],
    [
      "warning --reserved-memory [doc3.agent-options.reserved-memory-sums] --reserved-memory reserves 1Gi of memory, but --kube-reserved (0) + --system-reserved (0) + the hard eviction threshold (0) make 0; doc3 gives --eviction-hard no default, but a real node agent defaults to memory.available<100Mi: give --eviction-hard explicitly",
    ],
  ],
  [
    ["--reserved-memory=bogus"],
    ['error --reserved-memory [doc3.agent-options.types-defaults] --reserved-memory=bogus: "bogus": expected <NUMA node>:<resource>=<quantity>,...'],
  ],
  [
    ["--node-labels=kubernetes.io/role=x"],
    [
      'error --node-labels [doc3.agent-options.node-labels-reserved] "kubernetes.io/role" is under the reserved domain kubernetes.io: the node agent refuses it (allowed: [*.]kubelet.kubernetes.io/*, [*.]node.kubernetes.io/* and 11 exact keys such as kubernetes.io/hostname); set such labels from the control plane instead',
    ],
  ],
  [
    ["--node-labels=node-role.kubernetes.io/master=x"],
    [
      'error --node-labels [doc3.agent-options.node-labels-reserved] "node-role.kubernetes.io/master" is under the reserved domain kubernetes.io: the node agent refuses it (allowed: [*.]kubelet.kubernetes.io/*, [*.]node.kubernetes.io/* and 11 exact keys such as kubernetes.io/hostname); set such labels from the control plane instead',
    ],
  ],
  [
    ["--streaming-connection-idle-timeout=0"],
    ["note --streaming-connection-idle-timeout [doc3.agent-options.streaming-idle-zero-none] 0 means no idle timeout (connections still end after 4 hours)"],
  ],
  [["--node-ip=0.0.0.0"], []],
  [["--node-ip=::"], ['note --node-ip [doc3.agent-options.node-ip-family] "::" picks the default IPv6 address, falling back to IPv4']],
  [
    ["--registry-qps=0", "--registry-burst=5"],
    [
      "warning --registry-burst [doc3.agent-options.registry-burst-needs-qps] has no effect while --registry-qps is 0",
      "note --registry-qps [doc3.agent-options.registry-qps-zero-unlimited] 0 means no limit on image pulls",
    ],
  ],
  [["--allowed-unsafe-sysctls=net.*"], []],
  [["--eviction-hard="], ['note --eviction-hard [doc3.options.empty-default-unset] --eviction-hard="" is the same as leaving the option out']],
  [
    ["--node-status-update-frequency=7s"],
    [
      "warning --node-status-update-frequency [doc3.agent-options.status-frequency-vs-grace] 7s does not divide the controller manager's default --node-monitor-grace-period (50s); check both command lines together to compare the real values",
    ],
  ],
];

describe("node agent findings, as printed", () => {
  for (const [argv, expected] of CASES) {
    it(argv.join(" "), () => {
      expect(added(argv)).toEqual(expected);
    });
  }

  it("anonymous requests under AlwaysAllow are warned about until either is changed", () => {
    const rule = "doc3.auth.agent-anonymous-always-allow";
    const warned = (argv: string[]) => checkFlags("node-agent", argv).filter((f) => f.rule === rule).length;
    expect(warned([])).toBe(1);
    expect(warned(["--authorization-mode=Webhook"])).toBe(0);
    expect(warned(["--anonymous-auth=false"])).toBe(0);
  });
});

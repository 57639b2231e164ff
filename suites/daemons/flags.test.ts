/**
 * doc3's option rules, checked on command lines: each test runs `tollgate flags check`'s
 * checker on a line that breaks a rule and expects the finding (severity, option, rule), and
 * on the compliant line next to it and expects none. These tests need no target; they run in
 * the conformance project so that their rule ids count like the HTTP suites'.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  CONTROLLER_MANAGER_DOC3_DEFAULTS,
  KUBEADM_CONTROLLER_MANAGER,
  KUBEADM_NODE_AGENT,
  NODE_AGENT_DOC3_DEFAULTS,
} from "../../fixtures/daemons/command-lines.js";
import { ALPHA_GATES, BETA_OFF_GATES, BETA_ON_GATES, catalogs, type Daemon, realGateName } from "../../lib/daemons/catalog/index.js";
import { checkBoth } from "../../lib/daemons/checker/cross-check.js";
import { checkFlags, type Finding, type Severity } from "../../lib/daemons/checker/index.js";
import { withoutProgramName } from "../../lib/daemons/options/command-line.js";
import { check } from "../support/conformance.js";

const CM: Daemon = "controller-manager";
const AGENT: Daemon = "node-agent";

const show = (fs: readonly Finding[]): string => fs.map((f) => `  ${f.severity} ${f.option} [${f.rule}] ${f.message}`).join("\n") || "  (none)";

function expectFinding(fs: readonly Finding[], severity: Severity, option: string, rule: string): Finding {
  const hit = fs.find((f) => f.severity === severity && f.option === option && f.rule === rule);
  expect(hit, `expected ${severity} on ${option} citing ${rule}; findings:\n${show(fs)}`).toBeDefined();
  return hit as Finding;
}

function expectNoFinding(fs: readonly Finding[], severity: Severity, option: string, rule: string): void {
  const hits = fs.filter((f) => f.severity === severity && f.option === option && f.rule === rule);
  expect(hits, `expected no ${severity} on ${option} citing ${rule}; findings:\n${show(fs)}`).toEqual([]);
}

const errorsOf = (fs: readonly Finding[]): Finding[] => fs.filter((f) => f.severity === "error");

/** `bad` is caught with (severity, option, rule); `good`, which differs only in the point at issue, is not. */
function caught(daemon: Daemon, bad: string[], good: string[], severity: Severity, option: string, rule: string): Finding {
  const hit = expectFinding(checkFlags(daemon, bad), severity, option, rule);
  expectNoFinding(checkFlags(daemon, good), severity, option, rule);
  return hit;
}

describe("defaults", () => {
  check(
    { title: "an empty command line gives no error on either daemon", rules: ["doc3.cm-general.types-defaults", "doc3.agent-options.types-defaults"] },
    () => {
      expect(errorsOf(checkFlags(CM, []))).toEqual([]);
      expect(errorsOf(checkFlags(AGENT, []))).toEqual([]);
    },
  );

  check(
    {
      title: "every doc3 default written out is accepted and recognised as the default (controller manager)",
      rules: [
        "doc3.cm-general.types-defaults",
        "doc3.cm-concurrency.types-defaults",
        "doc3.cm-behaviour.types-defaults",
        "doc3.cm-signing.types-defaults",
        "doc3.limits.numeric-limits-are-options",
      ],
    },
    () => {
      const fs = checkFlags(CM, [...CONTROLLER_MANAGER_DOC3_DEFAULTS]);
      expect(errorsOf(fs), show(fs)).toEqual([]);
      for (const arg of CONTROLLER_MANAGER_DOC3_DEFAULTS) {
        const option = arg.slice(0, arg.indexOf("="));
        const note = fs.find((f) => f.severity === "note" && f.option === option && /is the default/.test(f.message));
        expect(note, `${arg} not recognised as doc3's default:\n${show(fs)}`).toBeDefined();
      }
    },
  );

  check(
    {
      title: "every doc3 default written out is accepted and recognised as the default (node agent)",
      rules: ["doc3.agent-options.types-defaults", "doc3.limits.numeric-limits-are-options"],
    },
    () => {
      const fs = checkFlags(AGENT, [...NODE_AGENT_DOC3_DEFAULTS]);
      expect(errorsOf(fs), show(fs)).toEqual([]);
      for (const arg of NODE_AGENT_DOC3_DEFAULTS) {
        const option = arg.slice(0, arg.indexOf("="));
        const note = fs.find((f) => f.severity === "note" && f.option === option && /is the default/.test(f.message));
        expect(note, `${arg} not recognised as doc3's default:\n${show(fs)}`).toBeDefined();
      }
    },
  );

  check({ title: "kubeadm-style command lines give no error", rules: ["doc3.cm-general.types-defaults", "doc3.agent-options.types-defaults"] }, () => {
    const cm = checkFlags(CM, withoutProgramName(CM, KUBEADM_CONTROLLER_MANAGER));
    expect(errorsOf(cm), show(cm)).toEqual([]);
    const agent = checkFlags(AGENT, withoutProgramName(AGENT, KUBEADM_NODE_AGENT));
    expect(errorsOf(agent), show(agent)).toEqual([]);
  });

  check(
    {
      title: "the PodSpec file and URL are checked every 20 seconds by default, and both intervals can be set",
      rules: ["doc3.service.agent-file-check-20s", "doc3.service.agent-http-check-20s", "doc3.service.agent-intervals-configurable"],
    },
    () => {
      const fs = checkFlags(AGENT, ["--file-check-frequency=20s", "--http-check-frequency=0m20s"]);
      expectFinding(fs, "note", "--file-check-frequency", "doc3.service.agent-file-check-20s");
      expectFinding(fs, "note", "--http-check-frequency", "doc3.service.agent-http-check-20s");
      const other = checkFlags(AGENT, ["--file-check-frequency=45s", "--http-check-frequency=1m"]);
      expect(errorsOf(other), show(other)).toEqual([]);
      expectNoFinding(other, "note", "--file-check-frequency", "doc3.service.agent-file-check-20s");
      // Both intervals are taken as set, and said to differ from the default.
      expect(expectFinding(other, "note", "--file-check-frequency", "doc3.service.agent-intervals-configurable").message).toMatch(/every 45s/);
      expect(expectFinding(other, "note", "--http-check-frequency", "doc3.service.agent-intervals-configurable").message).toMatch(/every 1m0s/);
    },
  );

  check({ title: "the mirroring concurrency defaults to 5 and is an int32", rules: ["doc3.cm-concurrency.mirroring-default-5"] }, () => {
    expectFinding(
      checkFlags(CM, ["--mirroring-concurrent-service-endpoint-syncs=5"]),
      "note",
      "--mirroring-concurrent-service-endpoint-syncs",
      "doc3.cm-concurrency.mirroring-default-5",
    );
    caught(
      CM,
      ["--mirroring-concurrent-service-endpoint-syncs=3000000000"],
      ["--mirroring-concurrent-service-endpoint-syncs=8"],
      "error",
      "--mirroring-concurrent-service-endpoint-syncs",
      "doc3.cm-concurrency.mirroring-default-5",
    );
  });

  check({ title: "an option given an empty value is the same as leaving it out", rules: ["doc3.options.empty-default-unset"] }, () => {
    caught(CM, ["--cluster-name=", "--cert-dir="], ["--cert-dir=/var/run/certs"], "note", "--cert-dir", "doc3.options.empty-default-unset");
  });
});

describe("command-line syntax", () => {
  check({ title: "unknown options are errors, with the closest known name", rules: ["doc3.options.known-options"] }, () => {
    const hit = caught(
      CM,
      ["--leader-elect-renew-dedline=5s"],
      ["--leader-elect-renew-deadline=5s"],
      "error",
      "--leader-elect-renew-dedline",
      "doc3.options.known-options",
    );
    expect(hit.message).toContain("--leader-elect-renew-deadline");
    const other = expectFinding(checkFlags(CM, ["--runonce"]), "error", "--runonce", "doc3.options.known-options");
    expect(other.message).toMatch(/node agent option/);
  });

  check({ title: "a boolean takes its value only after =, so `--flag false` leaves a stray argument", rules: ["doc3.options.known-options"] }, () => {
    const hit = caught(CM, ["--leader-elect", "false"], ["--leader-elect=false"], "error", "false", "doc3.options.known-options");
    expect(hit.message).toContain("--leader-elect=false");
  });

  check(
    {
      title: "values are read as --name=value and --name value, short forms as -v 2 and -v2",
      rules: ["doc3.options.known-options", "doc3.cm-general.types-defaults"],
    },
    () => {
      expect(errorsOf(checkFlags(CM, ["--secure-port", "10258", "-v", "2", "-v4", "--v=3", "--leader_elect=true"]))).toEqual([]);
      caught(CM, ["--secure-port"], ["--secure-port", "1"], "error", "--secure-port", "doc3.options.known-options");
      caught(CM, ["-leader-elect"], ["--leader-elect"], "error", "-leader-elect", "doc3.options.known-options");
    },
  );

  check({ title: "doc3's neutral nodeagent spellings are refused in favour of the real kubelet names", rules: ["doc3.options.nodeagent-names"] }, () => {
    const hit = caught(
      CM,
      ["--cluster-signing-nodeagent-client-cert-file=/pki/ca.crt", "--cluster-signing-nodeagent-client-key-file=/pki/ca.key"],
      ["--cluster-signing-kubelet-client-cert-file=/pki/ca.crt", "--cluster-signing-kubelet-client-key-file=/pki/ca.key"],
      "error",
      "--cluster-signing-kubelet-client-cert-file",
      "doc3.options.nodeagent-names",
    );
    expect(hit.message).toContain("--cluster-signing-nodeagent-client-cert-file");
    caught(
      AGENT,
      ["--nodeagent-cgroups=/system.slice/kubelet.service"],
      ["--kubelet-cgroups=/system.slice/kubelet.service"],
      "error",
      "--kubelet-cgroups",
      "doc3.options.nodeagent-names",
    );
  });

  check({ title: "durations are Go durations", rules: ["doc3.options.duration-format"] }, () => {
    for (const good of ["10s", "1m0s", "8760h0m0s", "1h30m", "1.5s", "100ms", "0"]) {
      expectNoFinding(checkFlags(CM, [`--min-resync-period=${good}`]), "error", "--min-resync-period", "doc3.options.duration-format");
    }
    for (const bad of ["10", "1d", "1 m", "10sec", "", "1h-5m"]) {
      expectFinding(checkFlags(CM, [`--min-resync-period=${bad}`]), "error", "--min-resync-period", "doc3.options.duration-format");
    }
    caught(AGENT, ["--sync-frequency=60"], ["--sync-frequency=60s"], "error", "--sync-frequency", "doc3.options.duration-format");
  });

  check(
    {
      title: "ints, int32s, floats and quantities must parse for their type",
      rules: ["doc3.cm-general.types-defaults", "doc3.cm-behaviour.types-defaults", "doc3.agent-options.types-defaults", "doc3.cm-concurrency.types-defaults"],
    },
    () => {
      caught(CM, ["--secure-port=https"], ["--secure-port=10257"], "error", "--secure-port", "doc3.cm-general.types-defaults");
      caught(CM, ["--secure-port=70000"], ["--secure-port=0x2831"], "error", "--secure-port", "doc3.cm-general.types-defaults");
      caught(CM, ["--kube-api-burst=2147483648"], ["--kube-api-burst=2147483647"], "error", "--kube-api-burst", "doc3.cm-general.types-defaults");
      caught(CM, ["--kube-api-qps=fast"], ["--kube-api-qps=50.5"], "error", "--kube-api-qps", "doc3.cm-general.types-defaults");
      caught(CM, ["--node-eviction-rate=-1"], ["--node-eviction-rate=0.2"], "error", "--node-eviction-rate", "doc3.cm-behaviour.types-defaults");
      caught(CM, ["--concurrent-gc-syncs=many"], ["--concurrent-gc-syncs=30"], "error", "--concurrent-gc-syncs", "doc3.cm-concurrency.types-defaults");
      caught(
        AGENT,
        ["--container-log-max-size=10MB"],
        ["--container-log-max-size=10M"],
        "error",
        "--container-log-max-size",
        "doc3.agent-options.types-defaults",
      );
      caught(
        CM,
        ["--log-text-info-buffer-size=1X"],
        ["--log-text-info-buffer-size=0"],
        "error",
        "--log-text-info-buffer-size",
        "doc3.cm-general.types-defaults",
      );
      caught(AGENT, ["--max-pods=110.5"], ["--max-pods=250"], "error", "--max-pods", "doc3.agent-options.types-defaults");
      caught(AGENT, ["--fail-swap-on=no"], ["--fail-swap-on=false"], "error", "--fail-swap-on", "doc3.agent-options.types-defaults");
    },
  );

  check(
    {
      title: "key=value lists, header lists and IP lists must parse",
      rules: ["doc3.agent-options.types-defaults", "doc3.cm-behaviour.types-defaults", "doc3.cm-general.types-defaults"],
    },
    () => {
      caught(
        AGENT,
        ["--cpu-manager-policy-options=full-pcpus-only"],
        ["--cpu-manager-policy-options=full-pcpus-only=true"],
        "error",
        "--cpu-manager-policy-options",
        "doc3.agent-options.types-defaults",
      );
      caught(
        AGENT,
        ["--manifest-url=http://m/pods", "--manifest-url-header=Authorization"],
        ["--manifest-url=http://m/pods", "--manifest-url-header=Authorization:Bearer x,X-A:1"],
        "error",
        "--manifest-url-header",
        "doc3.agent-options.types-defaults",
      );
      caught(
        AGENT,
        ["--cluster-dns=10.96.0.10,dns.local"],
        ["--cluster-dns=10.96.0.10,fd00::a"],
        "error",
        "--cluster-dns",
        "doc3.agent-options.types-defaults",
      );
      caught(
        AGENT,
        ["--eviction-hard=memory.available<1Gb"],
        ["--eviction-hard=memory.available<1Gi,nodefs.available<10%"],
        "error",
        "--eviction-hard",
        "doc3.agent-options.types-defaults",
      );
      caught(
        AGENT,
        ["--eviction-soft-grace-period=memory.available=90"],
        ["--eviction-soft-grace-period=memory.available=1m30s"],
        "error",
        "--eviction-soft-grace-period",
        "doc3.agent-options.types-defaults",
      );
      caught(
        CM,
        ["--cluster-cidr=10.244.0.0/33", "--allocate-node-cidrs"],
        ["--cluster-cidr=10.244.0.0/16,fd00:10:244::/56", "--allocate-node-cidrs"],
        "error",
        "--cluster-cidr",
        "doc3.cm-behaviour.types-defaults",
      );
      caught(CM, ["--bind-address=localhost"], ["--bind-address=127.0.0.1"], "error", "--bind-address", "doc3.cm-general.types-defaults");
      caught(CM, ["--vmodule=gc*=x"], ["--vmodule=gc*=4,node*=2"], "error", "--vmodule", "doc3.cm-general.types-defaults");
    },
  );
});

describe("controller manager: serving and authentication", () => {
  check({ title: "--tls-min-version takes the four VersionTLS names", rules: ["doc3.cm-general.tls-min-version-values"] }, () => {
    caught(CM, ["--tls-min-version=TLS1.2"], ["--tls-min-version=VersionTLS12"], "error", "--tls-min-version", "doc3.cm-general.tls-min-version-values");
  });

  check(
    {
      title: "TLS 1.0 and 1.1 as minimum version are warned about, on both daemons",
      rules: ["doc3.cm-general.tls-min-version-legacy", "doc3.agent-options.tls-min-version-legacy"],
    },
    () => {
      caught(
        CM,
        ["--tls-min-version=VersionTLS10"],
        ["--tls-min-version=VersionTLS12"],
        "warning",
        "--tls-min-version",
        "doc3.cm-general.tls-min-version-legacy",
      );
      caught(
        AGENT,
        ["--tls-min-version=VersionTLS11"],
        ["--tls-min-version=VersionTLS13"],
        "warning",
        "--tls-min-version",
        "doc3.agent-options.tls-min-version-legacy",
      );
    },
  );

  check(
    {
      title: "--tls-cipher-suites takes names of the two lists; insecure ones are warned about",
      rules: ["doc3.cm-general.tls-cipher-suites-values", "doc3.tls.cipher-suite-values", "doc3.tls.insecure-suites"],
    },
    () => {
      const hit = caught(
        CM,
        ["--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA265"],
        ["--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
        "error",
        "--tls-cipher-suites",
        "doc3.cm-general.tls-cipher-suites-values",
      );
      expect(hit.message).toContain("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
      caught(
        AGENT,
        ["--tls-cipher-suites=TLS_AES_128_GCM_SHA256,RC4"],
        ["--tls-cipher-suites=TLS_AES_128_GCM_SHA256"],
        "error",
        "--tls-cipher-suites",
        "doc3.tls.cipher-suite-values",
      );
      caught(
        CM,
        ["--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA"],
        ["--tls-cipher-suites=TLS_AES_256_GCM_SHA384"],
        "warning",
        "--tls-cipher-suites",
        "doc3.tls.insecure-suites",
      );
      caught(
        AGENT,
        ["--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_128_CBC_SHA"],
        ["--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
        "warning",
        "--tls-cipher-suites",
        "doc3.tls.insecure-suites",
      );
    },
  );

  check({ title: "--tls-sni-cert-key is cert,key optionally with :domains", rules: ["doc3.cm-general.sni-cert-key-format"] }, () => {
    caught(
      CM,
      ["--tls-sni-cert-key=/pki/a.crt"],
      ["--tls-sni-cert-key=/pki/a.crt,/pki/a.key:*.example.com,example.com", "--tls-sni-cert-key=/pki/b.crt,/pki/b.key"],
      "error",
      "--tls-sni-cert-key",
      "doc3.cm-general.sni-cert-key-format",
    );
  });

  check(
    {
      title: "the serving certificate and key go together, on both daemons",
      rules: ["doc3.cm-general.tls-cert-key-together", "doc3.agent-options.tls-cert-key-together"],
    },
    () => {
      caught(
        CM,
        ["--tls-cert-file=/pki/kcm.crt"],
        ["--tls-cert-file=/pki/kcm.crt", "--tls-private-key-file=/pki/kcm.key"],
        "error",
        "--tls-private-key-file",
        "doc3.cm-general.tls-cert-key-together",
      );
      caught(
        AGENT,
        ["--tls-private-key-file=/pki/k.key"],
        ["--tls-private-key-file=/pki/k.key", "--tls-cert-file=/pki/k.crt"],
        "error",
        "--tls-cert-file",
        "doc3.agent-options.tls-cert-key-together",
      );
    },
  );

  check(
    {
      title: "--cert-dir is ignored when both cert and key files are given, on both daemons",
      rules: ["doc3.cm-general.cert-dir-ignored-with-files", "doc3.agent-options.cert-dir-ignored-with-files"],
    },
    () => {
      caught(
        CM,
        ["--cert-dir=/c", "--tls-cert-file=/a.crt", "--tls-private-key-file=/a.key"],
        ["--cert-dir=/c"],
        "note",
        "--cert-dir",
        "doc3.cm-general.cert-dir-ignored-with-files",
      );
      caught(
        AGENT,
        ["--cert-dir=/c", "--tls-cert-file=/a.crt", "--tls-private-key-file=/a.key"],
        ["--cert-dir=/c"],
        "note",
        "--cert-dir",
        "doc3.agent-options.cert-dir-ignored-with-files",
      );
    },
  );

  check({ title: "without cert and key a self-signed pair is used", rules: ["doc3.cm-general.self-signed-without-cert"] }, () => {
    caught(CM, [], ["--tls-cert-file=/a.crt", "--tls-private-key-file=/a.key"], "note", "--tls-cert-file", "doc3.cm-general.self-signed-without-cert");
  });

  check({ title: "--secure-port 0 turns HTTPS off", rules: ["doc3.cm-general.secure-port-zero-disables"] }, () => {
    caught(CM, ["--secure-port=0"], ["--secure-port=10257"], "note", "--secure-port", "doc3.cm-general.secure-port-zero-disables");
  });

  check({ title: "--http2-max-streams-per-connection 0 means the language default", rules: ["doc3.cm-general.http2-max-streams-zero-default"] }, () => {
    caught(
      CM,
      ["--http2-max-streams-per-connection=0"],
      ["--http2-max-streams-per-connection=100"],
      "note",
      "--http2-max-streams-per-connection",
      "doc3.cm-general.http2-max-streams-zero-default",
    );
  });

  check(
    {
      title: "without an authentication connection file tokens are anonymous; without an authorization one, requests are forbidden",
      rules: ["doc3.cm-general.authn-kubeconfig-empty-anonymous", "doc3.cm-general.authz-kubeconfig-empty-forbidden"],
    },
    () => {
      caught(
        CM,
        [],
        ["--authentication-kubeconfig=/etc/kubernetes/kcm.conf"],
        "note",
        "--authentication-kubeconfig",
        "doc3.cm-general.authn-kubeconfig-empty-anonymous",
      );
      const hit = caught(
        CM,
        [],
        ["--authorization-kubeconfig=/etc/kubernetes/kcm.conf"],
        "note",
        "--authorization-kubeconfig",
        "doc3.cm-general.authz-kubeconfig-empty-forbidden",
      );
      expect(hit.message).toContain("/healthz,/readyz,/livez");
    },
  );

  check(
    {
      title: "an empty allowed-names list trusts every certificate of the request-header CA",
      rules: ["doc3.cm-general.requestheader-allowed-names-empty-any"],
    },
    () => {
      caught(
        CM,
        ["--requestheader-client-ca-file=/pki/front-proxy-ca.crt"],
        ["--requestheader-client-ca-file=/pki/front-proxy-ca.crt", "--requestheader-allowed-names=front-proxy-client"],
        "warning",
        "--requestheader-allowed-names",
        "doc3.cm-general.requestheader-allowed-names-empty-any",
      );
    },
  );

  check(
    {
      title: "--requestheader-uid-headers needs RemoteRequestHeaderUID (beta, on by default)",
      rules: ["doc3.cm-general.requestheader-uid-headers-gate", "doc3.versioning.gate-remote-request-header-uid"],
    },
    () => {
      caught(
        CM,
        ["--requestheader-uid-headers=X-Remote-Uid", "--feature-gates=kube:RemoteRequestHeaderUID=false"],
        ["--requestheader-uid-headers=X-Remote-Uid"],
        "error",
        "--requestheader-uid-headers",
        "doc3.cm-general.requestheader-uid-headers-gate",
      );
      expectFinding(checkFlags(CM, ["--feature-gates=kube:RemoteRequestHeaderUID=true"]), "note", "--feature-gates", "doc3.versioning.beta-on-default-true");
    },
  );

  check({ title: "--master overrides the connection file's server", rules: ["doc3.cm-general.master-overrides-kubeconfig"] }, () => {
    caught(
      CM,
      ["--master=https://10.0.0.1:6443", "--kubeconfig=/k.conf"],
      ["--kubeconfig=/k.conf"],
      "note",
      "--master",
      "doc3.cm-general.master-overrides-kubeconfig",
    );
  });
});

describe("controller manager: general", () => {
  check({ title: "the renew deadline must be below the lease duration", rules: ["doc3.cm-general.renew-deadline-below-lease"] }, () => {
    caught(
      CM,
      ["--leader-elect-renew-deadline=20s"],
      ["--leader-elect-renew-deadline=14s"],
      "error",
      "--leader-elect-renew-deadline",
      "doc3.cm-general.renew-deadline-below-lease",
    );
    caught(
      CM,
      ["--leader-elect-lease-duration=10s"],
      ["--leader-elect-lease-duration=11s"],
      "error",
      "--leader-elect-renew-deadline",
      "doc3.cm-general.renew-deadline-below-lease",
    );
  });

  check({ title: "--leader-elect-resource-lock supports only leases", rules: ["doc3.cm-general.resource-lock-leases-only"] }, () => {
    caught(
      CM,
      ["--leader-elect-resource-lock=endpointsleases"],
      ["--leader-elect-resource-lock=leases"],
      "error",
      "--leader-elect-resource-lock",
      "doc3.cm-general.resource-lock-leases-only",
    );
  });

  check({ title: "--controllers entries are *, name or -name", rules: ["doc3.cm-general.controllers-syntax"] }, () => {
    caught(CM, ["--controllers=*,+job-controller"], ["--controllers=*,-job-controller"], "error", "--controllers", "doc3.cm-general.controllers-syntax");
    caught(CM, ["--controllers=job-controller"], ["--controllers=*,job-controller"], "warning", "--controllers", "doc3.cm-general.controllers-syntax");
  });

  check({ title: "--controllers names are the 50 known controllers", rules: ["doc3.cm-general.controllers-known-names"] }, () => {
    const hit = caught(
      CM,
      ["--controllers=*,-cronjob-controler"],
      ["--controllers=*,-cronjob-controller"],
      "error",
      "--controllers",
      "doc3.cm-general.controllers-known-names",
    );
    expect(hit.message).toContain("cronjob-controller");
    expectFinding(checkFlags(CM, ["--controllers=*,bootstrapsigner"]), "note", "--controllers", "doc3.cm-general.controllers-known-names");
  });

  check({ title: "bootstrap-signer, selinux-warning and token-cleaner are off by default", rules: ["doc3.cm-general.controllers-disabled-by-default"] }, () => {
    for (const name of ["bootstrap-signer-controller", "selinux-warning-controller", "token-cleaner-controller"]) {
      caught(CM, [`--controllers=*,-${name}`], ["--controllers=*,-job-controller"], "note", "--controllers", "doc3.cm-general.controllers-disabled-by-default");
      caught(CM, [`--controllers=*,${name}`], ["--controllers=*,job-controller"], "note", "--controllers", "doc3.cm-general.controllers-disabled-by-default");
    }
  });

  check({ title: "--contention-profiling needs profiling on", rules: ["doc3.cm-general.contention-profiling-needs-profiling"] }, () => {
    caught(
      CM,
      ["--contention-profiling", "--profiling=false"],
      ["--contention-profiling"],
      "warning",
      "--contention-profiling",
      "doc3.cm-general.contention-profiling-needs-profiling",
    );
  });

  check(
    {
      title: "--emulated-version is component=major.minor with kube from 1.32 to 1.35",
      rules: ["doc3.cm-general.emulated-version-range", "doc3.versioning.emulated-version"],
    },
    () => {
      caught(CM, ["--emulated-version=kube=1.31"], ["--emulated-version=kube=1.32"], "error", "--emulated-version", "doc3.cm-general.emulated-version-range");
      caught(CM, ["--emulated-version=kube=1.36"], ["--emulated-version=kube=1.35"], "error", "--emulated-version", "doc3.cm-general.emulated-version-range");
      caught(CM, ["--emulated-version=kube=one"], ["--emulated-version=1.34"], "error", "--emulated-version", "doc3.cm-general.emulated-version-range");
      caught(CM, ["--emulated-version=etcd=1.34"], ["--emulated-version=kube=1.34"], "error", "--emulated-version", "doc3.cm-general.emulated-version-range");
      // A version in range selects what the controller manager emulates.
      for (const v of ["1.32", "kube=1.34"])
        expect(expectFinding(checkFlags(CM, [`--emulated-version=${v}`]), "note", "--emulated-version", "doc3.versioning.emulated-version").message).toMatch(
          new RegExp(`release ${v.replace("kube=", "").replace(".", "\\.")}`),
        );
    },
  );

  check(
    {
      title: "--min-compatibility-version is within 1.32 to 1.35 and not above the emulated version",
      rules: ["doc3.cm-general.min-compat-range", "doc3.cm-general.min-compat-not-above-emulated"],
    },
    () => {
      caught(
        CM,
        ["--min-compatibility-version=kube=1.30"],
        ["--min-compatibility-version=kube=1.33"],
        "error",
        "--min-compatibility-version",
        "doc3.cm-general.min-compat-range",
      );
      caught(
        CM,
        ["--emulated-version=kube=1.33", "--min-compatibility-version=kube=1.34"],
        ["--emulated-version=kube=1.34", "--min-compatibility-version=kube=1.34"],
        "error",
        "--min-compatibility-version",
        "doc3.cm-general.min-compat-not-above-emulated",
      );
    },
  );

  check(
    {
      title: "--feature-gates takes component:key=value entries, kube when left out",
      rules: ["doc3.cm-general.feature-gates-syntax", "doc3.versioning.cm-gate-syntax"],
    },
    () => {
      caught(
        CM,
        ["--feature-gates=kube:WatchList"],
        ["--feature-gates=kube:WatchList=false"],
        "error",
        "--feature-gates",
        "doc3.cm-general.feature-gates-syntax",
      );
      caught(
        CM,
        ["--feature-gates=scheduler:WatchList=true"],
        ["--feature-gates=kube:WatchList=true"],
        "error",
        "--feature-gates",
        "doc3.versioning.cm-gate-syntax",
      );
      caught(CM, ["--feature-gates=WatchList=true"], ["--feature-gates=kube:WatchList=true"], "note", "--feature-gates", "doc3.versioning.cm-gate-syntax");
    },
  );

  check({ title: "disabled metrics stay disabled when hidden metrics are shown", rules: ["doc3.cm-general.disabled-metrics-precedence"] }, () => {
    caught(
      CM,
      ["--disabled-metrics=workqueue_depth", "--show-hidden-metrics-for-version=1.34"],
      ["--disabled-metrics=workqueue_depth"],
      "note",
      "--disabled-metrics",
      "doc3.cm-general.disabled-metrics-precedence",
    );
  });

  check({ title: "--show-hidden-metrics-for-version is the previous minor version", rules: ["doc3.cm-general.show-hidden-metrics-previous-minor"] }, () => {
    caught(
      CM,
      ["--show-hidden-metrics-for-version=1.33"],
      ["--show-hidden-metrics-for-version=1.34"],
      "error",
      "--show-hidden-metrics-for-version",
      "doc3.cm-general.show-hidden-metrics-previous-minor",
    );
    caught(
      CM,
      ["--show-hidden-metrics-for-version=1.34.0"],
      ["--show-hidden-metrics-for-version=1.34"],
      "error",
      "--show-hidden-metrics-for-version",
      "doc3.cm-general.show-hidden-metrics-previous-minor",
    );
  });

  check({ title: "--allow-metric-labels overrides its manifest", rules: ["doc3.cm-general.metric-labels-flag-overrides-manifest"] }, () => {
    caught(
      CM,
      ["--allow-metric-labels=metric1,label1='v1'", "--allow-metric-labels-manifest=/m.yaml"],
      ["--allow-metric-labels-manifest=/m.yaml"],
      "note",
      "--allow-metric-labels",
      "doc3.cm-general.metric-labels-flag-overrides-manifest",
    );
  });

  check({ title: "--logging-format permits only text", rules: ["doc3.cm-general.logging-format-text-only", "doc3.agent-options.logging-same-as-cm"] }, () => {
    caught(CM, ["--logging-format=json"], ["--logging-format=text"], "error", "--logging-format", "doc3.cm-general.logging-format-text-only");
    caught(AGENT, ["--logging-format=json"], ["--logging-format=text"], "error", "--logging-format", "doc3.agent-options.logging-same-as-cm");
  });

  check(
    {
      title: "the alpha logging options need LoggingAlphaOptions (alpha, off by default)",
      rules: [
        "doc3.cm-general.log-info-buffer-gate",
        "doc3.cm-general.log-split-stream-gate",
        "doc3.versioning.gate-logging-alpha-options",
        "doc3.agent-options.logging-same-as-cm",
      ],
    },
    () => {
      caught(
        CM,
        ["--log-text-info-buffer-size=64Ki"],
        ["--log-text-info-buffer-size=64Ki", "--feature-gates=kube:LoggingAlphaOptions=true"],
        "error",
        "--log-text-info-buffer-size",
        "doc3.cm-general.log-info-buffer-gate",
      );
      caught(
        CM,
        ["--log-text-split-stream"],
        ["--log-text-split-stream", "--feature-gates=kube:LoggingAlphaOptions=true"],
        "error",
        "--log-text-split-stream",
        "doc3.cm-general.log-split-stream-gate",
      );
      caught(
        AGENT,
        ["--log-text-split-stream"],
        ["--log-text-split-stream", "--feature-gates=LoggingAlphaOptions=true"],
        "error",
        "--log-text-split-stream",
        "doc3.agent-options.logging-same-as-cm",
      );
      expectFinding(checkFlags(CM, ["--feature-gates=kube:LoggingAlphaOptions=true"]), "warning", "--feature-gates", "doc3.versioning.alpha-gate-enabled");
    },
  );

  check(
    { title: "--version prints and exits; raw and vX.Y.Z are its other forms", rules: ["doc3.cm-general.version-flag-forms", "doc3.versioning.version-flag"] },
    () => {
      caught(CM, ["--version=1.35"], ["--version=v1.35.0"], "error", "--version", "doc3.cm-general.version-flag-forms");
      caught(CM, ["--version"], ["--version=false"], "warning", "--version", "doc3.versioning.version-flag");
      caught(AGENT, ["--version=raw"], [], "warning", "--version", "doc3.versioning.version-flag");
    },
  );
});

describe("controller manager: controller behaviour", () => {
  check({ title: "--allocate-node-cidrs needs --cluster-cidr", rules: ["doc3.cm-behaviour.allocate-cidrs-needs-cluster-cidr"] }, () => {
    caught(
      CM,
      ["--allocate-node-cidrs=true"],
      ["--allocate-node-cidrs=true", "--cluster-cidr=10.244.0.0/16"],
      "error",
      "--allocate-node-cidrs",
      "doc3.cm-behaviour.allocate-cidrs-needs-cluster-cidr",
    );
  });

  check(
    {
      title: "--cluster-cidr and --service-cluster-ip-range only count with --allocate-node-cidrs",
      rules: ["doc3.cm-behaviour.cluster-cidr-only-with-allocate", "doc3.cm-behaviour.service-range-only-with-allocate"],
    },
    () => {
      caught(
        CM,
        ["--cluster-cidr=10.244.0.0/16"],
        ["--cluster-cidr=10.244.0.0/16", "--allocate-node-cidrs"],
        "warning",
        "--cluster-cidr",
        "doc3.cm-behaviour.cluster-cidr-only-with-allocate",
      );
      caught(
        CM,
        ["--service-cluster-ip-range=10.96.0.0/12"],
        ["--service-cluster-ip-range=10.96.0.0/12", "--allocate-node-cidrs", "--cluster-cidr=10.244.0.0/16"],
        "warning",
        "--service-cluster-ip-range",
        "doc3.cm-behaviour.service-range-only-with-allocate",
      );
    },
  );

  check(
    { title: "the node CIDR mask defaults by family; dual-stack uses the per-family masks", rules: ["doc3.cm-behaviour.node-cidr-mask-default-by-family"] },
    () => {
      const hit = caught(
        CM,
        ["--allocate-node-cidrs", "--cluster-cidr=fd00:10:244::/56"],
        ["--allocate-node-cidrs", "--cluster-cidr=fd00:10:244::/56", "--node-cidr-mask-size=80"],
        "note",
        "--node-cidr-mask-size",
        "doc3.cm-behaviour.node-cidr-mask-default-by-family",
      );
      expect(hit.message).toContain("64");
      caught(
        CM,
        ["--allocate-node-cidrs", "--cluster-cidr=10.244.0.0/16,fd00:10:244::/56", "--node-cidr-mask-size=24"],
        ["--allocate-node-cidrs", "--cluster-cidr=10.244.0.0/16,fd00:10:244::/56", "--node-cidr-mask-size-ipv4=24"],
        "warning",
        "--node-cidr-mask-size",
        "doc3.cm-behaviour.node-cidr-mask-default-by-family",
      );
      caught(
        CM,
        ["--allocate-node-cidrs", "--cluster-cidr=10.244.0.0/16", "--node-cidr-mask-size=64"],
        ["--allocate-node-cidrs", "--cluster-cidr=10.244.0.0/16", "--node-cidr-mask-size=26"],
        "error",
        "--node-cidr-mask-size",
        "doc3.cm-behaviour.node-cidr-mask-default-by-family",
      );
    },
  );

  check({ title: "--cidr-allocator-type names a known allocator", rules: ["doc3.cm-behaviour.cidr-allocator-type-values"] }, () => {
    caught(
      CM,
      ["--cidr-allocator-type=Range"],
      ["--cidr-allocator-type=RangeAllocator"],
      "error",
      "--cidr-allocator-type",
      "doc3.cm-behaviour.cidr-allocator-type-values",
    );
  });

  check({ title: "garbage collection must match the API server", rules: ["doc3.cm-behaviour.gc-matches-apiserver"] }, () => {
    caught(
      CM,
      ["--enable-garbage-collector=false"],
      ["--enable-garbage-collector=true"],
      "warning",
      "--enable-garbage-collector",
      "doc3.cm-behaviour.gc-matches-apiserver",
    );
  });

  check(
    {
      title: "the host-path provisioner is test-only and its recycler development-only",
      rules: ["doc3.cm-behaviour.hostpath-provisioner-test-only", "doc3.cm-behaviour.hostpath-recycler-development-only"],
    },
    () => {
      caught(
        CM,
        ["--enable-hostpath-provisioner"],
        ["--enable-hostpath-provisioner=false"],
        "warning",
        "--enable-hostpath-provisioner",
        "doc3.cm-behaviour.hostpath-provisioner-test-only",
      );
      caught(
        CM,
        ["--pv-recycler-pod-template-filepath-hostpath=/r.yaml"],
        ["--pv-recycler-pod-template-filepath-nfs=/r.yaml"],
        "warning",
        "--pv-recycler-pod-template-filepath-hostpath",
        "doc3.cm-behaviour.hostpath-recycler-development-only",
      );
    },
  );

  check({ title: "the attach-detach reconcile period must exceed one second", rules: ["doc3.cm-behaviour.attach-detach-sync-above-1s"] }, () => {
    caught(
      CM,
      ["--attach-detach-reconcile-sync-period=1s"],
      ["--attach-detach-reconcile-sync-period=1001ms"],
      "error",
      "--attach-detach-reconcile-sync-period",
      "doc3.cm-behaviour.attach-detach-sync-above-1s",
    );
    caught(
      CM,
      ["--attach-detach-reconcile-sync-period=500ms"],
      ["--attach-detach-reconcile-sync-period=2s"],
      "error",
      "--attach-detach-reconcile-sync-period",
      "doc3.cm-behaviour.attach-detach-sync-above-1s",
    );
  });

  check(
    { title: "the node monitor grace period exceeds the HTTP/2 ping and read-idle timeouts", rules: ["doc3.cm-behaviour.node-monitor-grace-above-http2"] },
    () => {
      caught(
        CM,
        ["--node-monitor-grace-period=40s"],
        ["--node-monitor-grace-period=50s"],
        "warning",
        "--node-monitor-grace-period",
        "doc3.cm-behaviour.node-monitor-grace-above-http2",
      );
    },
  );

  check(
    {
      title: "the node monitor grace period is a multiple of the node status update frequency",
      rules: ["doc3.cm-behaviour.node-monitor-grace-multiple", "doc3.agent-options.status-frequency-vs-grace"],
    },
    () => {
      caught(
        CM,
        ["--node-monitor-grace-period=55s"],
        ["--node-monitor-grace-period=60s"],
        "warning",
        "--node-monitor-grace-period",
        "doc3.cm-behaviour.node-monitor-grace-multiple",
      );
      caught(
        AGENT,
        ["--node-status-update-frequency=15s"],
        ["--node-status-update-frequency=25s"],
        "warning",
        "--node-status-update-frequency",
        "doc3.agent-options.status-frequency-vs-grace",
      );
      const both = checkBoth(["--node-monitor-grace-period=50s"], ["--node-status-update-frequency=20s"]);
      const hit = both.find((f) => f.daemon === "both" && f.rule === "doc3.cm-behaviour.node-monitor-grace-multiple");
      expect(hit?.severity, show(both)).toBe("error");
      expect(hit?.option).toBe("--node-monitor-grace-period");
      const fine = checkBoth(["--node-monitor-grace-period=60s"], ["--node-status-update-frequency=20s"]);
      expect(
        fine.filter((f) => f.rule === "doc3.cm-behaviour.node-monitor-grace-multiple" || f.rule === "doc3.agent-options.status-frequency-vs-grace"),
        show(fine),
      ).toEqual([]);
      const unknown = checkBoth([], ["--config=/var/lib/kubelet/config.yaml"]);
      expectFinding(unknown, "note", "--node-status-update-frequency", "doc3.agent-options.status-frequency-vs-grace");
    },
  );

  check(
    {
      title: "eviction and zone thresholds carry their conditions",
      rules: [
        "doc3.cm-behaviour.secondary-eviction-small-clusters",
        "doc3.cm-behaviour.large-cluster-per-zone",
        "doc3.cm-behaviour.unhealthy-zone-min-3",
        "doc3.cm-behaviour.unhealthy-zone-fraction",
      ],
    },
    () => {
      caught(
        CM,
        ["--secondary-node-eviction-rate=0.05"],
        ["--secondary-node-eviction-rate=0"],
        "note",
        "--secondary-node-eviction-rate",
        "doc3.cm-behaviour.secondary-eviction-small-clusters",
      );
      caught(CM, ["--large-cluster-size-threshold=100"], [], "note", "--large-cluster-size-threshold", "doc3.cm-behaviour.large-cluster-per-zone");
      caught(CM, ["--unhealthy-zone-threshold=0.7"], [], "note", "--unhealthy-zone-threshold", "doc3.cm-behaviour.unhealthy-zone-min-3");
      caught(
        CM,
        ["--unhealthy-zone-threshold=55"],
        ["--unhealthy-zone-threshold=0.55"],
        "error",
        "--unhealthy-zone-threshold",
        "doc3.cm-behaviour.unhealthy-zone-fraction",
      );
    },
  );

  check({ title: "a terminated-pod threshold of 0 or less turns collection off", rules: ["doc3.cm-behaviour.terminated-pod-gc-nonpositive-disables"] }, () => {
    caught(
      CM,
      ["--terminated-pod-gc-threshold=0"],
      ["--terminated-pod-gc-threshold=1000"],
      "note",
      "--terminated-pod-gc-threshold",
      "doc3.cm-behaviour.terminated-pod-gc-nonpositive-disables",
    );
  });

  check({ title: "disabling force detach needs graceful node shutdown", rules: ["doc3.cm-behaviour.force-detach-needs-graceful-shutdown"] }, () => {
    caught(
      CM,
      ["--disable-force-detach-on-timeout"],
      ["--disable-force-detach-on-timeout=false"],
      "warning",
      "--disable-force-detach-on-timeout",
      "doc3.cm-behaviour.force-detach-needs-graceful-shutdown",
    );
  });
});

describe("controller manager: certificate signing", () => {
  const generic = ["--cluster-signing-cert-file=/pki/ca.crt", "--cluster-signing-key-file=/pki/ca.key"];
  const serving = ["--cluster-signing-kubelet-serving-cert-file=/pki/s.crt", "--cluster-signing-kubelet-serving-key-file=/pki/s.key"];

  check({ title: "the generic signing pair excludes the signer-specific ones", rules: ["doc3.cm-signing.generic-excludes-specific"] }, () => {
    caught(CM, [...generic, ...serving], serving, "error", "--cluster-signing-kubelet-serving-cert-file", "doc3.cm-signing.generic-excludes-specific");
    caught(CM, [...generic, ...serving], generic, "error", "--cluster-signing-kubelet-serving-key-file", "doc3.cm-signing.generic-excludes-specific");
  });

  check({ title: "each signing cert file goes with its key file", rules: ["doc3.cm-signing.cert-key-pairs"] }, () => {
    caught(CM, ["--cluster-signing-cert-file=/pki/ca.crt"], generic, "error", "--cluster-signing-key-file", "doc3.cm-signing.cert-key-pairs");
    caught(
      CM,
      ["--cluster-signing-legacy-unknown-key-file=/pki/l.key"],
      ["--cluster-signing-legacy-unknown-key-file=/pki/l.key", "--cluster-signing-legacy-unknown-cert-file=/pki/l.crt"],
      "error",
      "--cluster-signing-legacy-unknown-cert-file",
      "doc3.cm-signing.cert-key-pairs",
    );
  });

  check({ title: "the signer-specific pairs sign for their signers, with real names", rules: ["doc3.cm-signing.specific-signers"] }, () => {
    const hit = caught(
      CM,
      ["--cluster-signing-kubelet-client-cert-file=/c.crt", "--cluster-signing-kubelet-client-key-file=/c.key"],
      generic,
      "note",
      "--cluster-signing-kubelet-client-cert-file",
      "doc3.cm-signing.specific-signers",
    );
    expect(hit.message).toContain("kubernetes.io/kube-apiserver-client-kubelet");
  });

  check({ title: "the signing duration leaves a lifetime", rules: ["doc3.cm-signing.duration-maximum"] }, () => {
    caught(
      CM,
      ["--cluster-signing-duration=0s"],
      ["--cluster-signing-duration=720h"],
      "error",
      "--cluster-signing-duration",
      "doc3.cm-signing.duration-maximum",
    );
  });

  check(
    { title: "signing options are file paths; the duration is a Go duration", rules: ["doc3.cm-signing.types-defaults", "doc3.options.duration-format"] },
    () => {
      caught(
        CM,
        ["--cluster-signing-duration=365d"],
        ["--cluster-signing-duration=8760h"],
        "error",
        "--cluster-signing-duration",
        "doc3.options.duration-format",
      );
      caught(
        CM,
        ["--cluster-signing-duration=8760h0m0s"],
        ["--cluster-signing-duration=8760h1m0s"],
        "note",
        "--cluster-signing-duration",
        "doc3.cm-signing.types-defaults",
      );
    },
  );
});

describe("node agent", () => {
  check({ title: "deprecated flags point to --config; flags marked not deprecated do not", rules: ["doc3.service.agent-flags-deprecated"] }, () => {
    const hit = caught(AGENT, ["--max-pods=200"], ["--node-labels=env=prod"], "warning", "--max-pods", "doc3.service.agent-flags-deprecated");
    expect(hit.message).toContain("--config");
    for (const name of ["--config", "--kubeconfig", "--hostname-override", "--seccomp-default", "--fail-cgroupv1", "--lock-file"]) {
      expectNoFinding(
        checkFlags(AGENT, [`${name}=${name === "--seccomp-default" || name === "--fail-cgroupv1" ? "true" : "/x"}`]),
        "warning",
        name,
        "doc3.service.agent-flags-deprecated",
      );
    }
  });

  check(
    {
      title: "flags scheduled for removal, and those replaced by eviction flags, are warned about",
      rules: ["doc3.agent-options.removal-scheduled", "doc3.agent-options.gc-flags-use-eviction"],
    },
    () => {
      caught(
        AGENT,
        ["--experimental-mounter-path=/bin/mount"],
        ["--volume-plugin-dir=/v"],
        "warning",
        "--experimental-mounter-path",
        "doc3.agent-options.removal-scheduled",
      );
      caught(
        AGENT,
        ["--experimental-allocatable-ignore-eviction"],
        [],
        "warning",
        "--experimental-allocatable-ignore-eviction",
        "doc3.agent-options.removal-scheduled",
      );
      caught(
        AGENT,
        ["--maximum-dead-containers=100"],
        ["--eviction-hard=memory.available<500Mi"],
        "warning",
        "--maximum-dead-containers",
        "doc3.agent-options.gc-flags-use-eviction",
      );
    },
  );

  check(
    {
      title: "flags override --config; without it built-in defaults apply; --config-dir overrides both",
      rules: ["doc3.service.agent-flags-override-config", "doc3.agent-options.config-flags-override", "doc3.agent-options.config-dir-overrides"],
    },
    () => {
      caught(
        AGENT,
        ["--config=/c.yaml", "--max-pods=200"],
        ["--config=/c.yaml", "--node-labels=a=b"],
        "note",
        "--config",
        "doc3.service.agent-flags-override-config",
      );
      caught(AGENT, ["--max-pods=200"], ["--config=/c.yaml"], "note", "--config", "doc3.agent-options.config-flags-override");
      caught(AGENT, ["--config=/c.yaml", "--config-dir=/c.d"], ["--config=/c.yaml"], "note", "--config-dir", "doc3.agent-options.config-dir-overrides");
    },
  );

  check({ title: "without --kubeconfig the node agent is standalone", rules: ["doc3.agent-options.kubeconfig-mode"] }, () => {
    caught(AGENT, [], ["--kubeconfig=/etc/kubernetes/kubelet.conf"], "note", "--kubeconfig", "doc3.agent-options.kubeconfig-mode");
  });

  check({ title: "--node-ip is one address or a dual-stack pair; :: prefers IPv6", rules: ["doc3.agent-options.node-ip-family"] }, () => {
    caught(AGENT, ["--node-ip=10.0.0.5,10.0.0.6"], ["--node-ip=10.0.0.5,fd00::5"], "error", "--node-ip", "doc3.agent-options.node-ip-family");
    caught(AGENT, ["--node-ip=node-1"], ["--node-ip=10.0.0.5"], "error", "--node-ip", "doc3.agent-options.node-ip-family");
    caught(AGENT, ["--node-ip=::"], ["--node-ip=fd00::5"], "note", "--node-ip", "doc3.agent-options.node-ip-family");
  });

  check(
    { title: "node labels under the reserved domain only with the allowed prefixes or exact keys", rules: ["doc3.agent-options.node-labels-reserved"] },
    () => {
      const allowed =
        "kubernetes.io/hostname=n1,topology.kubernetes.io/zone=z1,node.kubernetes.io/instance-type=m5,kubelet.kubernetes.io/role=w,team.node.kubernetes.io/x=y,example.com/role=worker";
      expect(checkFlags(AGENT, [`--node-labels=${allowed}`]).filter((f) => f.rule === "doc3.agent-options.node-labels-reserved")).toEqual([]);
      for (const bad of ["node-role.kubernetes.io/worker=", "kubernetes.io/role=worker", "foo.k8s.io/bar=1", "node-restriction.kubernetes.io/x=y"]) {
        caught(AGENT, [`--node-labels=${bad}`], [`--node-labels=${allowed}`], "error", "--node-labels", "doc3.agent-options.node-labels-reserved");
      }
    },
  );

  check({ title: "--cloud-provider is empty or external", rules: ["doc3.agent-options.cloud-provider-values"] }, () => {
    caught(AGENT, ["--cloud-provider=aws"], ["--cloud-provider=external"], "error", "--cloud-provider", "doc3.agent-options.cloud-provider-values");
  });

  check(
    { title: "--register-with-taints is <key>=<value>:<effect>, useless without registration", rules: ["doc3.agent-options.register-with-taints-format"] },
    () => {
      caught(
        AGENT,
        ["--register-with-taints=dedicated=gpu"],
        ["--register-with-taints=dedicated=gpu:NoSchedule,spot:PreferNoSchedule"],
        "error",
        "--register-with-taints",
        "doc3.agent-options.register-with-taints-format",
      );
      caught(
        AGENT,
        ["--register-with-taints=dedicated=gpu:NoRun"],
        ["--register-with-taints=dedicated=gpu:NoExecute"],
        "error",
        "--register-with-taints",
        "doc3.agent-options.register-with-taints-format",
      );
      caught(
        AGENT,
        ["--register-with-taints=a=b:NoSchedule", "--register-node=false"],
        ["--register-with-taints=a=b:NoSchedule"],
        "warning",
        "--register-with-taints",
        "doc3.agent-options.register-with-taints-format",
      );
    },
  );

  check(
    {
      title: "port 0 turns the read-only and health servers off",
      rules: ["doc3.agent-options.read-only-port-zero-disables", "doc3.agent-options.healthz-port-zero-disables"],
    },
    () => {
      caught(AGENT, ["--read-only-port=0"], ["--read-only-port=10255"], "note", "--read-only-port", "doc3.agent-options.read-only-port-zero-disables");
      caught(AGENT, ["--healthz-port=0"], ["--healthz-port=10248"], "note", "--healthz-port", "doc3.agent-options.healthz-port-zero-disables");
    },
  );

  check({ title: "anonymous requests with AlwaysAllow authorization are warned about", rules: ["doc3.auth.agent-anonymous-always-allow"] }, () => {
    caught(AGENT, [], ["--anonymous-auth=false", "--authorization-mode=Webhook"], "warning", "--anonymous-auth", "doc3.auth.agent-anonymous-always-allow");
    caught(
      AGENT,
      ["--authorization-mode=AlwaysAllow"],
      ["--authorization-mode=Webhook"],
      "warning",
      "--anonymous-auth",
      "doc3.auth.agent-anonymous-always-allow",
    );
  });

  check(
    {
      title: "enum options take their listed values",
      rules: [
        "doc3.agent-options.authorization-mode-values",
        "doc3.agent-options.cgroup-driver-values",
        "doc3.agent-options.cpu-manager-policy-values",
        "doc3.agent-options.memory-manager-policy-values",
        "doc3.agent-options.topology-manager-policy-values",
        "doc3.agent-options.topology-manager-scope-values",
        "doc3.agent-options.hairpin-mode-values",
        "doc3.agent-options.tls-min-version-values",
      ],
    },
    () => {
      caught(
        AGENT,
        ["--authorization-mode=RBAC"],
        ["--authorization-mode=Webhook"],
        "error",
        "--authorization-mode",
        "doc3.agent-options.authorization-mode-values",
      );
      caught(AGENT, ["--cgroup-driver=system"], ["--cgroup-driver=systemd"], "error", "--cgroup-driver", "doc3.agent-options.cgroup-driver-values");
      caught(
        AGENT,
        ["--cpu-manager-policy=Static"],
        ["--cpu-manager-policy=static"],
        "error",
        "--cpu-manager-policy",
        "doc3.agent-options.cpu-manager-policy-values",
      );
      caught(
        AGENT,
        ["--memory-manager-policy=static"],
        ["--memory-manager-policy=Static"],
        "error",
        "--memory-manager-policy",
        "doc3.agent-options.memory-manager-policy-values",
      );
      caught(
        AGENT,
        ["--topology-manager-policy=best_effort"],
        ["--topology-manager-policy=best-effort"],
        "error",
        "--topology-manager-policy",
        "doc3.agent-options.topology-manager-policy-values",
      );
      caught(
        AGENT,
        ["--topology-manager-scope=node"],
        ["--topology-manager-scope=pod"],
        "error",
        "--topology-manager-scope",
        "doc3.agent-options.topology-manager-scope-values",
      );
      caught(AGENT, ["--hairpin-mode=veth"], ["--hairpin-mode=hairpin-veth"], "error", "--hairpin-mode", "doc3.agent-options.hairpin-mode-values");
      caught(
        AGENT,
        ["--tls-min-version=VersionTLS14"],
        ["--tls-min-version=VersionTLS13"],
        "error",
        "--tls-min-version",
        "doc3.agent-options.tls-min-version-values",
      );
    },
  );

  check(
    {
      title: "--rotate-server-certificates needs RotateKubeletServerCertificate (beta, on by default)",
      rules: ["doc3.agent-options.rotate-server-certs-gate", "doc3.versioning.gate-rotate-agent-server-certificate"],
    },
    () => {
      caught(
        AGENT,
        ["--rotate-server-certificates", "--feature-gates=RotateKubeletServerCertificate=false"],
        ["--rotate-server-certificates"],
        "error",
        "--rotate-server-certificates",
        "doc3.agent-options.rotate-server-certs-gate",
      );
      expectFinding(
        checkFlags(AGENT, ["--feature-gates=RotateKubeletServerCertificate=true"]),
        "note",
        "--feature-gates",
        "doc3.versioning.beta-on-default-true",
      );
    },
  );

  check(
    { title: "--qos-reserved needs QOSReserved (alpha, off by default)", rules: ["doc3.agent-options.qos-reserved-gate", "doc3.versioning.gate-qos-reserved"] },
    () => {
      caught(
        AGENT,
        ["--qos-reserved=memory=50%"],
        ["--qos-reserved=memory=50%", "--feature-gates=QOSReserved=true"],
        "error",
        "--qos-reserved",
        "doc3.agent-options.qos-reserved-gate",
      );
      expectFinding(checkFlags(AGENT, ["--feature-gates=QOSReserved=true"]), "warning", "--feature-gates", "doc3.versioning.alpha-gate-enabled");
    },
  );

  check(
    {
      title: "the streaming idle timeout: 0 is none, and connections end after 4 hours anyway",
      rules: ["doc3.agent-options.streaming-idle-zero-none", "doc3.limits.agent-connection-max-4h"],
    },
    () => {
      caught(
        AGENT,
        ["--streaming-connection-idle-timeout=0"],
        ["--streaming-connection-idle-timeout=30m"],
        "note",
        "--streaming-connection-idle-timeout",
        "doc3.agent-options.streaming-idle-zero-none",
      );
      caught(
        AGENT,
        ["--streaming-connection-idle-timeout=8h"],
        ["--streaming-connection-idle-timeout=4h0m0s"],
        "warning",
        "--streaming-connection-idle-timeout",
        "doc3.limits.agent-connection-max-4h",
      );
    },
  );

  check({ title: "runtime endpoints are unix sockets on Linux (npipe and tcp on Windows)", rules: ["doc3.agent-options.runtime-endpoint-schemes"] }, () => {
    caught(
      AGENT,
      ["--container-runtime-endpoint=http://127.0.0.1:3000"],
      ["--container-runtime-endpoint=unix:///run/containerd/containerd.sock"],
      "error",
      "--container-runtime-endpoint",
      "doc3.agent-options.runtime-endpoint-schemes",
    );
    caught(
      AGENT,
      ["--container-runtime-endpoint=/run/containerd/containerd.sock"],
      ["--container-runtime-endpoint=unix:///run/containerd/containerd.sock"],
      "warning",
      "--container-runtime-endpoint",
      "doc3.agent-options.runtime-endpoint-schemes",
    );
    caught(
      AGENT,
      ["--image-service-endpoint=npipe:////./pipe/containerd"],
      ["--image-service-endpoint=unix:///run/containerd/containerd.sock"],
      "warning",
      "--image-service-endpoint",
      "doc3.agent-options.runtime-endpoint-schemes",
    );
  });

  check(
    {
      title: "reserved resources: cpu, memory, pid, ephemeral-storage; --reserved-cpus supersedes cpu",
      rules: ["doc3.agent-options.kube-reserved-resources", "doc3.agent-options.system-reserved-resources", "doc3.agent-options.reserved-cpus-supersedes"],
    },
    () => {
      caught(
        AGENT,
        ["--kube-reserved=cpu=500m,gpu=1"],
        ["--kube-reserved=cpu=500m,memory=1Gi,pid=1000,ephemeral-storage=1Gi"],
        "error",
        "--kube-reserved",
        "doc3.agent-options.kube-reserved-resources",
      );
      // A name the option does not accept, as for --kube-reserved: not only a bad quantity.
      caught(
        AGENT,
        ["--system-reserved=cpu=500m,gpu=1"],
        ["--system-reserved=cpu=500m,memory=1Gi,pid=1000,ephemeral-storage=1Gi"],
        "error",
        "--system-reserved",
        "doc3.agent-options.system-reserved-resources",
      );
      caught(
        AGENT,
        ["--system-reserved=memory=lots"],
        ["--system-reserved=memory=512Mi"],
        "error",
        "--system-reserved",
        "doc3.agent-options.system-reserved-resources",
      );
      caught(
        AGENT,
        ["--reserved-cpus=0-1", "--kube-reserved=cpu=500m"],
        ["--reserved-cpus=0-1", "--kube-reserved=memory=1Gi"],
        "note",
        "--reserved-cpus",
        "doc3.agent-options.reserved-cpus-supersedes",
      );
    },
  );

  check(
    {
      title: "--reserved-memory sums match kube-reserved, system-reserved and the hard eviction threshold",
      rules: ["doc3.agent-options.reserved-memory-sums"],
    },
    () => {
      const base = ["--kube-reserved=memory=1Gi", "--system-reserved=memory=512Mi", "--eviction-hard=memory.available<512Mi"];
      caught(
        AGENT,
        [...base, "--reserved-memory=0:memory=1Gi;1:memory=512Mi"],
        [...base, "--reserved-memory=0:memory=1Gi", "--reserved-memory=1:memory=1Gi"],
        "error",
        "--reserved-memory",
        "doc3.agent-options.reserved-memory-sums",
      );
      caught(
        AGENT,
        ["--kube-reserved=memory=1Gi", "--reserved-memory=0:memory=2Gi"],
        ["--kube-reserved=memory=1Gi", "--reserved-memory=0:memory=1Gi"],
        "warning",
        "--reserved-memory",
        "doc3.agent-options.reserved-memory-sums",
      );
    },
  );

  check(
    {
      title: "--enforce-node-allocatable: listed values, none alone, reserved variants need their cgroups",
      rules: [
        "doc3.agent-options.enforce-allocatable-values",
        "doc3.agent-options.enforce-allocatable-none-alone",
        "doc3.agent-options.enforce-allocatable-needs-cgroups",
      ],
    },
    () => {
      caught(
        AGENT,
        ["--enforce-node-allocatable=pods,node"],
        ["--enforce-node-allocatable=pods"],
        "error",
        "--enforce-node-allocatable",
        "doc3.agent-options.enforce-allocatable-values",
      );
      caught(
        AGENT,
        ["--enforce-node-allocatable=none,pods"],
        ["--enforce-node-allocatable=none"],
        "error",
        "--enforce-node-allocatable",
        "doc3.agent-options.enforce-allocatable-none-alone",
      );
      caught(
        AGENT,
        ["--enforce-node-allocatable=pods,kube-reserved-compressible"],
        ["--enforce-node-allocatable=pods,kube-reserved-compressible", "--kube-reserved-cgroup=/kube.slice"],
        "error",
        "--enforce-node-allocatable",
        "doc3.agent-options.enforce-allocatable-needs-cgroups",
      );
      caught(
        AGENT,
        ["--enforce-node-allocatable=system-reserved"],
        ["--enforce-node-allocatable=system-reserved", "--system-reserved-cgroup=/system.slice"],
        "error",
        "--enforce-node-allocatable",
        "doc3.agent-options.enforce-allocatable-needs-cgroups",
      );
    },
  );

  check(
    {
      title: "image garbage collection thresholds: 0 to 100, low below high",
      rules: ["doc3.agent-options.image-gc-high-range", "doc3.agent-options.image-gc-low-below-high"],
    },
    () => {
      caught(
        AGENT,
        ["--image-gc-high-threshold=101"],
        ["--image-gc-high-threshold=90"],
        "error",
        "--image-gc-high-threshold",
        "doc3.agent-options.image-gc-high-range",
      );
      caught(
        AGENT,
        ["--image-gc-high-threshold=100"],
        ["--image-gc-high-threshold=95"],
        "note",
        "--image-gc-high-threshold",
        "doc3.agent-options.image-gc-high-range",
      );
      caught(
        AGENT,
        ["--image-gc-low-threshold=90"],
        ["--image-gc-low-threshold=70"],
        "error",
        "--image-gc-low-threshold",
        "doc3.agent-options.image-gc-low-below-high",
      );
      caught(
        AGENT,
        ["--image-gc-high-threshold=70", "--image-gc-low-threshold=75"],
        ["--image-gc-high-threshold=80", "--image-gc-low-threshold=75"],
        "error",
        "--image-gc-low-threshold",
        "doc3.agent-options.image-gc-low-below-high",
      );
      caught(
        AGENT,
        ["--image-gc-low-threshold=-5"],
        ["--image-gc-low-threshold=5"],
        "error",
        "--image-gc-low-threshold",
        "doc3.agent-options.image-gc-low-below-high",
      );
    },
  );

  check({ title: "--oom-score-adj is within -1000 to 1000", rules: ["doc3.agent-options.oom-score-adj-range"] }, () => {
    caught(AGENT, ["--oom-score-adj=-1001"], ["--oom-score-adj=-1000"], "error", "--oom-score-adj", "doc3.agent-options.oom-score-adj-range");
    caught(AGENT, ["--oom-score-adj=1001"], ["--oom-score-adj=1000"], "error", "--oom-score-adj", "doc3.agent-options.oom-score-adj-range");
  });

  check({ title: "--container-log-max-files is at least 2", rules: ["doc3.agent-options.container-log-max-files-min-2"] }, () => {
    caught(
      AGENT,
      ["--container-log-max-files=1"],
      ["--container-log-max-files=2"],
      "error",
      "--container-log-max-files",
      "doc3.agent-options.container-log-max-files-min-2",
    );
  });

  check({ title: "--runonce excludes the server", rules: ["doc3.agent-options.runonce-excludes-server"] }, () => {
    caught(AGENT, ["--runonce"], ["--runonce", "--enable-server=false"], "error", "--runonce", "doc3.agent-options.runonce-excludes-server");
    caught(AGENT, ["--runonce=true", "--enable-server=true"], ["--runonce=false"], "error", "--runonce", "doc3.agent-options.runonce-excludes-server");
  });

  check(
    {
      title: "special values explain themselves: negative grace, dead containers, pids, images, volume stats",
      rules: [
        "doc3.agent-options.eviction-max-pod-grace-negative",
        "doc3.agent-options.max-dead-containers-negative",
        "doc3.agent-options.pod-max-pids-default",
        "doc3.agent-options.node-status-max-images",
        "doc3.agent-options.volume-stats-negative-disables",
        "doc3.agent-options.pods-per-core-capped",
      ],
    },
    () => {
      caught(
        AGENT,
        ["--eviction-max-pod-grace-period=-1"],
        ["--eviction-max-pod-grace-period=30"],
        "note",
        "--eviction-max-pod-grace-period",
        "doc3.agent-options.eviction-max-pod-grace-negative",
      );
      caught(
        AGENT,
        ["--maximum-dead-containers=-1"],
        ["--maximum-dead-containers=10"],
        "note",
        "--maximum-dead-containers",
        "doc3.agent-options.max-dead-containers-negative",
      );
      caught(AGENT, ["--pod-max-pids=-1"], ["--pod-max-pids=4096"], "note", "--pod-max-pids", "doc3.agent-options.pod-max-pids-default");
      caught(AGENT, ["--pod-max-pids=-2"], ["--pod-max-pids=4096"], "error", "--pod-max-pids", "doc3.agent-options.pod-max-pids-default");
      caught(
        AGENT,
        ["--node-status-max-images=-1"],
        ["--node-status-max-images=100"],
        "note",
        "--node-status-max-images",
        "doc3.agent-options.node-status-max-images",
      );
      caught(
        AGENT,
        ["--node-status-max-images=-2"],
        ["--node-status-max-images=0"],
        "error",
        "--node-status-max-images",
        "doc3.agent-options.node-status-max-images",
      );
      caught(
        AGENT,
        ["--volume-stats-agg-period=-1s"],
        ["--volume-stats-agg-period=2m"],
        "note",
        "--volume-stats-agg-period",
        "doc3.agent-options.volume-stats-negative-disables",
      );
      caught(AGENT, ["--pods-per-core=10"], ["--pods-per-core=0"], "note", "--pods-per-core", "doc3.agent-options.pods-per-core-capped");
    },
  );

  check({ title: "--pod-cidr is for standalone mode; IPv6 yields at most 65536 addresses", rules: ["doc3.agent-options.pod-cidr-standalone"] }, () => {
    caught(
      AGENT,
      ["--pod-cidr=10.244.1.0/24", "--kubeconfig=/k.conf"],
      ["--pod-cidr=10.244.1.0/24"],
      "warning",
      "--pod-cidr",
      "doc3.agent-options.pod-cidr-standalone",
    );
    caught(AGENT, ["--pod-cidr=fd00:10:244:1::/64"], ["--pod-cidr=fd00:10:244:1::/112"], "note", "--pod-cidr", "doc3.agent-options.pod-cidr-standalone");
  });

  check(
    {
      title: "rates of 0 mean their fallbacks, and registry burst needs a registry rate",
      rules: [
        "doc3.agent-options.kube-api-qps-zero",
        "doc3.agent-options.kube-api-burst-zero",
        "doc3.agent-options.event-qps-zero",
        "doc3.agent-options.event-burst-zero",
        "doc3.agent-options.registry-qps-zero-unlimited",
        "doc3.agent-options.registry-burst-needs-qps",
      ],
    },
    () => {
      caught(AGENT, ["--kube-api-qps=0"], ["--kube-api-qps=100"], "note", "--kube-api-qps", "doc3.agent-options.kube-api-qps-zero");
      caught(AGENT, ["--kube-api-burst=0"], ["--kube-api-burst=200"], "note", "--kube-api-burst", "doc3.agent-options.kube-api-burst-zero");
      caught(AGENT, ["--event-qps=0"], ["--event-qps=10"], "note", "--event-qps", "doc3.agent-options.event-qps-zero");
      caught(AGENT, ["--event-burst=0"], ["--event-burst=20"], "note", "--event-burst", "doc3.agent-options.event-burst-zero");
      caught(AGENT, ["--registry-qps=0"], ["--registry-qps=10"], "note", "--registry-qps", "doc3.agent-options.registry-qps-zero-unlimited");
      caught(
        AGENT,
        ["--registry-qps=0", "--registry-burst=20"],
        ["--registry-qps=10", "--registry-burst=20"],
        "warning",
        "--registry-burst",
        "doc3.agent-options.registry-burst-needs-qps",
      );
    },
  );

  check({ title: "unsafe sysctls are names or patterns ending in *", rules: ["doc3.agent-options.unsafe-sysctls-patterns"] }, () => {
    caught(
      AGENT,
      ["--allowed-unsafe-sysctls=net.*.ipv4"],
      ["--allowed-unsafe-sysctls=kernel.msg*,net.core.somaxconn"],
      "error",
      "--allowed-unsafe-sysctls",
      "doc3.agent-options.unsafe-sysctls-patterns",
    );
  });

  check({ title: "values the --config file may set are not assumed from doc3's defaults", rules: ["doc3.agent-options.config-flags-override"] }, () => {
    // With --config, runonce's partner --enable-server may be false in the file: no error can be claimed.
    expectNoFinding(checkFlags(AGENT, ["--config=/c.yaml", "--runonce"]), "error", "--runonce", "doc3.agent-options.runonce-excludes-server");
    expectNoFinding(checkFlags(AGENT, ["--config=/c.yaml"]), "warning", "--anonymous-auth", "doc3.auth.agent-anonymous-always-allow");
    expectFinding(checkFlags(AGENT, ["--runonce"]), "error", "--runonce", "doc3.agent-options.runonce-excludes-server");
  });
});

describe("feature gates", () => {
  check({ title: "gates take true or false", rules: ["doc3.versioning.gate-values-bool"] }, () => {
    caught(CM, ["--feature-gates=kube:WatchList=yes"], ["--feature-gates=kube:WatchList=true"], "error", "--feature-gates", "doc3.versioning.gate-values-bool");
    caught(AGENT, ["--feature-gates=WatchList=on"], ["--feature-gates=WatchList=false"], "error", "--feature-gates", "doc3.versioning.gate-values-bool");
  });

  check(
    { title: "the node agent writes gates without a component", rules: ["doc3.versioning.agent-gate-syntax", "doc3.agent-options.feature-gates-syntax"] },
    () => {
      caught(
        AGENT,
        ["--feature-gates=kube:WatchList=true"],
        ["--feature-gates=WatchList=true"],
        "error",
        "--feature-gates",
        "doc3.versioning.agent-gate-syntax",
      );
      caught(AGENT, ["--feature-gates=WatchList"], ["--feature-gates=WatchList=true"], "error", "--feature-gates", "doc3.agent-options.feature-gates-syntax");
    },
  );

  check({ title: "unknown gate names are errors, with the closest known name", rules: ["doc3.versioning.gate-known-names"] }, () => {
    const hit = caught(
      CM,
      ["--feature-gates=kube:WatchLists=true"],
      ["--feature-gates=kube:WatchList=true"],
      "error",
      "--feature-gates",
      "doc3.versioning.gate-known-names",
    );
    expect(hit.message).toContain("WatchList");
  });

  check({ title: "gates are written with their real names: Kubelet, not doc3's Agent", rules: ["doc3.versioning.agent-gate-name-prefix"] }, () => {
    const hit = caught(
      AGENT,
      ["--feature-gates=AgentPSI=true"],
      ["--feature-gates=KubeletPSI=true"],
      "error",
      "--feature-gates",
      "doc3.versioning.agent-gate-name-prefix",
    );
    expect(hit.message).toContain("KubeletPSI");
    caught(
      CM,
      ["--feature-gates=kube:RotateAgentServerCertificate=true"],
      ["--feature-gates=kube:RotateKubeletServerCertificate=true"],
      "error",
      "--feature-gates",
      "doc3.versioning.agent-gate-name-prefix",
    );
  });

  check(
    { title: "every beta, default-on gate is known and on by default", rules: ["doc3.versioning.beta-on-gate-list", "doc3.versioning.beta-on-default-true"] },
    () => {
      for (const name of BETA_ON_GATES.map(realGateName)) {
        const fs = checkFlags(AGENT, [`--feature-gates=${name}=true`]);
        expect(errorsOf(fs), name).toEqual([]);
        expect(fs.find((f) => f.rule === "doc3.versioning.beta-on-default-true")?.message, name).toMatch(/is the default/);
      }
    },
  );

  check(
    {
      title: "every beta, default-off gate is known and off by default",
      rules: ["doc3.versioning.beta-off-gate-list", "doc3.versioning.beta-off-default-false"],
    },
    () => {
      for (const name of BETA_OFF_GATES.map(realGateName)) {
        const fs = checkFlags(CM, [`--feature-gates=kube:${name}=false`]);
        expect(errorsOf(fs), name).toEqual([]);
        expect(fs.find((f) => f.rule === "doc3.versioning.beta-off-default-false")?.message, name).toMatch(/is the default/);
      }
    },
  );

  check(
    {
      title: "every alpha gate is known and off by default; turning one on is warned about",
      rules: ["doc3.versioning.alpha-gate-list", "doc3.versioning.alpha-default-false", "doc3.versioning.alpha-gate-enabled"],
    },
    () => {
      for (const name of ALPHA_GATES.map(realGateName)) {
        expectFinding(checkFlags(AGENT, [`--feature-gates=${name}=false`]), "note", "--feature-gates", "doc3.versioning.alpha-default-false");
        const on = checkFlags(CM, [`--feature-gates=kube:${name}=true`]);
        expect(errorsOf(on), name).toEqual([]);
        expectFinding(on, "warning", "--feature-gates", "doc3.versioning.alpha-gate-enabled");
      }
    },
  );

  check(
    {
      title: "AllAlpha turns every alpha gate on, AllBeta sets every beta gate",
      rules: ["doc3.versioning.all-alpha-meta-gate", "doc3.versioning.all-beta-meta-gate", "doc3.versioning.alpha-gate-enabled"],
    },
    () => {
      caught(
        CM,
        ["--feature-gates=kube:AllAlpha=true"],
        ["--feature-gates=kube:AllAlpha=false"],
        "warning",
        "--feature-gates",
        "doc3.versioning.alpha-gate-enabled",
      );
      expectFinding(checkFlags(CM, ["--feature-gates=kube:AllAlpha=false"]), "note", "--feature-gates", "doc3.versioning.all-alpha-meta-gate");
      // AllAlpha=true switches on LoggingAlphaOptions, which the split-stream option needs.
      caught(
        CM,
        ["--log-text-split-stream"],
        ["--log-text-split-stream", "--feature-gates=kube:AllAlpha=true"],
        "error",
        "--log-text-split-stream",
        "doc3.cm-general.log-split-stream-gate",
      );
      // AllBeta=false switches off RemoteRequestHeaderUID (beta), unless it is set by name.
      caught(
        CM,
        ["--requestheader-uid-headers=X-Uid", "--feature-gates=kube:AllBeta=false"],
        ["--requestheader-uid-headers=X-Uid", "--feature-gates=kube:AllBeta=false,kube:RemoteRequestHeaderUID=true"],
        "error",
        "--requestheader-uid-headers",
        "doc3.cm-general.requestheader-uid-headers-gate",
      );
      expectFinding(checkFlags(CM, ["--feature-gates=kube:AllBeta=true"]), "note", "--feature-gates", "doc3.versioning.all-beta-meta-gate");
    },
  );

  check(
    {
      title: "the gates other documents rely on have doc3's stage and default",
      rules: [
        "doc3.versioning.gate-api-response-compression",
        "doc3.versioning.gate-list-from-cache-snapshot",
        "doc3.versioning.gate-watch-list",
        "doc3.versioning.gate-cbor-serving-and-storage",
        "doc3.versioning.gate-allow-unsafe-malformed-object-deletion",
        "doc3.versioning.gate-clients-allow-cbor",
        "doc3.versioning.gate-clients-prefer-cbor",
      ],
    },
    () => {
      for (const name of ["APIResponseCompression", "ListFromCacheSnapshot", "WatchList"]) {
        expectFinding(checkFlags(CM, [`--feature-gates=kube:${name}=true`]), "note", "--feature-gates", "doc3.versioning.beta-on-default-true");
      }
      for (const name of ["CBORServingAndStorage", "AllowUnsafeMalformedObjectDeletion", "ClientsAllowCBOR", "ClientsPreferCBOR"]) {
        expectFinding(checkFlags(CM, [`--feature-gates=kube:${name}=true`]), "warning", "--feature-gates", "doc3.versioning.alpha-gate-enabled");
      }
    },
  );
});

describe("catalog", () => {
  check(
    {
      title: "both daemons' tables are complete in the catalog",
      rules: [
        "doc3.cm-general.types-defaults",
        "doc3.cm-concurrency.types-defaults",
        "doc3.cm-behaviour.types-defaults",
        "doc3.cm-signing.types-defaults",
        "doc3.agent-options.types-defaults",
      ],
    },
    () => {
      expect(catalogs["controller-manager"].tables.map((t) => t.options.length)).toEqual([63, 20, 50, 11]);
      expect(catalogs["node-agent"].tables.map((t) => t.options.length)).toEqual([128]);
    },
  );
});

describe("credential provider config directory", () => {
  const OPT = "--image-credential-provider-config";
  const RULE = "doc3.agent-options.credential-config-merge-order";

  check({ title: "a directory is merged in byte-wise lexicographic order, only its own .json/.yaml/.yml files, not recursively", rules: [RULE] }, () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-credcfg-"));
    for (const f of ["b.yaml", "a.json", "B.yml", "notes.txt", "z.yaml", "é.yaml"]) writeFileSync(join(dir, f), "kind: CredentialProviderConfig\n");
    mkdirSync(join(dir, "nested.yaml"));
    writeFileSync(join(dir, "nested.yaml", "inner.yaml"), "");
    const fs = checkFlags(AGENT, [`${OPT}=${dir}`]);
    expectFinding(fs, "note", OPT, RULE);
    const notes = fs.filter((f) => f.rule === RULE).map((f) => f.message);
    expect(notes).toContain(`the directory ${dir} is merged in this order: B.yml, a.json, b.yaml, z.yaml, é.yaml`);
    expect(notes).toContain("nested.yaml/ is not read: a subdirectory: the directory is not read recursively");
    expect(notes).toContain("notes.txt is not read: not a .json, .yaml or .yml file");
    expect(notes.join("\n")).not.toMatch(/inner\.yaml/);
  });

  check({ title: "a directory without any config file is an error; a single file names no order", rules: [RULE] }, () => {
    const empty = checkFlags(AGENT, [`${OPT}=/etc/creds`], { readDir: () => [{ name: "README", isDirectory: false }] });
    expect(expectFinding(empty, "error", OPT, RULE).message).toMatch(/holds no \.json, \.yaml or \.yml file/);
    const file = checkFlags(AGENT, [`${OPT}=/etc/creds.yaml`], { readDir: () => undefined });
    expectNoFinding(file, "note", OPT, RULE);
    expectNoFinding(file, "error", OPT, RULE);
  });
});

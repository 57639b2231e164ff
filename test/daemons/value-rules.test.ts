/**
 * The checker's value rules (lib/daemons/checker/values.ts) with the words `tollgate flags check`
 * prints: what doc3 asks of a value beyond its form (address families, label names, reserved
 * resources, QoS percentages, eviction signals and thresholds, cipher suites), and the notes on
 * a value written at its default in another spelling.
 */
import { describe, expect, it } from "vitest";
import type { Daemon } from "../../lib/daemons/catalog/index.js";
import { checkFlags } from "../../lib/daemons/checker/index.js";

/** Errors and notes on the option of `arg` (given with `extra`), as "severity [rule] message". */
const said = (daemon: Daemon, arg: string, extra: string[] = []): string[] => {
  const option = arg.slice(0, arg.indexOf("=")) || arg;
  return checkFlags(daemon, [arg, ...extra])
    .filter((f) => f.option === option && f.severity !== "warning")
    .map((f) => `${f.severity} [${f.rule}] ${f.message}`);
};
const AGENT = "node-agent";
const CM = "controller-manager";
const TYPES = "doc3.agent-options.types-defaults";

describe("value rules", () => {
  it("--node-ip: at most one address per family", () => {
    expect(said(AGENT, "--node-ip=10.0.0.1,::1")).toEqual([]);
    expect(said(AGENT, "--node-ip=10.0.0.1")).toEqual([]);
    expect(said(AGENT, "--node-ip=::1,::2")).toEqual([
      "error [doc3.agent-options.node-ip-family] --node-ip=::1,::2: a dual-stack pair needs one IPv4 and one IPv6 address",
    ]);
    expect(said(AGENT, "--node-ip=10.0.0.1,10.0.0.2")).toEqual([
      "error [doc3.agent-options.node-ip-family] --node-ip=10.0.0.1,10.0.0.2: a dual-stack pair needs one IPv4 and one IPv6 address",
    ]);
    expect(said(AGENT, "--node-ip=10.0.0.1,::1,10.0.0.2")).toEqual([
      "error [doc3.agent-options.node-ip-family] --node-ip=10.0.0.1,::1,10.0.0.2: at most two addresses (one per family, for dual-stack)",
    ]);
  });

  it("labels: a qualified name and a label value", () => {
    expect(said(AGENT, "--node-labels=a=b,example.com/x=y")).toEqual([]);
    expect(said(AGENT, "--node-labels=Bad Key=v")).toEqual([
      `error [${TYPES}] --node-labels=Bad Key=v: label "Bad Key": name part must be 1-63 characters, alphanumeric at both ends, with -, _ or . inside`,
    ]);
    expect(said(AGENT, "--node-labels=a=b,c=d e")).toEqual([
      `error [${TYPES}] --node-labels=a=b,c=d e: label "d e" is not a label value (at most 63 characters, alphanumeric at both ends, with -, _ or . inside)`,
    ]);
  });

  it("reserved resources: a known name and a quantity that is not negative", () => {
    const rule = "doc3.agent-options.kube-reserved-resources";
    expect(said(AGENT, "--kube-reserved=cpu=0")).toEqual([]);
    expect(said(AGENT, "--kube-reserved=cpu=-1")).toEqual([`error [${rule}] --kube-reserved=cpu=-1: cpu: must not be negative`]);
    expect(said(AGENT, "--kube-reserved=memory=lots")).toEqual([
      `error [${rule}] --kube-reserved=memory=lots: memory: "lots" is not a quantity (forms like 100, 500m, 10Mi, 1Gi, 1e3)`,
    ]);
    expect(said(AGENT, "--kube-reserved=gpu=1")).toEqual([
      `error [${rule}] --kube-reserved=gpu=1: resource "gpu" is not one of cpu, memory, pid, ephemeral-storage`,
    ]);
  });

  it("--qos-reserved: memory only, a whole percentage up to 100%", () => {
    const gate = ["--feature-gates=QOSReserved=true"];
    expect(said(AGENT, "--qos-reserved=memory=100%", gate)).toEqual([]);
    expect(said(AGENT, "--qos-reserved=memory=0%", gate)).toEqual([]);
    expect(said(AGENT, "--qos-reserved=cpu=50%", gate)).toEqual([
      `error [${TYPES}] --qos-reserved=cpu=50%: only memory can be reserved per QoS level, not "cpu"`,
    ]);
    for (const bad of ["101%", "x50%", "50%x", "50", "5.5%"]) {
      expect(said(AGENT, `--qos-reserved=memory=${bad}`, gate), bad).toEqual([
        `error [${TYPES}] --qos-reserved=memory=${bad}: "${bad}" is not a percentage 0% to 100%`,
      ]);
    }
  });

  it("eviction thresholds: a known signal, then a quantity or a percentage up to 100%", () => {
    for (const good of ["memory.available<100Mi", "memory.available<100%", "nodefs.available<1.5%", "pid.available<0%"]) {
      expect(said(AGENT, `--eviction-hard=${good}`), good).toEqual([]);
    }
    expect(said(AGENT, "--eviction-hard=memory.avail<1Gi")).toEqual([
      `error [${TYPES}] --eviction-hard=memory.avail<1Gi: unknown eviction signal "memory.avail" (did you mean memory.available?)`,
    ]);
    expect(said(AGENT, "--eviction-hard=zzzzzzzz<1")).toEqual([`error [${TYPES}] --eviction-hard=zzzzzzzz<1: unknown eviction signal "zzzzzzzz"`]);
    expect(said(AGENT, "--eviction-hard=memory.available<101%")).toEqual([
      `error [${TYPES}] --eviction-hard=memory.available<101%: memory.available: "101%" is above 100%`,
    ]);
    expect(said(AGENT, "--eviction-hard=memory.available<100.5%")).toEqual([
      `error [${TYPES}] --eviction-hard=memory.available<100.5%: memory.available: "100.5%" is above 100%`,
    ]);
    for (const bad of ["1.%", "x5%", "5%x", "1.x%"]) {
      expect(said(AGENT, `--eviction-hard=memory.available<${bad}`), bad).toEqual([
        `error [${TYPES}] --eviction-hard=memory.available<${bad}: memory.available: "${bad}" is not a quantity (forms like 100, 500m, 10Mi, 1Gi, 1e3)`,
      ]);
    }
    expect(said(AGENT, "--eviction-hard=memory.available")).toEqual([
      `error [${TYPES}] --eviction-hard=memory.available: "memory.available" is malformed: expected key<value`,
    ]);
  });

  it("eviction grace periods take durations, minimum reclaims quantities, both after = and a known signal", () => {
    expect(said(AGENT, "--eviction-soft-grace-period=memory.available=1m")).toEqual([]);
    expect(said(AGENT, "--eviction-soft-grace-period=memory.available=10")).toEqual([
      `error [${TYPES}] --eviction-soft-grace-period=memory.available=10: memory.available: "10" is not a Go duration (forms like 10s, 1m0s, 1h30m, 100ms)`,
    ]);
    expect(said(AGENT, "--eviction-soft-grace-period=nodefs.availabel=1m")).toEqual([
      `error [${TYPES}] --eviction-soft-grace-period=nodefs.availabel=1m: unknown eviction signal "nodefs.availabel" (did you mean nodefs.available?)`,
    ]);
    expect(said(AGENT, "--eviction-minimum-reclaim=memory.available=0.5Gi")).toEqual([]);
    expect(said(AGENT, "--eviction-minimum-reclaim=memory.available=5%")).toEqual([]);
    expect(said(AGENT, "--eviction-minimum-reclaim=memory.available=lots")).toEqual([
      `error [${TYPES}] --eviction-minimum-reclaim=memory.available=lots: memory.available: "lots" is not a quantity (forms like 100, 500m, 10Mi, 1Gi, 1e3)`,
    ]);
  });

  it("cipher suites: each unknown one named, with the closest known name when there is one", () => {
    expect(said(AGENT, "--tls-cipher-suites= TLS_AES_128_GCM_SHA256")).toEqual([]);
    expect(said(AGENT, "--tls-cipher-suites=TLS_AES_128_GCM_SHA25")).toEqual([
      'error [doc3.tls.cipher-suite-values] --tls-cipher-suites=TLS_AES_128_GCM_SHA25: unknown cipher suite "TLS_AES_128_GCM_SHA25" (did you mean TLS_AES_128_GCM_SHA256?)',
    ]);
    expect(said(AGENT, "--tls-cipher-suites=QQQ,ZZZ")).toEqual([
      'error [doc3.tls.cipher-suite-values] --tls-cipher-suites=QQQ,ZZZ: unknown cipher suite "QQQ", "ZZZ"',
    ]);
  });
});

describe("values at their default", () => {
  it("are noted in any spelling of the same value, by kind", () => {
    expect(said(AGENT, "--max-pods=0x6e")).toEqual([`note [${TYPES}] 0x6e is the default (110); the option can be left out`]);
    expect(said(AGENT, "--node-status-update-frequency=0m10s")).toEqual([`note [${TYPES}] 0m10s is the default (10s); the option can be left out`]);
    expect(said(CM, "--min-resync-period=12h")).toEqual(["note [doc3.cm-general.types-defaults] 12h is the default (12h0m0s); the option can be left out"]);
    expect(said(CM, "--kube-api-qps=20.0")).toEqual(["note [doc3.cm-general.types-defaults] 20.0 is the default (20); the option can be left out"]);
    expect(said(CM, "--profiling=1")).toEqual(["note [doc3.cm-general.types-defaults] 1 is the default (true); the option can be left out"]);
  });

  it("are not noted for another value, nor for a value that does not read", () => {
    for (const arg of ["--max-pods=111", "--node-status-update-frequency=11s", "--fail-swap-on=false"]) expect(said(AGENT, arg), arg).toEqual([]);
    expect(said(CM, "--kube-api-qps=x")).toEqual(['error [doc3.cm-general.types-defaults] --kube-api-qps=x: "x" is not a number']);
    expect(said(CM, "--min-resync-period=1h")).toEqual([]);
  });

  it("an empty value where the default is empty is the same as leaving the option out; elsewhere it is not", () => {
    expect(said(AGENT, "--provider-id=")).toEqual(['note [doc3.options.empty-default-unset] --provider-id="" is the same as leaving the option out']);
    expect(said(CM, "--cluster-name=kube")).toEqual([]);
  });
});

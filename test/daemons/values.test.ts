/** The value parsers read what Go, pflag and the cluster's types read, and refuse what they refuse. */
import { describe, expect, it } from "vitest";
import { parseCidr, parseCidrList, parseIp, parseIpList } from "../../lib/daemons/values/addresses.js";
import { closest } from "../../lib/daemons/values/closest.js";
import { checkLabelValue, checkQualifiedName, parseTaints } from "../../lib/daemons/values/cluster-names.js";
import { formatDuration, parseDuration } from "../../lib/daemons/values/durations.js";
import { parseGateEntry } from "../../lib/daemons/values/gates.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../../lib/daemons/values/go-scalars.js";
import { parseCpuList, parseHeaders, parsePairs, parseVmodule, splitCsv } from "../../lib/daemons/values/lists.js";
import type { Parse } from "../../lib/daemons/values/parse.js";
import { formatNano, parseQuantity, parseReservedMemory } from "../../lib/daemons/values/quantities.js";
import { parseSniCertKey } from "../../lib/daemons/values/tls.js";
import { parseMajorMinor, parseVersionSelectors } from "../../lib/daemons/values/versions.js";

const value = <T>(p: Parse<T>): T => {
  if (!p.ok) throw new Error(`expected a value, got: ${p.error}`);
  return p.value;
};
const error = <T>(p: Parse<T>): string => {
  if (p.ok) throw new Error(`expected an error, got ${String(p.value)}`);
  return p.error;
};

const S = 1_000_000_000n;

describe("Go durations", () => {
  it("reads the forms time.ParseDuration reads", () => {
    expect(value(parseDuration("10s"))).toBe(10n * S);
    expect(value(parseDuration("1m0s"))).toBe(60n * S);
    expect(value(parseDuration("8760h0m0s"))).toBe(8760n * 3600n * S);
    expect(value(parseDuration("1h30m"))).toBe(5400n * S);
    expect(value(parseDuration("1.5s"))).toBe(1_500_000_000n);
    expect(value(parseDuration(".5ms"))).toBe(500_000n);
    expect(value(parseDuration("100ms"))).toBe(100_000_000n);
    expect(value(parseDuration("1us"))).toBe(1_000n);
    expect(value(parseDuration("1µs"))).toBe(1_000n);
    expect(value(parseDuration("3ns"))).toBe(3n);
    expect(value(parseDuration("0"))).toBe(0n);
    expect(value(parseDuration("-1m"))).toBe(-60n * S);
    expect(value(parseDuration("+2s"))).toBe(2n * S);
  });

  it("refuses what Go refuses", () => {
    for (const bad of ["", "10", "1d", "1 s", "s", "1.s.", "-", "1h 30m", "10sec", "1w", "0x10s", ".s"]) expect(parseDuration(bad).ok, bad).toBe(false);
    expect(error(parseDuration("3y"))).toMatch(/unknown unit "y"/);
    expect(error(parseDuration("3000000h"))).toMatch(/overflows/);
  });

  it("writes durations as Go does", () => {
    for (const [ns, text] of [
      [0n, "0s"],
      [10n * S, "10s"],
      [60n * S, "1m0s"],
      [8760n * 3600n * S, "8760h0m0s"],
      [1_500_000_000n, "1.5s"],
      [100_000_000n, "100ms"],
      [1_500n, "1.5µs"],
      [-90n * S, "-1m30s"],
    ] as const) {
      expect(formatDuration(ns)).toBe(text);
    }
  });
});

describe("Go integers, floats and booleans", () => {
  it("reads base prefixes and underscores as strconv.ParseInt(s, 0, bits) does", () => {
    expect(value(parseGoInt("10257", 64))).toBe(10257n);
    expect(value(parseGoInt("-999", 32))).toBe(-999n);
    expect(value(parseGoInt("0x2831", 64))).toBe(10289n);
    expect(value(parseGoInt("0o17", 64))).toBe(15n);
    expect(value(parseGoInt("017", 64))).toBe(15n);
    expect(value(parseGoInt("0b101", 64))).toBe(5n);
    expect(value(parseGoInt("1_000_000", 64))).toBe(1_000_000n);
    expect(value(parseGoInt("0", 32))).toBe(0n);
    for (const bad of ["", "1.0", "1e3", "08", "0x", "1__0", "1_", "_1", "ten", " 1"]) expect(parseGoInt(bad, 64).ok, bad).toBe(false);
  });

  it("checks the int32 and int64 ranges", () => {
    expect(value(parseGoInt("2147483647", 32))).toBe(2147483647n);
    expect(value(parseGoInt("-2147483648", 32))).toBe(-2147483648n);
    expect(error(parseGoInt("2147483648", 32))).toMatch(/out of range for int32/);
    expect(parseGoInt("9223372036854775808", 64).ok).toBe(false);
  });

  it("reads floats and the booleans strconv.ParseBool knows", () => {
    expect(value(parseGoFloat("0.1"))).toBe(0.1);
    expect(value(parseGoFloat("1e-2"))).toBe(0.01);
    expect(value(parseGoFloat(".5"))).toBe(0.5);
    expect(value(parseGoFloat("-Inf"))).toBe(-Infinity);
    expect(parseGoFloat("0.1.2").ok).toBe(false);
    expect(parseGoFloat("").ok).toBe(false);
    for (const t of ["1", "t", "T", "TRUE", "true", "True"]) expect(value(parseGoBool(t))).toBe(true);
    for (const f of ["0", "f", "F", "FALSE", "false", "False"]) expect(value(parseGoBool(f))).toBe(false);
    for (const bad of ["yes", "no", "on", "tRUE", ""]) expect(parseGoBool(bad).ok, bad).toBe(false);
  });
});

describe("quantities", () => {
  it("reads binary, decimal and exponent suffixes exactly (in nano-units)", () => {
    expect(value(parseQuantity("10Mi"))).toBe(10n * 1024n * 1024n * S);
    expect(value(parseQuantity("1Gi"))).toBe(1024n ** 3n * S);
    expect(value(parseQuantity("500m"))).toBe(S / 2n);
    expect(value(parseQuantity("129M"))).toBe(129_000_000n * S);
    expect(value(parseQuantity("129e6"))).toBe(129_000_000n * S);
    expect(value(parseQuantity("1.5Gi"))).toBe((3n * 1024n ** 3n * S) / 2n);
    expect(value(parseQuantity("0"))).toBe(0n);
    expect(value(parseQuantity("1n"))).toBe(1n);
    expect(value(parseQuantity("0.5n"))).toBe(1n); // rounded up, as the cluster does
    expect(value(parseQuantity("-1k"))).toBe(-1000n * S);
  });

  it("refuses what is no quantity", () => {
    for (const bad of ["", "10MB", "10mi", "1 Gi", "Gi", "1.2.3", "1Ki1", "ten"]) expect(parseQuantity(bad).ok, bad).toBe(false);
  });

  it("writes whole quantities back with the largest binary suffix", () => {
    expect(formatNano(value(parseQuantity("1536Mi")))).toBe("1536Mi");
    expect(formatNano(value(parseQuantity("2Gi")))).toBe("2Gi");
    expect(formatNano(value(parseQuantity("1000")))).toBe("1000");
    expect(formatNano(value(parseQuantity("500m")))).toBe("500000000n");
  });
});

describe("lists and maps", () => {
  it("splits string slices as one CSV record", () => {
    expect(value(splitCsv("a,b,c"))).toEqual(["a", "b", "c"]);
    expect(value(splitCsv('"a,b",c'))).toEqual(["a,b", "c"]);
    expect(value(splitCsv('"say ""hi""",x'))).toEqual(['say "hi"', "x"]);
    expect(value(splitCsv(""))).toEqual([]);
    expect(value(splitCsv("a,,b"))).toEqual(["a", "", "b"]);
    expect(parseCsvError('"open')).toMatch(/unterminated/);
  });

  it("reads key=value pairs, trimmed, value may hold the separator", () => {
    expect(value(parsePairs("a=b, c = d=e"))).toEqual([
      ["a", "b"],
      ["c", "d=e"],
    ]);
    expect(value(parsePairs(""))).toEqual([]);
    expect(error(parsePairs("a=b,c"))).toMatch(/"c" is malformed/);
    expect(error(parsePairs("=v"))).toMatch(/empty key/);
    expect(value(parsePairs("memory.available<1Gi", "<"))).toEqual([["memory.available", "1Gi"]]);
  });

  it("reads name:value header lists", () => {
    expect(value(parseHeaders("Authorization:Bearer a:b,X-A:1"))).toEqual([
      ["Authorization", "Bearer a:b"],
      ["X-A", "1"],
    ]);
    expect(parseHeaders("Authorization").ok).toBe(false);
    expect(error(parseHeaders("Bad Header:x"))).toMatch(/not a valid HTTP header name/);
  });

  it("reads gate entries with and without components", () => {
    expect(value(parseGateEntry("kube:WatchList=true", true))).toEqual({
      component: "kube",
      componentWritten: true,
      name: "WatchList",
      value: true,
      text: "kube:WatchList=true",
    });
    expect(value(parseGateEntry("AllAlpha=false", true))).toEqual({
      component: "kube",
      componentWritten: false,
      name: "AllAlpha",
      value: false,
      text: "AllAlpha=false",
    });
    expect(value(parseGateEntry("KubeletPSI=True", false))).toEqual({
      component: undefined,
      componentWritten: false,
      name: "KubeletPSI",
      value: true,
      text: "KubeletPSI=True",
    });
    expect(error(parseGateEntry("WatchList", false))).toMatch(/malformed/);
    expect(error(parseGateEntry("WatchList=yes", false))).toMatch(/true or false/);
    expect(parseGateEntry("kube:WatchList=true", false)).toMatchObject({ ok: false, problem: "component" });
    expect(parseGateEntry("kube:=true", true)).toMatchObject({ ok: false, problem: "syntax" });
    expect(parseGateEntry("etcd:X=true", true)).toMatchObject({ ok: true, value: { component: "etcd", name: "X" } });
  });

  it("reads taints as <key>=<value>:<effect>, the value optional", () => {
    expect(value(parseTaints("dedicated=gpu:NoSchedule,spot:PreferNoSchedule"))).toEqual([
      { key: "dedicated", value: "gpu", effect: "NoSchedule" },
      { key: "spot", value: "", effect: "PreferNoSchedule" },
    ]);
    expect(value(parseTaints("example.com/special=true:NoExecute"))[0]?.key).toBe("example.com/special");
    for (const bad of ["dedicated=gpu", "dedicated=gpu:NoRun", "-bad=x:NoSchedule", "k=v v:NoSchedule"]) expect(parseTaints(bad).ok, bad).toBe(false);
  });

  it("checks label keys and values", () => {
    expect(checkQualifiedName("kubernetes.io/hostname")).toBeUndefined();
    expect(checkQualifiedName("node-role.kubernetes.io/worker")).toBeUndefined();
    expect(checkQualifiedName("a/b/c")).toMatch(/more than one/);
    expect(checkQualifiedName("UPPER.example/x")).toMatch(/prefix/);
    expect(checkQualifiedName(`x/${"a".repeat(64)}`)).toMatch(/1-63/);
    expect(checkLabelValue("")).toBeUndefined();
    expect(checkLabelValue("a b")).toMatch(/not a label value/);
  });

  it("reads per-NUMA memory reservations, nodes separated by ;", () => {
    const r = value(parseReservedMemory("0:memory=1Gi,hugepages-1M=2Gi; 1:memory=512Mi"));
    expect([...r.keys()]).toEqual([0, 1]);
    expect(r.get(0)?.get("hugepages-1M")).toBe(2n * 1024n ** 3n * S);
    expect(r.get(1)?.get("memory")).toBe(512n * 1024n ** 2n * S);
    for (const bad of ["memory=1Gi", "0:cpu=1", "0:memory=lots", "x:memory=1Gi"]) expect(parseReservedMemory(bad).ok, bad).toBe(false);
  });

  it("reads vmodule, version selectors, SNI pairs and CPU lists", () => {
    expect(value(parseVmodule("gc*=4,node*=2"))).toEqual([
      ["gc*", 4],
      ["node*", 2],
    ]);
    expect(parseVmodule("gc*=high").ok).toBe(false);
    expect(value(parseVersionSelectors("kube=1.34"))).toEqual([{ component: "kube", version: { major: 1, minor: 34 } }]);
    expect(value(parseVersionSelectors("1.33"))).toEqual([{ component: "kube", version: { major: 1, minor: 33 } }]);
    expect(parseVersionSelectors("kube=1.34.2").ok).toBe(false);
    expect(value(parseMajorMinor("v1.34"))).toEqual({ major: 1, minor: 34 });
    expect(value(parseSniCertKey("a.crt,a.key:*.example.com,example.com"))).toEqual({ cert: "a.crt", key: "a.key", domains: ["*.example.com", "example.com"] });
    expect(parseSniCertKey("a.crt").ok).toBe(false);
    expect(value(parseCpuList("0-3,8"))).toEqual([0, 1, 2, 3, 8]);
    expect(parseCpuList("3-1").ok).toBe(false);
    expect(parseCpuList("a").ok).toBe(false);
  });
});

describe("addresses", () => {
  it("reads IPs and IP lists of both families", () => {
    expect(value(parseIp("10.0.0.1"))).toEqual({ address: "10.0.0.1", family: 4 });
    expect(value(parseIp("fd00::1"))).toEqual({ address: "fd00::1", family: 6 });
    expect(parseIp("node-1").ok).toBe(false);
    expect(parseIp("10.0.0.256").ok).toBe(false);
    expect(value(parseIpList("10.96.0.10, fd00::a")).map((i) => i.family)).toEqual([4, 6]);
    expect(parseIpList("10.96.0.10,").ok).toBe(false);
  });

  it("reads CIDRs, and dual-stack pairs of different families", () => {
    expect(value(parseCidr("10.244.0.0/16"))).toEqual({ text: "10.244.0.0/16", family: 4, prefix: 16 });
    expect(value(parseCidr("fd00::/48")).prefix).toBe(48);
    for (const bad of ["10.244.0.0", "10.244.0.0/33", "fd00::/129", "x/8", "10.0.0.0/-1"]) expect(parseCidr(bad).ok, bad).toBe(false);
    expect(value(parseCidrList("10.244.0.0/16,fd00::/56"))).toHaveLength(2);
    expect(error(parseCidrList("10.244.0.0/16,10.245.0.0/16"))).toMatch(/one IPv4 and one IPv6/);
    expect(parseCidrList("10.0.0.0/8,fd00::/8,10.1.0.0/16").ok).toBe(false);
  });
});

describe("closest name", () => {
  it("suggests a near name and nothing for a far one", () => {
    expect(closest("--leader-elect-renew-dedline", ["--leader-elect-renew-deadline", "--leader-elect"])).toBe("--leader-elect-renew-deadline");
    expect(closest("--zzz", ["--leader-elect-renew-deadline"])).toBeUndefined();
  });
});

function parseCsvError(s: string): string {
  return error(splitCsv(s));
}

/** The argument reader follows pflag: how names, values, booleans and shorthands are read. */
import { describe, expect, it } from "vitest";
import { readCommandLine, refusals, withoutProgramName } from "../../lib/daemons/options/command-line.js";

const read = (...argv: string[]) => readCommandLine("controller-manager", argv);
const values = (...argv: string[]) => read(...argv).occurrences.map((o) => [o.entry.realName, o.value, o.explicit]);

describe("command-line reader", () => {
  it("reads --name=value and --name value", () => {
    expect(values("--secure-port=1", "--secure-port", "2", "--bind-address=")).toEqual([
      ["--secure-port", "1", true],
      ["--secure-port", "2", true],
      ["--bind-address", "", true],
    ]);
  });

  it("takes the next argument as the value even when it starts with a dash, as pflag does", () => {
    expect(values("--kube-api-burst", "-5")).toEqual([["--kube-api-burst", "-5", true]]);
  });

  it("gives booleans, --version and --help an implied true, and a value only after =", () => {
    expect(values("--leader-elect", "--profiling=false", "--version", "--help")).toEqual([
      ["--leader-elect", "true", false],
      ["--profiling", "false", true],
      ["--version", "true", false],
      ["--help", "true", false],
    ]);
    const line = read("--leader-elect", "false");
    expect(line.problems.map((p) => [p.option, p.kind])).toEqual([["false", "stray"]]);
    expect(line.problems[0]?.message).toContain("--leader-elect=false");
  });

  it("reads shorthands: -v 2, -v=2, -v2, -h", () => {
    expect(values("-v", "2", "-v=3", "-v4", "-h")).toEqual([
      ["--v", "2", true],
      ["--v", "3", true],
      ["--v", "4", true],
      ["--help", "true", false],
    ]);
    const single = read("-leader-elect");
    expect(single.problems[0]?.message).toMatch(/unknown shorthand -l in -leader-elect \(did you mean --leader-elect\?\)/);
  });

  it("treats _ and - alike in names", () => {
    expect(values("--leader_elect_lease_duration=20s")).toEqual([["--leader-elect-lease-duration", "20s", true]]);
  });

  it("reports unknown options once, skipping a value that follows them", () => {
    const line = read("--no-such-flag", "value", "--secure-port=1");
    expect(line.problems.map((f) => f.option)).toEqual(["--no-such-flag"]);
    expect(values("--no-such-flag", "value", "--secure-port=1")).toEqual([["--secure-port", "1", true]]);
  });

  it("names the other daemon when an option belongs to it", () => {
    expect(readCommandLine("node-agent", ["--leader-elect"]).problems[0]?.message).toMatch(/controller manager option, not a node agent one/);
  });

  it("reports a missing value, positional arguments and what follows --", () => {
    expect(read("--kubeconfig").problems.map((f) => f.message)).toEqual(["--kubeconfig needs a value (string)"]);
    expect(read("extra").problems.map((f) => f.option)).toEqual(["extra"]);
    expect(read("--", "--secure-port=1").problems.map((f) => f.option)).toEqual(["--secure-port=1"]);
    expect(read("---x").problems.map((f) => f.message)).toEqual(["bad flag syntax: ---x"]);
  });

  it("reads doc3's neutral spellings as the real option, with an error", () => {
    const line = read("--cluster-signing-nodeagent-serving-cert-file=/a.crt");
    expect(line.byName.has("--cluster-signing-kubelet-serving-cert-file")).toBe(true);
    expect(line.problems.map((p) => p.kind)).toEqual(["doc3-spelling"]);
  });

  it("reads each value as its kind, and puts what it cannot read on the occurrence", () => {
    const line = read("--secure-port=x", "--leader-elect=yes", "--concurrent-gc-syncs=20", "--authorization-always-allow-paths=/a,/b");
    expect(line.occurrences.map((o) => [o.entry.realName, o.problem])).toEqual([
      ["--secure-port", '"x" is not an integer'],
      ["--leader-elect", '"yes" is not a boolean (true or false)'],
      ["--concurrent-gc-syncs", undefined],
      ["--authorization-always-allow-paths", undefined],
    ]);
    expect(line.problems).toEqual([]);
  });

  it("reads feature gates against the gate catalog, as the real gate flag does", () => {
    const problem = (daemon: "controller-manager" | "node-agent", gates: string) =>
      readCommandLine(daemon, [`--feature-gates=${gates}`]).occurrences[0]?.problem;
    expect(problem("controller-manager", "kube:AllAlpha=false,AllBeta=true")).toBeUndefined();
    expect(problem("controller-manager", "etcd:AllAlpha=false")).toMatch(/unknown component "etcd"/);
    expect(problem("controller-manager", "kube:NoSuchGate=true")).toMatch(/unknown feature gate "NoSuchGate"/);
    expect(problem("node-agent", "KubeletPSI=true")).toBeUndefined();
    expect(problem("node-agent", "AgentPSI=true")).toMatch(/doc3's spelling; the real gate is KubeletPSI/);
    expect(problem("node-agent", "kube:KubeletPSI=true")).toMatch(/without a component/);
  });

  it("lists what stops a real daemon in command-line order, values included", () => {
    const line = read("--secure-port=x", "extra", "--no-such-flag");
    expect(refusals(line).map((p) => [p.kind, p.option, p.message])).toEqual([
      ["value", "--secure-port", '--secure-port=x: "x" is not an integer'],
      ["stray", "extra", expect.stringMatching(/^stray argument "extra"/)],
      ["unknown", "--no-such-flag", expect.stringMatching(/^unknown option --no-such-flag/)],
    ]);
    expect(refusals(read("--secure-port=1", "--leader-elect"))).toEqual([]);
  });

  it("drops the program name of a command line copied whole", () => {
    expect(withoutProgramName("node-agent", ["/usr/bin/kubelet", "--v=2"])).toEqual(["--v=2"]);
    expect(withoutProgramName("controller-manager", ["kube-controller-manager"])).toEqual([]);
    expect(withoutProgramName("node-agent", ["kube-controller-manager", "--v=2"])).toEqual(["kube-controller-manager", "--v=2"]);
  });
});

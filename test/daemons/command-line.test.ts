/** The argument reader follows pflag: how names, values, booleans and shorthands are read. */
import { describe, expect, it } from "vitest";
import { readCommandLine, withoutProgramName } from "../../lib/daemons/command-line.js";

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
    expect(line.findings.map((f) => [f.option, f.rule])).toEqual([["false", "doc3.options.known-options"]]);
    expect(line.findings[0]?.message).toContain("--leader-elect=false");
  });

  it("reads shorthands: -v 2, -v=2, -v2, -h", () => {
    expect(values("-v", "2", "-v=3", "-v4", "-h")).toEqual([
      ["--v", "2", true],
      ["--v", "3", true],
      ["--v", "4", true],
      ["--help", "true", false],
    ]);
    const single = read("-leader-elect");
    expect(single.findings[0]?.message).toMatch(/unknown shorthand -l in -leader-elect \(did you mean --leader-elect\?\)/);
  });

  it("treats _ and - alike in names", () => {
    expect(values("--leader_elect_lease_duration=20s")).toEqual([["--leader-elect-lease-duration", "20s", true]]);
  });

  it("reports unknown options once, skipping a value that follows them", () => {
    const line = read("--no-such-flag", "value", "--secure-port=1");
    expect(line.findings.map((f) => f.option)).toEqual(["--no-such-flag"]);
    expect(values("--no-such-flag", "value", "--secure-port=1")).toEqual([["--secure-port", "1", true]]);
  });

  it("names the other daemon when an option belongs to it", () => {
    expect(readCommandLine("node-agent", ["--leader-elect"]).findings[0]?.message).toMatch(/controller manager option, not a node agent one/);
  });

  it("reports a missing value, positional arguments and what follows --", () => {
    expect(read("--kubeconfig").findings.map((f) => f.message)).toEqual(["--kubeconfig needs a value (string)"]);
    expect(read("extra").findings.map((f) => f.option)).toEqual(["extra"]);
    expect(read("--", "--secure-port=1").findings.map((f) => f.option)).toEqual(["--secure-port=1"]);
    expect(read("---x").findings.map((f) => f.message)).toEqual(["bad flag syntax: ---x"]);
  });

  it("reads doc3's neutral spellings as the real option, with an error", () => {
    const line = read("--cluster-signing-nodeagent-serving-cert-file=/a.crt");
    expect(line.byName.has("--cluster-signing-kubelet-serving-cert-file")).toBe(true);
    expect(line.findings.map((f) => f.rule)).toEqual(["doc3.options.nodeagent-names"]);
  });

  it("drops the program name of a command line copied whole", () => {
    expect(withoutProgramName("node-agent", ["/usr/bin/kubelet", "--v=2"])).toEqual(["--v=2"]);
    expect(withoutProgramName("controller-manager", ["kube-controller-manager"])).toEqual([]);
    expect(withoutProgramName("node-agent", ["kube-controller-manager", "--v=2"])).toEqual(["kube-controller-manager", "--v=2"]);
  });
});

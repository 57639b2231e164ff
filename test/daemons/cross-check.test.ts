/**
 * The rules across the two daemons' command lines (lib/daemons/checker/cross-check.ts), and the
 * plumbing every finding goes through: the order of findings and the self-test failpoint.
 */
import { afterEach, describe, expect, it } from "vitest";
import { checkBoth, type DaemonFinding } from "../../lib/daemons/checker/cross-check.js";
import { withoutFaultedRules } from "../../lib/daemons/checker/fault.js";
import { type Finding, sortFindings } from "../../lib/daemons/checker/findings.js";
import { checkFlags } from "../../lib/daemons/checker/index.js";

const GRACE_MULTIPLE = "doc3.cm-behaviour.node-monitor-grace-multiple";
const FREQUENCY_VS_GRACE = "doc3.agent-options.status-frequency-vs-grace";
const across = (fs: readonly DaemonFinding[]): Omit<DaemonFinding, "daemon">[] => fs.filter((f) => f.daemon === "both").map(({ daemon: _d, ...f }) => f);

describe("checkBoth", () => {
  it("compares the grace period with the real frequency, not with the other daemon's default", () => {
    // Alone, 45s is compared with the node agent's default 10s, and 15s with the controller manager's default 50s;
    // together, 45s is a multiple of 15s.
    expect(checkFlags("controller-manager", ["--node-monitor-grace-period=45s"]).some((f) => f.rule === GRACE_MULTIPLE)).toBe(true);
    expect(checkFlags("node-agent", ["--node-status-update-frequency=15s"]).some((f) => f.rule === FREQUENCY_VS_GRACE)).toBe(true);
    const both = checkBoth(["--node-monitor-grace-period=45s"], ["--node-status-update-frequency=15s"]);
    expect(both.filter((f) => f.rule === GRACE_MULTIPLE || f.rule === FREQUENCY_VS_GRACE)).toEqual([]);
  });

  it("reports a grace period that is not a multiple of the frequency, once, as an error of both", () => {
    const both = checkBoth(["--node-monitor-grace-period=50s"], ["--node-status-update-frequency=20s"]);
    expect(both.filter((f) => f.rule === GRACE_MULTIPLE)).toEqual([
      {
        daemon: "both",
        severity: "error",
        option: "--node-monitor-grace-period",
        rule: GRACE_MULTIPLE,
        message: "controller manager --node-monitor-grace-period 50s is not a multiple of node agent --node-status-update-frequency 20s",
      },
    ]);
  });

  it("notes that a frequency from the node agent's --config file cannot be compared", () => {
    expect(across(checkBoth([], ["--config=/var/lib/kubelet/config.yaml"]))).toEqual([
      {
        severity: "note",
        option: "--node-status-update-frequency",
        rule: FREQUENCY_VS_GRACE,
        message: "comes from the node agent's --config file, so --node-monitor-grace-period cannot be compared with it here",
      },
    ]);
  });

  it("compares nothing when either value is unreadable or the frequency is 0", () => {
    expect(across(checkBoth(["--node-monitor-grace-period=soon"], ["--config=/c.yaml"]))).toEqual([]);
    expect(across(checkBoth(["--node-monitor-grace-period=soon"], ["--node-status-update-frequency=20s"]))).toEqual([]);
    expect(across(checkBoth(["--node-monitor-grace-period=50s"], ["--node-status-update-frequency="]))).toEqual([]);
    expect(across(checkBoth(["--node-monitor-grace-period=50s"], ["--node-status-update-frequency=0s"]))).toEqual([]);
  });
});

const f = (severity: Finding["severity"], option: string, rule: string, message: string): Finding => ({ severity, option, rule, message });

describe("sortFindings", () => {
  it("orders by severity, then option, then rule, then message", () => {
    const sorted = [
      f("error", "--a", "r1", "m1"),
      f("error", "--a", "r1", "m2"),
      f("error", "--a", "r2", "m0"),
      f("error", "--b", "r0", "m0"),
      f("warning", "--a", "r0", "m0"),
      f("note", "--a", "r0", "m0"),
      f("note", "--a", "r0", "m0"),
    ];
    expect(sortFindings([...sorted].reverse())).toEqual(sorted);
    expect(sortFindings([sorted[1], sorted[0], sorted[3], sorted[2]] as Finding[])).toEqual(sorted.slice(0, 4));
    expect(sortFindings([f("note", "--b", "r", "m"), f("note", "--a", "r", "m"), f("note", "--c", "r", "m")]).map((x) => x.option)).toEqual([
      "--a",
      "--b",
      "--c",
    ]);
  });
});

describe("the checker's failpoint", () => {
  afterEach(() => {
    delete process.env.TOLLGATE_CHECKER_FAULT_RULES;
  });

  it("drops the findings of the rules TOLLGATE_CHECKER_FAULT_RULES names, and only those", () => {
    const fs = [f("error", "--a", "r1", "m"), f("error", "--b", "r2", "m"), f("note", "--c", "r3", "m")];
    expect(withoutFaultedRules(fs)).toEqual(fs);
    process.env.TOLLGATE_CHECKER_FAULT_RULES = "r1,r3";
    expect(withoutFaultedRules(fs)).toEqual([fs[1]]);
    process.env.TOLLGATE_CHECKER_FAULT_RULES = "";
    expect(withoutFaultedRules(fs)).toEqual(fs);
  });
});

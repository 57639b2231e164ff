/** `tollgate flags check` as a user meets it: exit codes, grouped text, stable JSON, usage errors. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { flagsCommand } from "../../lib/cli/flags.js";
import { UsageError } from "../../lib/cli/usage.js";

let out: string[] = [];
beforeEach(() => {
  out = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    out.push(args.map(String).join(" "));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const printed = (): string => out.join("\n");

interface JsonReport {
  daemons: string[];
  errors: number;
  warnings: number;
  notes: number;
  findings: { daemon: string; severity: string; option: string; rule: string; message: string }[];
}

describe("tollgate flags check", () => {
  it("exits 0 on the defaults of each daemon", async () => {
    expect(await flagsCommand(["check", "controller-manager", "--"])).toBe(0);
    expect(printed()).toMatch(/^controller manager: 0 errors, 0 warnings, 3 notes/);
    expect(await flagsCommand(["check", "node-agent"])).toBe(0);
  });

  it("exits 1 on an error and groups findings by severity, errors first", async () => {
    expect(await flagsCommand(["check", "node-agent", "--", "--runonce", "--max-pods=200"])).toBe(1);
    const text = printed();
    expect(text).toMatch(/^node agent: 1 error, 3 warnings, \d+ notes/);
    const errors = text.indexOf("Errors:");
    const warnings = text.indexOf("Warnings:");
    const notes = text.indexOf("Notes:");
    expect(errors).toBeGreaterThan(0);
    expect(warnings).toBeGreaterThan(errors);
    expect(notes).toBeGreaterThan(warnings);
    expect(text).toContain(
      "  --runonce: --runonce cannot run with the server enabled: add --enable-server=false\n      rule doc3.agent-options.runonce-excludes-server",
    );
  });

  it("drops the program name when the arguments start with it", async () => {
    expect(await flagsCommand(["check", "kubelet", "--", "/usr/bin/kubelet", "--config=/var/lib/kubelet/config.yaml"])).toBe(0);
  });

  it("gives a stable JSON list with --output json", async () => {
    const argv = ["check", "controller-manager", "--output", "json", "--", "--leader-elect-renew-deadline=20s", "--tls-min-version=VersionTLS10"];
    expect(await flagsCommand(argv)).toBe(1);
    const first = printed();
    out = [];
    await flagsCommand(argv);
    expect(printed()).toBe(first);
    const report = JSON.parse(first) as JsonReport;
    expect(report.daemons).toEqual(["controller-manager"]);
    expect(report.errors).toBe(1);
    expect(report.findings[0]).toEqual({
      daemon: "controller-manager",
      severity: "error",
      option: "--leader-elect-renew-deadline",
      rule: "doc3.cm-general.renew-deadline-below-lease",
      message: "renew deadline 20s must be below the lease duration 15s",
    });
    expect(report.findings.map((f) => Object.keys(f))).toSatisfy((keys: string[][]) => keys.every((k) => k.join() === "daemon,severity,option,rule,message"));
    expect(report.findings.find((f) => f.severity === "warning")?.rule).toBe("doc3.cm-general.tls-min-version-legacy");
  });

  it("checks both daemons from quoted command lines, with the cross-daemon rule", async () => {
    const code = await flagsCommand([
      "check",
      "--output=json",
      "--controller-manager",
      "kube-controller-manager --node-monitor-grace-period=50s --controllers='*,-ttl-controller'",
      "--node-agent",
      `kubelet --node-status-update-frequency=20s --node-labels="team=a b"`,
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(printed()) as JsonReport;
    expect(report.daemons).toEqual(["controller-manager", "node-agent"]);
    expect(report.findings.filter((f) => f.daemon === "both").map((f) => [f.severity, f.option, f.rule])).toEqual([
      ["error", "--node-monitor-grace-period", "doc3.cm-behaviour.node-monitor-grace-multiple"],
    ]);
    // the quoted label value keeps its blank, and is then refused as a label value
    expect(report.findings.find((f) => f.option === "--node-labels")?.message).toContain("team=a b");
  });

  it("prefixes each finding with its daemon in the two-daemon text output", async () => {
    expect(await flagsCommand(["check", "--controller-manager", "--node-monitor-grace-period=60s", "--node-agent", "--node-status-update-frequency=10s"])).toBe(
      0,
    );
    expect(printed()).toMatch(/^controller manager and node agent: 0 errors/);
    expect(printed()).toContain("[controller manager] --authentication-kubeconfig:");
    expect(printed()).toContain("[node agent] --node-status-update-frequency:");
  });

  it("refuses bad usage with a UsageError", async () => {
    for (const argv of [
      [],
      ["lint"],
      ["check"],
      ["check", "scheduler", "--"],
      ["check", "node-agent", "--output", "yaml", "--"],
      ["check", "node-agent", "--runonce"],
      ["check", "node-agent", "extra", "--"],
      ["check", "node-agent", "--node-agent", "--v=2"],
      ["check", "--node-agent", "--x='unterminated"],
    ]) {
      await expect(flagsCommand(argv), argv.join(" ")).rejects.toThrow(UsageError);
    }
    await expect(flagsCommand(["check", "node-agent", "--runonce"])).rejects.toThrow(/after "--"/);
  });
});

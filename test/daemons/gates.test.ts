/**
 * Feature gates in the flag checker (lib/daemons/checker/gates.ts): what each setting of
 * --feature-gates means, in the words `tollgate flags check` prints, and when a gated option is
 * refused (the gate's state through names, meta gates, defaults and a --config file).
 */
import { describe, expect, it } from "vitest";
import type { Daemon } from "../../lib/daemons/catalog/index.js";
import { checkFlags } from "../../lib/daemons/checker/index.js";

const gateFindings = (daemon: Daemon, argv: string[]): string[] =>
  checkFlags(daemon, argv)
    // The node agent's --feature-gates is also deprecated as a flag (a rule of its own, not about gates).
    .filter((f) => f.option === "--feature-gates" && f.rule !== "doc3.service.agent-flags-deprecated")
    .map((f) => `${f.severity} [${f.rule}] ${f.message}`);
const refusal = (daemon: Daemon, argv: string[], option: string): string[] =>
  checkFlags(daemon, argv)
    .filter((f) => f.option === option && f.severity === "error")
    .map((f) => `[${f.rule}] ${f.message}`);

describe("what a gate setting means", () => {
  it("on the controller manager, each stage and default, the meta gates, and a missing component", () => {
    expect(
      gateFindings("controller-manager", [
        "--feature-gates=APIServingWithRoutine=true,kube:APIResponseCompression=false,kube:CRDObservedGenerationTracking=true,kube:AllBeta=false,kube:AllAlpha=false",
      ]),
    ).toEqual([
      "warning [doc3.versioning.alpha-gate-enabled] APIServingWithRoutine is an alpha gate: APIServingWithRoutine=true turns on an alpha-stage feature",
      "note [doc3.versioning.all-alpha-meta-gate] AllAlpha=false is the default",
      "note [doc3.versioning.all-beta-meta-gate] AllBeta=false sets every beta gate not set by name to false",
      "note [doc3.versioning.beta-off-default-false] CRDObservedGenerationTracking=true turns on a beta feature that is off by default",
      "note [doc3.versioning.beta-on-default-true] APIResponseCompression=false turns off a beta feature that is on by default",
      'note [doc3.versioning.cm-gate-syntax] "APIServingWithRoutine=true" has no component and is read as kube:APIServingWithRoutine=true',
    ]);
  });

  it("on the node agent, the defaults said as defaults, and AllAlpha=true warned about", () => {
    expect(
      gateFindings("node-agent", ["--feature-gates=APIServingWithRoutine=false,APIResponseCompression=true,CRDObservedGenerationTracking=false,AllAlpha=true"]),
    ).toEqual([
      "warning [doc3.versioning.alpha-gate-enabled] AllAlpha=true turns on every alpha gate not set by name",
      "note [doc3.versioning.alpha-default-false] APIServingWithRoutine=false is the default (alpha gates are off)",
      "note [doc3.versioning.beta-off-default-false] CRDObservedGenerationTracking=false is the default (beta, off by default)",
      "note [doc3.versioning.beta-on-default-true] APIResponseCompression=true is the default (beta, on by default)",
    ]);
    expect(gateFindings("node-agent", ["--feature-gates=AllBeta=true"])).toEqual([
      "note [doc3.versioning.all-beta-meta-gate] AllBeta=true sets every beta gate not set by name to true",
    ]);
  });

  it("an entry with a problem is an error and sets nothing; an unknown gate sets nothing either", () => {
    expect(gateFindings("node-agent", ["--feature-gates=kube:WatchList=true"]).map((f) => f.split("]")[0])).toEqual([
      "error [doc3.versioning.agent-gate-syntax",
    ]);
    // An unknown gate turned on does not turn LoggingAlphaOptions on.
    expect(refusal("node-agent", ["--log-text-split-stream", "--feature-gates=LoggingAlphaOptionz=true"], "--log-text-split-stream")).toHaveLength(1);
  });
});

describe("options that need a gate", () => {
  const SPLIT = "--log-text-split-stream";

  it("are refused while the gate is off, saying how to turn it on in each daemon's syntax", () => {
    expect(refusal("controller-manager", [SPLIT], SPLIT)).toEqual([
      "[doc3.cm-general.log-split-stream-gate] --log-text-split-stream needs feature gate LoggingAlphaOptions, which is off: add --feature-gates=kube:LoggingAlphaOptions=true",
    ]);
    expect(
      refusal("node-agent", ["--rotate-server-certificates", "--feature-gates=RotateKubeletServerCertificate=false"], "--rotate-server-certificates"),
    ).toEqual([
      "[doc3.agent-options.rotate-server-certs-gate] --rotate-server-certificates needs feature gate RotateKubeletServerCertificate, which is off: add --feature-gates=RotateKubeletServerCertificate=true",
    ]);
  });

  it("follow the last setting by name, then the meta gate of the stage, then the default", () => {
    expect(refusal("controller-manager", [SPLIT, "--feature-gates=kube:LoggingAlphaOptions=true"], SPLIT)).toEqual([]);
    expect(refusal("controller-manager", [SPLIT, "--feature-gates=kube:LoggingAlphaOptions=true,kube:LoggingAlphaOptions=false"], SPLIT)).toHaveLength(1);
    expect(
      refusal("controller-manager", [SPLIT, "--feature-gates=kube:LoggingAlphaOptions=false", "--feature-gates=kube:LoggingAlphaOptions=true"], SPLIT),
    ).toEqual([]);
    expect(refusal("controller-manager", [SPLIT, "--feature-gates=kube:AllAlpha=true"], SPLIT)).toEqual([]);
    expect(refusal("controller-manager", [SPLIT, "--feature-gates=kube:AllAlpha=true,kube:LoggingAlphaOptions=false"], SPLIT)).toHaveLength(1);
    // AllBeta is not the meta gate of an alpha gate.
    expect(refusal("controller-manager", [SPLIT, "--feature-gates=kube:AllBeta=true"], SPLIT)).toHaveLength(1);
    // A beta gate on by default: the option is fine until the gate or AllBeta turns it off.
    expect(refusal("node-agent", ["--rotate-server-certificates"], "--rotate-server-certificates")).toEqual([]);
    expect(refusal("node-agent", ["--rotate-server-certificates", "--feature-gates=AllBeta=false"], "--rotate-server-certificates")).toHaveLength(1);
  });

  it("are not refused when the gate may be set in the --config file, or when they ask for nothing", () => {
    expect(refusal("node-agent", [SPLIT, "--config=/c.yaml"], SPLIT)).toEqual([]);
    expect(refusal("node-agent", [`${SPLIT}=false`], SPLIT)).toEqual([]);
    expect(refusal("node-agent", ["--log-text-info-buffer-size=0"], "--log-text-info-buffer-size")).toEqual([]);
    expect(refusal("node-agent", ["--log-text-info-buffer-size=1Mi"], "--log-text-info-buffer-size")).toHaveLength(1);
    expect(refusal("node-agent", ["--qos-reserved=memory=50%", "--feature-gates=QOSReserved=false"], "--qos-reserved")).toHaveLength(1);
    expect(refusal("node-agent", ["--qos-reserved=", "--feature-gates=QOSReserved=false"], "--qos-reserved")).toEqual([]);
  });
});

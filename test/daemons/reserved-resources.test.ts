/**
 * The reserved-resource options take only cpu, memory, pid and ephemeral-storage (doc3
 * --kube-reserved, and --system-reserved "the same"): any other name is an error, each name on
 * its own, so a checker that looks only at the quantities is caught.
 */
import { describe, expect, it } from "vitest";
import { checkFlags } from "../../lib/daemons/checker/index.js";

const errorsOn = (option: string, value: string) =>
  checkFlags("node-agent", [`${option}=${value}`]).filter((f) => f.severity === "error" && f.option === option);

describe("reserved resources", () => {
  for (const [option, rule] of [
    ["--kube-reserved", "doc3.agent-options.kube-reserved-resources"],
    ["--system-reserved", "doc3.agent-options.system-reserved-resources"],
  ] as const) {
    it(`${option} refuses a resource name outside cpu, memory, pid, ephemeral-storage, with a good quantity`, () => {
      for (const value of ["gpu=1", "cpu=500m,gpu=1", "nvidia.com/gpu=1", "storage=1Gi", "CPU=1"]) {
        const found = errorsOn(option, value);
        expect(
          found.map((f) => f.rule),
          value,
        ).toEqual([rule]);
        expect(found[0]?.message, value).toMatch(/is not one of cpu, memory, pid, ephemeral-storage/);
      }
    });
    it(`${option} accepts every accepted name with a good quantity, and refuses a bad quantity`, () => {
      expect(errorsOn(option, "cpu=500m,memory=1Gi,pid=1000,ephemeral-storage=1Gi")).toEqual([]);
      expect(errorsOn(option, "memory=lots").map((f) => f.rule)).toEqual([rule]);
    });
  }
});

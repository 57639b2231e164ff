/** Feature gates: the 1.35 defaults, the startEmulator option, and `tollgate emulator --feature-gates`. */
import { describe, expect, it } from "vitest";
import { parseEmulatorArgs } from "../../lib/cli/emulator.js";
import { UsageError } from "../../lib/cli/usage.js";
import { DEFAULT_FEATURE_GATES, FeatureGateError, parseFeatureGates, resolveFeatureGates } from "../../lib/emulator/apimachinery/feature-gates.js";
import { startEmulator } from "../../lib/emulator/index.js";

describe("feature gates", () => {
  it("default to 1.35: CBOR off, response compression on", () => {
    expect(DEFAULT_FEATURE_GATES).toEqual({ CBORServingAndStorage: false, APIResponseCompression: true, AllowUnsafeMalformedObjectDeletion: false });
    expect(resolveFeatureGates({ CBORServingAndStorage: true })).toEqual({
      CBORServingAndStorage: true,
      APIResponseCompression: true,
      AllowUnsafeMalformedObjectDeletion: false,
    });
  });

  it("parse Name=bool lists like kube-apiserver's flag", () => {
    expect(parseFeatureGates("CBORServingAndStorage=true")).toEqual({ CBORServingAndStorage: true });
    expect(parseFeatureGates(" CBORServingAndStorage=1, APIResponseCompression=False,")).toEqual({
      CBORServingAndStorage: true,
      APIResponseCompression: false,
    });
    expect(parseFeatureGates("")).toEqual({});
    expect(() => parseFeatureGates("Nope=true")).toThrow(FeatureGateError);
    expect(() => parseFeatureGates("CBORServingAndStorage=maybe")).toThrow(
      'invalid value of CBORServingAndStorage=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(() => parseFeatureGates("CBORServingAndStorage")).toThrow("missing bool value for CBORServingAndStorage");
  });

  it("refuse an unknown gate name through startEmulator", async () => {
    await expect(startEmulator({ port: 0, featureGates: { NoSuchGate: true } })).rejects.toThrow(FeatureGateError);
  });

  it("come from --feature-gates; a bad list is a one-line usage error", () => {
    expect(parseEmulatorArgs(["--feature-gates", "CBORServingAndStorage=true,APIResponseCompression=false"]).featureGates).toEqual({
      CBORServingAndStorage: true,
      APIResponseCompression: false,
    });
    expect(parseEmulatorArgs([]).featureGates).toBeUndefined();
    for (const bad of ["Bogus=true", "CBORServingAndStorage=yes", "APIResponseCompression"]) {
      let caught: unknown;
      try {
        parseEmulatorArgs(["--feature-gates", bad]);
      } catch (e) {
        caught = e;
      }
      expect(caught, bad).toBeInstanceOf(UsageError);
      expect((caught as Error).message, bad).toMatch(/^--feature-gates: [^\n]+$/);
    }
  });
});

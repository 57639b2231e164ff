/**
 * The feature gates the emulator honours, with their 1.35 defaults (apiserver@v0.35.7
 * pkg/features/kube_features.go): CBORServingAndStorage is alpha and off (wire-facts §3),
 * APIResponseCompression is beta and on (doc1 "Limits"), AllowUnsafeMalformedObjectDeletion is
 * alpha and off (doc1 "Delete options": the unsafe force delete of a corrupt object). Only gates that change what the
 * emulator does are known here; an unknown name is refused rather than silently ignored, so a
 * typo in `--feature-gates` cannot make a run test something other than what was asked.
 */
import { parseGoBool } from "../../wire/go-strconv.js";

export interface FeatureGates {
  /** application/cbor responses and bodies, application/cbor-seq watches. */
  readonly CBORServingAndStorage: boolean;
  /** gzip for get/list responses over 128 KiB when the client sends Accept-Encoding: gzip. */
  readonly APIResponseCompression: boolean;
  /** DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: removing a corrupt (unreadable) object. */
  readonly AllowUnsafeMalformedObjectDeletion: boolean;
}

export type FeatureGateName = keyof FeatureGates;

export const DEFAULT_FEATURE_GATES: FeatureGates = {
  CBORServingAndStorage: false,
  APIResponseCompression: true,
  AllowUnsafeMalformedObjectDeletion: false,
};

const KNOWN_FEATURE_GATES: readonly FeatureGateName[] = Object.keys(DEFAULT_FEATURE_GATES) as FeatureGateName[];

export class FeatureGateError extends Error {
  override name = "FeatureGateError";
}

function isKnown(name: string): name is FeatureGateName {
  return (KNOWN_FEATURE_GATES as readonly string[]).includes(name);
}

/** The defaults overridden by `overrides`; an unknown gate name is a FeatureGateError. */
export function resolveFeatureGates(overrides: Readonly<Record<string, boolean>> | undefined): FeatureGates {
  const gates: Record<FeatureGateName, boolean> = { ...DEFAULT_FEATURE_GATES };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (!isKnown(name)) throw new FeatureGateError(`unrecognized feature gate: ${name} (known: ${KNOWN_FEATURE_GATES.join(", ")})`);
    if (typeof value !== "boolean") throw new FeatureGateError(`feature gate ${name} needs a boolean, not ${JSON.stringify(value)}`);
    gates[name] = value;
  }
  return gates;
}

/**
 * Parses the `--feature-gates` text: comma-separated `Name=bool` pairs, the form
 * kube-apiserver takes. Values are read like Go's strconv.ParseBool (true/false/1/0/t/f…),
 * as the real flag does. Empty items (a trailing comma) are skipped. Returns only the gates
 * named, for startEmulator's `featureGates` option.
 */
export function parseFeatureGates(text: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const item of text.split(",")) {
    const pair = item.trim();
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${pair}`);
    const name = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    if (!isKnown(name)) throw new FeatureGateError(`unrecognized feature gate: ${name} (known: ${KNOWN_FEATURE_GATES.join(", ")})`);
    const value = parseGoBool(raw);
    if (value === undefined)
      throw new FeatureGateError(`invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    out[name] = value;
  }
  return out;
}

/**
 * Patch content types (doc1 "Patch content types"; wire-facts §3). The real handler reads
 * the Content-Type up to its first `;` and needs an exact match (case-sensitive, no
 * trimming) with one of the types the resource serves, before anything else (patch.go, "Do
 * this first"); anything else is 415 listing them. `application/apply-patch+cbor` is served
 * only with the CBORServingAndStorage gate (installer.go).
 */
import type { IncomingMessage } from "node:http";
import { unsupportedMediaType } from "../../apimachinery/api-errors.js";
import type { FeatureGates } from "../../apimachinery/feature-gates.js";

export type PatchType = "json" | "merge" | "strategic" | "apply-yaml" | "apply-cbor";

const PATCH_MEDIA_TYPES: Readonly<Record<PatchType, string>> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  "apply-yaml": "application/apply-patch+yaml",
  "apply-cbor": "application/apply-patch+cbor",
};

/**
 * The served patch types, in the order the 415 lists them. `strategic` is false for custom
 * resources, which have no Go struct to read patch strategies from (doc1: never for
 * custom-definition types).
 */
function servedPatchTypes(gates: FeatureGates, strategic = true): PatchType[] {
  const out: PatchType[] = strategic ? ["json", "merge", "strategic", "apply-yaml"] : ["json", "merge", "apply-yaml"];
  if (gates.CBORServingAndStorage) out.push("apply-cbor");
  return out;
}

export const isApply = (t: PatchType): boolean => t === "apply-yaml" || t === "apply-cbor";

/** The request's patch type, or the 415. `cborMerge`: test-only, failpoint merge-patch-cbor-served. */
export function patchTypeOf(req: IncomingMessage, gates: FeatureGates, strategic = true, cborMerge = false): PatchType {
  const header = req.headers["content-type"] ?? "";
  const semicolon = header.indexOf(";");
  const contentType = semicolon > 0 ? header.slice(0, semicolon) : header;
  if (cborMerge && contentType === "application/merge-patch+cbor") return "merge";
  const served = servedPatchTypes(gates, strategic);
  const found = served.find((t) => PATCH_MEDIA_TYPES[t] === contentType);
  if (!found) throw unsupportedMediaType(served.map((t) => PATCH_MEDIA_TYPES[t]));
  return found;
}

/**
 * PatchOptions from the query, validated as ValidatePatchOptions does
 * (apimachinery@v0.35.7 pkg/apis/meta/v1/validation/validation.go): every problem goes into
 * one 422 Invalid for `PatchOptions.meta.k8s.io ""`, in this order:
 *  - `force` on a non-apply patch: `force: Forbidden: may not be specified for non-apply patch`;
 *  - apply without a fieldManager: `fieldManager: Required value: is required for apply patch`;
 *  - a fieldManager over 128 bytes or with unprintable characters;
 *  - a dryRun other than All (an empty value is ignored, as for the other verbs here);
 *  - a fieldValidation other than "", Ignore, Strict, Warn.
 * `force` is a query boolean the way the server converts them: only "0" and "false" (any
 * case) are false, and the parameter's presence alone makes it "specified".
 *
 * The name's limits are apimachinery/managed-fields/manager-name.ts's, shared with the name a
 * non-apply write records when the request names none.
 */
import { invalidError } from "../../apimachinery/api-errors.js";
import { type FieldError, forbidden, invalid as invalidField, notSupported, required, tooLong } from "../../apimachinery/field-errors.js";
import { FIELD_MANAGER_MAX_LENGTH, isPrintableRune } from "../../apimachinery/managed-fields/manager-name.js";
import { isApply, type PatchType } from "./media-types.js";

/** fieldValidation, defaulted: an absent or empty value means Warn. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

export interface PatchOptions {
  readonly dryRun: boolean;
  /** Given only when the query has `force`. */
  readonly force: boolean | undefined;
  readonly fieldManager: string;
  readonly fieldValidation: FieldValidation;
}

/** Go's %#U of a rune (only unprintable ones reach it, so no quoted character follows). */
function runeCode(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * The 422 cause for dryRun values other than All (an empty value is let through here), or
 * undefined. ValidateDryRun reports the whole list as given, JSON-marshalled: `["Maybe"]`.
 */
export function unsupportedDryRun(values: readonly string[]): FieldError | undefined {
  return values.some((v) => v !== "" && v !== "All") ? notSupported("dryRun", [...values], ["All"]) : undefined;
}

/** ValidateFieldManager: at most 128 bytes, printable characters only (PatchOptions, CreateOptions, UpdateOptions). */
export function validateFieldManager(fieldManager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong("fieldManager", FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of fieldManager) {
    if (!isPrintableRune(ch)) errs.push(invalidField("fieldManager", fieldManager, `invalid character ${runeCode(ch)} (at position ${position})`));
    position += Buffer.byteLength(ch);
  }
  return errs;
}

export function patchOptionsOf(url: URL, patchType: PatchType): PatchOptions {
  const q = url.searchParams;
  const errs: FieldError[] = [];
  const forceValues = q.getAll("force");
  const first = forceValues[0];
  const force = first === undefined ? undefined : !(first === "0" || first.toLowerCase() === "false");
  const fieldManager = q.get("fieldManager") ?? "";
  if (!isApply(patchType)) {
    if (force !== undefined) errs.push(forbidden("force", "may not be specified for non-apply patch"));
  } else if (fieldManager === "") {
    errs.push(required("fieldManager", "is required for apply patch"));
  }
  errs.push(...validateFieldManager(fieldManager));
  const dryRunValues = q.getAll("dryRun");
  const badDryRun = unsupportedDryRun(dryRunValues);
  if (badDryRun) errs.push(badDryRun);
  const fv = q.get("fieldValidation") ?? "";
  if (!["", "Ignore", "Strict", "Warn"].includes(fv)) errs.push(notSupported("fieldValidation", fv, ["", "Ignore", "Strict", "Warn"]));
  if (errs.length) throw invalidError({ group: "meta.k8s.io", kind: "PatchOptions" }, "", errs);
  return {
    dryRun: dryRunValues.some((v) => v !== ""),
    force,
    fieldManager,
    fieldValidation: fv === "" ? "Warn" : (fv as FieldValidation),
  };
}

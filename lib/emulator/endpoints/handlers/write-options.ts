/** Query parameters shared by the writing verbs. */
import { invalidError } from "../../apimachinery/api-errors.js";
import { notSupported } from "../../apimachinery/field-errors.js";
import { unsupportedDryRun, validateFieldManager } from "../patch/options.js";

/** dryRun: absent or empty for a real write, "All" for a dry run; anything else is refused. */
export function dryRunOf(values: readonly string[], optionsKind: string): boolean {
  const bad = unsupportedDryRun(values);
  if (bad) throw invalidError({ group: "meta.k8s.io", kind: optionsKind }, "", [bad]);
  return values.some((v) => v !== "");
}

export interface WriteOptions {
  readonly dryRun: boolean;
  /** Empty when not given: the User-Agent then names the manager. */
  readonly fieldManager: string;
}

/**
 * CreateOptions or UpdateOptions from the query, checked as ValidateCreateOptions and
 * ValidateUpdateOptions do before the body is read: fieldManager (at most 128 bytes,
 * printable), dryRun, fieldValidation, every problem in one 422 for `<kind>.meta.k8s.io ""`.
 */
export function writeOptionsOf(url: URL, optionsKind: "CreateOptions" | "UpdateOptions"): WriteOptions {
  const q = url.searchParams;
  const fieldManager = q.get("fieldManager") ?? "";
  const dryRunValues = q.getAll("dryRun");
  const fieldValidation = q.get("fieldValidation") ?? "";
  const errs = validateFieldManager(fieldManager);
  const badDryRun = unsupportedDryRun(dryRunValues);
  if (badDryRun) errs.push(badDryRun);
  if (!["", "Ignore", "Strict", "Warn"].includes(fieldValidation)) {
    errs.push(notSupported("fieldValidation", fieldValidation, ["", "Ignore", "Strict", "Warn"]));
  }
  if (errs.length) throw invalidError({ group: "meta.k8s.io", kind: optionsKind }, "", errs);
  return { dryRun: dryRunValues.some((v) => v !== ""), fieldManager };
}

/**
 * Warning headers for the response, when there are any. Go writes a header's bytes as they are
 * (a field name `kiând` goes out as UTF-8); Node takes only Latin-1 strings and throws on the
 * rest, so the UTF-8 bytes are handed over one per character, and the control characters Node
 * refuses outright become spaces, as Go turns CR and LF into spaces.
 */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  const raw = (w: string): string =>
    Buffer.from(w, "utf8")
      .toString("latin1")
      .replace(/[^\t\x20-\x7e\x80-\xff]/g, " ");
  return warnings.length ? { Warning: warnings.map(raw) } : {};
}

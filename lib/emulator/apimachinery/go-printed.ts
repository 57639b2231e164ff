/**
 * Bad values that Go's field.Error prints neither as a quoted string nor as a number
 * (apimachinery pkg/util/validation/field/errors.go ErrorBody): a value with a String method
 * (metav1.Time, MicroTime → time.Time.String()) prints that; any other struct prints as `%#v`
 * (`core.ObjectReference{Kind:"Pod", …}`); a nil pointer prints as the quoted string "null".
 * The immutable-field errors of Event updates carry such values (wire-facts §7).
 *
 * field-errors.ts formats string and number values; a value printed here travels in the
 * FieldError as a marker object, and `invalidObject` (used by the generic registry for every
 * validation failure) writes it out verbatim in the message and the causes.
 */

import { failure, type StatusCause } from "../../wire/status.js";
import { details, type QualifiedKind, qualifiedKindString, StatusError } from "./api-errors.js";
import { errorBody, type FieldError, goQuote } from "./field-errors.js";
import { isJsonObject, type Json, type JsonObject } from "./json.js";

/** The marker key: no API field name starts with a NUL, so no real bad value can look like it. */
const GO_PRINTED = "\u0000goPrinted";

/** A bad value given as the text Go prints for it. */
export function goPrinted(text: string): JsonObject {
  return { [GO_PRINTED]: text };
}

function printedText(value: Json | undefined): string | undefined {
  if (!isJsonObject(value)) return undefined;
  const text = value[GO_PRINTED];
  return typeof text === "string" ? text : undefined;
}

/** errorBody, with marker values written verbatim. */
function goErrorBody(e: FieldError): string {
  const printed = printedText(e.badValue);
  if (printed === undefined) return errorBody(e);
  return `Invalid value: ${printed}${e.detail ? `: ${e.detail}` : ""}`;
}

function goErrorString(e: FieldError): string {
  const body = goErrorBody(e);
  return e.field ? `${e.field}: ${body}` : body;
}

/**
 * errors.NewInvalid: causes one per error (repeats kept), the message one per distinct text,
 * bracketed when more than one (field.ErrorList.ToAggregate).
 */
export function invalidObject(qk: QualifiedKind, name: string, errors: readonly FieldError[]): StatusError {
  const causes: StatusCause[] = errors.map((e) => ({ reason: e.type, message: goErrorBody(e), field: e.field }));
  const messages = [...new Set(errors.map(goErrorString))];
  const aggregate = messages.length === 1 ? (messages[0] ?? "") : `[${messages.join(", ")}]`;
  return new StatusError(
    failure(422, "Invalid", `${qualifiedKindString(qk)} "${name}" is invalid: ${aggregate}`, details({ name, group: qk.group, kind: qk.kind, causes })),
  );
}

/** Go's %#v of a struct whose fields are all strings: `pkg.Type{Field:"value", …}`. */
export function goStringStruct(typeName: string, fields: ReadonlyArray<readonly [string, string]>): string {
  return `${typeName}{${fields.map(([name, value]) => `${name}:${goQuote(value)}`).join(", ")}}`;
}

/**
 * time.Time.String() of an API Time/MicroTime text, in UTC (the server's location):
 * `2006-01-02 15:04:05.999999999 -0700 MST` with the fraction's trailing zeros dropped.
 * The zero value (null) is `0001-01-01 00:00:00 +0000 UTC`.
 */
export function goTimeString(value: Json | undefined): string {
  if (typeof value !== "string") return "0001-01-01 00:00:00 +0000 UTC";
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(value);
  if (!m) return value;
  const fraction = (m[3] ?? "").replace(/0+$/, "");
  return `${m[1]} ${m[2]}${fraction ? `.${fraction}` : ""} +0000 UTC`;
}

/**
 * Field validation errors and their text, in the form the real server prints them
 * (`<field>: <Type text>[: <value>][: <detail>]`, wire-facts §4 422 row). Validation
 * functions return lists of these; the Invalid Status is built from the list.
 */
import type { Json } from "./json.js";

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueDuplicate"
  | "FieldValueNotFound";

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly badValue?: Json;
  readonly detail: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueDuplicate: "Duplicate value",
  FieldValueNotFound: "Not found",
};

/** Types whose text carries no bad value. */
const VALUELESS = new Set<FieldErrorType>(["FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"]);

export function required(field: string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field, detail };
}

export function invalid(field: string, badValue: Json, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, badValue, detail };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, detail };
}

export function notSupported(field: string, badValue: Json, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(", ")}` : "";
  return { type: "FieldValueNotSupported", field, badValue, detail };
}

export function duplicate(field: string, badValue: Json): FieldError {
  return { type: "FieldValueDuplicate", field, badValue, detail: "" };
}

export function tooLong(field: string, maxBytes: number): FieldError {
  return { type: "FieldValueTooLong", field, detail: `must have at most ${maxBytes} bytes` };
}

/** field.TooMany: a list over its limit (`Too many: 1001: must have at most 1000 items`). */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: "FieldValueTooMany", field, badValue: actual, detail: `must have at most ${max} items` };
}

/** Go's %q for the strings we print (ASCII control characters use \x escapes there). */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([01][0-9a-f])/g, "\\x$1");
}

function formatValue(value: Json | undefined): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** The error text without the field path (the StatusCause message). */
export function errorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  if (!VALUELESS.has(e.type)) s += `: ${formatValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function errorString(e: FieldError): string {
  return e.field ? `${e.field}: ${errorBody(e)}` : errorBody(e);
}

/** One message for a list: duplicates dropped, brackets only when more than one remains. */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(errorString))];
  if (messages.length === 1) return messages[0] ?? "";
  return `[${messages.join(", ")}]`;
}

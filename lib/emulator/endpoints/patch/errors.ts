/**
 * The errors particular to PATCH (apiserver@v0.35.7 pkg/endpoints/handlers/patch.go).
 *
 * Where the real server answers a client mistake with a plain Go error (a 500 with no
 * reason: a strategic merge patch naming an unknown directive, an apply whose body does not
 * fit the schema), the emulator answers 400 BadRequest with the same text, since tollgate's
 * rule is that bad input never gets a 500 (README).
 */

import { failure } from "../../../wire/status.js";
import { badRequest, invalidError, StatusError } from "../../apimachinery/api-errors.js";
import { invalid as invalidField } from "../../apimachinery/field-errors.js";

/** A client mistake the real server reports as a bare error (500); 400 here, same text. */
export class PatchInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchInputError";
  }
}

export function inputError(e: PatchInputError): StatusError {
  return badRequest(e.message);
}

/**
 * errors.NewGenericServerResponse(422, …): what a JSON patch operation that fails (a `test`
 * that does not hold, a path that does not exist) answers, with the library's text as the
 * one cause.
 */
export function patchRejected(detail: string): StatusError {
  return new StatusError(
    failure(422, "Invalid", "the server rejected our request due to an error in our request", {
      causes: [{ reason: "UnexpectedServerResponse", message: detail }],
    }),
  );
}

/**
 * errors.NewInvalid(schema.GroupKind{}, "", field.Invalid("patch", <patched document>, detail)):
 * a patched document that does not decode, or (fieldValidation=Strict) has unknown or
 * duplicate fields. The empty kind and name give the message its odd ` "" is invalid` head.
 */
export function patchInvalid(patched: string, detail: string): StatusError {
  return invalidError({ group: "", kind: "" }, "", [invalidField("patch", patched, detail)]);
}

/** More operations than a JSON patch may hold (maxJSONPatchOperations). */
export function tooManyOperations(count: number): StatusError {
  return new StatusError(
    failure(413, "RequestEntityTooLarge", `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${count}`),
  );
}

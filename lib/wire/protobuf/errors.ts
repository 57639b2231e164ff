/**
 * Every failure of the codec on input data: an unknown kind (the server answers 406), a body
 * without the magic prefix, a truncated or malformed message or frame, a JSON value of the
 * wrong type. Schema mistakes in this module are plain Errors instead.
 */
export class ProtobufFormatError extends Error {
  override name = "ProtobufFormatError";
}

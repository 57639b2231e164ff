/**
 * API errors as thrown values carrying the Status the server answers with. Messages and
 * details follow wire-facts §4: NotFound/AlreadyExists/Conflict/Forbidden name the resource
 * (plural) in details.kind, Invalid names the Kind.
 */
import { failure, makeStatus, type Status, type StatusCause, type StatusDetails } from "../../wire/status.js";
import { aggregateMessage, errorBody, type FieldError } from "./field-errors.js";

export interface QualifiedResource {
  readonly group: string;
  readonly resource: string;
}

export interface QualifiedKind {
  readonly group: string;
  readonly kind: string;
}

/** `configmaps`, `events.events.k8s.io`: resource, plus "." and the group when there is one. */
function qualifiedResourceString(qr: QualifiedResource): string {
  return qr.group ? `${qr.resource}.${qr.group}` : qr.resource;
}

export function qualifiedKindString(qk: QualifiedKind): string {
  return qk.group ? `${qk.kind}.${qk.group}` : qk.kind;
}

export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? "error");
    this.name = "StatusError";
  }

  get code(): number {
    return this.status.code ?? 500;
  }
}

/** Details in Go struct order (name, group, kind, uid, causes); empty strings left out. */
export function details(init: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[] }): StatusDetails {
  const d: StatusDetails = {};
  if (init.name) d.name = init.name;
  if (init.group) d.group = init.group;
  if (init.kind) d.kind = init.kind;
  if (init.uid) d.uid = init.uid;
  if (init.causes?.length) d.causes = init.causes;
  return d;
}

function resourceDetails(qr: QualifiedResource, name: string): StatusDetails {
  return details({ name, group: qr.group, kind: qr.resource });
}

export function badRequest(message: string): StatusError {
  return new StatusError(failure(400, "BadRequest", message));
}

export function notFound(qr: QualifiedResource, name: string): StatusError {
  return new StatusError(failure(404, "NotFound", `${qualifiedResourceString(qr)} "${name}" not found`, resourceDetails(qr, name)));
}

/** The answer for a path no route serves. */
export function pathNotFound(): StatusError {
  return new StatusError(failure(404, "NotFound", "the server could not find the requested resource", {}));
}

/** The answer for a method a route does not serve (go-restful 405 through the server's error handler). */
export function methodNotAllowed(): StatusError {
  return new StatusError(failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}));
}

/**
 * A create whose object another writer made first counts as done: what a server's own seeding
 * needs when several replicas on one etcd seed at once (or one starts again on its data).
 */
export async function createdOrExisting(create: Promise<unknown>): Promise<void> {
  try {
    await create;
  } catch (e) {
    if (!(e instanceof StatusError && e.status.reason === "AlreadyExists")) throw e;
  }
}

export function alreadyExists(qr: QualifiedResource, name: string): StatusError {
  return new StatusError(failure(409, "AlreadyExists", `${qualifiedResourceString(qr)} "${name}" already exists`, resourceDetails(qr, name)));
}

export function conflict(qr: QualifiedResource, name: string, cause: string): StatusError {
  return new StatusError(
    failure(409, "Conflict", `Operation cannot be fulfilled on ${qualifiedResourceString(qr)} "${name}": ${cause}`, resourceDetails(qr, name)),
  );
}

export const OPTIMISTIC_LOCK_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again";

export function invalidError(qk: QualifiedKind, name: string, errors: readonly FieldError[]): StatusError {
  const causes: StatusCause[] = errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
  return new StatusError(
    failure(
      422,
      "Invalid",
      `${qualifiedKindString(qk)} "${name}" is invalid: ${aggregateMessage(errors)}`,
      details({ name, group: qk.group, kind: qk.kind, causes }),
    ),
  );
}

export function forbiddenError(qr: QualifiedResource, name: string, cause: string, causes?: StatusCause[]): StatusError {
  const subject = name ? `${qualifiedResourceString(qr)} "${name}"` : qualifiedResourceString(qr);
  return new StatusError(failure(403, "Forbidden", `${subject} is forbidden: ${cause}`, details({ name, group: qr.group, kind: qr.resource, causes })));
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError(failure(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`));
}

/** A 406 with its own text (response.go errNotAcceptable: a transformation the object cannot take). */
export function notAcceptableMessage(message: string): StatusError {
  return new StatusError(failure(406, "NotAcceptable", message));
}

export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(
    failure(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`),
  );
}

export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(failure(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`));
}

export function expired(message: string, metadata?: Status["metadata"]): StatusError {
  return new StatusError(makeStatus({ status: "Failure", message, reason: "Expired", code: 410, metadata }));
}

export function internalError(cause: string): StatusError {
  return new StatusError(failure(500, "InternalError", `Internal error occurred: ${cause}`, details({ causes: [{ message: cause }] })));
}

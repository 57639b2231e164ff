/**
 * The Status object (meta/v1), the body of every API error and of a successful delete.
 * Shape and key order follow ../shared/docs/wire-facts.md §4: kind, apiVersion, metadata
 * (always written), status, message, reason, details, code (the rest omitted when empty).
 */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: { resourceVersion?: string; continue?: string };
  status?: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export interface StatusInit {
  status?: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
  metadata?: Status["metadata"];
}

/** Builds a Status with the real key order and omitempty behaviour. */
export function makeStatus(init: StatusInit): Status {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: init.metadata ?? {} };
  if (init.status) s.status = init.status;
  if (init.message) s.message = init.message;
  if (init.reason) s.reason = init.reason;
  if (init.details) s.details = init.details;
  if (init.code) s.code = init.code;
  return s;
}

export function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  return makeStatus({ status: "Failure", message, reason, details, code });
}

export function isStatus(body: unknown): body is Status {
  return typeof body === "object" && body !== null && (body as { kind?: unknown }).kind === "Status" && (body as { apiVersion?: unknown }).apiVersion === "v1";
}

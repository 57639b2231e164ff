/** The errors of a request to the target: an answer that is an error (its Status kept), and no answer at all. */
import type { Status } from "../wire/status.js";

export class ApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly code: number,
    readonly status: Status | undefined,
    readonly text: string,
  ) {
    super(`${method} ${path} → ${code}${status?.reason ? ` ${status.reason}` : ""}: ${status?.message ?? text.slice(0, 300)}`);
  }
}

/**
 * Raised when the target does not answer: refused, reset, DNS, TLS, or no answer within the
 * request timeout. The message names the request. Never a verdict on the target's conformance.
 */
export class UnreachableError extends Error {
  override readonly name = "UnreachableError";
}

/** A failure of the connection (undici's UND_ERR_* or a system error code), not of what came over it. */
export function isTransportError(e: unknown): boolean {
  const code = (x: unknown): string | undefined =>
    typeof x === "object" && x !== null && typeof (x as { code?: unknown }).code === "string" ? (x as { code: string }).code : undefined;
  const c = code(e) ?? code((e as { cause?: unknown } | undefined)?.cause);
  return c !== undefined && /^(UND_ERR_|E[A-Z0-9]+$)/.test(c);
}

export function describeTransportError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as Error & { cause?: unknown }).cause;
  const code = (cause as { code?: string } | undefined)?.code ?? (e as Error & { code?: string }).code;
  const msg = cause instanceof Error ? cause.message : e.message;
  return code ? `${code} (${msg})` : msg;
}

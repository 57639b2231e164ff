/**
 * Judging the daemons' answers to client certificates and identity headers (doc3
 * "Authentication"). Who a daemon took a request for shows in its 403 answer: the controller
 * manager's Status message says `User "<name>" cannot ...`, the node agent's text says
 * `Forbidden (user=<name>, ...)`. A 2xx shows only that the requester was allowed, which
 * says something when an anonymous request is not.
 */
import { X509Certificate } from "node:crypto";
import type { Daemon } from "./catalog/index.js";
import type { ProbeResponse } from "./probe-types.js";

export interface Judgement {
  ok: boolean;
  expected: string;
  actual: string;
}

const is2xx = (r: ProbeResponse): boolean => r.status >= 200 && r.status < 300;

export const describeAnswer = (r: ProbeResponse): string => `HTTP ${r.status} ${JSON.stringify(r.body.slice(0, 160))}`;

/** The common name of a PEM certificate ("" when it has none). */
export function certificateCommonName(pem: string): string {
  const line = new X509Certificate(pem).subject.split("\n").find((l) => l.startsWith("CN="));
  return line ? line.slice(3) : "";
}

/** The user a 403 answer names, or undefined when it is no 403 or names nobody. */
export function forbiddenUser(daemon: Daemon, r: ProbeResponse): string | undefined {
  if (r.status !== 403) return undefined;
  if (daemon === "node-agent") return /user=([^,)]*)[,)]/.exec(r.body)?.[1];
  let message = r.body;
  try {
    const parsed = JSON.parse(r.body) as { message?: unknown };
    if (typeof parsed.message === "string") message = parsed.message;
  } catch {
    // Not a Status: look in the text as it is.
  }
  return /User "([^"]*)"/.exec(message)?.[1];
}

/**
 * A request made with a certificate was taken for `user`: a 403 naming that user, or a 2xx
 * where an anonymous request is not served (the name cannot be seen then, only that someone
 * allowed asked).
 */
export function judgeTakenFor(daemon: Daemon, r: ProbeResponse, anonymous: ProbeResponse, user: string): Judgement {
  const named = forbiddenUser(daemon, r);
  const ok = (r.status === 403 && named === user) || (is2xx(r) && !is2xx(anonymous));
  return { ok, expected: `403 naming user "${user}", or 2xx (anonymous: ${describeAnswer(anonymous)})`, actual: describeAnswer(r) };
}

/** A credential the daemon does not recognize is refused with 401, never taken as anonymous. */
export function judgeRefused(r: ProbeResponse): Judgement {
  return { ok: r.status === 401, expected: "HTTP 401", actual: describeAnswer(r) };
}

/**
 * Identity headers that must not be trusted change nothing: the answer with them has the status
 * and the named user of the same request without them, and never names the header's user.
 */
export function judgeHeadersIgnored(daemon: Daemon, withHeaders: ProbeResponse, without: ProbeResponse, headerUser: string): Judgement {
  const named = forbiddenUser(daemon, withHeaders);
  const ok = named !== headerUser && withHeaders.status === without.status && named === forbiddenUser(daemon, without);
  return { ok, expected: `the answer without the headers (${describeAnswer(without)}), not one for user "${headerUser}"`, actual: describeAnswer(withHeaders) };
}

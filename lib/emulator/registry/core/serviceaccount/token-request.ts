/**
 * POST `…/serviceaccounts/{name}/token`: an authentication.k8s.io/v1 TokenRequest in, the same
 * with status.token and status.expirationTimestamp out (201). spec.expirationSeconds defaults
 * to 3600 and may not be under 600 (10 minutes) or over 2^32; audiences default to the API
 * server's. The account must exist (404 otherwise). Nothing is stored but the token itself.
 */
import { badRequest, invalid, notFound } from "../../../apimachinery/api-errors.js";
import { formatTime } from "../../../apimachinery/api-time.js";
import { invalid as invalidField, type FieldError } from "../../../apimachinery/field-errors.js";
import type { RequestContext } from "../../../endpoints/handlers/context.js";
import { writeObject } from "../../../endpoints/handlers/respond.js";
import { isJsonObject, type JsonObject } from "../../../apimachinery/json.js";
import { uidOf } from "../../../apimachinery/object-meta.js";
import { serviceAccountStrategy } from "./strategy.js";

export const API_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
const TOKEN_REQUEST = { group: "authentication.k8s.io", kind: "TokenRequest" };
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** The body as a JSON object (400 for anything else, as a decode error would be). */
export function jsonBody(body: Buffer, kind: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (e) {
    throw badRequest(`the body of the request was in an unknown format or could not be decoded as a ${kind}: ${(e as Error).message}`);
  }
  if (!isJsonObject(parsed)) throw badRequest(`the body of the request could not be decoded as a ${kind}: not a JSON object`);
  return parsed;
}

export async function serveTokenRequest(ctx: RequestContext, name: string, body: Buffer): Promise<void> {
  const { auth, storage, clock } = ctx.parts;
  const namespace = ctx.route.namespace;
  const input = jsonBody(body, "TokenRequest");
  const spec = isJsonObject(input["spec"]) ? input["spec"] : {};
  const rawSeconds = spec["expirationSeconds"];
  const errs: FieldError[] = [];
  if (rawSeconds !== undefined && rawSeconds !== null && (typeof rawSeconds !== "number" || !Number.isInteger(rawSeconds))) {
    throw badRequest(`the body of the request could not be decoded as a TokenRequest: spec.expirationSeconds must be an integer`);
  }
  const seconds = typeof rawSeconds === "number" ? rawSeconds : DEFAULT_EXPIRATION_SECONDS;
  if (seconds < MIN_EXPIRATION_SECONDS) errs.push(invalidField("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"));
  if (seconds > MAX_EXPIRATION_SECONDS) errs.push(invalidField("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"));
  if (errs.length) throw invalid(TOKEN_REQUEST, name, errs);
  const account = storage.get(serviceAccountStrategy, namespace, name);
  if (!account) throw notFound({ group: "", resource: "serviceaccounts" }, name);
  if (!auth) throw notFound({ group: "", resource: "serviceaccounts" }, name);
  const audiences = Array.isArray(spec["audiences"]) && spec["audiences"].length ? spec["audiences"].filter((a) => typeof a === "string") : [API_AUDIENCE];
  const { token, expires } = auth.authenticator.issue(namespace, name, uidOf(account.object), seconds);
  const out = {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace, creationTimestamp: formatTime(clock.date()) },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: isJsonObject(spec["boundObjectRef"]) ? spec["boundObjectRef"] : null },
    status: { token, expirationTimestamp: formatTime(expires) },
  };
  return writeObject(ctx, 201, out);
}

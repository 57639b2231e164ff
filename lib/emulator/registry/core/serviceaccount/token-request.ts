/**
 * POST `…/serviceaccounts/{name}/token`: an authentication.k8s.io/v1 TokenRequest in, the same
 * with status.token and status.expirationTimestamp out (201). spec.expirationSeconds defaults
 * to 3600 and may not be under 600 (10 minutes) or over 2^32; audiences default to the API
 * server's, and a token for other audiences only is not accepted by this server (it is for them). The account must exist (404 otherwise). Nothing is stored but the token itself.
 *
 * A REST override of the `token` subresource (registry/generic/strategy.ts): the tokens come from
 * the TOKEN_ISSUER capability, which auth/ provides when it is on (auth/authenticator.ts).
 */
import { badRequest, invalidError, notFound } from "../../../apimachinery/api-errors.js";
import { formatTime } from "../../../apimachinery/api-time.js";
import { type FieldError, invalid as invalidField } from "../../../apimachinery/field-errors.js";
import { isJsonObject, type KubeObject } from "../../../apimachinery/json.js";
import { objectHead, uidOf } from "../../../apimachinery/object-meta.js";
import { field, INT64, listOf, STRING, struct, TIME } from "../../../apimachinery/typed-json.js";
import { Capability } from "../../generic/capabilities.js";
import type { RestRequest, RestResult } from "../../generic/strategy.js";

export const API_AUDIENCE = "https://kubernetes.default.svc.cluster.local";
const TOKEN_REQUEST = { group: "authentication.k8s.io", kind: "TokenRequest" };
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const BOUND_OBJECT_REFERENCE = struct("v1", "BoundObjectReference", [
  field("kind", STRING),
  field("apiVersion", STRING),
  field("name", STRING),
  field("uid", STRING),
]);

/** authentication.k8s.io/v1 TokenRequest, for the OpenAPI documents (the answer is built by hand below). */
export const TOKEN_REQUEST_SHAPE = struct("v1", "TokenRequest", [
  ...objectHead(),
  field(
    "spec",
    struct("v1", "TokenRequestSpec", [
      field("audiences", listOf(STRING), "always"),
      field("expirationSeconds", INT64, "pointer"),
      field("boundObjectRef", BOUND_OBJECT_REFERENCE, "pointer"),
    ]),
    "always",
  ),
  field("status", struct("v1", "TokenRequestStatus", [field("token", STRING, "always"), field("expirationTimestamp", TIME, "always")])),
]);

/** Bound service account tokens: what a TokenRequest asks for (auth/authenticator.ts issues them). */
export interface TokenIssuer {
  /** A token for the account, bound to its uid and audiences, valid for expirationSeconds on the server's clock. */
  issue(namespace: string, name: string, uid: string, expirationSeconds: number, audiences: readonly string[]): { token: string; expires: Date };
}

export const TOKEN_ISSUER = new Capability<TokenIssuer>("token issuer");

/** The `token` subresource's create (SERVICE_ACCOUNT_TOKEN in strategy.ts): the account is the object on the path. */
export async function serveTokenRequest(request: RestRequest): Promise<RestResult> {
  const { namespace, name } = request;
  const input = request.body;
  const spec = isJsonObject(input["spec"]) ? input["spec"] : {};
  const rawSeconds = spec["expirationSeconds"];
  const errs: FieldError[] = [];
  if (rawSeconds !== undefined && rawSeconds !== null && (typeof rawSeconds !== "number" || !Number.isInteger(rawSeconds))) {
    throw badRequest(`the body of the request could not be decoded as a TokenRequest: spec.expirationSeconds must be an integer`);
  }
  const seconds = typeof rawSeconds === "number" ? rawSeconds : DEFAULT_EXPIRATION_SECONDS;
  if (seconds < MIN_EXPIRATION_SECONDS) errs.push(invalidField("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"));
  if (seconds > MAX_EXPIRATION_SECONDS) errs.push(invalidField("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"));
  if (errs.length) throw invalidError(TOKEN_REQUEST, name, errs);
  const account = await request.read(namespace, name);
  if (!account) throw notFound({ group: "", resource: "serviceaccounts" }, name);
  const issuer = request.capabilities.get(TOKEN_ISSUER);
  if (!issuer) throw notFound({ group: "", resource: "serviceaccounts" }, name);
  const audiences = Array.isArray(spec["audiences"]) && spec["audiences"].length ? spec["audiences"].filter((a) => typeof a === "string") : [API_AUDIENCE];
  const { token, expires } = issuer.issue(namespace, name, uidOf(account), seconds, audiences);
  const out: KubeObject = {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace, creationTimestamp: formatTime(request.now()) },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: isJsonObject(spec["boundObjectRef"]) ? spec["boundObjectRef"] : null },
    status: { token, expirationTimestamp: formatTime(expires) },
  };
  return { code: 201, object: out };
}

/**
 * The authorization attributes of a request, derived from the method and the path alone, as the
 * real RequestInfo resolver does (before any route is matched, so an unknown type is refused 403
 * before it would be 404):
 *
 *  - `/api/{v}/…` and `/apis/{g}/{v}/…` are resource requests, anything else (discovery roots,
 *    health, /version) a non-resource request on its path, its verb the lower-cased method;
 *  - the verb comes from the method (GET/HEAD get, POST create, PUT update, PATCH patch, DELETE
 *    delete); a GET without a name is list, or watch with `watch=true`; the `/watch/` prefix is
 *    watch; a DELETE without a name is deletecollection. A dry run keeps its verb;
 *  - `/namespaces/{ns}/{resource}…` sets the namespace; a namespace's own path
 *    (`/api/v1/namespaces/{name}`) has its name as the namespace, as in the real resolver;
 *  - `{resource}/{name}/{subresource}` fills name and subresource; a list with a field selector
 *    requiring `metadata.name=x` is authorized for the name x (collectionRead).
 *
 * The attribute types are the authorizer's (registry/authorization/authorizer.ts), the same a
 * SubjectAccessReview asks about.
 */
import { requiredValue } from "../apimachinery/field-selector.js";
import { type DecodedListQuery, decodeListQuery, QueryError } from "../apimachinery/list-query.js";
import type { NonResourceAttributes, RequestAttributes } from "../registry/authorization/authorizer.js";

const METHOD_VERBS: Readonly<Record<string, string>> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** A namespace's own subresources: not types of their own below `/namespaces/{ns}/`. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

function splitPath(pathname: string): string[] {
  const trimmed = pathname.replace(/^\/+|\/+$/g, "");
  if (trimmed === "") return [];
  return trimmed.split("/").map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
}

/** What the real RequestInfo resolver's path.IsValidPathSegmentName refuses. */
const invalidPathSegment = (name: string): boolean => name === "." || name === ".." || /[/%]/.test(name);

/**
 * The verb and name of a GET without a name, read from the query by the decoding the list
 * itself uses (apimachinery/list-query.ts), so the two cannot disagree on what is selected: a
 * `metadata.name=x` (or `==`) requirement makes it a request for x, whatever the other terms
 * (all are ANDed: the list can return nothing else). A query the decoding refuses sets no name
 * (and the list answers 400); its verb is then watch unless `watch` is absent, "0" or "false".
 */
function collectionRead(params: URLSearchParams): { verb: "list" | "watch"; name: string } {
  let query: DecodedListQuery;
  try {
    query = decodeListQuery(params);
  } catch (e) {
    if (!(e instanceof QueryError)) throw e;
    const watch = params.get("watch");
    return { verb: watch !== null && watch.toLowerCase() !== "false" && watch !== "0" ? "watch" : "list", name: "" };
  }
  const name = requiredValue(query.fieldRequirements, "metadata.name");
  return { verb: query.watch ? "watch" : "list", name: name === undefined || invalidPathSegment(name) ? "" : name };
}

export function requestAttributes(method: string, url: URL): RequestAttributes {
  const methodVerb = METHOD_VERBS[method] ?? method.toLowerCase();
  // A non-resource request's verb is the lower-cased method itself (HEAD is "head", POST "post").
  const nonResource: NonResourceAttributes = { kind: "nonResource", verb: method.toLowerCase(), path: url.pathname };
  let parts = splitPath(url.pathname);
  const prefix = parts[0];
  if (parts.length < 3 || (prefix !== "api" && prefix !== "apis")) return nonResource;
  parts = parts.slice(1);
  let group = "";
  if (prefix === "apis") {
    if (parts.length < 3) return nonResource;
    group = parts[0] ?? "";
    parts = parts.slice(1);
  }
  const version = parts[0] ?? "";
  parts = parts.slice(1);
  let verb = methodVerb;
  let viaMethod = true;
  if (parts[0] === "watch" || parts[0] === "proxy") {
    verb = parts[0];
    viaMethod = false;
    parts = parts.slice(1);
  }
  let namespace = "";
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = parts[1] ?? "";
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? "")) parts = parts.slice(2);
  }
  const resource = parts[0] ?? "";
  let name = parts[1] ?? "";
  const subresource = parts.length >= 3 && verb !== "proxy" ? (parts[2] ?? "") : "";
  if (viaMethod && name === "" && verb === "get") ({ verb, name } = collectionRead(url.searchParams));
  if (viaMethod && name === "" && verb === "delete") verb = "deletecollection";
  return { kind: "resource", verb, group, version, resource, subresource, namespace, name };
}

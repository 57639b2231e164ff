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
 *    `metadata.name=x` is authorized for the name x.
 *
 * The attribute types are the authorizer's (registry/authorization/authorizer.ts), the same a
 * SubjectAccessReview asks about.
 */
import type { NonResourceAttributes, RequestAttributes } from "../registry/authorization/authorizer.js";

const METHOD_VERBS: Readonly<Record<string, string>> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** A namespace's own subresources: not types of their own below `/namespaces/{ns}/`. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

const isTrue = (v: string | null): boolean => v !== null && ["1", "t", "T", "true", "TRUE", "True"].includes(v);

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

/** The name a field selector pins (`metadata.name=x` or `metadata.name==x`), if any. */
function selectedName(fieldSelector: string | null): string {
  if (!fieldSelector) return "";
  for (const term of fieldSelector.split(",")) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m?.[1] && !/[/%]/.test(m[1]) && m[1] !== "." && m[1] !== "..") return m[1];
  }
  return "";
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
  if (viaMethod && name === "" && verb === "get") {
    verb = isTrue(url.searchParams.get("watch")) ? "watch" : "list";
    name = selectedName(url.searchParams.get("fieldSelector"));
  }
  if (viaMethod && name === "" && verb === "delete") verb = "deletecollection";
  return { kind: "resource", verb, group, version, resource, subresource, namespace, name };
}

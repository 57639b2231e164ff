/**
 * Path parsing (doc1 "Path shapes"): `/api/{v}/…` for the core group, `/apis/{g}/{v}/…` for
 * the others; collections, resources, namespaced forms, the all-namespaces list of a
 * namespaced type, subresources, the deprecated `/watch/` prefix, and the discovery and
 * health paths. Anything else is a generic 404.
 */
import type { ResourceRegistry, ResourceStrategy } from "../registry/generic/strategy.js";

export interface ResourceRoute {
  readonly kind: "resource";
  readonly strategy: ResourceStrategy;
  /** The namespace from the path ("" for cluster-scoped types and all-namespaces lists). */
  readonly namespace: string;
  /** Set for a single resource. */
  readonly name?: string;
  readonly subresource?: string;
  /** A namespaced type listed across all namespaces (`/api/v1/configmaps`). */
  readonly allNamespaces: boolean;
  /** Reached through the deprecated `/watch/` prefix: always a watch. */
  readonly watchPath: boolean;
}

export type Route =
  | { readonly kind: "version" }
  | { readonly kind: "health"; readonly check: "healthz" | "readyz" | "livez"; readonly name?: string }
  | { readonly kind: "apiVersions" }
  | { readonly kind: "apiGroupList" }
  | { readonly kind: "apiGroup"; readonly group: string }
  | { readonly kind: "apiResourceList"; readonly group: string; readonly version: string }
  | ResourceRoute
  | { readonly kind: "notFound" };

const NOT_FOUND: Route = { kind: "notFound" };

function segments(pathname: string): string[] | undefined {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  try {
    const split = path.split("/").slice(1);
    // Most paths have no escapes: nothing to decode.
    const parts = path.includes("%") ? split.map(decodeURIComponent) : split;
    return parts.some((p) => p === "") ? undefined : parts;
  } catch {
    return undefined;
  }
}

export function route(pathname: string, registry: ResourceRegistry): Route {
  const seg = segments(pathname);
  if (!seg) return NOT_FOUND;
  const [first, second, third] = seg;
  if (seg.length === 1) {
    if (first === "version") return { kind: "version" };
    if (first === "healthz" || first === "readyz" || first === "livez") return { kind: "health", check: first };
    if (first === "api") return { kind: "apiVersions" };
    if (first === "apis") return { kind: "apiGroupList" };
    return NOT_FOUND;
  }
  // One check of a health endpoint (`/readyz/etcd`); health.ts knows which exist.
  if (seg.length === 2 && second !== undefined && (first === "healthz" || first === "readyz" || first === "livez"))
    return { kind: "health", check: first, name: second };
  if (first === "api" && second !== undefined) {
    if (!registry.hasGroupVersion("", second)) return NOT_FOUND;
    if (seg.length === 2) return { kind: "apiResourceList", group: "", version: second };
    return resourceRoute(registry, "", second, seg.slice(2));
  }
  if (first === "apis" && second !== undefined) {
    if (second === "" || !registry.hasGroup(second)) return NOT_FOUND;
    if (seg.length === 2) return { kind: "apiGroup", group: second };
    if (third === undefined || !registry.hasGroupVersion(second, third)) return NOT_FOUND;
    if (seg.length === 3) return { kind: "apiResourceList", group: second, version: third };
    return resourceRoute(registry, second, third, seg.slice(3));
  }
  return NOT_FOUND;
}

function resourceRoute(registry: ResourceRegistry, group: string, version: string, rest: string[]): Route {
  const watchPath = rest[0] === "watch";
  const parts = watchPath ? rest.slice(1) : rest;
  // /namespaces/{ns}/{resource}[/{name}[/{subresource}]] for namespaced types.
  const inNamespace = parts[0] === "namespaces" && parts.length >= 3 ? lookup(registry, group, version, parts[2]) : undefined;
  if (inNamespace?.namespaced && parts.length <= 5) {
    const [, namespace = "", , name, subresource] = parts;
    if (watchPath && subresource !== undefined) return NOT_FOUND;
    return { kind: "resource", strategy: inNamespace, namespace, name, subresource, allNamespaces: false, watchPath };
  }
  const strategy = lookup(registry, group, version, parts[0]);
  if (!strategy) return NOT_FOUND;
  if (strategy.namespaced) {
    return parts.length === 1 ? { kind: "resource", strategy, namespace: "", allNamespaces: true, watchPath } : NOT_FOUND;
  }
  if (parts.length > 3 || (watchPath && parts.length > 2)) return NOT_FOUND;
  const [, name, subresource] = parts;
  return { kind: "resource", strategy, namespace: "", name, subresource, allNamespaces: false, watchPath };
}

// A function of the module, not a closure per request.
function lookup(registry: ResourceRegistry, group: string, version: string, resource: string | undefined): ResourceStrategy | undefined {
  return resource === undefined ? undefined : registry.lookup(group, version, resource);
}

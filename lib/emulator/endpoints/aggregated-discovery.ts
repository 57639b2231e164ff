/**
 * Aggregated discovery (apidiscovery.k8s.io/v2, wire-facts §6.2 and §18): `/api` and `/apis`
 * answer an APIGroupDiscoveryList when the Accept header's chosen clause asks for
 * `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2`; otherwise the legacy documents.
 * Built from the registry, as the legacy ones: a client that gets this needs no further
 * discovery request.
 *
 * As apiserver@v0.35.7 pkg/endpoints/discovery/aggregated (handler.go, etag.go, negotiation.go):
 *  - v2beta1 is gone (AggregatedDiscoveryRemoveBetaType locked on): a v2beta1 clause is skipped,
 *    so kubectl's Accept falls through to its plain `application/json`;
 *  - groups by priority (the kube-aggregator's APIService priorities; 1000 for custom resource
 *    groups), then name; versions by version priority, then kube-aware version order;
 *  - built-in entries come from the legacy APIResource list (installer.go
 *    ConvertGroupVersionIntoToDiscovery: responseKind group/version "" unless the entry names
 *    another kind, subresources attached to their parent); custom resources' from the definition
 *    (customresource_discovery_controller.go: responseKind with the group-version filled in,
 *    resources by name);
 *  - ETag: the uppercase hex SHA-512 of the list's json.Marshal without kind and apiVersion;
 *    `If-None-Match` with it → 304 without a body; `Vary: Accept`, `Cache-Control: public`.
 *
 * Knowingly different: a real server also answers in protobuf (and YAML); here only JSON is
 * offered, so a protobuf clause is skipped and the next JSON clause answers (kubectl and
 * client-go ask for JSON only).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type MediaType, negotiate, parseAccept } from "../../wire/media-type.js";
import { compactJson, prettyJson } from "../apimachinery/json.js";
import type { ResourceRegistry, ResourceStrategy } from "../registry/generic/strategy.js";

/** The Content-Type parameters of an aggregated answer, in the order the server writes them (generateMediaTypeWithGVK). */
export const AGGREGATED_DISCOVERY_PARAMS = "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
export const AGGREGATED_DISCOVERY_CONTENT_TYPE = `application/json;${AGGREGATED_DISCOVERY_PARAMS}`;

interface DiscoveryOffer extends MediaType {
  readonly aggregated: boolean;
}

const OFFERS: readonly DiscoveryOffer[] = [
  { type: "application", subtype: "json", params: { g: "apidiscovery.k8s.io", v: "v2", as: "APIGroupDiscoveryList" }, aggregated: true },
  { type: "application", subtype: "json", params: {}, aggregated: false },
];

/** Whether the request's Accept header chooses the aggregated form (else the legacy one, or its 406). */
export function wantsAggregatedDiscovery(req: IncomingMessage): boolean {
  return negotiate(parseAccept(req.headers.accept), OFFERS)?.aggregated ?? false;
}

/**
 * Group priorities (k/k pkg/controlplane/apiserver/aggregator.go DefaultGenericAPIServicePriorities
 * and the kube-apiserver's additions): group minimum, and version priority per version.
 */
const PRIORITIES: Readonly<Record<string, { readonly group: number; readonly versions: Readonly<Record<string, number>> }>> = {
  "": { group: 18000, versions: { v1: 1 } },
  apps: { group: 17800, versions: { v1: 15 } },
  "events.k8s.io": { group: 17750, versions: { v1: 15, v1beta1: 5 } },
  "authentication.k8s.io": { group: 17700, versions: { v1: 15, v1beta1: 9, v1alpha1: 1 } },
  "authorization.k8s.io": { group: 17600, versions: { v1: 15 } },
  autoscaling: { group: 17500, versions: { v2: 30, v1: 15 } },
  batch: { group: 17400, versions: { v1: 15 } },
  "certificates.k8s.io": { group: 17300, versions: { v1: 15, v1beta1: 9, v1alpha1: 1 } },
  "networking.k8s.io": { group: 17200, versions: { v1: 15 } },
  policy: { group: 17100, versions: { v1: 15 } },
  "rbac.authorization.k8s.io": { group: 17000, versions: { v1: 15 } },
  "storage.k8s.io": { group: 16800, versions: { v1: 15 } },
  "apiextensions.k8s.io": { group: 16700, versions: { v1: 15 } },
  "admissionregistration.k8s.io": { group: 16700, versions: { v1: 15, v1beta1: 12, v1alpha1: 9 } },
  "scheduling.k8s.io": { group: 16600, versions: { v1: 15 } },
  "coordination.k8s.io": { group: 16500, versions: { v1: 15 } },
  "node.k8s.io": { group: 16300, versions: { v1: 15 } },
  "discovery.k8s.io": { group: 16200, versions: { v1: 15, v1beta1: 12 } },
  "flowcontrol.apiserver.k8s.io": { group: 16100, versions: { v1: 21 } },
};

/** A custom resource group-version's priorities (the APIService the autoregister controller makes). */
const CRD_GROUP_PRIORITY = 1000;
const CRD_VERSION_PRIORITY = 100;
/** An APIService's defaults when nothing sets them (handler.go addGroupVersionLocked). */
const DEFAULT_GROUP_PRIORITY = 1000;
const DEFAULT_VERSION_PRIORITY = 15;

/** Kube-aware version order, highest first (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > other names, by name). */
function compareKubeAware(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    return m ? [m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0, Number(m[1]), Number(m[3] ?? 0)] : undefined;
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) return pb[0] - pa[0] || pb[1] - pa[1] || pb[2] - pa[2];
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

type Json = Record<string, unknown>;

/** responseKind: a GroupVersionKind, every field written. */
const gvk = (group: string, version: string, kind: string): Json => ({ group, version, kind });

function resourceEntry(s: ResourceStrategy, custom: boolean): Json {
  const r: Json = {
    resource: s.resource,
    responseKind: custom ? gvk(s.group, s.version, s.kind) : gvk("", "", s.kind),
    scope: s.namespaced ? "Namespaced" : "Cluster",
    singularResource: s.singularName,
    verbs: [...s.verbs],
  };
  if (s.shortNames.length) r["shortNames"] = [...s.shortNames];
  if (s.categories?.length) r["categories"] = [...s.categories];
  // Built-in subresources in the legacy list's (sorted) order; a definition's in its own (status, then scale).
  const declared = s.subresources ?? [];
  const ordered = custom ? declared : [...declared].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const subs = ordered.map((sub) => {
    const kind = sub.discoveryKind;
    return {
      subresource: sub.name,
      responseKind: kind ? gvk(kind.group, kind.version, kind.kind) : custom ? gvk(s.group, s.version, s.kind) : gvk("", "", s.kind),
      verbs: [...sub.verbs],
    };
  });
  if (subs.length) r["subresources"] = subs;
  return r;
}

interface VersionEntry {
  readonly version: string;
  readonly priority: number;
  readonly body: Json;
}

function versionEntry(registry: ResourceRegistry, group: string, version: string): VersionEntry {
  const strategies = registry.inGroupVersion(group, version);
  const custom = strategies.some((s) => s.unstructured !== undefined);
  const resources = [...strategies].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)).map((s) => resourceEntry(s, custom));
  const priority = custom ? CRD_VERSION_PRIORITY : (PRIORITIES[group]?.versions[version] ?? DEFAULT_VERSION_PRIORITY);
  const body: Json = { version };
  if (resources.length) body["resources"] = resources;
  body["freshness"] = "Current";
  return { version, priority, body };
}

function groupPriority(registry: ResourceRegistry, group: string): number {
  const custom = registry.all().some((s) => s.group === group && s.unstructured !== undefined);
  return custom ? CRD_GROUP_PRIORITY : (PRIORITIES[group]?.group ?? DEFAULT_GROUP_PRIORITY);
}

/** The items of `/api` (the core group, no name) or of `/apis` (every named group), in priority order. */
function discoveryItems(registry: ResourceRegistry, legacy: boolean): Json[] {
  const byGroup = new Map<string, string[]>();
  for (const gv of registry.groupVersions()) {
    if ((gv.group === "") !== legacy) continue;
    byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv.version]);
  }
  const groups = [...byGroup.entries()].map(([group, versions]) => ({ group, priority: groupPriority(registry, group), versions }));
  groups.sort((a, b) => b.priority - a.priority || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return groups.map(({ group, versions }) => {
    const entries = versions.map((v) => versionEntry(registry, group, v));
    entries.sort((a, b) => b.priority - a.priority || compareKubeAware(a.version, b.version));
    return { metadata: group ? { name: group } : {}, versions: entries.map((e) => e.body) };
  });
}

interface Answer {
  readonly body: Json;
  readonly etag: string;
}

/**
 * Answers built once per registry state, as the OpenAPI documents are: the registry's strategies
 * array is replaced whenever a type is added, changed or removed, and clients (kubectl on every
 * invocation) ask for these two documents far more often than types change.
 */
const answers = new WeakMap<readonly unknown[], { api?: Answer; apis?: Answer }>();

/** The APIGroupDiscoveryList of `/api` (legacy true) or `/apis`, and its ETag. */
export function aggregatedDiscovery(registry: ResourceRegistry, legacy: boolean): Answer {
  const state = answers.get(registry.all()) ?? {};
  answers.set(registry.all(), state);
  const known = legacy ? state.api : state.apis;
  if (known) return known;
  const items = discoveryItems(registry, legacy);
  // etag.go hashes json.Marshal of the list before the encoder sets kind and apiVersion.
  const marshalled = compactJson({ metadata: {}, items }).slice(0, -1);
  const etag = createHash("sha512").update(marshalled).digest("hex").toUpperCase();
  const answer = { body: { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items }, etag };
  if (legacy) state.api = answer;
  else state.apis = answer;
  return answer;
}

/** Writes the aggregated answer of `/api` or `/apis` (a 304 when the client's If-None-Match is its ETag). */
export function writeAggregatedDiscovery(req: IncomingMessage, res: ServerResponse, registry: ResourceRegistry, legacy: boolean, pretty: boolean): void {
  const { body, etag } = aggregatedDiscovery(registry, legacy);
  const quoted = `"${etag}"`;
  const headers = { ETag: quoted, Vary: "Accept", "Cache-Control": "public" };
  if (req.headers["if-none-match"] === quoted) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const bytes = Buffer.from(pretty ? prettyJson(body) : compactJson(body), "utf8");
  res.writeHead(200, { ...headers, "Content-Type": AGGREGATED_DISCOVERY_CONTENT_TYPE, "Content-Length": String(bytes.length) });
  res.end(req.method === "HEAD" ? undefined : bytes);
}

/**
 * Discovery documents in their legacy (non-aggregated) form, wire-facts §6.2, built from the
 * registry; plus /version. Key order is Go struct order.
 */
import type { ResourceRegistry, SubresourceSet, TypeIdentity } from "../registry/generic/strategy.js";

export const VERSION_INFO = {
  major: "1",
  minor: "35",
  emulationMajor: "1",
  emulationMinor: "35",
  minCompatibilityMajor: "1",
  minCompatibilityMinor: "34",
  gitVersion: "v1.35.0-tollgate",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-01-01T00:00:00Z",
  goVersion: "n/a",
  compiler: "tollgate",
  platform: "linux/amd64",
} as const;

/** `/api`: the core versions and the address clients should use. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupEntry(registry: ResourceRegistry, group: string): Record<string, unknown> {
  const versions = registry
    .groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({ groupVersion: `${group}/${gv.version}`, version: gv.version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

function namedGroups(registry: ResourceRegistry): string[] {
  return [
    ...new Set(
      registry
        .groupVersions()
        .map((gv) => gv.group)
        .filter((g) => g !== ""),
    ),
  ];
}

/** `/apis`: the named groups. */
export function apiGroupList(registry: ResourceRegistry): Record<string, unknown> {
  return { kind: "APIGroupList", apiVersion: "v1", groups: namedGroups(registry).map((g) => groupEntry(registry, g)) };
}

/** `/apis/{group}`. */
export function apiGroup(registry: ResourceRegistry, group: string): Record<string, unknown> {
  return { kind: "APIGroup", apiVersion: "v1", ...groupEntry(registry, group) };
}

function apiResource(s: TypeIdentity): Record<string, unknown> {
  const r: Record<string, unknown> = {
    name: s.resource,
    singularName: s.singularName,
    namespaced: s.namespaced,
    kind: s.kind,
    verbs: [...s.verbs],
  };
  if (s.shortNames.length) r["shortNames"] = [...s.shortNames];
  if (s.categories?.length) r["categories"] = [...s.categories];
  if (s.storageVersionHash) r["storageVersionHash"] = s.storageVersionHash;
  return r;
}

/**
 * A subresource's entry (`namespaces/status`): the parent's kind and scope, an empty
 * singularName, and no shortNames or storageVersionHash (its storage provides neither).
 */
function subresourceEntries(s: TypeIdentity & SubresourceSet): Record<string, unknown>[] {
  return (s.subresources ?? []).map((sub) => ({
    name: `${s.resource}/${sub.name}`,
    singularName: "",
    namespaced: s.namespaced,
    ...(sub.discoveryKind ?? { kind: s.kind }),
    verbs: [...sub.verbs],
  }));
}

/** `/api/v1`, `/apis/{group}/{version}`: the resources of one group-version and their subresources, by name. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> {
  const name = (r: Record<string, unknown>): string => String(r["name"]);
  const resources = registry
    .inGroupVersion(group, version)
    .flatMap((s) => [apiResource(s), ...subresourceEntries(s)])
    .sort((a, b) => (name(a) < name(b) ? -1 : 1));
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: group ? `${group}/${version}` : version, resources };
}

/**
 * Which apiVersion/kind pairs have a protobuf form, and with which message. Anything not
 * listed (Table, custom resources, kinds the emulator does not serve) has none: encoding it
 * throws ProtobufFormatError, which the server answers with 406 (wire-facts §1.0, §1.5).
 */
import { type MessageDesc, messageDesc } from "./descriptors.js";
import {
  ADMISSIONREGISTRATION_PACKAGE,
  APIEXTENSIONS_PACKAGE,
  AUTHENTICATION_PACKAGE,
  AUTHORIZATION_PACKAGE,
  COORDINATION_PACKAGE,
  CORE_PACKAGE,
  DISCOVERY_PACKAGE,
  EVENTS_PACKAGE,
  META_PACKAGE,
  RBAC_PACKAGE,
} from "./schema.js";

export interface KindEntry {
  readonly message: MessageDesc;
  /**
   * meta.v1 WatchEvent has no TypeMeta in Go (its GetObjectKind is the empty kind), so the
   * real serializer writes an envelope with apiVersion "" and kind "" (golden
   * core.v1.WatchEvent.pb), and its JSON form has no kind/apiVersion either.
   */
  readonly emptyTypeMeta: boolean;
}

/**
 * Group-versions that register the meta.v1 option kinds and WatchEvent. Upstream
 * `metav1.AddToGroupVersion` adds them to every group-version, and meta.k8s.io/v1 has its own
 * copy; only the group-versions of the kinds below are listed here.
 */
const OPTION_VERSIONS = [
  "v1",
  "meta.k8s.io/v1",
  "events.k8s.io/v1",
  "events.k8s.io/v1beta1",
  "coordination.k8s.io/v1",
  "authentication.k8s.io/v1",
  "authorization.k8s.io/v1",
  "rbac.authorization.k8s.io/v1",
  "admissionregistration.k8s.io/v1",
  "discovery.k8s.io/v1",
  "apiextensions.k8s.io/v1",
];
const OPTION_KINDS = ["DeleteOptions", "ListOptions", "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions"];

/** Message names by key; each resolved to its KindEntry on first lookup (the table is built on first use). */
const NAMED = new Map<string, { message: string; emptyTypeMeta: boolean }>();
const ENTRIES = new Map<string, KindEntry>();

function key(apiVersion: string, kind: string): string {
  return `${apiVersion}\u0000${kind}`;
}

function add(apiVersion: string, kind: string, message: string, emptyTypeMeta = false): void {
  NAMED.set(key(apiVersion, kind), { message, emptyTypeMeta });
}

for (const gv of ["events.k8s.io/v1", "events.k8s.io/v1beta1"]) {
  add(gv, "Event", `${EVENTS_PACKAGE}.Event`);
  add(gv, "EventList", `${EVENTS_PACKAGE}.EventList`);
}
for (const kind of [
  "Event",
  "EventList",
  "Namespace",
  "NamespaceList",
  "ConfigMap",
  "ConfigMapList",
  "ServiceAccount",
  "ServiceAccountList",
  "Service",
  "ServiceList",
]) {
  add("v1", kind, `${CORE_PACKAGE}.${kind}`);
}
add("coordination.k8s.io/v1", "Lease", `${COORDINATION_PACKAGE}.Lease`);
add("coordination.k8s.io/v1", "LeaseList", `${COORDINATION_PACKAGE}.LeaseList`);
for (const kind of ["TokenRequest", "TokenReview", "SelfSubjectReview"]) add("authentication.k8s.io/v1", kind, `${AUTHENTICATION_PACKAGE}.${kind}`);
for (const kind of ["SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview"]) {
  add("authorization.k8s.io/v1", kind, `${AUTHORIZATION_PACKAGE}.${kind}`);
}
for (const kind of ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]) {
  add("rbac.authorization.k8s.io/v1", kind, `${RBAC_PACKAGE}.${kind}`);
  add("rbac.authorization.k8s.io/v1", `${kind}List`, `${RBAC_PACKAGE}.${kind}List`);
}
for (const kind of ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]) {
  add("admissionregistration.k8s.io/v1", kind, `${ADMISSIONREGISTRATION_PACKAGE}.${kind}`);
  add("admissionregistration.k8s.io/v1", `${kind}List`, `${ADMISSIONREGISTRATION_PACKAGE}.${kind}List`);
}
add("discovery.k8s.io/v1", "EndpointSlice", `${DISCOVERY_PACKAGE}.EndpointSlice`);
add("discovery.k8s.io/v1", "EndpointSliceList", `${DISCOVERY_PACKAGE}.EndpointSliceList`);
add("apiextensions.k8s.io/v1", "CustomResourceDefinition", `${APIEXTENSIONS_PACKAGE}.CustomResourceDefinition`);
add("apiextensions.k8s.io/v1", "CustomResourceDefinitionList", `${APIEXTENSIONS_PACKAGE}.CustomResourceDefinitionList`);
// Status, APIGroup and APIVersions are "unversioned" types, served as apiVersion "v1" only.
for (const kind of ["Status", "APIGroup", "APIVersions"]) add("v1", kind, `${META_PACKAGE}.${kind}`);
add("meta.k8s.io/v1", "PartialObjectMetadata", `${META_PACKAGE}.PartialObjectMetadata`);
add("meta.k8s.io/v1", "PartialObjectMetadataList", `${META_PACKAGE}.PartialObjectMetadataList`);
for (const gv of OPTION_VERSIONS) {
  for (const kind of OPTION_KINDS) add(gv, kind, `${META_PACKAGE}.${kind}`);
  add(gv, "WatchEvent", `${META_PACKAGE}.WatchEvent`, true);
}
// What an envelope without TypeMeta holds: a WatchEvent, the one kind written that way.
add("", "", `${META_PACKAGE}.WatchEvent`, true);

/** Whether the kind has a protobuf form, without building the descriptor table (a JSON request asks this too). */
export function hasKind(apiVersion: string, kind: string): boolean {
  return NAMED.has(key(apiVersion, kind));
}

export function lookupKind(apiVersion: string, kind: string): KindEntry | undefined {
  const k = key(apiVersion, kind);
  let entry = ENTRIES.get(k);
  if (entry === undefined) {
    const named = NAMED.get(k);
    if (named === undefined) return undefined;
    entry = { message: messageDesc(named.message), emptyTypeMeta: named.emptyTypeMeta };
    ENTRIES.set(k, entry);
  }
  return entry;
}

/**
 * Rule catalog for document 1 (common behaviour of the resource API).
 * One rule per normative statement; `realServer` records what a real 1.35 server does
 * where the spec is silent ("not shown") or differs (facts from shared/docs/wire-facts.md).
 * Ids are stable: never rename a published id.
 */
import type { FeatureGate, Rule } from "./types.js";

// Section headings, exactly as written in doc1-resource-api.md.
const SVC = "What the service does";
const TERMS = "Terminology";
const NAMES = "Object names";
const VERBS = "Verbs";
const FIELDS = "Common fields";
const WEV = "Watch event";
const TABLE = "Table representation";
const PMETA = "Partial metadata representation";
const PB = "Binary envelope (Protobuf)";
const DELOPT = "Delete options";
const STATES = "States and transitions";
const PATHS = "Path shapes";
const QUERY = "Query parameters";
const HEADERS = "Headers";
const MEDIA = "Media types and negotiation";
const PATCH = "Patch content types";
const PUT = "Updates with PUT";
const GETRV = "Resource version semantics for get";
const LISTRV = "Resource version semantics for list";
const WATCHRV = "Resource version semantics for watch";
const INIT = "Streaming the initial state";
const CHUNK = "Chunked lists";
const MLISTS = "Metadata-only and table lists";
const AUTH = "Authentication";
const EVENTS = "Events";
const ERRORS = "Errors";
const FV = "Field validation behaviour";
const DRY = "Dry-run behaviour";
const LIMITS = "Limits";
const VERS = "Versioning";

// Feature gates with their 1.35 defaults as the spec gives them.
const CBOR: FeatureGate = { name: "CBORServingAndStorage", default: false };
const FORCE_DELETE: FeatureGate = { name: "AllowUnsafeMalformedObjectDeletion", default: false };
const SNAPSHOT: FeatureGate = { name: "ListFromCacheSnapshot", default: true };
const COMPRESSION: FeatureGate = { name: "APIResponseCompression", default: true };
const WATCH_LIST: FeatureGate = { name: "WatchList", default: true };

const LISTOPTIONS_422 = "422 Invalid with details kind ListOptions, group meta.k8s.io (ListOptions validation; wire-facts §2, §9)";
const UNOBSERVABLE_CACHE = "Whether a list is served from the watch cache, one of its snapshots or storage does not show on the wire: the body and its versions are the same either way";
const UNOBSERVABLE_DEFAULT = "A default of the server's configuration: from outside one sees when a version or token went, not whether the setting behind it is the default";
const EVENTS_NO_CACHE = "Events (core and events.k8s.io) have the watch cache disabled by default, so such reads of Events go to storage (etcd) (wire-facts §4)";

export const doc1Rules = [
  // ── What the service does ───────────────────────────────────────────────────────────
  { id: "doc1.service.crud-methods", doc: "doc1", section: SVC, level: "required", title: "Resources are created, read, updated and deleted over HTTP with POST, GET, PUT, PATCH and DELETE" },
  { id: "doc1.service.subresources", doc: "doc1", section: SVC, level: "optional", title: "Some resources expose subresources, separately authorizable and possibly served in other representations" },
  { id: "doc1.service.watch", doc: "doc1", section: SVC, level: "required", title: "Clients can watch an object or a collection and receive a stream of change notifications" },
  { id: "doc1.service.consistent-lists", doc: "doc1", section: SVC, level: "required", title: "List responses are consistent, so clients can cache and synchronise state from them" },
  { id: "doc1.service.release-1-35", doc: "doc1", section: SVC, level: "optional", title: "The documented behaviour is that of release 1.35" },

  // ── Terminology (only the statement that describes behaviour) ───────────────────────
  { id: "doc1.terms.subresource-single-resource", doc: "doc1", section: TERMS, level: "required", title: "A subresource sits below one resource and cannot be reached across several resources" },

  // ── Object names 1-4 ────────────────────────────────────────────────────────────────
  { id: "doc1.names.unique-in-scope", doc: "doc1", section: NAMES, level: "required", title: "Every creatable object has a name unique in its scope, which makes create and get idempotent",
    realServer: "Creating a second object with a taken name fails with 409 AlreadyExists, message `<resource>.<group> \"<name>\" already exists` (wire-facts §4)" },
  { id: "doc1.names.virtual-types-unnamed", doc: "doc1", section: NAMES, level: "optional", title: "Virtual types that are not retrievable or not idempotent may lack unique names" },
  { id: "doc1.names.unique-in-namespace", doc: "doc1", section: NAMES, level: "required", title: "Within a namespace at most one object of a kind holds a given name at any time",
    realServer: "A POST with a name already held in the namespace gives 409 AlreadyExists (wire-facts §4)" },
  { id: "doc1.names.reuse-after-delete", doc: "doc1", section: NAMES, level: "required", title: "Once its object is deleted, a name can be used again" },
  { id: "doc1.names.cluster-scoped-unique", doc: "doc1", section: NAMES, level: "required", title: "Names of cluster-scoped objects (e.g. Node, Namespace) are unique across the whole cluster" },

  // ── Verbs ───────────────────────────────────────────────────────────────────────────
  { id: "doc1.verbs.get-single", doc: "doc1", section: VERBS, level: "required", title: "get is an HTTP GET of one resource" },
  { id: "doc1.verbs.list-collection", doc: "doc1", section: VERBS, level: "required", title: "list is an HTTP GET of a collection" },
  { id: "doc1.verbs.watch-param", doc: "doc1", section: VERBS, level: "required", title: "watch is an HTTP GET carrying the watch query parameter" },
  { id: "doc1.verbs.create-post", doc: "doc1", section: VERBS, level: "required", title: "A POST to a collection is a create" },
  { id: "doc1.verbs.create-put-absent", doc: "doc1", section: VERBS, level: "optional", title: "A PUT to a name that does not exist counts as a create",
    realServer: "Only where the resource strategy allows create-on-update; Events do (PUT to a missing name creates it) (wire-facts §7)" },
  { id: "doc1.verbs.create-apply-absent", doc: "doc1", section: VERBS, level: "required", title: "An apply patch to an object that does not exist counts as a create",
    realServer: "The server answers 201 when the apply creates and 200 when it updates (wire-facts §6.1)" },
  { id: "doc1.verbs.update-put-existing", doc: "doc1", section: VERBS, level: "required", title: "A PUT to an existing object is an update; the server classifies PUT by the object's existing state" },
  { id: "doc1.verbs.patch-distinct", doc: "doc1", section: VERBS, level: "required", title: "PATCH is the patch verb, distinct from update" },
  { id: "doc1.verbs.delete-single", doc: "doc1", section: VERBS, level: "required", title: "delete is a DELETE of one resource" },
  { id: "doc1.verbs.deletecollection", doc: "doc1", section: VERBS, level: "required", title: "deletecollection is a DELETE of a collection" },
  { id: "doc1.verbs.proxy-single", doc: "doc1", section: VERBS, level: "optional", title: "proxy is a single-resource verb" },
  { id: "doc1.verbs.most-types-all-methods", doc: "doc1", section: VERBS, level: "optional", title: "Almost all object types accept GET, POST, PUT, PATCH and DELETE" },
  { id: "doc1.verbs.single-resource-verbs", doc: "doc1", section: VERBS, level: "required", title: "get, create, update, patch, delete and proxy each act on exactly one resource" },
  { id: "doc1.verbs.no-transactions", doc: "doc1", section: VERBS, level: "required", title: "There is no batched (ordered or unordered) or transactional submission of several resources" },
  { id: "doc1.verbs.multi-resource-verbs", doc: "doc1", section: VERBS, level: "required", title: "list, watch and deletecollection act on several resources" },
  { id: "doc1.verbs.client-series", doc: "doc1", section: VERBS, level: "optional", title: "Clients acting on many objects send one single-resource request per object" },
  { id: "doc1.verbs.subresource-verbs", doc: "doc1", section: VERBS, level: "optional", title: "Which verbs a subresource supports depends on the object" },

  // ── Common fields (rows that state server behaviour) ────────────────────────────────
  { id: "doc1.fields.kind-api-version-present", doc: "doc1", section: FIELDS, level: "required", title: "Every body carries kind and apiVersion",
    realServer: "Error and delete-result bodies are Status with apiVersion v1 whatever the request group (wire-facts §4); the legacy /api discovery body has no apiVersion key (wire-facts §6.2)" },
  { id: "doc1.fields.list-kind-suffix", doc: "doc1", section: FIELDS, level: "required", title: "A collection's kind is the item kind followed by List (e.g. EventList)" },
  { id: "doc1.fields.no-list-kind", doc: "doc1", section: FIELDS, level: "required", title: "No API body uses the bare kind List" },
  { id: "doc1.fields.api-version-form", doc: "doc1", section: FIELDS, level: "required", title: "apiVersion is <group>/<version>, or only <version> for the core group" },
  { id: "doc1.fields.generate-name", doc: "doc1", section: FIELDS, level: "required", title: "With generateName set, the server builds a unique name from the prefix plus a random suffix" },
  { id: "doc1.fields.namespace-set", doc: "doc1", section: FIELDS, level: "required", title: "Namespaced objects carry their namespace in metadata.namespace" },
  { id: "doc1.fields.rv-last-modified", doc: "doc1", section: FIELDS, level: "required", title: "An object's metadata.resourceVersion is the version of its last modification" },
  { id: "doc1.fields.rv-opaque-client", doc: "doc1", section: FIELDS, level: "optional", subject: "client", title: "Clients treat resourceVersion as opaque and pass it back unmodified" },
  { id: "doc1.fields.creation-timestamp", doc: "doc1", section: FIELDS, level: "required", title: "The server sets metadata.creationTimestamp at creation",
    realServer: "JSON form is RFC 3339 UTC without fraction; a zero creationTimestamp is omitted since 1.34 (omitzero) (wire-facts §1.2)" },
  { id: "doc1.fields.deletion-timestamp", doc: "doc1", section: FIELDS, level: "required", title: "metadata.deletionTimestamp is set to the current time when the first delete request is accepted" },
  { id: "doc1.fields.finalizers-unordered", doc: "doc1", section: FIELDS, level: "required", title: "metadata.finalizers has no meaningful order; any actor with permission may reorder it" },
  { id: "doc1.fields.uid-unique", doc: "doc1", section: FIELDS, level: "required", title: "The server assigns every object a randomly generated unique metadata.uid" },
  { id: "doc1.fields.list-rv", doc: "doc1", section: FIELDS, level: "required", title: "A collection's metadata.resourceVersion is the version at which the collection was built" },
  { id: "doc1.fields.continue-token", doc: "doc1", section: FIELDS, level: "required", title: "A collection's metadata.continue holds the token for the next chunk" },
  { id: "doc1.fields.continue-empty-at-end", doc: "doc1", section: FIELDS, level: "required", title: "metadata.continue is the empty string when the list is complete",
    realServer: "In JSON an empty continue is left out (list metadata shows continue only when set, wire-facts §8); in protobuf ListMeta.continue (field 3) is always written, as an empty string when done (wire-facts §1.0, §1.2)" },
  { id: "doc1.fields.remaining-count-value", doc: "doc1", section: FIELDS, level: "required", title: "metadata.remainingItemCount is the number of items after this chunk (a size estimate)",
    realServer: "Set to the total minus the items returned so far; a pointer field, absent when unset (wire-facts §9, §1.2)" },
  { id: "doc1.fields.remaining-count-no-selectors", doc: "doc1", section: FIELDS, level: "required", title: "remainingItemCount is omitted when label or field selectors were used",
    realServer: "Set only when there are no label or field selectors (wire-facts §9)" },
  { id: "doc1.fields.remaining-count-omitted-complete", doc: "doc1", section: FIELDS, level: "required", title: "remainingItemCount is omitted when the list is complete" },
  { id: "doc1.fields.items-array", doc: "doc1", section: FIELDS, level: "required", title: "A collection carries its objects in the items array",
    realServer: "items is always written, as [] when empty (wire-facts §1.3)" },

  // ── Watch event ─────────────────────────────────────────────────────────────────────
  { id: "doc1.watch-event.type-and-object", doc: "doc1", section: WEV, level: "required", title: "Every watch event has a type string and an object" },
  { id: "doc1.watch-event.type-values", doc: "doc1", section: WEV, level: "required", title: "A watch event type is ADDED, MODIFIED or BOOKMARK",
    realServer: "Five types exist: ADDED, MODIFIED, DELETED, BOOKMARK and ERROR; ERROR carries a Status with apiVersion v1 (wire-facts §2, §5)" },
  { id: "doc1.watch-event.object-kind", doc: "doc1", section: WEV, level: "required", title: "The event object is of the kind the watch requested",
    realServer: "ERROR events carry a Status; a watch asked as Table carries a one-row Table per event, only the first with columnDefinitions (later ones null) (wire-facts §2)" },
  { id: "doc1.watch-event.bookmark-rv-only", doc: "doc1", section: WEV, level: "required", title: "A BOOKMARK event object carries only metadata.resourceVersion",
    realServer: "It is an empty object of the watched kind with only metadata.resourceVersion set, so non-omitempty fields still appear in JSON (e.g. eventTime null, regarding {}) (wire-facts §2)" },

  // ── Table representation ────────────────────────────────────────────────────────────
  { id: "doc1.table.kind-api-version", doc: "doc1", section: TABLE, level: "required", title: "A Table body has kind Table and apiVersion meta.{group_domain}/v1" },
  { id: "doc1.table.column-definitions", doc: "doc1", section: TABLE, level: "required", title: "A Table body has columnDefinitions whose entries carry at least name and type strings",
    realServer: "Every column definition always carries name, type, format, description and priority, even \"\" and 0 (wire-facts §8, §10)" },
  { id: "doc1.table.default-columns", doc: "doc1", section: TABLE, level: "required", title: "A type without its own table definition yields two columns, Name (string) and Created At (date)",
    realServer: "Name has format \"name\"; cells are the name and the creationTimestamp in RFC 3339 UTC (wire-facts §8)" },
  { id: "doc1.table.rows-shape", doc: "doc1", section: TABLE, level: "required", title: "Rest of the Table body (spec: not shown): list metadata plus rows of cells with an embedded object",
    realServer: "{kind, apiVersion, metadata{resourceVersion[, continue]}, columnDefinitions, rows[{cells, object}]}; an empty list gives \"rows\":[] (wire-facts §8)" },
  { id: "doc1.table.row-object", doc: "doc1", section: TABLE, level: "required", title: "Embedded row object (spec: not shown) depends on includeObject",
    realServer: "Unset or Metadata: a PartialObjectMetadata; Object: the full object; None: omitted; any other value gives 400 (wire-facts §8)" },
  { id: "doc1.table.wide-columns", doc: "doc1", section: TABLE, level: "required", title: "Column set (spec: not shown): the server always returns every column, whatever its priority",
    realServer: "The server generates the wide table, including priority-1 columns (wire-facts §8)" },
  { id: "doc1.table.content-type", doc: "doc1", section: TABLE, level: "required", title: "Content-Type of a Table response (spec: not shown)",
    realServer: "Plain application/json, without the as/g/v parameters (wire-facts §8)" },

  // ── Partial metadata representation ─────────────────────────────────────────────────
  { id: "doc1.partial-meta.single-kind", doc: "doc1", section: PMETA, level: "required", title: "A metadata-only object has kind PartialObjectMetadata and apiVersion meta.{group_domain}/v1" },
  { id: "doc1.partial-meta.single-metadata-only", doc: "doc1", section: PMETA, level: "required", title: "A PartialObjectMetadata carries only metadata; spec and status are left out" },
  { id: "doc1.partial-meta.list-kind", doc: "doc1", section: PMETA, level: "required", title: "A metadata-only collection has kind PartialObjectMetadataList and apiVersion meta.{group_domain}/v1" },
  { id: "doc1.partial-meta.list-metadata", doc: "doc1", section: PMETA, level: "required", title: "A PartialObjectMetadataList carries list metadata with resourceVersion" },
  { id: "doc1.partial-meta.list-items", doc: "doc1", section: PMETA, level: "required", title: "The items of a PartialObjectMetadataList are PartialObjectMetadata objects" },

  // ── Binary envelope (Protobuf) ──────────────────────────────────────────────────────
  { id: "doc1.protobuf.magic-prefix", doc: "doc1", section: PB, level: "required", title: "A protobuf body begins with the four bytes 6b 38 73 00" },
  { id: "doc1.protobuf.unknown-envelope", doc: "doc1", section: PB, level: "required", title: "The prefix is followed by a runtime Unknown message",
    realServer: "Lists use the same envelope with the list kind (e.g. EventList) (wire-facts §1.5)" },
  { id: "doc1.protobuf.unknown-type-meta", doc: "doc1", section: PB, level: "required", title: "Unknown field 1 (typeMeta) carries the kind and apiVersion strings of the object" },
  { id: "doc1.protobuf.unknown-raw", doc: "doc1", section: PB, level: "required", title: "Unknown field 2 (raw, bytes) holds the complete serialized object" },
  { id: "doc1.protobuf.unknown-content-encoding", doc: "doc1", section: PB, level: "required", title: "Unknown field 3 (contentEncoding) names the encoding of raw; unspecified means none",
    realServer: "Always written as an empty string (bytes 1a 00) (wire-facts §1.5)" },
  { id: "doc1.protobuf.unknown-content-type", doc: "doc1", section: PB, level: "required", title: "Unknown field 4 (contentType) names the serialization of raw; unspecified means protobuf, usually omitted",
    realServer: "Not omitted: always written as an empty string (bytes 22 00) (wire-facts §1.5)" },
  { id: "doc1.protobuf.type-meta-api-version", doc: "doc1", section: PB, level: "required", title: "Envelope TypeMeta field 1 is apiVersion (group/version)",
    realServer: "runtime.TypeMeta is apiVersion=1, kind=2, the reverse of meta/v1 TypeMeta (wire-facts §1.1)" },
  { id: "doc1.protobuf.type-meta-kind", doc: "doc1", section: PB, level: "required", title: "Envelope TypeMeta field 2 is kind" },
  { id: "doc1.protobuf.client-reject-prefix", doc: "doc1", section: PB, level: "optional", title: "A client rejects a protobuf response that starts with any other prefix" },

  // ── Delete options ──────────────────────────────────────────────────────────────────
  { id: "doc1.delete-options.standard-fields", doc: "doc1", section: DELOPT, level: "required", title: "A delete accepts dryRun, gracePeriodSeconds, orphanDependents, preconditions and propagationPolicy",
    realServer: "kubectl delete sends {\"propagationPolicy\":\"Background\"} as the body (wire-facts §6.1); protobuf field numbers in wire-facts §1.2" },
  { id: "doc1.delete-options.force-default-false", doc: "doc1", section: DELOPT, level: "required", title: "ignoreStoreReadErrorWithClusterBreakingPotential is a boolean that defaults to false" },
  { id: "doc1.delete-options.force-needs-gate", doc: "doc1", section: DELOPT, level: "gated", gate: FORCE_DELETE, title: "The unsafe force-delete option works only with gate AllowUnsafeMalformedObjectDeletion enabled" },
  { id: "doc1.delete-options.force-excludes-others", doc: "doc1", section: DELOPT, level: "gated", gate: FORCE_DELETE, title: "With force true, dryRun, gracePeriodSeconds, orphanDependents, preconditions and propagationPolicy must be unset" },

  // ── States and transitions (deletion) ───────────────────────────────────────────────
  { id: "doc1.deletion.two-phases", doc: "doc1", section: STATES, level: "required", title: "Deletion runs in two phases: finalization, then removal" },
  { id: "doc1.deletion.live-to-terminating", doc: "doc1", section: STATES, level: "required", title: "An accepted delete of a live object sets deletionTimestamp to now and makes it terminating",
    realServer: "Where the storage does not return the deleted object (e.g. Events), DELETE answers 200 with a Success Status (wire-facts §4)" },
  { id: "doc1.deletion.finalizers-any-order", doc: "doc1", section: STATES, level: "required", title: "Finalizer owners may clean up at any time in any order; no ordering among finalizers is enforced" },
  { id: "doc1.deletion.last-finalizer-removes", doc: "doc1", section: STATES, level: "required", title: "Removing the last finalizer of a terminating object removes it from storage",
    realServer: "Watchers see a DELETED event with the last state and a new resourceVersion (wire-facts §2)" },
  { id: "doc1.deletion.force-corrupt-removes", doc: "doc1", section: STATES, level: "gated", gate: FORCE_DELETE, title: "A forced delete of a corrupt (undecryptable or undecodable) object removes it" },
  { id: "doc1.deletion.force-authz-both-verbs", doc: "doc1", section: STATES, level: "gated", gate: FORCE_DELETE, title: "A forced delete needs the caller authorized for both delete and unsafe-delete-ignore-read-errors" },
  { id: "doc1.deletion.force-normal-first", doc: "doc1", section: STATES, level: "gated", gate: FORCE_DELETE, title: "On a forced delete the server tries a normal delete first and forces only on a corrupt-resource error" },
  { id: "doc1.deletion.force-skips-finalizers-preconditions", doc: "doc1", section: STATES, level: "gated", gate: FORCE_DELETE, title: "A forced delete ignores finalizer constraints and skips preconditions" },
  { id: "doc1.deletion.force-readable-aborts", doc: "doc1", section: STATES, level: "gated", gate: FORCE_DELETE, title: "A forced delete of a readable object is aborted with an error and leaves the object unchanged" },

  // ── Path shapes ─────────────────────────────────────────────────────────────────────
  { id: "doc1.paths.group-prefix", doc: "doc1", section: PATHS, level: "required", title: "Group resources are served under /apis/{group}/{version}" },
  { id: "doc1.paths.core-prefix", doc: "doc1", section: PATHS, level: "required", title: "Core-group resources are served under /api/{version} with no group segment" },
  { id: "doc1.paths.list-cluster-scoped", doc: "doc1", section: PATHS, level: "required", title: "GET /apis/{group}/{version}/{resourcetype} lists a cluster-scoped collection" },
  { id: "doc1.paths.list-all-namespaces", doc: "doc1", section: PATHS, level: "required", title: "GET /apis/{group}/{version}/{resourcetype} lists a namespaced type across all namespaces" },
  { id: "doc1.paths.get-cluster-scoped", doc: "doc1", section: PATHS, level: "required", title: "GET /apis/{group}/{version}/{resourcetype}/{name} reads a cluster-scoped resource" },
  { id: "doc1.paths.list-namespaced", doc: "doc1", section: PATHS, level: "required", title: "GET /apis/{group}/{version}/namespaces/{namespace}/{resourcetype} lists a namespaced collection" },
  { id: "doc1.paths.get-namespaced", doc: "doc1", section: PATHS, level: "required", title: "GET /apis/{group}/{version}/namespaces/{namespace}/{resourcetype}/{name} reads a namespaced resource" },
  { id: "doc1.paths.subresource-cluster-scoped", doc: "doc1", section: PATHS, level: "required", title: "A cluster-scoped subresource is at .../{resourcetype}/{name}/{subresource}, method per verb" },
  { id: "doc1.paths.subresource-namespaced", doc: "doc1", section: PATHS, level: "required", title: "A namespaced subresource is at .../namespaces/{namespace}/{resourcetype}/{name}/{subresource}, method per verb" },
  { id: "doc1.paths.create-post-collection", doc: "doc1", section: PATHS, level: "required", title: "Create is a POST to the collection path" },
  { id: "doc1.paths.replace-put-resource", doc: "doc1", section: PATHS, level: "required", title: "Replace is a PUT to the resource path" },
  { id: "doc1.paths.patch-resource", doc: "doc1", section: PATHS, level: "required", title: "Patch is a PATCH to the resource path" },
  { id: "doc1.paths.delete-resource", doc: "doc1", section: PATHS, level: "required", title: "Delete is a DELETE to the resource path" },
  { id: "doc1.paths.deletecollection-collection", doc: "doc1", section: PATHS, level: "required", title: "Delete collection is a DELETE to the collection path" },
  { id: "doc1.paths.namespace-cluster-scoped", doc: "doc1", section: PATHS, level: "required", title: "Namespace is cluster-scoped: listed at GET /api/v1/namespaces and read at GET /api/v1/namespaces/{name}" },
  { id: "doc1.paths.namespace-delete-cascades", doc: "doc1", section: PATHS, level: "required", title: "Deleting a namespace deletes the namespaced resources inside it" },
  { id: "doc1.paths.namespace-scope-authz", doc: "doc1", section: PATHS, level: "required", title: "Access to namespaced resources is authorized on the namespace scope" },
  { id: "doc1.paths.request-bodies", doc: "doc1", section: PATHS, level: "required", title: "Create and replace send the object, patch sends a patch document, delete may send delete options" },
  { id: "doc1.paths.response-bodies", doc: "doc1", section: PATHS, level: "required", title: "A response carries an object, a collection or a status object",
    realServer: "Status shape in wire-facts §4 (kind Status, apiVersion v1, metadata {}, status, message, reason, details, code)" },
  { id: "doc1.paths.unknown-path-404", doc: "doc1", section: PATHS, level: "required", title: "Response to a path naming no known resource (spec: not shown)",
    realServer: "404 NotFound, message `the server could not find the requested resource` (wire-facts §4)" },

  // ── Query parameters ────────────────────────────────────────────────────────────────
  { id: "doc1.query.watch-list-path", doc: "doc1", section: QUERY, level: "required", title: "A truthy watch parameter on a collection path turns the GET into a watch" },
  { id: "doc1.query.watch-resource-path", doc: "doc1", section: QUERY, level: "optional", title: "A truthy watch parameter on a resource path turns the GET into a watch of that object",
    realServer: "A real server's GET of one object reads only GetOptions and ignores watch: the object comes back (200). One object is watched through the list path with fieldSelector metadata.name=<name>, or the deprecated /watch/ prefix. The suite accepts either the object or a watch of it alone" },
  { id: "doc1.query.rv-param", doc: "doc1", section: QUERY, level: "required", title: "resourceVersion is a string parameter of get, list and watch" },
  { id: "doc1.query.rvm-values", doc: "doc1", section: QUERY, level: "required", title: "resourceVersionMatch takes Exact or NotOlderThan" },
  { id: "doc1.query.rvm-needs-rv", doc: "doc1", section: QUERY, level: "required", title: "resourceVersionMatch without resourceVersion is invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.query.rvm-unhonored-as-unset", doc: "doc1", section: QUERY, level: "optional", title: "A server that does not honour resourceVersionMatch behaves as if it were unset" },
  { id: "doc1.query.rvm-client-always-set", doc: "doc1", section: QUERY, level: "optional", subject: "client", title: "Clients always set resourceVersionMatch when they set resourceVersion on a list" },
  { id: "doc1.query.rvm-watch-needs-initial-events", doc: "doc1", section: QUERY, level: "required", title: "On a watch, resourceVersionMatch applies only together with sendInitialEvents",
    realServer: "resourceVersionMatch on a watch without sendInitialEvents is forbidden: 422 Invalid, kind ListOptions (wire-facts §2)" },
  { id: "doc1.query.allow-watch-bookmarks", doc: "doc1", section: QUERY, level: "required", title: "allowWatchBookmarks (boolean) on a watch requests BOOKMARK events" },
  { id: "doc1.query.initial-events-needs-not-older-than", doc: "doc1", section: QUERY, level: "required", title: "sendInitialEvents requires resourceVersionMatch=NotOlderThan",
    realServer: "It also requires watch=true; a violation gives 422 Invalid, kind ListOptions, group meta.k8s.io (wire-facts §2)" },
  { id: "doc1.query.initial-events-watch-only", doc: "doc1", section: QUERY, level: "required", title: "sendInitialEvents is a watch parameter",
    realServer: "On a plain list sendInitialEvents is forbidden: 422 Invalid, kind ListOptions (wire-facts §2)" },
  { id: "doc1.query.limit", doc: "doc1", section: QUERY, level: "required", title: "limit (integer) caps the number of items in one list chunk" },
  { id: "doc1.query.continue", doc: "doc1", section: QUERY, level: "required", title: "continue passes the token from the previous list response" },
  { id: "doc1.query.field-validation-values", doc: "doc1", section: QUERY, level: "required", title: "fieldValidation on POST, PUT and PATCH takes Ignore, Warn (the default) or Strict",
    realServer: "kubectl create/apply send fieldValidation=Strict (wire-facts §6.1)" },
  { id: "doc1.query.dry-run-absent-normal", doc: "doc1", section: QUERY, level: "required", title: "dryRun absent or empty on POST, PUT, PATCH or DELETE means normal execution" },
  { id: "doc1.query.dry-run-all", doc: "doc1", section: QUERY, level: "required", title: "dryRun=All runs every stage except the final storage write" },

  // ── Headers ─────────────────────────────────────────────────────────────────────────
  { id: "doc1.headers.accept-negotiation", doc: "doc1", section: HEADERS, level: "required", title: "Accept may list several media types with q values and the server honours the preference" },
  { id: "doc1.headers.content-type-request", doc: "doc1", section: HEADERS, level: "required", title: "Content-Type declares the media type of a request body",
    realServer: "A body in an unsupported media type gives 415 UnsupportedMediaType (wire-facts §3, §4)" },
  { id: "doc1.headers.content-type-response", doc: "doc1", section: HEADERS, level: "required", title: "A response's Content-Type names the chosen media type",
    realServer: "JSON watch: application/json (no stream parameter); protobuf watch: application/vnd.kubernetes.protobuf;stream=watch; Table responses: plain application/json (wire-facts §2, §8)" },
  { id: "doc1.headers.gzip", doc: "doc1", section: HEADERS, level: "gated", gate: COMPRESSION, title: "Accept-Encoding: gzip yields a compressed get/list response with content-encoding: gzip" },
  { id: "doc1.headers.warning-per-field", doc: "doc1", section: HEADERS, level: "required", title: "Under Warn validation the response has one Warning item per unknown or duplicate field" },
  { id: "doc1.headers.retry-after", doc: "doc1", section: HEADERS, level: "optional", title: "A response about an unrecognized resource version may carry Retry-After" },
  { id: "doc1.headers.chunked-watch", doc: "doc1", section: HEADERS, level: "required", title: "Watch responses use Transfer-Encoding: chunked",
    realServer: "HTTP 200 and the headers are flushed before the first event, so later failures arrive inside the stream (wire-facts §2)" },

  // ── Media types and negotiation ─────────────────────────────────────────────────────
  { id: "doc1.media.json-default", doc: "doc1", section: MEDIA, level: "required", title: "application/json is the default and every built-in type supports it",
    realServer: "Compact JSON plus a trailing newline; 2-space pretty-printed without trailing newline for ?pretty=true or curl/Wget/Mozilla user agents (wire-facts §10)" },
  { id: "doc1.media.yaml", doc: "doc1", section: MEDIA, level: "required", title: "application/yaml is accepted for request bodies and offered for responses",
    realServer: "YAML has no stream serializer: a watch with Accept application/yaml gets 406 (wire-facts §2)" },
  { id: "doc1.media.protobuf-some-types", doc: "doc1", section: MEDIA, level: "required", title: "The binary type application/vnd.{vendor}.protobuf serves only some types, not custom-definition or aggregated ones",
    realServer: "Objects without protobuf (Table, custom definitions) give 406 NotAcceptable when nothing else in Accept matches (wire-facts §1.0, §1.5)" },
  { id: "doc1.media.protobuf-json-fallback", doc: "doc1", section: MEDIA, level: "required", title: "Accept naming the binary type and application/json lets the server fall back to JSON",
    realServer: "Holds for built-in types and Tables. For custom resources and aggregated types a real server negotiates protobuf, fails to encode the object and answers 406 with a protobuf Status (`object *unstructured.Unstructured does not implement the protobuf marshalling interface…`), JSON listed or not (kubernetes/kubernetes#86253, open)" },
  { id: "doc1.media.cbor", doc: "doc1", section: MEDIA, level: "gated", gate: CBOR, title: "application/cbor covers built-in and custom-definition types when CBOR is enabled; aggregated servers opt in",
    realServer: "Each item starts with self-described tag d9 d9 f7; same shape as JSON, strings and keys as byte strings; map order is nondeterministic (wire-facts §3)" },
  { id: "doc1.media.cbor-off-406", doc: "doc1", section: MEDIA, level: "required", title: "Response to Accept application/cbor with CBOR disabled, the 1.35 default (spec: not shown)",
    realServer: "406 NotAcceptable, `only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf` (wire-facts §3)" },
  { id: "doc1.media.cbor-off-415", doc: "doc1", section: MEDIA, level: "required", title: "Response to a request body in application/cbor with CBOR disabled (spec: not shown)",
    realServer: "415 UnsupportedMediaType, `the body of the request was in an unknown format - accepted media types include: ...` (wire-facts §3)" },
  { id: "doc1.media.cbor-seq-watch", doc: "doc1", section: MEDIA, level: "gated", gate: CBOR, title: "CBOR watch responses are application/cbor-seq with one CBOR watch event per entry",
    realServer: "Entries are concatenated without length prefix; each event and its embedded object start with d9 d9 f7; Accept application/cbor on a watch is answered as cbor-seq (wire-facts §3)" },
  { id: "doc1.media.apply-patch-yaml", doc: "doc1", section: MEDIA, level: "required", title: "application/apply-patch+yaml carries server-side apply bodies" },
  { id: "doc1.media.apply-patch-cbor", doc: "doc1", section: MEDIA, level: "gated", gate: CBOR, title: "application/apply-patch+cbor carries server-side apply bodies, only with CBOR enabled" },
  { id: "doc1.media.table-type", doc: "doc1", section: MEDIA, level: "required", title: "application/json;as=Table;g=meta.{group_domain};v=v1 asks for the Table representation",
    realServer: "A g/v other than meta.k8s.io v1 or v1beta1 gives 406 `no Table exists in group version ...` (wire-facts §8)" },
  { id: "doc1.media.partial-meta-type", doc: "doc1", section: MEDIA, level: "required", title: "application/json;as=PartialObjectMetadata;g=meta.{group_domain};v=v1 asks for one object's metadata only" },
  { id: "doc1.media.partial-meta-list-type", doc: "doc1", section: MEDIA, level: "required", title: "application/json;as=PartialObjectMetadataList;g=meta.{group_domain};v=v1 asks for a list's metadata only" },
  { id: "doc1.media.rule1-none-supported-406", doc: "doc1", section: MEDIA, level: "required", title: "If no requested media type is supported the response is 406",
    realServer: "The 406 Status body is always JSON, pretty-printed with 2-space indent (wire-facts §4)" },
  { id: "doc1.media.rule2-table-encodings", doc: "doc1", section: MEDIA, level: "required", title: "The Table parameters work with JSON, YAML, CBOR and the binary type",
    realServer: "Table has no protobuf: as=Table is negotiated for JSON and YAML only; a protobuf as=Table clause is skipped, giving 406 if nothing else matches (wire-facts §1.0, §8)" },
  { id: "doc1.media.rule2-partial-meta-encodings", doc: "doc1", section: MEDIA, level: "required", title: "The metadata-only parameters work with JSON, YAML, CBOR and the binary type",
    realServer: "PartialObjectMetadata and PartialObjectMetadataList have protobuf messages (wire-facts §1.2)" },
  { id: "doc1.media.rule2-binary-params", doc: "doc1", section: MEDIA, level: "required", title: "For the binary type the as/g/v parameters are attached to the binary media type" },
  { id: "doc1.media.rule3-as-only-406", doc: "doc1", section: MEDIA, level: "required", title: "Accept with only a Table (or only a metadata-only) type for an unsupporting resource gives 406",
    realServer: "e.g. `the resource X does not support being converted to a Table` for objects without ObjectMeta (wire-facts §8)" },
  { id: "doc1.media.rule3-fallback-full-object", doc: "doc1", section: MEDIA, level: "required", title: "Adding a fallback such as application/json (optionally q=0.9) yields the full object instead of 406" },
  { id: "doc1.media.rule4-item-by-item", doc: "doc1", section: MEDIA, level: "optional", unobservable: "How the server encodes a collection (item by item, streaming) does not show in the bytes, which are the same either way", title: "JSON and binary collection responses are encoded item by item",
    realServer: "Streaming collection encoding is GA since 1.34; output bytes equal the non-streamed encoding (wire-facts §10)" },
  { id: "doc1.media.rule4-large-collections", doc: "doc1", section: MEDIA, level: "optional", unobservable: "A remark on how other encodings perform above 100 MB: a performance trait of those encodings, not a behaviour a polite request can check", title: "Other encodings, pretty JSON included, perform poorly for collections above 100 MB" },
  { id: "doc1.media.rule5-no-cbor-patch", doc: "doc1", section: MEDIA, level: "required", title: "There is no CBOR form of json-patch, merge-patch or strategic-merge-patch",
    realServer: "An unknown patch content type gives 415 listing json-patch+json, merge-patch+json, strategic-merge-patch+json and apply-patch+yaml (wire-facts §3)" },

  // ── Patch content types ─────────────────────────────────────────────────────────────
  { id: "doc1.patch.apply-create-or-patch", doc: "doc1", section: PATCH, level: "required", title: "An apply-patch+yaml request creates the object if absent and patches it otherwise",
    realServer: "201 when it creates, 200 when it updates (wire-facts §6.1)" },
  { id: "doc1.patch.apply-accepts-json", doc: "doc1", section: PATCH, level: "required", title: "An apply-patch+yaml body may be JSON",
    realServer: "kubectl apply --server-side sends a JSON body (wire-facts §6.1)" },
  { id: "doc1.patch.json-patch", doc: "doc1", section: PATCH, level: "required", title: "application/json-patch+json applies an RFC 6902 operation sequence (op, path, value)",
    realServer: "The 1.35 apiserver applies patches with evanphx/json-patch v4, where replace of a missing object member creates it (RFC 6902 says it fails); remove of a missing member fails the whole patch with 422" },
  { id: "doc1.patch.json-patch-test-fails", doc: "doc1", section: PATCH, level: "required", title: "A json-patch test operation that does not hold makes the request fail" },
  { id: "doc1.patch.merge-patch", doc: "doc1", section: PATCH, level: "required", title: "application/merge-patch+json applies an RFC 7386 partial representation" },
  { id: "doc1.patch.strategic-merge-builtin", doc: "doc1", section: PATCH, level: "required", title: "application/strategic-merge-patch+json is accepted for built-in APIs (and supporting aggregated servers)",
    realServer: "kubectl client-side apply patches with strategic-merge-patch+json (wire-facts §6.1)" },
  { id: "doc1.patch.strategic-merge-no-crds", doc: "doc1", section: PATCH, level: "required", title: "strategic-merge-patch is never accepted for custom-definition types" },
  { id: "doc1.patch.ssa-objects-only", doc: "doc1", section: PATCH, level: "required", title: "Server-side apply works only on objects (bodies with a metadata field)" },
  { id: "doc1.patch.ssa-managed-fields", doc: "doc1", section: PATCH, level: "required", title: "Server-side apply tracks field ownership in managedFields" },
  { id: "doc1.patch.ssa-conflicts", doc: "doc1", section: PATCH, level: "required", title: "Server-side apply reports conflicts on fields managed by someone else" },
  { id: "doc1.patch.ssa-force", doc: "doc1", section: PATCH, level: "required", title: "Server-side apply can force through field conflicts" },
  { id: "doc1.patch.ssa-no-value-dependent", doc: "doc1", section: PATCH, level: "optional", title: "Server-side apply cannot express changes that depend on the current value" },
  { id: "doc1.patch.unsupported-type-415", doc: "doc1", section: PATCH, level: "required", title: "Response to a PATCH with an unsupported content type (spec: not shown)",
    realServer: "415 UnsupportedMediaType listing application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml (wire-facts §3)" },

  // ── Updates with PUT ────────────────────────────────────────────────────────────────
  { id: "doc1.put.client-sends-rv", doc: "doc1", section: PUT, level: "optional", title: "A replacing PUT carries the resourceVersion of the object being replaced",
    realServer: "Not required for every type: Events allow unconditional updates (PUT without resourceVersion) (wire-facts §7)" },
  { id: "doc1.put.stale-rv-409", doc: "doc1", section: PUT, level: "required", title: "A PUT with a stale resourceVersion gets 409",
    realServer: "409 Conflict, `Operation cannot be fulfilled on <resource> \"<name>\": the object has been modified; please apply your changes to the latest version and try again` (wire-facts §4)" },
  { id: "doc1.put.conditional-write", doc: "doc1", section: PUT, level: "required", title: "A PUT or PATCH carrying a resourceVersion is conditional on it; a mismatch is a conflict the client may retry" },

  // ── Resource version semantics for get ──────────────────────────────────────────────
  { id: "doc1.get-rv.unset-most-recent", doc: "doc1", section: GETRV, level: "required", title: "get with resourceVersion unset returns the most recent state" },
  { id: "doc1.get-rv.zero-any", doc: "doc1", section: GETRV, level: "required", title: "get with resourceVersion 0 returns any version" },
  { id: "doc1.get-rv.other-not-older-than", doc: "doc1", section: GETRV, level: "required", title: "get with another resourceVersion returns state not older than it" },

  // ── Resource version semantics for list: every cell of the table ────────────────────
  { id: "doc1.list-rv.nomatch-limit-unset-rv-unset-most-recent", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, no limit, rv unset: Most recent" },
  { id: "doc1.list-rv.nomatch-limit-unset-rv-0-any", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, no limit, rv 0: Any" },
  { id: "doc1.list-rv.nomatch-limit-unset-rv-other-not-older-than", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, no limit, other rv: Not older than" },
  { id: "doc1.list-rv.nomatch-limit-no-continue-rv-unset-most-recent", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, limit without continue, rv unset: Most recent" },
  { id: "doc1.list-rv.nomatch-limit-no-continue-rv-0-any", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, limit without continue, rv 0: Any" },
  { id: "doc1.list-rv.nomatch-limit-no-continue-rv-other-exact", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, limit without continue, other rv: Exact" },
  { id: "doc1.list-rv.nomatch-limit-continue-rv-unset-continuation", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, limit with continue, rv unset: Continuation" },
  { id: "doc1.list-rv.nomatch-limit-continue-rv-0-continuation", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, limit with continue, rv 0: Continuation" },
  { id: "doc1.list-rv.nomatch-limit-continue-rv-other-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, no match, limit with continue, other rv: invalid, 400",
    realServer: "400 BadRequest, `specifying resource version is not allowed when using continue` (wire-facts §9)" },
  { id: "doc1.list-rv.exact-limit-unset-rv-unset-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, Exact, no limit, rv unset: invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.list-rv.exact-limit-unset-rv-0-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, Exact, no limit, rv 0: invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.list-rv.exact-limit-unset-rv-other-exact", doc: "doc1", section: LISTRV, level: "required", title: "list, Exact, no limit, other rv: Exact" },
  { id: "doc1.list-rv.exact-limit-no-continue-rv-unset-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, Exact, limit without continue, rv unset: invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.list-rv.exact-limit-no-continue-rv-0-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, Exact, limit without continue, rv 0: invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.list-rv.exact-limit-no-continue-rv-other-exact", doc: "doc1", section: LISTRV, level: "required", title: "list, Exact, limit without continue, other rv: Exact" },
  { id: "doc1.list-rv.notolderthan-limit-unset-rv-unset-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, NotOlderThan, no limit, rv unset: invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.list-rv.notolderthan-limit-unset-rv-0-any", doc: "doc1", section: LISTRV, level: "required", title: "list, NotOlderThan, no limit, rv 0: Any" },
  { id: "doc1.list-rv.notolderthan-limit-unset-rv-other-not-older-than", doc: "doc1", section: LISTRV, level: "required", title: "list, NotOlderThan, no limit, other rv: Not older than" },
  { id: "doc1.list-rv.notolderthan-limit-no-continue-rv-unset-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list, NotOlderThan, limit without continue, rv unset: invalid", realServer: LISTOPTIONS_422 },
  { id: "doc1.list-rv.notolderthan-limit-no-continue-rv-0-any", doc: "doc1", section: LISTRV, level: "required", title: "list, NotOlderThan, limit without continue, rv 0: Any" },
  { id: "doc1.list-rv.notolderthan-limit-no-continue-rv-other-not-older-than", doc: "doc1", section: LISTRV, level: "required", title: "list, NotOlderThan, limit without continue, other rv: Not older than" },
  { id: "doc1.list-rv.match-with-continue-invalid", doc: "doc1", section: LISTRV, level: "required", title: "list with resourceVersionMatch and continue (a combination the table leaves out) is rejected",
    realServer: "422 Invalid (ListOptions): resourceVersionMatch is forbidden when continue is provided (wire-facts §9)" },
  // semantics
  { id: "doc1.list-rv.any", doc: "doc1", section: LISTRV, level: "required", title: "Any: data at any version, newest preferred, possibly older than what the client saw before" },
  { id: "doc1.list-rv.any-watch-cache", doc: "doc1", section: LISTRV, level: "optional", unobservable: UNOBSERVABLE_CACHE, title: "Any is served from the watch cache", realServer: EVENTS_NO_CACHE },
  { id: "doc1.list-rv.most-recent", doc: "doc1", section: LISTRV, level: "required", title: "Most recent: consistent data at the latest version, via a quorum read" },
  { id: "doc1.list-rv.most-recent-watch-cache", doc: "doc1", section: LISTRV, level: "optional", unobservable: UNOBSERVABLE_CACHE, title: "Most recent may be served from the watch cache when storage supports progress notification", realServer: EVENTS_NO_CACHE },
  { id: "doc1.list-rv.not-older-than", doc: "doc1", section: LISTRV, level: "required", title: "Not older than: data at least as new as the given version" },
  { id: "doc1.list-rv.not-older-than-list-rv-only", doc: "doc1", section: LISTRV, level: "required", title: "For Not older than lists only the collection resourceVersion is guaranteed, not the items'" },
  { id: "doc1.list-rv.not-older-than-watch-cache", doc: "doc1", section: LISTRV, level: "optional", unobservable: UNOBSERVABLE_CACHE, title: "Not older than is served from the watch cache", realServer: EVENTS_NO_CACHE },
  { id: "doc1.list-rv.exact", doc: "doc1", section: LISTRV, level: "required", title: "Exact: data at exactly the given version" },
  { id: "doc1.list-rv.exact-unavailable-410", doc: "doc1", section: LISTRV, level: "required", title: "Exact with a version no longer available gives 410",
    realServer: "410 Expired, `The resourceVersion for the provided list is too old.` (storage) or `too old resource version: N (M)` (watch cache) (wire-facts §4)" },
  { id: "doc1.list-rv.exact-collection-rv", doc: "doc1", section: LISTRV, level: "required", title: "For Exact the collection resourceVersion equals the requested one; item versions are not guaranteed" },
  { id: "doc1.list-rv.exact-snapshot", doc: "doc1", section: LISTRV, level: "gated", gate: SNAPSHOT, unobservable: UNOBSERVABLE_CACHE, title: "Exact may be answered from watch-cache snapshots", realServer: EVENTS_NO_CACHE },
  { id: "doc1.list-rv.snapshot-retention", doc: "doc1", section: LISTRV, level: "gated", gate: SNAPSHOT, unobservable: UNOBSERVABLE_CACHE, title: "A snapshot is taken on every watch event and kept until compaction or until the cache is full of events older than 75 s" },
  { id: "doc1.list-rv.exact-store-fallback", doc: "doc1", section: LISTRV, level: "required", unobservable: UNOBSERVABLE_CACHE, title: "Without snapshot support, Exact falls back to reading from storage" },
  { id: "doc1.list-rv.continuation", doc: "doc1", section: LISTRV, level: "required", title: "Continuation: the next page is consistent with the version fixed by the first request" },
  { id: "doc1.list-rv.continuation-token", doc: "doc1", section: LISTRV, level: "required", title: "The continue token encodes the list version and the last position",
    realServer: "base64url without padding of {\"v\":\"meta.k8s.io/v1\",\"rv\":N,\"start\":\"<last key>\\u0000\"}; malformed tokens give 400 `invalid continue token: ...` (wire-facts §9)" },
  { id: "doc1.list-rv.continuation-unavailable-410", doc: "doc1", section: LISTRV, level: "required", title: "Continuation with a version no longer available gives 410",
    realServer: "Storage path (always for Events): 410 Expired with metadata.continue holding a new token with rv -1; watch-cache path: 410 without a new token (wire-facts §9)" },
  { id: "doc1.list-rv.continuation-snapshot", doc: "doc1", section: LISTRV, level: "gated", gate: SNAPSHOT, unobservable: UNOBSERVABLE_CACHE, title: "Continuation pages may be answered from snapshots, as for Exact", realServer: EVENTS_NO_CACHE },
  { id: "doc1.list-rv.client-not-older-than-limit-410", doc: "doc1", section: LISTRV, level: "optional", subject: "client", title: "Clients using NotOlderThan with limit handle 410 by retrying with a newer or empty resourceVersion",
    realServer: "A 1.35 server answers NotOlderThan with limit from its newest state, also for a compacted version (200, not 410; see doc1.errors.410-history-gone); the duty stays for other servers" },
  { id: "doc1.list-rv.client-exact-verify", doc: "doc1", section: LISTRV, level: "optional", subject: "client", title: "Clients using Exact without limit check the collection version and retry with limit if it differs" },
  { id: "doc1.list-rv.client-item-rv-meaning", doc: "doc1", section: LISTRV, level: "optional", subject: "client", title: "An item's resourceVersion tells when it last changed, not how current the response is" },

  // ── Resource version semantics for watch ────────────────────────────────────────────
  { id: "doc1.watch-rv.unset-state-most-recent", doc: "doc1", section: WATCHRV, level: "required", title: "watch with resourceVersion unset: get state and start at most recent" },
  { id: "doc1.watch-rv.zero-state-any", doc: "doc1", section: WATCHRV, level: "required", title: "watch with resourceVersion 0: get state and start at any version" },
  { id: "doc1.watch-rv.other-start-exact", doc: "doc1", section: WATCHRV, level: "required", title: "watch with another resourceVersion: start exactly at that version" },
  { id: "doc1.watch-rv.most-recent-initial-added", doc: "doc1", section: WATCHRV, level: "required", title: "Most-recent start uses a quorum read, sends synthetic ADDED for every existing object, then all later changes" },
  { id: "doc1.watch-rv.any-initial-added", doc: "doc1", section: WATCHRV, level: "required", title: "Any start sends synthetic ADDED events then changes, from a version that may be arbitrarily stale" },
  { id: "doc1.watch-rv.exact-no-initial", doc: "doc1", section: WATCHRV, level: "required", title: "Exact start sends every change after the version and no initial ADDED events" },

  // ── Streaming the initial state 1-4 ─────────────────────────────────────────────────
  { id: "doc1.initial-events.step1-synthetic-added", doc: "doc1", section: INIT, level: "gated", gate: WATCH_LIST, title: "A watch with sendInitialEvents=true and NotOlderThan starts with synthetic ADDED for every existing object" },
  { id: "doc1.initial-events.step2-bookmark", doc: "doc1", section: INIT, level: "gated", gate: WATCH_LIST, title: "Next comes one BOOKMARK carrying the version the state is synced to, if allowWatchBookmarks=true",
    realServer: "That bookmark carries annotation k8s.io/initial-events-end: \"true\" (wire-facts §2, §5)" },
  { id: "doc1.initial-events.step2-no-bookmark-without-allow", doc: "doc1", section: INIT, level: "gated", gate: WATCH_LIST, title: "Without allowWatchBookmarks=true no initial-events bookmark is sent", realServer: "The annotated bookmark is sent only if allowWatchBookmarks=true (wire-facts §2)" },
  { id: "doc1.initial-events.step3-continue", doc: "doc1", section: INIT, level: "gated", gate: WATCH_LIST, title: "The watch then continues with the changes after that version" },
  { id: "doc1.initial-events.step4-rv-empty", doc: "doc1", section: INIT, level: "gated", gate: WATCH_LIST, title: "With resourceVersion empty or absent, the bookmark waits for state at least as new as a consistent read at request start" },
  { id: "doc1.initial-events.step4-rv-given", doc: "doc1", section: INIT, level: "gated", gate: WATCH_LIST, title: "With a resourceVersion given, the bookmark waits for state at least as new as that version" },

  // ── Chunked lists 1-3 ───────────────────────────────────────────────────────────────
  { id: "doc1.chunking.step1-up-to-n", doc: "doc1", section: CHUNK, level: "required", title: "A list with limit=n returns at most n items" },
  { id: "doc1.chunking.step1-continue-if-more", doc: "doc1", section: CHUNK, level: "required", title: "A chunk carries a metadata.continue token when more items remain" },
  { id: "doc1.chunking.step2-next-chunk", doc: "doc1", section: CHUNK, level: "required", title: "A request with the same limit and continue=<token> returns the next chunk" },
  { id: "doc1.chunking.step2-rv-constant", doc: "doc1", section: CHUNK, level: "required", title: "The collection resourceVersion is the same in every chunk of one list (a consistent snapshot)" },
  { id: "doc1.chunking.step3-empty-at-end", doc: "doc1", section: CHUNK, level: "required", title: "The last chunk comes back with an empty continue" },

  // ── Metadata-only and table lists ───────────────────────────────────────────────────
  { id: "doc1.meta-lists.partial-list", doc: "doc1", section: MLISTS, level: "required", title: "A collection can be listed as PartialObjectMetadata to check existence or read only metadata" },

  // ── Authentication ──────────────────────────────────────────────────────────────────
  { id: "doc1.auth.unauthenticated-401", doc: "doc1", section: AUTH, level: "required", title: "Unauthenticated callers receive 401",
    realServer: "401 Status with reason Unauthorized and message `Unauthorized` (wire-facts §4)" },
  { id: "doc1.auth.unauthorized-401", doc: "doc1", section: AUTH, level: "required", title: "Unauthorized callers receive 401",
    realServer: "An authenticated caller lacking permission gets 403 Forbidden, e.g. `... is forbidden: User \"u\" cannot get resource \"events\" in API group \"events.k8s.io\" in the namespace \"default\"` (wire-facts §4)" },
  { id: "doc1.auth.dry-run-same-authz", doc: "doc1", section: AUTH, level: "required", title: "A dry-run request needs exactly the authorization of the equivalent real request" },
  { id: "doc1.auth.rule-shape", doc: "doc1", section: AUTH, level: "required", title: "Authorization rules name lists of apiGroups, resources and verbs; a listed verb grants that action" },
  { id: "doc1.auth.subject-access-review", doc: "doc1", section: AUTH, level: "required", title: "Permission checks are POSTs of a SubjectAccessReview to subjectaccessreviews" },
  { id: "doc1.auth.token-review", doc: "doc1", section: AUTH, level: "required", title: "Token checks use a TokenReview" },
  { id: "doc1.auth.force-delete-verbs", doc: "doc1", section: AUTH, level: "gated", gate: FORCE_DELETE, title: "Force deletion requires both the delete and unsafe-delete-ignore-read-errors verbs" },
  { id: "doc1.auth.namespace-scope", doc: "doc1", section: AUTH, level: "required", title: "Namespaced resource types are authorized on the namespace scope" },

  // ── Events (watch notifications) ────────────────────────────────────────────────────
  { id: "doc1.watch-events.stream-documents", doc: "doc1", section: EVENTS, level: "required", title: "A watch streams notifications, each a JSON document (or CBOR sequence entry) with type and object",
    realServer: "JSON: one compact {\"type\",\"object\"} per event followed by \\n, Content-Type application/json (wire-facts §2, §5)" },
  { id: "doc1.watch-events.protobuf-framing", doc: "doc1", section: EVENTS, level: "required", title: "Framing of a protobuf watch stream (spec: not shown)",
    realServer: "Each frame is a 4-byte big-endian length then a raw meta.v1.WatchEvent (no magic); the embedded object is a full enveloped protobuf body; Content-Type application/vnd.kubernetes.protobuf;stream=watch (wire-facts §2)" },
  { id: "doc1.watch-events.added", doc: "doc1", section: EVENTS, level: "required", title: "ADDED reports, with the full object, an object created after the starting version and each synthetic initial object" },
  { id: "doc1.watch-events.modified", doc: "doc1", section: EVENTS, level: "required", title: "MODIFIED reports, with the full object, a change after the starting version" },
  { id: "doc1.watch-events.bookmark-opt-in", doc: "doc1", section: EVENTS, level: "required", title: "BOOKMARK events are sent only when allowWatchBookmarks=true" },
  { id: "doc1.watch-events.bookmark-meaning", doc: "doc1", section: EVENTS, level: "required", title: "A BOOKMARK marks that all changes up to its resourceVersion have been sent" },
  { id: "doc1.watch-events.bookmark-object", doc: "doc1", section: EVENTS, level: "required", title: "A BOOKMARK object is of the requested type and carries only metadata.resourceVersion",
    realServer: "An empty object of the watched kind with only metadata.resourceVersion set; non-omitempty fields still appear in JSON (wire-facts §2)" },
  { id: "doc1.watch-events.reports-all-outcomes", doc: "doc1", section: EVENTS, level: "required", title: "The stream reports the results of create, update and delete after the requested version" },
  { id: "doc1.watch-events.list-then-watch", doc: "doc1", section: EVENTS, level: "required", title: "A client can read state and then watch from its version without missing any change" },
  { id: "doc1.watch-events.bookmarks-not-guaranteed", doc: "doc1", section: EVENTS, level: "optional", title: "Clients must not rely on bookmarks arriving at any interval, or at all" },
  { id: "doc1.watch-events.restart-from-last-rv", doc: "doc1", section: EVENTS, level: "optional", title: "After a disconnect the client resumes from the last received resourceVersion or re-lists" },
  { id: "doc1.watch-events.gone-410", doc: "doc1", section: EVENTS, level: "required", title: "If history for the requested version is gone the server responds 410",
    realServer: "HTTP 200 then one ERROR event whose Status has reason Expired and code 410, then the stream closes; for Events (no watch cache) the message is `The resourceVersion for the provided watch is too old.`, and a known upstream bug may instead give 200 with an empty body (wire-facts §4)" },
  { id: "doc1.watch-events.gone-client-relist", doc: "doc1", section: EVENTS, level: "optional", title: "On 410 the client clears its cache, lists again and watches from the new version" },
  { id: "doc1.watch-events.deleted-type", doc: "doc1", section: EVENTS, level: "required", title: "Deletions are reported with their own event type (spec: value not shown)",
    realServer: "Type DELETED; the object is its last state with a new resourceVersion, the deletion revision (wire-facts §2, §5)" },
  { id: "doc1.watch-events.error-type", doc: "doc1", section: EVENTS, level: "required", title: "Errors after the watch started arrive inside the stream (spec: not shown)",
    realServer: "Type ERROR with a Status object (apiVersion v1); errors before the stream starts are normal HTTP errors with a Status body (wire-facts §2, §4, §5)" },
  { id: "doc1.watch-events.event-resources", doc: "doc1", section: EVENTS, level: "optional", title: "The cluster also stores Event resources, described in document 2" },

  // ── Errors ──────────────────────────────────────────────────────────────────────────
  { id: "doc1.errors.400-strict-unknown-fields", doc: "doc1", section: ERRORS, level: "required", title: "400 when Strict validation finds unknown or duplicate fields, listing all of them" },
  { id: "doc1.errors.400-fatal-validation", doc: "doc1", section: ERRORS, level: "required", title: "400 for a type error or other fatal decode error, with nothing reported about unknown fields at any level",
    realServer: "Message like `<Kind> in version \"v1\" cannot be handled as a <Kind>: <decode error>` (wire-facts §4)" },
  { id: "doc1.errors.400-continue-with-rv", doc: "doc1", section: ERRORS, level: "required", title: "400 for a list with continue and a non-zero resourceVersion without match",
    realServer: "Message `specifying resource version is not allowed when using continue` (wire-facts §9)" },
  { id: "doc1.errors.401-unauthenticated", doc: "doc1", section: ERRORS, level: "required", title: "401 when the caller is not authenticated", realServer: "reason Unauthorized, message `Unauthorized` (wire-facts §4)" },
  { id: "doc1.errors.406-not-acceptable", doc: "doc1", section: ERRORS, level: "required", title: "406 when no requested media type is supported, Table-only and metadata-only requests included",
    realServer: "reason NotAcceptable, `only the following media types are accepted: ...`, body always pretty JSON (wire-facts §4)" },
  { id: "doc1.errors.409-stale-put", doc: "doc1", section: ERRORS, level: "required", title: "409 for a PUT with a stale resourceVersion", realServer: "reason Conflict (wire-facts §4)" },
  { id: "doc1.errors.410-history-gone", doc: "doc1", section: ERRORS, level: "required", title: "410 when the requested version is no longer retained (watch, Exact, Continuation, NotOlderThan with limit)",
    realServer: "Lists: HTTP 410 reason Expired; watch: HTTP 200 with an in-stream ERROR event carrying the 410 Status (wire-facts §4). NotOlderThan with limit never meets it on 1.35: such a list is served from the newest state (the watch cache; for Events, storage at its current revision, the not-older-than check made after the read), so a compacted version gets 200 with a list not older than it (apiserver@v0.35 storage/cacher/delegator and storage/etcd3 GetList)" },
  { id: "doc1.errors.410-expired-continue", doc: "doc1", section: ERRORS, level: "required", title: "410 for an expired continue token (default lifetime 5 minutes)",
    realServer: "410 Expired `The provided continue parameter is too old to display a consistent list result. ...`, with a new rv -1 token in metadata.continue on the storage path (wire-facts §9)" },
  { id: "doc1.errors.410-client-restart", doc: "doc1", section: ERRORS, level: "optional", title: "After an expired continue token the client restarts the list or omits limit" },
  { id: "doc1.errors.504-too-large-rv", doc: "doc1", section: ERRORS, level: "required", title: "504 when an unrecognized resource version on get or list does not become available in time; message contains Too large resource version",
    realServer: "reason Timeout, `Timeout: Too large resource version: N, current: M`, cause ResourceVersionTooLarge (wire-facts §4)" },
  { id: "doc1.errors.retry-after-unrecognized-rv", doc: "doc1", section: ERRORS, level: "optional", title: "For an unrecognized resource version on get or list the server may answer with Retry-After seconds instead" },
  { id: "doc1.errors.watch-unrecognized-rv-waits", doc: "doc1", section: ERRORS, level: "optional", title: "A watch from an unrecognized resource version may wait until the request timeout" },
  { id: "doc1.errors.dry-run-side-effects-fail", doc: "doc1", section: ERRORS, level: "required", title: "A dry-run that would invoke an admission controller with side effects fails instead",
    realServer: "admissionregistration v1 refuses to register a webhook whose sideEffects is Some or Unknown (422 Unsupported value), and the built-in admission plugins support dry-run, so on a 1.35 server no dry-run can reach an admission step with side effects; the server's refusal path (400 `admission webhook … does not support dry run`) is reachable only with objects stored through the removed v1beta1 API. The suite checks the registration refusal" },
  { id: "doc1.errors.missing-required-field", doc: "doc1", section: ERRORS, level: "required", title: "Omitting a required field is an error",
    realServer: "422 Invalid, `<Kind> \"<name>\" is invalid: <field>: Required value`, cause FieldValueRequired (wire-facts §4)" },
  { id: "doc1.errors.invalid-list-combinations", doc: "doc1", section: ERRORS, level: "required", title: "Status code of the remaining Invalid list combinations (spec: not shown)", realServer: LISTOPTIONS_422 },
  { id: "doc1.errors.status-body", doc: "doc1", section: ERRORS, level: "required", title: "Shape of the error response body (spec: not shown)",
    realServer: "A Status: keys kind, apiVersion, metadata, status (Failure), message, reason, details, code in that order; metadata always written as {} (wire-facts §4, §10)" },
  { id: "doc1.errors.status-api-version", doc: "doc1", section: ERRORS, level: "required", title: "kind/apiVersion of an error body (spec: not shown)",
    realServer: "Always kind Status, apiVersion v1, whatever the request group (wire-facts §4)" },
  { id: "doc1.errors.status-details", doc: "doc1", section: ERRORS, level: "required", title: "details of an error Status (spec: not shown)",
    realServer: "details.kind is the plural resource for NotFound, AlreadyExists, Conflict and Forbidden, the Kind for Invalid; causes are {reason, message, field} (wire-facts §4)" },
  { id: "doc1.errors.404-not-found", doc: "doc1", section: ERRORS, level: "required", title: "Response for a missing object (spec: not shown)",
    realServer: "404 NotFound, `<resource>.<group> \"<name>\" not found` (core: `<resource> \"<name>\" not found`), details {name, group, kind:<resource>} (wire-facts §4)" },
  { id: "doc1.errors.409-already-exists", doc: "doc1", section: ERRORS, level: "required", title: "Response for creating an object whose name is taken (spec: not shown)",
    realServer: "409 AlreadyExists, `<resource>.<group> \"<name>\" already exists` (wire-facts §4)" },
  { id: "doc1.errors.422-invalid", doc: "doc1", section: ERRORS, level: "required", title: "Response for a semantically invalid object (spec: not shown)",
    realServer: "422 Invalid, `<Kind> \"<name>\" is invalid: [e1, e2]` (no brackets for a single error), causes FieldValueRequired/FieldValueInvalid/... (wire-facts §4)" },
  { id: "doc1.errors.415-unsupported-media-type", doc: "doc1", section: ERRORS, level: "required", title: "Response for a request body in an unsupported media type (spec: not shown)",
    realServer: "415 UnsupportedMediaType, `the body of the request was in an unknown format - accepted media types include: ...` (wire-facts §4)" },

  // ── Field validation behaviour ──────────────────────────────────────────────────────
  { id: "doc1.field-validation.ignore", doc: "doc1", section: FV, level: "required", title: "Ignore drops unknown and duplicate fields silently" },
  { id: "doc1.field-validation.warn-default", doc: "doc1", section: FV, level: "required", title: "Warn is the default validation level" },
  { id: "doc1.field-validation.warn-succeeds", doc: "doc1", section: FV, level: "required", title: "Warn lets the request succeed with one Warning header item per unknown or duplicate field" },
  { id: "doc1.field-validation.strict-400", doc: "doc1", section: FV, level: "required", title: "Strict rejects with 400 listing every unknown or duplicate field" },
  { id: "doc1.field-validation.unknown-definition", doc: "doc1", section: FV, level: "required", title: "A field is flagged when it is absent from the resource schema or appears twice" },
  { id: "doc1.field-validation.preserve-unknown", doc: "doc1", section: FV, level: "required", title: "Custom definitions that preserve unknown fields do not flag unknown fields" },
  { id: "doc1.field-validation.types-always", doc: "doc1", section: FV, level: "required", title: "Field types are validated at every level" },
  { id: "doc1.field-validation.client-defaults", doc: "doc1", section: FV, level: "optional", subject: "client", title: "Client tools may default to another validation level",
    realServer: "kubectl create/apply send fieldValidation=Strict, or Ignore with --validate=false (wire-facts §6.1)" },

  // ── Dry-run behaviour ───────────────────────────────────────────────────────────────
  { id: "doc1.dry-run.stages-run", doc: "doc1", section: DRY, level: "required", title: "With dryRun=All admission, validation, PATCH merging and defaulting all run" },
  { id: "doc1.dry-run.nothing-persisted", doc: "doc1", section: DRY, level: "required", title: "With dryRun=All nothing is persisted and no side effects occur" },
  { id: "doc1.dry-run.response-object", doc: "doc1", section: DRY, level: "required", title: "A dry-run answers with the object that would have been stored and the normal status code" },
  { id: "doc1.dry-run.generated-values-differ", doc: "doc1", section: DRY, level: "optional", title: "Generated values (name, timestamps, uid, resourceVersion, admission-set fields, Service ports/addresses) may differ from a real request" },
  { id: "doc1.dry-run.builtin-admission", doc: "doc1", section: DRY, level: "required", title: "Built-in admission plugins support dry-run" },
  { id: "doc1.dry-run.webhook-side-effects", doc: "doc1", section: DRY, level: "required", title: "Admission webhooks declare sideEffects None, or NoneOnDryRun when they honour the dry-run flag",
    realServer: "sideEffects has no default in v1: missing is 422 Required, Some/Unknown 422 Unsupported value; the AdmissionReview carries request.dryRun" },

  // ── Limits ──────────────────────────────────────────────────────────────────────────
  { id: "doc1.limits.watch-history-5m", doc: "doc1", section: LIMITS, level: "optional", unobservable: UNOBSERVABLE_DEFAULT, title: "Watch history (store version 3) is kept for the last 5 minutes by default" },
  { id: "doc1.limits.continue-token-5m", doc: "doc1", section: LIMITS, level: "optional", unobservable: UNOBSERVABLE_DEFAULT, title: "Continue tokens live 5 minutes by default",
    realServer: "A token expires when its rv is compacted in storage (wire-facts §9)" },
  { id: "doc1.limits.snapshot-retention", doc: "doc1", section: LIMITS, level: "gated", gate: SNAPSHOT, unobservable: UNOBSERVABLE_CACHE, title: "List snapshots are kept until compaction or until the cache is full of events older than 75 s" },
  { id: "doc1.limits.large-collection-encodings", doc: "doc1", section: LIMITS, level: "optional", title: "Collections above 100 MB should use only JSON or binary item-by-item encodings" },
  { id: "doc1.limits.example-size", doc: "doc1", section: LIMITS, level: "optional", unobservable: "Typical sizes of Pods and Pod lists, given as an illustration: no behaviour a request could check", title: "About 2 KiB of JSON per Pod; a large cluster's full Pod list can be 10-20 MB" },
  { id: "doc1.limits.response-compression", doc: "doc1", section: LIMITS, level: "gated", gate: COMPRESSION, title: "Responses are gzip-compressed when Accept-Encoding asks for it" },
  { id: "doc1.limits.old-rv-not-required", doc: "doc1", section: LIMITS, level: "optional", title: "Servers need not serve old or unrecognized resource versions" },
  { id: "doc1.limits.rate-limit", doc: "doc1", section: LIMITS, level: "required", title: "Response to a rate-limited request (spec: not shown)",
    realServer: "Priority-and-fairness rejections are 429 text/plain `Too many requests, please try again later.` with Retry-After, not a Status; other 429s are a Status with details.retryAfterSeconds (wire-facts §4)" },
  { id: "doc1.limits.request-too-large", doc: "doc1", section: LIMITS, level: "required", title: "Response to an oversized request (spec: not shown)",
    realServer: "413 RequestEntityTooLarge, `Request entity too large: ...` (wire-facts §4)" },

  // ── Versioning ──────────────────────────────────────────────────────────────────────
  { id: "doc1.versioning.group-version-path", doc: "doc1", section: VERS, level: "required", title: "Group and version are path segments" },
  { id: "doc1.versioning.core-api-path", doc: "doc1", section: VERS, level: "required", title: "Core-group resources use /api/{version}" },
  { id: "doc1.versioning.rv-string", doc: "doc1", section: VERS, level: "required", title: "resourceVersion is a string, opaque apart from the ordering rules" },
  { id: "doc1.versioning.rv-ordered-per-type", doc: "doc1", section: VERS, level: "required", title: "Within one resource type (same group and type, any namespace) resourceVersions increase as integers",
    realServer: "core v1 and events.k8s.io/v1 Events share one store and one resourceVersion space (wire-facts §7)" },
  { id: "doc1.versioning.rv-decimal-form", doc: "doc1", section: VERS, level: "required", title: "A valid resourceVersion starts with 1-9, has only digits and is an arbitrary-size decimal" },
  { id: "doc1.versioning.rv-compare", doc: "doc1", section: VERS, level: "required", title: "Comparing resourceVersions: the longer string is greater; equal lengths compare lexicographically" },
  { id: "doc1.versioning.rv-cross-type-incomparable", doc: "doc1", section: VERS, level: "optional", subject: "client", title: "resourceVersions of different resource types cannot be compared" },
  { id: "doc1.versioning.rv-non-decimal-equality", doc: "doc1", section: VERS, level: "optional", subject: "client", title: "A non-decimal resourceVersion from an extension server supports only equality tests" },
  { id: "doc1.versioning.rv-orderable-conformance", doc: "doc1", section: VERS, level: "required", title: "From 1.35 orderable resourceVersions are required for conformance of base and custom resources" },
  { id: "doc1.versioning.rvm-since-1-19", doc: "doc1", section: VERS, level: "required", title: "resourceVersionMatch exists since release 1.19" },
  { id: "doc1.versioning.cap-streaming-initial-state", doc: "doc1", section: VERS, level: "gated", gate: WATCH_LIST, title: "Streaming the initial state is beta and on by default",
    realServer: "Gate WatchList defaults on in 1.34+ (wire-facts §2)" },
  { id: "doc1.versioning.cap-response-compression", doc: "doc1", section: VERS, level: "gated", gate: COMPRESSION, title: "Response compression is beta (since 1.16) and on by default" },
  { id: "doc1.versioning.cap-chunked-lists", doc: "doc1", section: VERS, level: "required", title: "Chunked lists are stable (1.29) and always on" },
  { id: "doc1.versioning.cap-field-validation", doc: "doc1", section: VERS, level: "required", title: "Server-side field validation is stable (1.27) with default level Warn" },
  { id: "doc1.versioning.cap-dry-run", doc: "doc1", section: VERS, level: "required", title: "Dry-run is stable (1.19) and on" },
  { id: "doc1.versioning.cap-cbor", doc: "doc1", section: VERS, level: "gated", gate: CBOR, title: "CBOR encoding is alpha (1.32) and off by default",
    realServer: "CBORServingAndStorage: alpha, default false since 1.32, unchanged in 1.35 (wire-facts §3)" },
  { id: "doc1.versioning.cap-unsafe-force-delete", doc: "doc1", section: VERS, level: "gated", gate: FORCE_DELETE, title: "Unsafe force delete is alpha (1.32) and off by default" },
] as const satisfies readonly Rule[];

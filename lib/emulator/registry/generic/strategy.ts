/**
 * The served resource types. Each type is a strategy made of named parts: its identity and
 * discovery data, its object schema, its storage settings, its create/update/delete strategy
 * (the hooks the generic registry calls, like the apiserver's REST strategies), its Table
 * convertor, its REST overrides (request and answer as plain data: nothing here knows HTTP),
 * and its subresources. Also the registry of the types served (ResourceRegistry), which adds
 * and removes types at run time for custom resources.
 */
import type { QualifiedKind, QualifiedResource } from "../../apimachinery/api-errors.js";
import type { FieldError } from "../../apimachinery/field-errors.js";
import type { JsonObject, KubeObject } from "../../apimachinery/json.js";
import type { StructShape } from "../../apimachinery/typed-json.js";
import type { User } from "../../apimachinery/user.js";
import type { StorageView } from "../../storage/storage-views.js";
import type { KeyValue } from "../../storage/store.js";
import type { CapabilityLookup } from "./capabilities.js";
import type { DeleteOptions, DeleteOutcome } from "./options.js";
import type { TablePrinter } from "./table.js";

export type Verb = "create" | "delete" | "deletecollection" | "get" | "list" | "patch" | "update" | "watch";

/** The verbs a subresource can serve here: reads and writes of one object, or a create (`serviceaccounts/token`). */
export type SubresourceVerb = "create" | "get" | "patch" | "update";

/**
 * A subresource below each object of a type (`namespaces/{name}/status`), like a second REST
 * storage over the same stored objects with its own update strategy. Its writes are updates; a
 * create-only subresource serves POST through its create override instead.
 */
export interface SubresourceStrategy {
  /** The path segment (`status`, `finalize`). */
  readonly name: string;
  /** Verbs as discovery lists them; the methods they map to are the only ones served (else 405). */
  readonly verbs: readonly SubresourceVerb[];
  /** Whether its storage converts to Table; without, an Accept asking only for a Table is 406. */
  readonly table: boolean;
  /** Top-level fields the subresource's strategy resets, which nobody owns through it (GetResetFields). */
  readonly resetFields: readonly string[];
  /** Restores what a write through the subresource may not change (the rest of the object). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** The subresource's whole update validation, ObjectMeta update rules included. */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** Another type's identity in discovery (`serviceaccounts/token` is an authentication.k8s.io/v1 TokenRequest). */
  readonly discoveryKind?: { readonly group: string; readonly version: string; readonly kind: string };
  /** The shape of that other kind, for the OpenAPI documents that name it. */
  readonly discoveryShape?: StructShape;
  /** Serves POST on the subresource (a create-only subresource answers from its own override; nothing is stored through the parent). */
  readonly create?: RestCreate;
}

/** Identity and discovery: what the type is called, its scope, and how discovery lists it. */
export interface TypeIdentity {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural lowercase name used in paths. */
  readonly resource: string;
  readonly kind: string;
  readonly listKind: string;
  readonly singularName: string;
  readonly shortNames: readonly string[];
  /** Discovery categories (`api-extensions`); none when absent. */
  readonly categories?: readonly string[];
  readonly namespaced: boolean;
  /**
   * The type's objects are the namespaces themselves: a request on one is in the namespace it
   * names (the real RequestInfo resolver's reading of `/api/v1/namespaces/{name}`), which the
   * admission attributes and the unsafe delete's authorization follow; and the namespace
   * controller must always read them, so they cannot be marked corrupt.
   */
  readonly definesNamespace?: boolean;
  /** Verbs advertised in discovery, as the real server lists them. */
  readonly verbs: readonly Verb[];
  readonly storageVersionHash: string;
  /** Group and kind named by Invalid and precondition errors (the internal type). */
  readonly internalKind: QualifiedKind;
}

/** The objects' form: their JSON shape, how request bodies are read, the fields selectors may name. */
export interface ObjectSchema {
  readonly shape: StructShape;
  /**
   * Set for a custom resource (served from a CustomResourceDefinition, stored unstructured):
   * no protobuf, no strategic merge patch, apiVersion and kind required in bodies, and any
   * served version of the definition accepted in a body.
   */
  readonly unstructured?: UnstructuredInfo;
  /**
   * Other group-versions of the same internal type (core v1 and events.k8s.io Events): a body
   * in one of them decodes, and is then refused for its version (400), not as an unknown kind.
   */
  readonly sameTypeVersions?: readonly string[];
  /** Field selector labels the type accepts; anything else is `field label not supported`. */
  readonly fieldLabels: readonly string[];
  selectableFields(obj: KubeObject): Record<string, string>;
  /**
   * What decoding a request adds before the field manager sees the object (the type's
   * defaulting, which the emulator itself applies later, in the strategy), so the writer owns
   * it: a named namespace's kubernetes.io/metadata.name label. None when absent.
   */
  decodeDefaults?(obj: JsonObject): JsonObject;
}

/** Storage settings: where the objects are kept, and what the storage layer reads for them. */
export interface StorageSettings {
  /** Key prefix in the store, without a trailing slash (`/registry/configmaps`). */
  readonly storagePrefix: string;
  /**
   * Set when the type is a second view of another type's stored objects (core v1 Events over
   * events.k8s.io/v1 ones): storagePrefix is then the other type's, and the object layer
   * converts values to and from the stored form with this view (storage-views.ts).
   */
  readonly storageView?: StorageView;
  /**
   * Whether the real server serves watches of this type from the watch cache; decides the text
   * of the 410 for a too-old resourceVersion (wire-facts §4: events go straight to etcd).
   */
  readonly watchCache: boolean;
}

/**
 * What a write's begin hook may read: the type's stored objects (in every namespace), for a
 * value allocated from a pool the stored objects hold (a Service's cluster IP), and whether the
 * write is a dry run.
 */
export interface WriteContext {
  stored(): KubeObject[];
  readonly dryRun: boolean;
}

/** The create, update and delete strategy: the hooks the generic registry (registry.ts) runs around its writes. */
export interface WriteStrategy {
  /**
   * Runs before prepareForCreate and validation (the Store's BeginCreate hook): defaults and
   * allocations that need the stored objects; throws a StatusError to refuse the create.
   */
  beginCreate?(obj: KubeObject, context: WriteContext): void;
  /** The same before prepareForUpdate and update validation (the Store's BeginUpdate hook). */
  beginUpdate?(obj: KubeObject, old: KubeObject, context: WriteContext): void;
  readonly allowCreateOnUpdate: boolean;
  readonly allowUnconditionalUpdate: boolean;
  /** Sets server-owned fields on create (status, defaults). */
  prepareForCreate(obj: KubeObject): void;
  /** Restores fields an update may not change through the main resource. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** Full create validation, ObjectMeta included, in the real server's error order. */
  validateCreate(obj: KubeObject): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** Last normalisation before storage (after validation). */
  canonicalize(obj: KubeObject): void;
  /** Top-level fields the strategy resets on the main resource, which nobody owns through it (GetResetFields): a namespace's status. */
  readonly resetFields?: readonly string[];
  /** Finalizers beyond metadata.finalizers that hold deletion (namespace spec.finalizers). */
  pendingFinalizers(obj: KubeObject): string[];
  /** Changes the object the first DELETE marks as terminating (a CRD gets its cleanup finalizer). */
  prepareForDeletion?(obj: KubeObject): void;
  /** A DELETE that removes the object answers with it, not with a Success Status (the Store's ReturnDeletedObject: namespaces). */
  readonly returnDeletedObject?: boolean;
}

/** The Table convertor. */
export interface TableConvertor {
  /** The type's Table convertor (its printer, or a CRD's additionalPrinterColumns); without, the generic default (table.ts). */
  readonly tablePrinter?: TablePrinter;
}

/**
 * A request as a REST override sees it: plain data, no HTTP (the endpoint decodes the body,
 * calls the override, and writes what it returns in the negotiated encoding).
 */
export interface RestRequest {
  /** The namespace of the path ("" on a cluster-scoped path). */
  readonly namespace: string;
  /** The object's name from the path ("" on a collection). */
  readonly name: string;
  /** The request body, decoded as a JSON object. */
  readonly body: JsonObject;
  /** Who makes the request, when the server authenticates. */
  readonly user: User | undefined;
  /** The server's clock. */
  readonly now: () => Date;
  /** Reads one stored object of the path's type (a subresource's parent) from this server's storage. */
  read(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** What this server offers overrides besides the request (capabilities.ts): auth's authorizer and tokens when it is on. */
  readonly capabilities: CapabilityLookup;
}

/** What an override answers: the object and the status code to write it with. */
export interface RestResult {
  readonly code: number;
  readonly object: KubeObject;
}

/** Serves POST instead of the generic create (on the collection, or on a create-only subresource). */
export interface RestCreate {
  /** An empty body is read as `{}` rather than refused as undecodable (SelfSubjectReview needs none). */
  readonly emptyBodyAllowed?: boolean;
  create(request: RestRequest): Promise<RestResult>;
}

/** A DELETE of one object as a delete override sees it, after the endpoint's admission. */
export interface RestDeleteRequest {
  /** The object as read and admitted, with its store entry (what object-storage.ts calls a StoredObject), for a conditional write. */
  readonly existing: { readonly object: KubeObject; readonly kv: KeyValue };
  readonly options: DeleteOptions;
  readonly capabilities: CapabilityLookup;
}

/**
 * Serves DELETE of one object instead of the generic delete (a namespace is marked Terminating
 * and emptied by its controller first). The override checks the delete preconditions itself,
 * in its write: the generic early check (BeforeDelete's) is skipped.
 */
export interface RestDelete {
  delete(request: RestDeleteRequest): Promise<DeleteOutcome>;
}

/**
 * REST overrides: a type's own handling of a verb where the generic handler's does not fit,
 * like the apiserver's per-type REST storage, and like it free of HTTP.
 */
export interface RestOverrides {
  /** Refuses a verb the type cannot serve right now (a terminating CRD's instances: no create). */
  admitVerb?(verb: "create" | "update" | "patch"): void;
  /**
   * Serves POST on the collection instead of the generic create: the virtual review
   * types (SubjectAccessReview, TokenReview…), which answer from the request and store nothing.
   */
  readonly createOverride?: RestCreate;
  /** Serves DELETE of one object instead of the generic delete: the namespace's (registry/core/namespace/rest.ts). */
  readonly deleteOverride?: RestDelete;
}

/** The subresources served below each object. */
export interface SubresourceSet {
  /** Subresources served below each object (none when absent); see subresources.ts. */
  readonly subresources?: readonly SubresourceStrategy[];
}

/**
 * A served type: its parts composed. Each consumer asks for the parts it reads (discovery the
 * identity, the Table writers the convertor, the field manager the schema…); the generic
 * registry and the storage layer take the whole.
 */
export interface ResourceStrategy extends TypeIdentity, ObjectSchema, StorageSettings, WriteStrategy, TableConvertor, RestOverrides, SubresourceSet {}

export interface UnstructuredInfo {
  /** The definition's served apiVersions (`group/version`), any of which a body may carry. */
  readonly servedApiVersions: readonly string[];
  /** The served version's openAPIV3Schema, which the OpenAPI documents publish. */
  readonly openAPIV3Schema?: JsonObject;
}

export function groupVersionOf(s: Pick<TypeIdentity, "group" | "version">): string {
  return s.group ? `${s.group}/${s.version}` : s.version;
}

export function qualifiedResourceOf(s: Pick<TypeIdentity, "group" | "resource">): QualifiedResource {
  return { group: s.group, resource: s.resource };
}

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/**
 * The served types: the fixed ones given at start, plus types added and removed at run time
 * (custom resources, as their definitions come and go). Lookups go through maps rebuilt on
 * each change, so a request for a fixed type costs the same however many types are served.
 */
export class ResourceRegistry {
  private strategies: readonly ResourceStrategy[];
  private byPath = new Map<string, ResourceStrategy>();
  private versions: GroupVersion[] = [];
  private versionKeys = new Set<string>();
  private groups = new Set<string>();

  constructor(strategies: readonly ResourceStrategy[]) {
    this.strategies = strategies;
    this.reindex();
  }

  private reindex(): void {
    this.byPath = new Map(this.strategies.map((s) => [`${s.group}/${s.version}/${s.resource}`, s]));
    const seen = new Map<string, GroupVersion>();
    for (const s of this.strategies) seen.set(groupVersionOf(s), { group: s.group, version: s.version });
    this.versions = [...seen.values()];
    this.versionKeys = new Set(seen.keys());
    this.groups = new Set(this.versions.map((gv) => gv.group));
  }

  /** Serves these types from now on, replacing any served under the same group/version/resource. */
  add(added: readonly ResourceStrategy[]): void {
    const keys = new Set(added.map((s) => `${s.group}/${s.version}/${s.resource}`));
    this.strategies = [...this.strategies.filter((s) => !keys.has(`${s.group}/${s.version}/${s.resource}`)), ...added];
    this.reindex();
  }

  /** Stops serving the types for which `which` is true. */
  remove(which: (s: ResourceStrategy) => boolean): void {
    this.strategies = this.strategies.filter((s) => !which(s));
    this.reindex();
  }

  all(): readonly ResourceStrategy[] {
    return this.strategies;
  }

  lookup(group: string, version: string, resource: string): ResourceStrategy | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** The served group-versions, core first, in registration order. */
  groupVersions(): GroupVersion[] {
    return this.versions;
  }

  hasGroup(group: string): boolean {
    return this.groups.has(group);
  }

  inGroupVersion(group: string, version: string): ResourceStrategy[] {
    return this.strategies.filter((s) => s.group === group && s.version === version);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.versionKeys.has(group ? `${group}/${version}` : version);
  }

  namespacedTypes(): ResourceStrategy[] {
    return this.strategies.filter((s) => s.namespaced);
  }
}

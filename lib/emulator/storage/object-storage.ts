/**
 * The object layer over the key-value store, like the apiserver's storage codec: keys are
 * `<storagePrefix>/<namespace>/<name>` (or `<storagePrefix>/<name>` for cluster-scoped types),
 * values are the object JSON without metadata.resourceVersion, and the resourceVersion is
 * filled in from the entry's modRevision (or the event revision) on the way out.
 *
 * Reads and writes of a type's objects name the type by its StoredType (get, range, watch, put,
 * delete): the few settings of a served type this layer needs, which the registry's strategies
 * carry (storage knows nothing of the registry, so the interface is declared here and strategies
 * satisfy it as they are). A type that is a second view of another type's entries (its storageView,
 * storage-views.ts: core v1 Events over the events.k8s.io/v1 entries) reads and writes those
 * entries, its values converted to and from the stored form here. The KeyValues and changes
 * these methods return hold the type's own form; encode, decode and objectJson work on that form.
 * The store itself stays reachable for what is not per type (revisions, compaction, retention).
 *
 * An entry can be marked corrupt (the admin endpoint's stand-in for a value a real server cannot
 * decrypt or decode): get() of it fails as a real server's read does, a 500 InternalError, and so
 * does a list (reads.ts) whose range, from its start key on, holds it. The mark belongs to the
 * entry's modRevision, so any later write of the key (a new, readable value) ends it. Known differences: the namespace
 * controller and watches still read the marked value, and a DELETED event carries its last state.
 */
import { failure } from "../../wire/status.js";
import { internalError, StatusError } from "../apimachinery/api-errors.js";
import { type KubeObject, parseStored } from "../apimachinery/json.js";
import { asKubeObject, setMeta } from "../apimachinery/object-meta.js";
import type { KeyValueStore } from "./kv.js";
import { type StorageView, ViewedEntries } from "./storage-views.js";
import {
  type ChangeEvent,
  type DeleteResult,
  type KeyValue,
  type PutResult,
  type RangeOptions,
  type RangeResult,
  StoreError,
  type WatchListener,
  type WriteOptions,
} from "./store.js";

/** What the object layer needs of a served type: where its entries live and how they read. */
export interface StoredType {
  /** Key prefix in the store, without a trailing slash (`/registry/configmaps`). */
  readonly storagePrefix: string;
  /** Keys then carry the namespace: `<storagePrefix>/<namespace>/<name>`. */
  readonly namespaced: boolean;
  /** Set when the type is a second view of another type's entries (storage-views.ts). */
  readonly storageView?: StorageView;
}

export interface StoredObject {
  readonly object: KubeObject;
  readonly kv: KeyValue;
}

export class ObjectStorage {
  // Weak: a custom resource type is rebuilt, with new views, whenever its definition changes.
  private readonly viewed = new WeakMap<StorageView, ViewedEntries>();
  /** Keys marked unreadable, each with the modRevision of the value that is "corrupt". */
  private readonly corrupt = new Map<string, number>();

  constructor(readonly store: KeyValueStore) {}

  /** The view's conversions for the type, or undefined when it reads its own entries. */
  private viewOf(type: StoredType): ViewedEntries | undefined {
    const view = type.storageView;
    if (!view) return undefined;
    let viewed = this.viewed.get(view);
    if (!viewed) {
      viewed = new ViewedEntries(view);
      this.viewed.set(view, viewed);
    }
    return viewed;
  }

  key(type: StoredType, namespace: string, name: string): string {
    return type.namespaced ? `${type.storagePrefix}/${namespace}/${name}` : `${type.storagePrefix}/${name}`;
  }

  /** Prefix of a collection, always ending in "/": one namespace, or the whole type. */
  prefix(type: StoredType, namespace?: string): string {
    return type.namespaced && namespace ? `${type.storagePrefix}/${namespace}/` : `${type.storagePrefix}/`;
  }

  encode(object: KubeObject): string {
    // setMeta gives the copy a metadata object of its own.
    const copy: KubeObject = { ...object };
    setMeta(copy, "resourceVersion", undefined);
    return JSON.stringify(copy);
  }

  /** The stored object with resourceVersion = revision (the entry's modRevision by default). */
  decode(kv: KeyValue, revision: number = kv.modRevision): KubeObject {
    const object = asKubeObject(parseStored(kv.value));
    setMeta(object, "resourceVersion", String(revision));
    return object;
  }

  /**
   * The object's compact JSON text with resourceVersion = revision: the same text as
   * JSON.stringify(decode(kv, revision)), made by splicing the field into the stored text
   * instead of parsing and re-encoding it. Lists and watch fan-out write many objects, and
   * the round trip through objects is most of their cost. Stored values are encode()'s output,
   * so their text is what JSON.stringify writes; one whose head does not have the expected
   * simple form (escaped keys, non-string fields before resourceVersion) takes the decode path.
   */
  objectJson(kv: KeyValue, revision: number = kv.modRevision): string {
    const value = kv.value;
    const at = resourceVersionSlot(value);
    if (at === undefined) return JSON.stringify(this.decode(kv, revision));
    const field = `"resourceVersion":"${revision}"`;
    if (!at.first) return `${value.slice(0, at.index)},${field}${value.slice(at.index)}`;
    return value.slice(0, at.index) + field + (value[at.index] === "}" ? "" : ",") + value.slice(at.index);
  }

  /**
   * objectJson without its leading kind and apiVersion (a typed list's item, which has no
   * TypeMeta), made from the stored text in one splice; undefined when the stored head is not
   * the simple form (the caller then cuts objectJson's text).
   */
  listItemJson(kv: KeyValue, revision: number = kv.modRevision): string | undefined {
    const value = kv.value;
    const head = TYPE_META_HEAD.exec(value);
    const at = resourceVersionSlot(value);
    if (!head || at === undefined || head[0].length > at.index) return undefined;
    const field = `"resourceVersion":"${revision}"`;
    const before = value.slice(head[0].length, at.index);
    if (!at.first) return `{${before},${field}${value.slice(at.index)}`;
    return `{${before}${field}${value[at.index] === "}" ? "" : ","}${value.slice(at.index)}`;
  }

  async get(type: StoredType, namespace: string, name: string): Promise<StoredObject | undefined> {
    const kv = await this.entry(type, this.key(type, namespace, name));
    if (!kv) return undefined;
    this.mustBeReadable(kv);
    return this.stored(kv);
  }

  /**
   * The entry with its object decoded when first asked for: an answer made from the stored text
   * (a GET, a create) never needs the object. An own enumerable getter, so a spread copy still
   * carries the object.
   */
  stored(kv: KeyValue): StoredObject {
    let object: KubeObject | undefined;
    const storage = this;
    return {
      kv,
      get object() {
        object ??= storage.decode(kv);
        return object;
      },
    };
  }

  /** Marks the current value at key unreadable; false when there is no entry. */
  async markCorrupt(key: string): Promise<KeyValue | undefined> {
    const kv = await this.store.get(key);
    if (kv) this.corrupt.set(key, kv.modRevision);
    return kv;
  }

  /** True when kv is a value marked unreadable (and not rewritten since). */
  isCorrupt(kv: KeyValue): boolean {
    return this.corrupt.get(kv.key) === kv.modRevision;
  }

  /** Throws what a real server answers for a value it cannot decrypt or decode: 500 InternalError. */
  mustBeReadable(kv: KeyValue): void {
    if (!this.isCorrupt(kv)) return;
    throw internalError(
      `StorageError: corrupt object, Code: 7, Key: ${kv.key}, ResourceVersion: 0, AdditionalErrorMsg: failed to decode or transform the stored data`,
    );
  }

  /** The entry at key (one of this.key(type, …)), in the type's form. */
  async entry(type: StoredType, key: string): Promise<KeyValue | undefined> {
    const kv = await this.store.get(key);
    const viewed = this.viewOf(type);
    return kv && viewed ? viewed.kv(kv) : kv;
  }

  /** The entries of a collection (one namespace, or the whole type), in the type's form. */
  async range(type: StoredType, namespace: string | undefined, options: RangeOptions = {}): Promise<RangeResult> {
    const result = await this.store.range(this.prefix(type, namespace), options);
    const viewed = this.viewOf(type);
    return viewed ? { ...result, kvs: result.kvs.map((kv) => viewed.kv(kv)) } : result;
  }

  /** Follows a collection's changes after afterRevision, in the type's form. */
  watch(type: StoredType, namespace: string | undefined, afterRevision: number, listener: WatchListener): () => void {
    const viewed = this.viewOf(type);
    const prefix = this.prefix(type, namespace);
    if (!viewed) return this.store.watch(prefix, afterRevision, listener);
    return this.store.watch(prefix, afterRevision, (change: ChangeEvent) => listener(viewed.change(change)));
  }

  /**
   * Writes value (encode()'s output, in the type's form) at key; the entry comes back in the
   * type's form. A value etcd would refuse as too large is written once more without its
   * metadata.managedFields, as the real server's create, update and patch handlers retry
   * (handlers/rest.go isTooLargeError); past that, and past the store's quota, the answer is
   * the real server's: a 500 with etcd's message and no reason (wire-facts §11, object vs etcd).
   * Server-side apply does not retry on a real server (its handler has no such retry): its
   * writes come with slimRetry false.
   */
  async put(type: StoredType, key: string, value: string, options: WriteOptions & { readonly slimRetry?: boolean } = {}): Promise<PutResult> {
    const { slimRetry = true, ...write } = options;
    try {
      return await this.putOnce(type, key, value, write);
    } catch (e) {
      if (!(e instanceof StoreError) || (e.code !== "RequestTooLarge" && e.code !== "NoSpace")) throw e;
      const slimmer = e.code === "RequestTooLarge" && slimRetry ? withoutManagedFields(value) : undefined;
      if (slimmer === undefined) throw etcdFailure(e);
      try {
        return await this.putOnce(type, key, slimmer, write);
      } catch (again) {
        if (again instanceof StoreError && (again.code === "RequestTooLarge" || again.code === "NoSpace")) throw etcdFailure(again);
        throw again;
      }
    }
  }

  private async putOnce(type: StoredType, key: string, value: string, options: WriteOptions): Promise<PutResult> {
    const viewed = this.viewOf(type);
    if (!viewed) return this.store.put(key, value, options);
    const result = await this.store.put(key, viewed.view.toStored(value), options);
    return { revision: result.revision, kv: viewed.kv(result.kv), prevKv: result.prevKv && viewed.kv(result.prevKv) };
  }

  async delete(type: StoredType, key: string, options: WriteOptions = {}): Promise<DeleteResult> {
    const viewed = this.viewOf(type);
    const result = await this.store.delete(key, options);
    return viewed ? { revision: result.revision, prevKv: viewed.kv(result.prevKv) } : result;
  }
}

/** etcd's error as kube-apiserver passes it on: ErrorToAPIStatus of an unknown error, a 500 without reason. */
function etcdFailure(e: StoreError): StatusError {
  return new StatusError(failure(500, "", e.message));
}

/** The stored value without metadata.managedFields, or undefined when it has none. */
function withoutManagedFields(value: string): string | undefined {
  const object = parseStored(value);
  const metadata = object["metadata"];
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata) || !("managedFields" in metadata)) return undefined;
  delete metadata["managedFields"];
  return JSON.stringify(object);
}

/** A stored value's leading kind and apiVersion, with the comma after them. */
const TYPE_META_HEAD = /^\{"kind":"(?:[^"\\]|\\.)*","apiVersion":"(?:[^"\\]|\\.)*",/;

/** ObjectMeta fields that come before resourceVersion in its Go order; all are strings. */
const BEFORE_RESOURCE_VERSION: ReadonlySet<string> = new Set(["name", "generateName", "namespace", "selfLink", "uid"]);

/** End (exclusive) of the JSON string starting at i, or -1 when there is none. */
function stringEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== 34) return -1;
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) j++;
    else if (c === 34) return j + 1;
  }
  return -1;
}

/** A key at i without escapes (every key the canonical form writes), or undefined. */
function plainKey(text: string, i: number): { name: string; end: number } | undefined {
  const end = stringEnd(text, i);
  if (end < 0 || text.charCodeAt(end) !== 58) return undefined;
  const name = text.slice(i + 1, end - 1);
  return name.includes("\\") ? undefined : { name, end: end + 1 };
}

/**
 * Where resourceVersion goes in a stored value written by encode(): top-level members with
 * string values (kind, apiVersion), then "metadata":{, then its leading string fields in Go
 * order. Returns the index after the last of those fields (first: false; a "," is needed
 * before the new field) or just after the metadata brace (first: true). Anything else, or a
 * resourceVersion already there, is undefined: the caller falls back to decoding.
 */
function resourceVersionSlot(text: string): { index: number; first: boolean } | undefined {
  if (text.charCodeAt(0) !== 123) return undefined;
  let i = 1;
  for (;;) {
    const key = plainKey(text, i);
    if (!key) return undefined;
    i = key.end;
    if (key.name === "metadata") break;
    const end = stringEnd(text, i);
    if (end < 0 || text.charCodeAt(end) !== 44) return undefined;
    i = end + 1;
  }
  if (text.charCodeAt(i) !== 123) return undefined;
  const open = i + 1;
  let slot = { index: open, first: true };
  i = open;
  while (text.charCodeAt(i) !== 125) {
    const key = plainKey(text, i);
    if (!key || key.name === "resourceVersion") return undefined;
    if (!BEFORE_RESOURCE_VERSION.has(key.name)) return slot;
    const end = stringEnd(text, key.end);
    if (end < 0) return undefined;
    slot = { index: end, first: false };
    const next = text.charCodeAt(end);
    if (next === 125) return slot;
    if (next !== 44) return undefined;
    i = end + 1;
  }
  return slot;
}

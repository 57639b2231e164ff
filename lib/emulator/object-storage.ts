/**
 * The object layer over the key-value store, like the apiserver's storage codec: keys are
 * `<storagePrefix>/<namespace>/<name>` (or `<storagePrefix>/<name>` for cluster-scoped types),
 * values are the object JSON without metadata.resourceVersion, and the resourceVersion is
 * filled in from the entry's modRevision (or the event revision) on the way out.
 */
import { parseStored, type KubeObject } from "./json.js";
import { asKubeObject, setMeta } from "./object-meta.js";
import type { ResourceStrategy } from "./resources.js";
import type { KeyValue, MemoryStore } from "./store.js";

export interface StoredObject {
  readonly object: KubeObject;
  readonly kv: KeyValue;
}

export class ObjectStorage {
  constructor(readonly store: MemoryStore) {}

  key(strategy: ResourceStrategy, namespace: string, name: string): string {
    return strategy.namespaced ? `${strategy.storagePrefix}/${namespace}/${name}` : `${strategy.storagePrefix}/${name}`;
  }

  /** Prefix of a collection, always ending in "/": one namespace, or the whole type. */
  prefix(strategy: ResourceStrategy, namespace?: string): string {
    return strategy.namespaced && namespace ? `${strategy.storagePrefix}/${namespace}/` : `${strategy.storagePrefix}/`;
  }

  encode(object: KubeObject): string {
    const copy: KubeObject = { ...object, metadata: { ...object.metadata } };
    setMeta(copy, "resourceVersion", undefined);
    return JSON.stringify(copy);
  }

  /** The stored object with resourceVersion = revision (the entry's modRevision by default). */
  decode(kv: KeyValue, revision: number = kv.modRevision): KubeObject {
    const object = asKubeObject(parseStored(kv.value));
    setMeta(object, "resourceVersion", String(revision));
    return object;
  }

  get(strategy: ResourceStrategy, namespace: string, name: string): StoredObject | undefined {
    const kv = this.store.get(this.key(strategy, namespace, name));
    return kv ? { object: this.decode(kv), kv } : undefined;
  }
}

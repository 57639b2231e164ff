/**
 * Which stored keys hold which built-in type, in the form kube-apiserver stores it in etcd
 * (wire-facts §21): every built-in type in protobuf, except the groups it stores as JSON;
 * custom resources (never among the built-in strategies) stay JSON too. The storage layer gets
 * this as a function of the key (storage/etcd/etcd-values.ts).
 */
import type { StorageVersionForm, StorageVersionForms } from "../storage/etcd/etcd-values.js";
import type { ResourceStrategy } from "./generic/strategy.js";

/** Stored as JSON by a real server: CRDs and APIServices (k/k default_storage_factory_builder.go, server options). */
const JSON_GROUPS: ReadonlySet<string> = new Set(["apiextensions.k8s.io", "apiregistration.k8s.io"]);

export function storageVersionForms(strategies: readonly ResourceStrategy[]): StorageVersionForms {
  const forms = new Map<string, StorageVersionForm>();
  for (const s of strategies) {
    if (JSON_GROUPS.has(s.group)) continue;
    const prefix = `${s.storagePrefix}/`;
    const view = s.storageView;
    if (!view) {
      if (!forms.has(prefix)) forms.set(prefix, {});
    } else if (s.group === "") {
      // Both event APIs share /registry/events; kube-apiserver stores them in the core group's
      // version, core v1 Event (AddCohabitatingResources(api events, events.k8s.io events): the first wins).
      forms.set(prefix, { toStorageVersion: view.toView, fromStorageVersion: view.toStored });
    }
  }
  const entries = [...forms];
  return (key) => entries.find(([prefix]) => key.startsWith(prefix))?.[1];
}

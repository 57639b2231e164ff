/** The served types, in the order discovery lists their group-versions. */
import type { ResourceStrategy } from "../resources.js";
import type { StorageView } from "../storage-views.js";
import { configMapStrategy } from "./configmap.js";
import { coreEventStrategy } from "./core-event.js";
import { eventStrategy } from "./event.js";
import { namespaceStrategy } from "./namespace.js";

export function defaultStrategies(): ResourceStrategy[] {
  return [namespaceStrategy, configMapStrategy, coreEventStrategy, eventStrategy];
}

/** The storage views the served types need (core v1 Events over the events.k8s.io/v1 entries). */
export function defaultStorageViews(): StorageView[] {
  return defaultStrategies().flatMap((s) => (s.storageView ? [s.storageView] : []));
}

export { configMapStrategy, coreEventStrategy, eventStrategy, namespaceStrategy };

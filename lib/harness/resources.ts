/** The resource types the suites use, with their paths. Built from the spec settings. */
import type { SpecSettings } from "./target.js";

export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
}

export function apiVersionOf(t: ResourceType): string {
  return t.group === "" ? t.version : `${t.group}/${t.version}`;
}

export interface ResourceTypes {
  namespaces: ResourceType;
  configmaps: ResourceType;
  events: ResourceType;
  /** The core group's view of Events (wire-facts §7: the same stored objects as events.{group_domain}). */
  coreEvents: ResourceType;
  customResourceDefinitions: ResourceType;
  validatingWebhookConfigurations: ResourceType;
  mutatingWebhookConfigurations: ResourceType;
}

/** The cluster-scoped types a suite may create; the run's safety net deletes labelled leftovers of these. */
export const CLUSTER_OBJECT_TYPES = ["customResourceDefinitions", "validatingWebhookConfigurations", "mutatingWebhookConfigurations"] as const;

export function resourceTypes(settings: SpecSettings): ResourceTypes {
  return {
    namespaces: { group: "", version: "v1", resource: "namespaces", kind: "Namespace", listKind: "NamespaceList", namespaced: false },
    configmaps: { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", listKind: "ConfigMapList", namespaced: true },
    events: {
      group: `events.${settings.groupDomain}`,
      version: "v1",
      resource: "events",
      kind: "Event",
      listKind: "EventList",
      namespaced: true,
    },
    coreEvents: { group: "", version: "v1", resource: "events", kind: "Event", listKind: "EventList", namespaced: true },
    customResourceDefinitions: {
      group: `apiextensions.${settings.groupDomain}`,
      version: "v1",
      resource: "customresourcedefinitions",
      kind: "CustomResourceDefinition",
      listKind: "CustomResourceDefinitionList",
      namespaced: false,
    },
    validatingWebhookConfigurations: {
      group: `admissionregistration.${settings.groupDomain}`,
      version: "v1",
      resource: "validatingwebhookconfigurations",
      kind: "ValidatingWebhookConfiguration",
      listKind: "ValidatingWebhookConfigurationList",
      namespaced: false,
    },
    mutatingWebhookConfigurations: {
      group: `admissionregistration.${settings.groupDomain}`,
      version: "v1",
      resource: "mutatingwebhookconfigurations",
      kind: "MutatingWebhookConfiguration",
      listKind: "MutatingWebhookConfigurationList",
      namespaced: false,
    },
  };
}

/**
 * Path of a collection or of one object (doc1 "Path shapes"). A namespaced type with no
 * namespace gives the all-namespaces collection.
 */
export function resourcePath(t: ResourceType, namespace?: string, name?: string): string {
  const root = t.group === "" ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  const ns = t.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const obj = name !== undefined ? `/${encodeURIComponent(name)}` : "";
  return `${root}${ns}/${t.resource}${obj}`;
}

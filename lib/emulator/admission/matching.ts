/**
 * Whether a webhook is called for a request (apiserver admission/plugin/webhook: the rule
 * matcher, namespace and object selectors, and the exempt resources):
 *
 *  - the admission configuration types themselves are never sent to webhooks (so a broken
 *    webhook can always be removed);
 *  - a rule matches on operation, group, version, resource (`*`, `res/sub`, `res/*`, `*\/sub`,
 *    `*\/*`; plain `*` only without a subresource) and scope (Cluster also matches a namespace
 *    object itself, Namespaced never does);
 *  - namespaceSelector applies to namespaced objects (the labels of their namespace) and to
 *    namespaces themselves (their own labels); cluster-scoped objects always match;
 *  - objectSelector matches the labels of the new or of the old object.
 *
 * Known difference: matchPolicy Equivalent finds no equivalent resources (a real server would
 * send a core v1 Event write to a webhook registered for events.k8s.io/v1 events, converted).
 */
import { isJsonObject, type Json, type JsonObject, type KubeObject } from "../apimachinery/json.js";
import { labelsOf } from "../apimachinery/object-meta.js";
import type { Webhook, WebhookRule } from "./webhooks.js";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What matching needs of a request. */
export interface MatchAttributes {
  readonly operation: Operation;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  /** The request namespace ("" for cluster-scoped objects and namespace creation). */
  readonly namespace: string;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
}

const ADMISSION_CONFIGURATION_RESOURCES = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** IsExemptAdmissionConfigurationResource. */
export function isExempt(attrs: Pick<MatchAttributes, "group" | "resource">): boolean {
  return attrs.group === "admissionregistration.k8s.io" && ADMISSION_CONFIGURATION_RESOURCES.has(attrs.resource);
}

const isNamespaceResource = (a: MatchAttributes): boolean => a.group === "" && a.version === "v1" && a.resource === "namespaces";

const matchesItem = (values: readonly string[], value: string): boolean => values.some((v) => v === "*" || v === value);

function resourceMatches(rule: WebhookRule, a: MatchAttributes): boolean {
  const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return rule.resources.some((r) => {
    if (r === "*/*" || r === full) return true;
    if (r === "*") return a.subresource === "";
    const slash = r.indexOf("/");
    if (slash < 0) return false;
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    return (res === "*" && sub === a.subresource) || (res === a.resource && sub === "*");
  });
}

function scopeMatches(rule: WebhookRule, a: MatchAttributes): boolean {
  if (rule.scope === "Namespaced") return !isNamespaceResource(a) && a.namespace !== "";
  if (rule.scope === "Cluster") return isNamespaceResource(a) || a.namespace === "";
  return true;
}

export function ruleMatches(rule: WebhookRule, a: MatchAttributes): boolean {
  return (
    matchesItem(rule.operations, a.operation) &&
    matchesItem(rule.apiGroups, a.group) &&
    matchesItem(rule.apiVersions, a.version) &&
    resourceMatches(rule, a) &&
    scopeMatches(rule, a)
  );
}

const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** metav1.LabelSelectorAsSelector(selector).Matches(labels); an empty selector matches everything. */
export function selectorMatches(selector: JsonObject, labels: Readonly<Record<string, string>>): boolean {
  const matchLabels = isJsonObject(selector["matchLabels"]) ? selector["matchLabels"] : {};
  for (const [key, value] of Object.entries(matchLabels)) if (labels[key] !== value) return false;
  const expressions = Array.isArray(selector["matchExpressions"]) ? selector["matchExpressions"].filter(isJsonObject) : [];
  for (const e of expressions) {
    const key = typeof e["key"] === "string" ? e["key"] : "";
    const values = strings(e["values"]);
    const has = Object.hasOwn(labels, key);
    const value = labels[key] ?? "";
    switch (e["operator"]) {
      case "In":
        if (!has || !values.includes(value)) return false;
        break;
      case "NotIn":
        if (has && values.includes(value)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

const isEmptySelector = (s: JsonObject): boolean =>
  Object.keys(s).every((k) => {
    const v = s[k];
    return v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : isJsonObject(v) && Object.keys(v).length === 0);
  });

/** A namespace's labels; undefined when there is no namespace of that name. */
export type NamespaceLabels = Record<string, string> | undefined;

/**
 * Whether the webhook applies to the request. `namespaceLabels` gives the labels of a stored
 * namespace (undefined when there is none, which only an empty selector then matches).
 */
export async function webhookApplies(
  hook: Webhook,
  a: MatchAttributes,
  namespaceLabels: (name: string) => NamespaceLabels | Promise<NamespaceLabels>,
): Promise<boolean> {
  if (!hook.rules.some((r) => ruleMatches(r, a))) return false;
  if (!isEmptySelector(hook.namespaceSelector)) {
    if (isNamespaceResource(a)) {
      const own = a.object ?? a.oldObject;
      if (!selectorMatches(hook.namespaceSelector, own ? labelsOf(own) : {})) return false;
    } else if (a.namespace !== "") {
      const labels = await namespaceLabels(a.namespace);
      if (!labels || !selectorMatches(hook.namespaceSelector, labels)) return false;
    }
  }
  if (!isEmptySelector(hook.objectSelector)) {
    const matchesNew = a.object !== undefined && selectorMatches(hook.objectSelector, labelsOf(a.object));
    const matchesOld = a.oldObject !== undefined && selectorMatches(hook.objectSelector, labelsOf(a.oldObject));
    if (!matchesNew && !matchesOld) return false;
  }
  return true;
}

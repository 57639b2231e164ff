/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration: cluster-scoped, field order and tags of api/admissionregistration/v1
 * types.go, the v1 defaults (failurePolicy Fail, matchPolicy Equivalent, namespaceSelector and
 * objectSelector {}, timeoutSeconds 10, rule scope "*", service port 443, reinvocationPolicy Never)
 * applied as the decoder does, before validation, so responses (dry-run ones too) show them.
 * generation starts at 1 and grows when the webhooks change (the registry strategies).
 * Validation: validation.ts; printer: printer.ts. The admission dispatcher reads these objects from storage.
 */
import { cloneJson, isJsonObject, type Json, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import { nameOf, objectHead, setMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";
import { BYTES, field, INT32, listOf, mapOf, STRING, type StructShape, struct } from "../../apimachinery/typed-json.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { WEBHOOK_CONFIGURATION_PRINTER } from "./printer.js";
import { validateWebhookConfiguration } from "./validation.js";

const ADMISSION_REGISTRATION_GROUP = "admissionregistration.k8s.io";

const LABEL_SELECTOR = struct("v1", "LabelSelector", [
  field("matchLabels", mapOf(STRING)),
  field(
    "matchExpressions",
    listOf(struct("v1", "LabelSelectorRequirement", [field("key", STRING, "always"), field("operator", STRING, "always"), field("values", listOf(STRING))])),
  ),
]);

const CLIENT_CONFIG = struct("v1", "WebhookClientConfig", [
  field("url", STRING, "pointer"),
  field(
    "service",
    struct("v1", "ServiceReference", [
      field("namespace", STRING, "always"),
      field("name", STRING, "always"),
      field("path", STRING, "pointer"),
      field("port", INT32, "pointer"),
    ]),
    "pointer",
  ),
  field("caBundle", BYTES),
]);

const RULE_WITH_OPERATIONS = struct("v1", "RuleWithOperations", [
  field("operations", listOf(STRING)),
  field("apiGroups", listOf(STRING)),
  field("apiVersions", listOf(STRING)),
  field("resources", listOf(STRING)),
  field("scope", STRING, "pointer"),
]);

const MATCH_CONDITION = struct("v1", "MatchCondition", [field("name", STRING, "always"), field("expression", STRING, "always")]);

/** The fields both webhook kinds share, in Go order up to admissionReviewVersions. */
const WEBHOOK_HEAD = [
  field("name", STRING, "always"),
  field("clientConfig", CLIENT_CONFIG, "always"),
  field("rules", listOf(RULE_WITH_OPERATIONS)),
  field("failurePolicy", STRING, "pointer"),
  field("matchPolicy", STRING, "pointer"),
  field("namespaceSelector", LABEL_SELECTOR, "pointer"),
  field("objectSelector", LABEL_SELECTOR, "pointer"),
  // `json:"sideEffects"` on a pointer: required by validation, so never written as null here.
  field("sideEffects", STRING, "pointer"),
  field("timeoutSeconds", INT32, "pointer"),
  field("admissionReviewVersions", listOf(STRING), "always"),
];

const VALIDATING_WEBHOOK = struct("v1", "ValidatingWebhook", [...WEBHOOK_HEAD, field("matchConditions", listOf(MATCH_CONDITION))]);

const MUTATING_WEBHOOK = struct("v1", "MutatingWebhook", [
  ...WEBHOOK_HEAD,
  field("reinvocationPolicy", STRING, "pointer"),
  field("matchConditions", listOf(MATCH_CONDITION)),
]);

const VALIDATING_WEBHOOK_CONFIGURATION_SHAPE: StructShape = struct("v1", "ValidatingWebhookConfiguration", [
  ...objectHead(),
  field("webhooks", listOf(VALIDATING_WEBHOOK)),
]);

const MUTATING_WEBHOOK_CONFIGURATION_SHAPE: StructShape = struct("v1", "MutatingWebhookConfiguration", [
  ...objectHead(),
  field("webhooks", listOf(MUTATING_WEBHOOK)),
]);

const setDefault = (o: JsonObject, key: string, value: Json): void => {
  if (o[key] === undefined || o[key] === null) o[key] = value;
};

/** SetDefaults_ValidatingWebhook / _MutatingWebhook, _Rule and _ServiceReference of the v1 API. */
function applyDefaults(o: KubeObject, mutating: boolean): void {
  const webhooks = o["webhooks"];
  if (!Array.isArray(webhooks)) return;
  for (const hook of webhooks) {
    if (!isJsonObject(hook)) continue;
    setDefault(hook, "failurePolicy", "Fail");
    setDefault(hook, "matchPolicy", "Equivalent");
    setDefault(hook, "namespaceSelector", {});
    setDefault(hook, "objectSelector", {});
    setDefault(hook, "timeoutSeconds", 10);
    if (mutating) setDefault(hook, "reinvocationPolicy", "Never");
    const rules = hook["rules"];
    if (Array.isArray(rules)) for (const rule of rules) if (isJsonObject(rule)) setDefault(rule, "scope", "*");
    const service = isJsonObject(hook["clientConfig"]) ? hook["clientConfig"]["service"] : undefined;
    if (isJsonObject(service)) setDefault(service, "port", 443);
  }
}

const sameWebhooks = (a: KubeObject, b: KubeObject): boolean => JSON.stringify(a["webhooks"] ?? []) === JSON.stringify(b["webhooks"] ?? []);

function webhookConfigurationStrategy(kind: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"): ResourceStrategy {
  const mutating = kind === "MutatingWebhookConfiguration";
  const resource = `${kind.toLowerCase()}s`;
  return {
    group: ADMISSION_REGISTRATION_GROUP,
    version: "v1",
    resource,
    kind,
    listKind: `${kind}List`,
    singularName: kind.toLowerCase(),
    shortNames: [],
    categories: ["api-extensions"],
    namespaced: false,
    verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
    // base64(sha256("admissionregistration.k8s.io/v1/<Kind>")[:8]), as the real server derives it.
    storageVersionHash: mutating ? "Sqi0GUgDaX0=" : "B0wHjQmsGNk=",
    storagePrefix: `/registry/${resource}`,
    watchCache: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    internalKind: { group: ADMISSION_REGISTRATION_GROUP, kind },
    shape: mutating ? MUTATING_WEBHOOK_CONFIGURATION_SHAPE : VALIDATING_WEBHOOK_CONFIGURATION_SHAPE,
    fieldLabels: ["metadata.name"],
    selectableFields: (o) => ({ "metadata.name": nameOf(o) }),
    prepareForCreate(o) {
      applyDefaults(o, mutating);
      setMeta(o, "generation", 1);
    },
    prepareForUpdate(o, old) {
      applyDefaults(o, mutating);
      const generation = typeof old.metadata["generation"] === "number" ? old.metadata["generation"] : 0;
      setMeta(o, "generation", sameWebhooks(o, old) ? generation : generation + 1);
    },
    validateCreate: (o) => validateWebhookConfiguration(o, mutating, undefined),
    validateUpdate: (o, old) => [...validateObjectMetaUpdate(o, old), ...validateWebhookConfiguration(o, mutating, old)],
    canonicalize() {},
    pendingFinalizers: () => [],
    tablePrinter: WEBHOOK_CONFIGURATION_PRINTER,
  };
}

export const validatingWebhookConfigurationStrategy = webhookConfigurationStrategy("ValidatingWebhookConfiguration");
export const mutatingWebhookConfigurationStrategy = webhookConfigurationStrategy("MutatingWebhookConfiguration");

/** A stored configuration's webhooks, as plain objects (the dispatcher's input). */
export function webhooksOf(o: KubeObject): JsonObject[] {
  const hooks = o["webhooks"];
  return Array.isArray(hooks) ? hooks.filter(isJsonObject).map((h) => cloneJson(h)) : [];
}

/**
 * The dispatcher's view of the registered webhooks: each webhook of each stored configuration,
 * with its configuration's name, in the order a real server calls them (configurations sorted by
 * name, webhooks in their order within one). Reads the stored objects once per change of them.
 *
 * The model takes any sideEffects value (Some and Unknown too, which v1 objects cannot hold),
 * so that the dispatcher's dry-run refusal can be exercised on configurations given directly.
 */
import { isJsonObject, type JsonObject, obj, str, stringList } from "../apimachinery/json.js";
import { nameOf } from "../apimachinery/object-meta.js";
import { webhooksOf } from "../registry/admissionregistration/strategy.js";
import type { ResourceStrategy } from "../registry/generic/strategy.js";
import type { ObjectStorage } from "../storage/object-storage.js";

export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: string;
}

export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: { readonly namespace: string; readonly name: string; readonly path?: string; readonly port: number };
  /** base64 of the PEM bundle, as stored. */
  readonly caBundle?: string;
}

export interface Webhook {
  readonly name: string;
  readonly configurationName: string;
  /** Unique per webhook: configuration name and index (the reinvocation bookkeeping's key). */
  readonly uid: string;
  readonly clientConfig: WebhookClientConfig;
  readonly rules: readonly WebhookRule[];
  readonly failurePolicy: string;
  readonly matchPolicy: string;
  readonly namespaceSelector: JsonObject;
  readonly objectSelector: JsonObject;
  /** Undefined when the configuration has none (a v1 object always has one). */
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly reinvocationPolicy: string;
}

/** Where the dispatcher gets the webhooks from. */
export interface WebhookSource {
  mutating(): readonly Webhook[] | Promise<readonly Webhook[]>;
  validating(): readonly Webhook[] | Promise<readonly Webhook[]>;
}

function ruleOf(rule: JsonObject): WebhookRule {
  return {
    operations: stringList(rule, "operations"),
    apiGroups: stringList(rule, "apiGroups"),
    apiVersions: stringList(rule, "apiVersions"),
    resources: stringList(rule, "resources"),
    scope: str(rule, "scope") || "*",
  };
}

function clientConfigOf(cc: JsonObject | undefined): WebhookClientConfig {
  const service = obj(cc, "service");
  const url = cc?.["url"];
  const caBundle = str(cc, "caBundle");
  return {
    ...(typeof url === "string" ? { url } : {}),
    ...(service
      ? {
          service: {
            namespace: str(service, "namespace"),
            name: str(service, "name"),
            ...(typeof service["path"] === "string" ? { path: service["path"] } : {}),
            port: typeof service["port"] === "number" ? service["port"] : 443,
          },
        }
      : {}),
    ...(caBundle ? { caBundle } : {}),
  };
}

/** One webhook of a configuration, in the dispatcher's form (defaults as the v1 API sets them). */
export function webhookOf(hook: JsonObject, configurationName: string, index: number): Webhook {
  const rules = Array.isArray(hook["rules"]) ? hook["rules"].filter(isJsonObject).map(ruleOf) : [];
  const sideEffects = hook["sideEffects"];
  return {
    name: str(hook, "name"),
    configurationName,
    uid: `${configurationName}/${index}`,
    clientConfig: clientConfigOf(obj(hook, "clientConfig")),
    rules,
    failurePolicy: str(hook, "failurePolicy") || "Fail",
    matchPolicy: str(hook, "matchPolicy") || "Equivalent",
    namespaceSelector: obj(hook, "namespaceSelector") ?? {},
    objectSelector: obj(hook, "objectSelector") ?? {},
    sideEffects: typeof sideEffects === "string" ? sideEffects : undefined,
    timeoutSeconds: typeof hook["timeoutSeconds"] === "number" ? hook["timeoutSeconds"] : 10,
    admissionReviewVersions: stringList(hook, "admissionReviewVersions"),
    reinvocationPolicy: str(hook, "reinvocationPolicy") || "Never",
  };
}

/** The webhooks of stored configurations of one kind, sorted by configuration name. */
class StoredWebhooks {
  private cachedFor = "";
  private cached: readonly Webhook[] = [];

  constructor(
    private readonly storage: ObjectStorage,
    private readonly strategy: ResourceStrategy,
  ) {}

  async get(): Promise<readonly Webhook[]> {
    const { kvs } = await this.storage.range(this.strategy, undefined);
    // Entries are immutable: their keys and modRevisions say whether anything changed.
    const stamp = kvs.map((kv) => `${kv.key}@${kv.modRevision}`).join(",");
    if (stamp === this.cachedFor) return this.cached;
    const configurations = kvs.map((kv) => this.storage.decode(kv)).sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
    this.cached = configurations.flatMap((c) => webhooksOf(c).map((hook, i) => webhookOf(hook, nameOf(c), i)));
    this.cachedFor = stamp;
    return this.cached;
  }
}

/** The stored MutatingWebhookConfigurations and ValidatingWebhookConfigurations. */
export function storedWebhooks(storage: ObjectStorage, mutatingStrategy: ResourceStrategy, validatingStrategy: ResourceStrategy): WebhookSource {
  const mutating = new StoredWebhooks(storage, mutatingStrategy);
  const validating = new StoredWebhooks(storage, validatingStrategy);
  return { mutating: () => mutating.get(), validating: () => validating.get() };
}

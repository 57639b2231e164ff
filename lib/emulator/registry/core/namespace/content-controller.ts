/**
 * The two controllers that put content in every namespace of a real cluster (wire-facts §20):
 * the root CA publisher (ConfigMap `kube-root-ca.crt`, created on namespace add, re-created on
 * delete, repaired on update) and the service account controller (ServiceAccount `default`,
 * re-created on delete; only where serviceaccounts are served). Both act a moment after the
 * change they follow (`delayMs`), through the registry as kube-controller-manager, never in a
 * terminating namespace.
 */
import type { KubeObject } from "../../../apimachinery/json.js";
import { isTerminating, setMeta } from "../../../apimachinery/object-meta.js";
import { managedFieldsAfterWrite } from "../../generic/ownership.js";
import type { GenericRegistry } from "../../generic/registry.js";
import type { ResourceRegistry, ResourceStrategy } from "../../generic/strategy.js";
import { rootCaPem } from "./root-ca.js";
import { namespaceStrategy } from "./strategy.js";

export const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";
export const DEFAULT_SERVICE_ACCOUNT = "default";
/** rootcacertpublisher's annotation, word for word (wire-facts §20). */
export const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";
const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
const MANAGER = "kube-controller-manager";
/** How soon a sync that lost a race (a concurrent write) is tried again. */
const RETRY_MS = 50;

export class NamespaceContentController {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly queued = new Set<string>();
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly generic: GenericRegistry,
    private readonly registry: ResourceRegistry,
    private readonly delayMs: number,
    private readonly now: () => Date,
    /** The CA the kube-root-ca.crt ConfigMaps publish: the serving CA when TLS is on. */
    private readonly rootCa: string = rootCaPem(),
  ) {}

  async start(): Promise<void> {
    const storage = this.generic.storage;
    const lastSegment = (key: string): string => key.slice(key.lastIndexOf("/") + 1);
    // The namespace of a namespaced key, /registry/<resource>/<namespace>/<name>.
    const namespaceOfKey = (key: string): string => key.split("/").at(-2) ?? "";
    // The watches start at the listed revision: what is written while the list is awaited comes through them.
    const listed = await storage.range(namespaceStrategy, undefined);
    if (this.stopped) return;
    for (const kv of listed.kvs) this.schedule(lastSegment(kv.key));
    this.stops.push(
      storage.watch(namespaceStrategy, undefined, listed.revision, (c) => {
        if (c.type === "put" && !c.prevKv) this.schedule(lastSegment(c.key));
      }),
    );
    for (const [resource, name] of [
      ["configmaps", ROOT_CA_CONFIGMAP],
      ["serviceaccounts", DEFAULT_SERVICE_ACCOUNT],
    ] as const) {
      const strategy = this.strategy(resource);
      if (!strategy) continue;
      this.stops.push(
        storage.watch(strategy, undefined, listed.revision, (c) => {
          if (lastSegment(c.key) === name) this.schedule(namespaceOfKey(c.key));
        }),
      );
    }
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.stops.splice(0)) s();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private strategy(resource: string): ResourceStrategy | undefined {
    return this.registry.namespacedTypes().find((s) => s.group === "" && s.resource === resource);
  }

  private schedule(namespace: string, delayMs = this.delayMs): void {
    if (this.stopped || this.queued.has(namespace)) return;
    this.queued.add(namespace);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.queued.delete(namespace);
      // A write raced with this one (created meanwhile, namespace going): look again.
      this.sync(namespace).catch(() => this.schedule(namespace, RETRY_MS));
    }, delayMs);
    this.timers.add(timer);
  }

  /**
   * Puts back what is missing. The namespace may start Terminating between the read here and
   * the creates (each awaits the store); the namespace controller's check before its finalizer
   * goes finds what lands after its sweep.
   */
  private async sync(namespace: string): Promise<void> {
    if (this.stopped) return;
    const storage = this.generic.storage;
    const ns = await storage.get(namespaceStrategy, "", namespace);
    if (!ns || isTerminating(ns.object)) return;
    const configMaps = this.strategy("configmaps");
    if (configMaps) {
      const data = { "ca.crt": this.rootCa };
      const existing = await storage.get(configMaps, namespace, ROOT_CA_CONFIGMAP);
      if (!existing) {
        await this.create(configMaps, {
          kind: "ConfigMap",
          apiVersion: "v1",
          metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
          data,
        });
      } else if (JSON.stringify(existing.object["data"]) !== JSON.stringify(data) && !isTerminating(existing.object)) {
        // The publisher repairs the data; other changes (labels, annotations) it leaves.
        await this.generic.update(configMaps, existing, { ...existing.object, data });
      }
    }
    const serviceAccounts = this.strategy("serviceaccounts");
    if (serviceAccounts && !(await storage.get(serviceAccounts, namespace, DEFAULT_SERVICE_ACCOUNT))) {
      await this.create(serviceAccounts, { kind: "ServiceAccount", apiVersion: "v1", metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } });
    }
  }

  private async create(strategy: ResourceStrategy, o: KubeObject): Promise<void> {
    setMeta(o, "managedFields", managedFieldsAfterWrite(strategy, undefined, o, MANAGER, this.now()));
    await this.generic.create(strategy, o);
  }
}

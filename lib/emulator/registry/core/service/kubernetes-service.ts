/**
 * The `kubernetes` Service in `default` and its EndpointSlice, as kube-apiserver keeps them
 * (wire-facts §20; k/k pkg/controlplane/controller/kubernetesservice, reconcilers/
 * endpointsadapter.go): the Service (labels component=apiserver, provider=kubernetes; the
 * first address of the service range; port https 443/TCP to the server's own port) is made
 * at start and made again when deleted, never otherwise changed; the EndpointSlice (label
 * kubernetes.io/service-name=kubernetes, IPv4, one ready endpoint, port https) is made and put
 * back as it should be whenever it is deleted or changed, as the real reconciler does every 10 s.
 *
 * The endpoint address is the listen host when it is an IPv4 address other than 0.0.0.0,
 * else 127.0.0.1 (a hostname such as localhost, or all interfaces, is not an address a slice
 * can carry; the loopback address reaches the emulator from the machine it runs on).
 */
import { StatusError } from "../../../apimachinery/api-errors.js";
import type { KubeObject } from "../../../apimachinery/json.js";
import { isTerminating, setMeta } from "../../../apimachinery/object-meta.js";
import { StoreError } from "../../../storage/store.js";
import { managedFieldsAfterWrite } from "../../generic/ownership.js";
import type { GenericRegistry } from "../../generic/registry.js";
import type { ResourceRegistry, ResourceStrategy } from "../../generic/strategy.js";
import { formatIPv4, parseIPv4, type ServiceRange, serviceRange } from "./cluster-ip.js";

export const KUBERNETES_SERVICE = "kubernetes";
const NAMESPACE = "default";
const MANAGER = "kube-apiserver";
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
/** How soon a deleted or changed object is put back (the real reconciler's 10 s would make tests wait). */
const REPAIR_MS = 50;

/** The address the EndpointSlice names for a listen host. */
export function endpointAddress(host: string): string {
  return parseIPv4(host) !== undefined && host !== "0.0.0.0" ? host : "127.0.0.1";
}

export class KubernetesServiceController {
  private readonly stops: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private address = "127.0.0.1";
  private port = 0;
  private stopped = false;
  private started = false;

  constructor(
    private readonly generic: GenericRegistry,
    private readonly registry: ResourceRegistry,
    private readonly now: () => Date,
    private readonly range: ServiceRange = serviceRange(),
    /** Several emulators on one etcd: a slice that only another one wrote names that one, and is kept (else they would rewrite it in turn forever). */
    private readonly sharedStore = false,
  ) {}

  private strategy(group: string, resource: string): ResourceStrategy | undefined {
    return this.registry.namespacedTypes().find((s) => s.group === group && s.resource === resource);
  }

  /** Makes both objects for a server listening on host:port, and keeps them. */
  async start(host: string, port: number): Promise<void> {
    this.address = endpointAddress(host);
    this.port = port;
    const storage = this.generic.storage;
    // The watches start before the first sync's reads: a change while it awaits the store brings a repair.
    const from = storage.store.revision;
    try {
      await this.sync();
    } catch (e) {
      // Another emulator on the same etcd wrote them in between: the repair looks again.
      const race = (e instanceof StoreError && (e.code === "Conflict" || e.code === "KeyExists")) || (e instanceof StatusError && e.code === 409);
      if (!race) throw e;
      this.schedule();
    }
    this.started = true;
    if (this.stopped) return;
    for (const strategy of [this.strategy("", "services"), this.strategy("discovery.k8s.io", "endpointslices")]) {
      if (!strategy) continue;
      const key = storage.key(strategy, NAMESPACE, KUBERNETES_SERVICE);
      const onChange = (c: { key: string }) => {
        if (c.key === key) this.schedule();
      };
      try {
        this.stops.push(storage.watch(strategy, NAMESPACE, from, onChange));
      } catch (e) {
        // History kept shorter than the first sync took: follow from now, and look once more for
        // what changed in between, as a reflector relists.
        if (!(e instanceof StoreError && e.code === "Compacted")) throw e;
        this.stops.push(storage.watch(strategy, NAMESPACE, storage.store.revision, onChange));
        this.schedule();
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.stops.splice(0)) s();
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A write raced with this one: look again.
      this.sync().catch(() => this.schedule());
    }, REPAIR_MS);
  }

  private async sync(): Promise<void> {
    const storage = this.generic.storage;
    const services = this.strategy("", "services");
    if (services && !(await storage.get(services, NAMESPACE, KUBERNETES_SERVICE))) {
      const ip = formatIPv4(this.range.first);
      await this.create(services, {
        kind: "Service",
        apiVersion: "v1",
        metadata: { name: KUBERNETES_SERVICE, namespace: NAMESPACE, labels: { component: "apiserver", provider: "kubernetes" } },
        spec: {
          ports: [{ name: "https", protocol: "TCP", port: 443, targetPort: this.port }],
          clusterIP: ip,
          clusterIPs: [ip],
          type: "ClusterIP",
          sessionAffinity: "None",
          ipFamilyPolicy: "SingleStack",
        },
      });
    }
    const slices = this.strategy("discovery.k8s.io", "endpointslices");
    if (!slices) return;
    const wanted = {
      addressType: "IPv4",
      endpoints: [{ addresses: [this.address], conditions: { ready: true } }],
      ports: [{ name: "https", protocol: "TCP", port: this.port }],
    };
    const existing = await storage.get(slices, NAMESPACE, KUBERNETES_SERVICE);
    if (!existing) {
      await this.create(slices, {
        kind: "EndpointSlice",
        apiVersion: "discovery.k8s.io/v1",
        metadata: { name: KUBERNETES_SERVICE, namespace: NAMESPACE, labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE } },
        ...wanted,
      });
      return;
    }
    const current = existing.object;
    const labels = current.metadata["labels"];
    const same =
      JSON.stringify({ addressType: current["addressType"], endpoints: current["endpoints"], ports: current["ports"] }) === JSON.stringify(wanted) &&
      typeof labels === "object" &&
      labels !== null &&
      !Array.isArray(labels) &&
      labels[SERVICE_NAME_LABEL] === KUBERNETES_SERVICE;
    if (same || isTerminating(current)) return;
    const managers = current.metadata["managedFields"];
    // At start a server names itself (the last one started wins); afterwards it keeps a peer's slice.
    if (this.sharedStore && this.started && Array.isArray(managers) && managers.every((m) => (m as { manager?: unknown })?.manager === MANAGER)) return;
    const next: KubeObject = { ...current, ...wanted, metadata: { ...current.metadata } };
    setMeta(next, "labels", {
      ...(typeof labels === "object" && labels !== null && !Array.isArray(labels) ? labels : {}),
      [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE,
    });
    setMeta(next, "managedFields", managedFieldsAfterWrite(slices, current, next, MANAGER, this.now()));
    await this.generic.update(slices, existing, next);
  }

  private async create(strategy: ResourceStrategy, o: KubeObject): Promise<void> {
    setMeta(o, "managedFields", managedFieldsAfterWrite(strategy, undefined, o, MANAGER, this.now()));
    try {
      await this.generic.create(strategy, o);
    } catch (e) {
      // Another emulator on the same etcd made it since this one looked (a 409, or for the
      // Service the 422 of its address taken by that one): look again later. Else it is an error.
      const made = e instanceof StatusError && (await this.generic.storage.get(strategy, NAMESPACE, KUBERNETES_SERVICE));
      if (!made) throw e;
      this.schedule();
    }
  }
}

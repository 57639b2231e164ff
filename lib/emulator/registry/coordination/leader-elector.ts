/**
 * Leader election over a coordination.k8s.io/v1 Lease, as kube-controller-manager runs it
 * (client-go tools/leaderelection with a LeaseLock): every retry period a candidate reads the
 * Lease and takes it when it is free or its holder has not renewed it for leaseDurationSeconds
 * of the candidate's own time (the time it last saw the spec change, not renewTime, so clocks
 * need not agree); the leader rewrites renewTime every retry period and stops leading when no
 * renewal succeeded for the renew deadline. Every write is conditional on the resourceVersion
 * read (a Conflict is a lost round). Unlike kube-controller-manager, which exits when it loses
 * the Lease, the emulator stops its controllers and becomes a candidate again. It never
 * releases the Lease on close (the controller manager does not set ReleaseOnCancel): the others
 * take it once it expires.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { formatMicroTime } from "../../apimachinery/api-time.js";
import type { JsonObject, KubeObject } from "../../apimachinery/json.js";
import { setMeta } from "../../apimachinery/object-meta.js";
import type { StoredObject } from "../../storage/object-storage.js";
import { managedFieldsAfterWrite } from "../generic/ownership.js";
import type { GenericRegistry } from "../generic/registry.js";
import { leaseStrategy } from "./strategy.js";

/** The controller manager's options (doc3; lib/daemons/catalog/controller-manager.ts holds their defaults). */
export interface LeaderElectionConfig {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  resourceNamespace: string;
}

export const LEADER_ELECTION_DEFAULTS: LeaderElectionConfig = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  resourceName: "kube-controller-manager",
  resourceNamespace: "kube-system",
};

/** The identity kube-controller-manager takes: its host name, "_", a random UUID. */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** client-go's JitterUntil factor for the acquire loop: each wait is retryPeriod × [1, 2.2). */
const JITTER_FACTOR = 1.2;
const MANAGER = "kube-controller-manager";

export interface LeadershipCallbacks {
  onStartedLeading(): void | Promise<void>;
  onStoppedLeading(): void;
}

export class LeaderElector {
  readonly identity = leaderIdentity();
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** The last spec seen, and when (this process's monotonic time). */
  private observedSpec = "";
  private observedAt = 0;
  private lastRenewal = 0;

  constructor(
    private readonly generic: GenericRegistry,
    private readonly config: LeaderElectionConfig,
    private readonly now: () => Date,
    private readonly callbacks: LeadershipCallbacks,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.tick();
  }

  /** Stops trying (the Lease stays as last written); the controllers stop if leading. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.lose();
  }

  private tick(): void {
    if (this.stopped) return;
    this.tryAcquireOrRenew().then((ok) => {
      if (this.stopped) return;
      const t = performance.now();
      if (ok) {
        this.lastRenewal = t;
        if (!this.leading) {
          this.leading = true;
          Promise.resolve(this.callbacks.onStartedLeading()).catch(() => {});
        }
      } else if (this.leading && t - this.lastRenewal >= this.config.renewDeadlineMs) {
        this.lose();
      }
      const wait = this.leading ? this.config.retryPeriodMs : this.config.retryPeriodMs * (1 + Math.random() * JITTER_FACTOR);
      this.timer = setTimeout(() => this.tick(), wait);
    });
  }

  private lose(): void {
    if (!this.leading) return;
    this.leading = false;
    this.callbacks.onStoppedLeading();
  }

  /** One round: true when this candidate holds the Lease after it. Store errors and conflicts lose the round. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    try {
      const { resourceName: name, resourceNamespace: namespace } = this.config;
      const existing = await this.generic.storage.get(leaseStrategy, namespace, name);
      const now = this.now();
      if (!existing) {
        const lease: KubeObject = { kind: "Lease", apiVersion: "coordination.k8s.io/v1", metadata: { name, namespace }, spec: this.spec(now, now, 0) };
        setMeta(lease, "managedFields", managedFieldsAfterWrite(leaseStrategy, undefined, lease, MANAGER, now));
        this.observe((await this.generic.create(leaseStrategy, lease))["spec"]);
        return true;
      }
      const old = (existing.object["spec"] ?? {}) as JsonObject;
      this.observe(old);
      const holder = typeof old["holderIdentity"] === "string" ? old["holderIdentity"] : "";
      const durationMs = Number(old["leaseDurationSeconds"] ?? 0) * 1000;
      if (holder !== "" && holder !== this.identity && this.observedAt + durationMs > performance.now()) return false;
      const transitions = Number(old["leaseTransitions"] ?? 0);
      // The holder keeps its acquireTime and the count; anyone else taking it is one more transition.
      const spec =
        holder === this.identity && typeof old["acquireTime"] === "string"
          ? this.spec(new Date(old["acquireTime"]), now, transitions, old["acquireTime"])
          : this.spec(now, now, transitions + 1);
      this.observe((await this.update(existing, spec, now))["spec"]);
      return true;
    } catch {
      return false;
    }
  }

  private update(existing: StoredObject, spec: JsonObject, now: Date): Promise<KubeObject> {
    const next: KubeObject = { ...existing.object, spec };
    setMeta(next, "managedFields", managedFieldsAfterWrite(leaseStrategy, existing.object, next, MANAGER, now));
    return this.generic.update(leaseStrategy, existing, next);
  }

  /** client-go's LeaderElectionRecordToLeaseSpec: leaseDurationSeconds is the duration in whole seconds. */
  private spec(acquired: Date, renewed: Date, transitions: number, acquireText?: string): JsonObject {
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.trunc(this.config.leaseDurationMs / 1000),
      acquireTime: acquireText ?? formatMicroTime(acquired),
      renewTime: formatMicroTime(renewed),
      leaseTransitions: transitions,
    };
  }

  private observe(spec: unknown): void {
    const text = JSON.stringify(spec ?? {});
    if (text === this.observedSpec) return;
    this.observedSpec = text;
    this.observedAt = performance.now();
  }
}

/**
 * The controllers of apiextensions-apiserver, reduced to what a client sees:
 *
 *  - naming and establishing: a new or changed definition gets `status.acceptedNames` (its
 *    spec names) and the conditions NamesAccepted (True, NoConflicts, "no conflicts found")
 *    and Established (True, InitialNamesAccepted, "the initial names have been accepted"),
 *    written as a status update right after the write that created it (a microtask later, so
 *    before the client's next request), and its served versions are served from then on;
 *  - finalizing: a definition marked for deletion (the first DELETE added the
 *    `customresourcecleanup.apiextensions.k8s.io` finalizer and Terminating) has all its
 *    instances deleted (instances with finalizers of their own are marked and waited for);
 *    when none is left, Terminating becomes False (InstanceDeletionCompleted) and the
 *    finalizer is removed, which deletes the definition unless other finalizers hold it;
 *  - a deleted definition's types are no longer served (their paths give 404).
 *
 * Known differences: names are accepted without checking for conflicts with other
 * definitions of the same group (a real server sets NamesAccepted False and does not serve
 * the conflicting one), and the Established condition is written at once.
 */

import { formatTime } from "../../apimachinery/api-time.js";
import { cloneJson, type KubeObject } from "../../apimachinery/json.js";
import { asKubeObject, finalizersOf, isTerminating, nameOf, setMeta } from "../../apimachinery/object-meta.js";
import { canonicalize } from "../../apimachinery/typed-json.js";
import type { GenericRegistry } from "../generic/registry.js";
import type { ResourceRegistry, ResourceStrategy } from "../generic/strategy.js";
import { CRD_CLEANUP_FINALIZER, CRD_SHAPE, crdStrategy, namesOf, setCondition, specOf } from "./crd-strategy.js";
import { type CustomResourceTypes, customResourceTypes } from "./custom-resource-strategy.js";

const RETRY_MS = 20;

interface Served {
  readonly signature: string;
  readonly types: CustomResourceTypes;
}

export class CrdController {
  private readonly served = new Map<string, Served>();
  private readonly instanceWatches = new Map<string, () => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly queued = new Set<string>();
  private stopWatch: (() => void) | undefined;
  /** The sync of each definition under way: syncs of one definition run one after another, as their reads and writes now await the store. */
  private readonly syncing = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly generic: GenericRegistry,
    private readonly registry: ResourceRegistry,
    private readonly now: () => Date,
  ) {}

  async start(): Promise<void> {
    const storage = this.generic.storage;
    // The watch starts at the listed revision: what is written while the list is awaited comes through it.
    const listed = await storage.range(crdStrategy, undefined);
    if (this.stopped) return;
    for (const kv of listed.kvs) this.schedule(nameOf(storage.decode(kv)));
    this.stopWatch = storage.watch(crdStrategy, undefined, listed.revision, (change) => {
      const name = change.key.slice(change.key.lastIndexOf("/") + 1);
      this.schedule(name);
    });
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
    for (const stop of this.instanceWatches.values()) stop();
    this.instanceWatches.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Runs a sync of the definition after the current write (once, however many changes came). */
  private schedule(name: string, delayMs = 0): void {
    if (delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.schedule(name);
      }, delayMs);
      this.timers.add(timer);
      return;
    }
    if (this.queued.has(name) || this.stopped) return;
    this.queued.add(name);
    const next: Promise<void> = (this.syncing.get(name) ?? Promise.resolve())
      .then(() => {
        this.queued.delete(name);
        return this.sync(name);
      })
      // A write raced with the controller: look again shortly.
      .catch(() => this.schedule(name, RETRY_MS))
      .then(() => {
        if (this.syncing.get(name) === next) this.syncing.delete(name);
      });
    this.syncing.set(name, next);
  }

  private async sync(name: string): Promise<void> {
    if (this.stopped) return;
    const found = await this.generic.storage.get(crdStrategy, "", name);
    if (!found) {
      this.unserve(name);
      return;
    }
    const crd = found.object;
    if (!isTerminating(crd)) {
      if (await this.establish(found.object, found.kv.modRevision, found.kv.key)) return;
      this.serve(crd);
      return;
    }
    this.serve(crd);
    await this.finalize(crd, found.kv.modRevision, found.kv.key);
  }

  /** Writes acceptedNames and the conditions when they differ; true when it wrote (a new sync follows). */
  private async establish(crd: KubeObject, modRevision: number, key: string): Promise<boolean> {
    const next = cloneJson(crd);
    const now = formatTime(this.now());
    const status = (next["status"] ??= {}) as Record<string, unknown>;
    const before = JSON.stringify(next["status"]);
    const names = namesOf(crd);
    status["acceptedNames"] = cloneJson(names);
    setCondition(next, { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }, now);
    setCondition(next, { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" }, now);
    if (JSON.stringify(next["status"]) === before) return false;
    await this.writeStatus(next, modRevision, key);
    return true;
  }

  private async writeStatus(next: KubeObject, modRevision: number, key: string): Promise<void> {
    const storage = this.generic.storage;
    const canonical = asKubeObject(canonicalize(next, CRD_SHAPE));
    await storage.put(crdStrategy, key, storage.encode(canonical), { expectModRevision: modRevision });
  }

  /** Serves the definition's versions as it now stands (rebuilt only when its spec changed). */
  private serve(crd: KubeObject): void {
    const name = nameOf(crd);
    const terminating = isTerminating(crd);
    const signature = JSON.stringify(specOf(crd)) + (terminating ? "|terminating" : "");
    const current = this.served.get(name);
    if (current?.signature === signature) return;
    const types = customResourceTypes(crd, () => terminating);
    const old = new Set<ResourceStrategy>(current?.types.strategies ?? []);
    this.registry.remove((s) => old.has(s));
    // A built-in type keeps its path: the real server's own handlers come before the CRD ones.
    this.registry.add(types.strategies.filter((s) => this.registry.lookup(s.group, s.version, s.resource) === undefined));
    this.served.set(name, { signature, types });
  }

  private unserve(name: string): void {
    const current = this.served.get(name);
    this.instanceWatches.get(name)?.();
    this.instanceWatches.delete(name);
    if (!current) return;
    const old = new Set<ResourceStrategy>(current.types.strategies);
    this.registry.remove((s) => old.has(s));
    this.served.delete(name);
  }

  /** Deletes the instances; once none is left, drops the cleanup finalizer. */
  private async finalize(crd: KubeObject, modRevision: number, key: string): Promise<void> {
    const name = nameOf(crd);
    if (!finalizersOf(crd).includes(CRD_CLEANUP_FINALIZER)) return;
    const served = this.served.get(name);
    if (!served) return;
    const storage = this.generic.storage;
    const strategy = served.types.storage;
    let remaining = 0;
    const instances = await storage.range(strategy, undefined);
    for (const kv of instances.kvs) {
      const outcome = await this.generic.delete(strategy, { object: storage.decode(kv), kv });
      if (!outcome.deleted) remaining++;
    }
    if (remaining > 0) {
      // Instances held by their own finalizers: look again when they change.
      if (!this.instanceWatches.has(name)) {
        this.instanceWatches.set(
          name,
          // From the listed revision: a change while the deletes were awaited also brings a new sync.
          storage.watch(strategy, undefined, instances.revision, () => this.schedule(name)),
        );
      }
      return;
    }
    const next = cloneJson(crd);
    setCondition(next, { type: "Terminating", status: "False", reason: "InstanceDeletionCompleted", message: "removed all instances" }, formatTime(this.now()));
    const finalizers = finalizersOf(next).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    setMeta(next, "finalizers", finalizers.length ? finalizers : undefined);
    if (finalizers.length === 0) {
      await storage.delete(crdStrategy, key, { expectModRevision: modRevision });
      return;
    }
    await this.writeStatus(next, modRevision, key);
  }
}

/**
 * Namespace lifecycle, one per server: the admission checks every write passes (no content in
 * missing or terminating namespaces, immortal namespaces), the namespace DELETE its REST
 * override calls (rest.ts: mark Terminating, keep the object), the namespace labels the
 * webhooks' namespaceSelector reads, and the namespace controller that empties a terminating
 * namespace, removes the "kubernetes" finalizer and finally removes the namespace. Each step is a separate write, so watchers see
 * MODIFIED (Terminating), DELETED for every object in it, MODIFIED (finalized), DELETED.
 *
 * The rule for the final removal is the one a PUT to `namespaces/{name}/finalize` follows too
 * (GenericRegistry.update): a terminating namespace goes once neither spec.finalizers nor
 * metadata.finalizers holds it. Known difference: the real controller finalizes through that
 * subresource, so its last step is one write (DELETED) after a status-conditions write; here
 * the finalized MODIFIED stands in for that second event.
 */
import { conflict, createdOrExisting, forbiddenError, notFound } from "../../../apimachinery/api-errors.js";
import { formatTime } from "../../../apimachinery/api-time.js";
import { cloneJson, isJsonObject, type KubeObject, obj } from "../../../apimachinery/json.js";
import { asKubeObject, finalizersOf, isTerminating, labelsOf, nameOf, resourceVersionOf, setMeta, uidOf } from "../../../apimachinery/object-meta.js";
import { canonicalize } from "../../../apimachinery/typed-json.js";
import type { StoredObject } from "../../../storage/object-storage.js";
import type { KeyValue } from "../../../storage/store.js";
import type { DeleteOptions, DeleteOutcome } from "../../generic/options.js";
import { managedFieldsAfterWrite } from "../../generic/ownership.js";
import type { GenericRegistry } from "../../generic/registry.js";
import { qualifiedResourceOf, type ResourceRegistry, type TypeIdentity } from "../../generic/strategy.js";
import type { NamespaceDeleter } from "./rest.js";
import { KUBERNETES_FINALIZER, namespaceStrategy, specFinalizersOf } from "./strategy.js";

/** Namespaces the server refuses to delete. */
const IMMORTAL_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public"];
/** Namespaces present at startup, as on a fresh cluster. */
const INITIAL_NAMESPACES: readonly string[] = ["default", "kube-node-lease", "kube-public", "kube-system"];

const NAMESPACES = qualifiedResourceOf(namespaceStrategy);
/** How often the controller looks again at a namespace whose content is held by finalizers. */
const RETRY_MS = 200;

export interface NamespaceLifecycleOptions {
  /** Delay before the controller starts emptying a terminating namespace. */
  cleanupDelayMs: number;
  /**
   * The controller runs only between startController() and stopController() (while this
   * replica holds the leader Lease) and finds terminating namespaces by a watch, whichever
   * replica served the DELETE; otherwise it always runs and the DELETE schedules it.
   */
  elected?: boolean;
}

/**
 * Whether a namespace entry is terminating, read once per entry: an entry never changes (a write
 * makes a new one), and every create in the namespace asks, which decoded it each time.
 */
const TERMINATING = new WeakMap<KeyValue, boolean>();

function terminating(found: StoredObject): boolean {
  let answer = TERMINATING.get(found.kv);
  if (answer === undefined) {
    answer = isTerminating(found.object);
    TERMINATING.set(found.kv, answer);
  }
  return answer;
}

export class NamespaceLifecycle implements NamespaceDeleter {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Elected: the namespaces with a pass pending, and the watch to end when leadership goes. */
  private readonly pending = new Set<string>();
  private stopWatch: (() => void) | undefined;

  constructor(
    private readonly generic: GenericRegistry,
    private readonly registry: ResourceRegistry,
    private readonly options: NamespaceLifecycleOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Creates the namespaces a fresh cluster has. The real server creates them through its own
   * API, so the creator's managedFields entry names kube-apiserver (its User-Agent's program).
   */
  async seed(): Promise<void> {
    for (const name of INITIAL_NAMESPACES) {
      if (await this.generic.storage.get(namespaceStrategy, "", name)) continue;
      const ns: KubeObject = { kind: "Namespace", apiVersion: "v1", metadata: { name } };
      setMeta(ns, "managedFields", managedFieldsAfterWrite(namespaceStrategy, undefined, ns, "kube-apiserver", this.now()));
      // Another replica on the same etcd may seed it between the read and the create.
      await createdOrExisting(this.generic.create(namespaceStrategy, ns));
    }
  }

  /** A namespace's labels, or undefined when there is none of that name (the webhooks' namespaceSelector reads them). */
  async namespaceLabels(name: string): Promise<Record<string, string> | undefined> {
    const ns = await this.generic.storage.get(namespaceStrategy, "", name);
    return ns ? labelsOf(ns.object) : undefined;
  }

  /** Admission for creating namespaced content: the namespace must exist and not be terminating. */
  async admitCreate(strategy: TypeIdentity, namespace: string, name: string): Promise<void> {
    if (!strategy.namespaced) return;
    const ns = await this.generic.storage.get(namespaceStrategy, "", namespace);
    if (!ns) throw notFound(NAMESPACES, namespace);
    if (terminating(ns)) {
      throw forbiddenError(qualifiedResourceOf(strategy), name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
        { reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" },
      ]);
    }
  }

  /** Admission for deleting: the immortal namespaces stay (other types pass). */
  admitDelete(strategy: TypeIdentity, name: string): void {
    if (!strategy.definesNamespace) return;
    if (IMMORTAL_NAMESPACES.includes(name)) throw forbiddenError(NAMESPACES, name, "this namespace may not be deleted");
  }

  /**
   * DELETE of a namespace (its REST override, rest.ts): the first request sets
   * deletionTimestamp and phase Terminating and returns the namespace; while the "kubernetes"
   * finalizer remains a repeated DELETE is a Conflict; once finalizers are gone it is a normal delete.
   */
  async delete(existing: StoredObject, options: DeleteOptions): Promise<DeleteOutcome> {
    const ns = existing.object;
    const name = nameOf(ns);
    if (!isTerminating(ns)) {
      checkStoragePreconditions(existing, options);
      const draft = cloneJson(ns);
      setMeta(draft, "deletionTimestamp", formatTime(this.now()));
      draft["status"] = { ...(obj(draft, "status") ?? {}), phase: "Terminating" };
      const marked = asKubeObject(canonicalize(draft, namespaceStrategy.shape));
      if (options.dryRun) return { deleted: false, object: marked };
      const { kv } = await this.generic.storage.put(namespaceStrategy, existing.kv.key, this.generic.storage.encode(marked), {
        expectModRevision: existing.kv.modRevision,
      });
      if (!this.options.elected) this.schedule(name, this.options.cleanupDelayMs);
      return { deleted: false, object: this.generic.storage.decode(kv) };
    }
    if (specFinalizersOf(ns).length > 0) {
      throw conflict(
        NAMESPACES,
        name,
        "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.",
      );
    }
    return this.generic.delete(namespaceStrategy, existing, options);
  }

  stop(): void {
    this.stopped = true;
    this.stopController();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * Elected, on gaining leadership: every namespace already terminating (deleted through any
   * replica, or left half-done by a leader that died) gets a pass, and so does every one that
   * starts terminating from the listed revision on.
   */
  async startController(): Promise<void> {
    if (this.stopped || this.stopWatch) return;
    const storage = this.generic.storage;
    const listed = await storage.range(namespaceStrategy, undefined);
    if (this.stopped || this.stopWatch) return;
    const enqueue = (name: string): void => {
      if (this.pending.has(name)) return;
      this.pending.add(name);
      this.schedule(name, this.options.cleanupDelayMs);
    };
    for (const kv of listed.kvs) if (isTerminating(storage.decode(kv))) enqueue(kv.key.slice(kv.key.lastIndexOf("/") + 1));
    this.stopWatch = storage.watch(namespaceStrategy, undefined, listed.revision, (c) => {
      if (c.type === "put" && c.kv && isTerminating(storage.decode(c.kv))) enqueue(c.key.slice(c.key.lastIndexOf("/") + 1));
    });
  }

  /** Elected, on losing leadership: no pass runs until the next startController(). */
  stopController(): void {
    this.stopWatch?.();
    this.stopWatch = undefined;
    if (!this.options.elected) return;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
  }

  private schedule(name: string, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.cleanUp(name).then(
        (done) => {
          if (!done) this.schedule(name, RETRY_MS);
          else this.pending.delete(name);
        },
        // A write raced with the controller; look again shortly.
        () => this.schedule(name, RETRY_MS),
      );
    }, delayMs);
    this.timers.add(timer);
  }

  /**
   * One pass of the namespace controller; true when there is nothing left to do. Each read and
   * write awaits the store, so other requests interleave with the pass: every write is
   * conditional on the modRevision read (a Conflict ends the pass, which is retried), and a
   * create that passed admission before the namespace was Terminating and lands during the
   * sweep is found by the check before the finalizer goes (the pass is then run again).
   */
  private async cleanUp(name: string): Promise<boolean> {
    if (this.stopped || (this.options.elected && !this.stopWatch)) return true;
    const storage = this.generic.storage;
    let ns = await storage.get(namespaceStrategy, "", name);
    if (!ns || !isTerminating(ns.object)) return true;
    // A cluster without a running namespace controller (failpoint namespace-controller-stopped).
    if (this.generic.failpoints.has("namespace-controller-stopped")) return true;
    // Per resource ("configmaps." for the core group, as the real messages print it): what is
    // left after this pass, and the finalizers holding it.
    const left = new Map<string, number>();
    const holding = new Map<string, number>();
    // A controller that skips the content (failpoint namespace-delete-orphans-content).
    const types = this.generic.failpoints.has("namespace-delete-orphans-content") ? [] : this.registry.namespacedTypes();
    for (const strategy of types) {
      for (const kv of (await storage.range(strategy, name)).kvs) {
        const outcome = await this.generic.delete(strategy, { object: storage.decode(kv), kv });
        if (outcome.deleted) continue;
        const resource = `${strategy.resource}.${strategy.group}`;
        left.set(resource, (left.get(resource) ?? 0) + 1);
        for (const f of finalizersOf(outcome.object)) holding.set(f, (holding.get(f) ?? 0) + 1);
      }
    }
    const withConditions = await this.writeConditions(ns, left, holding);
    if (left.size > 0) return false;
    for (const strategy of types) if ((await storage.range(strategy, name, { limit: 1 })).kvs.length > 0) return false;
    ns = withConditions;
    const finalizers = specFinalizersOf(ns.object);
    let current = ns;
    if (finalizers.includes(KUBERNETES_FINALIZER)) {
      const draft = cloneJson(ns.object);
      draft["spec"] = { finalizers: finalizers.filter((f) => f !== KUBERNETES_FINALIZER) };
      const finalized = asKubeObject(canonicalize(draft, namespaceStrategy.shape));
      const { kv } = await storage.put(namespaceStrategy, ns.kv.key, storage.encode(finalized), { expectModRevision: ns.kv.modRevision });
      current = { object: storage.decode(kv), kv };
    }
    // Other finalizers (spec or metadata) belong to someone else; the namespace waits for them.
    if (this.generic.hasPendingFinalizers(namespaceStrategy, current.object)) return true;
    await storage.delete(namespaceStrategy, current.kv.key, { expectModRevision: current.kv.modRevision });
    return true;
  }

  /**
   * The five deletion conditions the real controller writes on each pass (status_condition_utils.go),
   * False when fine; a condition keeps its lastTransitionTime while its status stays.
   */
  private async writeConditions(ns: StoredObject, left: Map<string, number>, holding: Map<string, number>): Promise<StoredObject> {
    const storage = this.generic.storage;
    const now = formatTime(this.now());
    const remaining = [...left].map(([r, n]) => `${r} has ${n} resource instances`).join(", ");
    const finalizers = [...holding].map(([f, n]) => `${f} in ${n} resource instances`).join(", ");
    const wanted: [string, boolean, string, string][] = [
      ["NamespaceDeletionDiscoveryFailure", false, "ResourcesDiscovered", "All resources successfully discovered"],
      ["NamespaceDeletionGroupVersionParsingFailure", false, "ParsedGroupVersions", "All legacy kube types successfully parsed"],
      ["NamespaceDeletionContentFailure", false, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
      remaining
        ? ["NamespaceContentRemaining", true, "SomeResourcesRemain", `Some resources are remaining: ${remaining}`]
        : ["NamespaceContentRemaining", false, "ContentRemoved", "All content successfully removed"],
      finalizers
        ? ["NamespaceFinalizersRemaining", true, "SomeFinalizersRemain", `Some content in the namespace has finalizers remaining: ${finalizers}`]
        : ["NamespaceFinalizersRemaining", false, "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
    ];
    const status = obj(ns.object, "status") ?? {};
    const before = Array.isArray(status["conditions"]) ? status["conditions"].filter(isJsonObject) : [];
    const conditions = wanted.map(([type, on, reason, message]) => {
      const old = before.find((c) => c["type"] === type);
      const s = on ? "True" : "False";
      const since = old && old["status"] === s && typeof old["lastTransitionTime"] === "string" ? old["lastTransitionTime"] : now;
      return { type, status: s, lastTransitionTime: since, reason, message };
    });
    if (JSON.stringify(conditions) === JSON.stringify(before)) return ns;
    const draft = cloneJson(ns.object);
    draft["status"] = { ...status, conditions };
    const updated = asKubeObject(canonicalize(draft, namespaceStrategy.shape));
    const { kv } = await storage.put(namespaceStrategy, ns.kv.key, storage.encode(updated), { expectModRevision: ns.kv.modRevision });
    return { object: storage.decode(kv), kv };
  }
}

/**
 * The namespace DELETE checks preconditions in the storage update, so a mismatch is a Conflict
 * wrapping the storage error text (unlike the generic BeforeDelete check).
 */
function checkStoragePreconditions(existing: StoredObject, options: DeleteOptions): void {
  const pre = options.preconditions;
  if (!pre) return;
  const o = existing.object;
  let detail: string | undefined;
  if (pre.uid !== undefined && pre.uid !== uidOf(o)) {
    detail = `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uidOf(o)}`;
  } else if (pre.resourceVersion !== undefined && pre.resourceVersion !== resourceVersionOf(o)) {
    detail = `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${resourceVersionOf(o)}`;
  }
  if (detail) {
    throw conflict(NAMESPACES, nameOf(o), `StorageError: invalid object, Code: 4, Key: ${existing.kv.key}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`);
  }
}

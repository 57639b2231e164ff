/**
 * The generic create/update/delete rules every type shares (the apiserver's generic registry
 * Store with BeforeCreate/BeforeUpdate/BeforeDelete), independent of HTTP. Handlers decode and
 * admit requests, then call these; the namespace controller and startup seeding use them too.
 * All reads and writes go through the object layer with the type's strategy (storage/object-storage.ts),
 * so a type that views another type's entries (core v1 Events) writes those entries.
 * Validation failures are Invalid errors whose bad values may be printed the Go way
 * (go-printed.ts: the Event immutable-field errors).
 */
import { randomInt, randomUUID } from "node:crypto";
import { alreadyExists, badRequest, conflict, invalidError, notFound, OPTIMISTIC_LOCK_MESSAGE } from "../../apimachinery/api-errors.js";
import { formatTime } from "../../apimachinery/api-time.js";
import { forbidden, invalid as invalidField } from "../../apimachinery/field-errors.js";
import { invalidObject } from "../../apimachinery/go-printed.js";
import { cloneJson, type KubeObject, str } from "../../apimachinery/json.js";
import { asKubeObject, finalizersOf, isTerminating, nameOf, resourceVersionOf, setMeta, uidOf } from "../../apimachinery/object-meta.js";
import { canonicalize } from "../../apimachinery/typed-json.js";
import { type Failpoints, NO_FAILPOINTS } from "../../failpoints.js";
import type { ObjectStorage, StoredObject } from "../../storage/object-storage.js";
import { StoreError } from "../../storage/store.js";
import type { DeleteOptions, DeleteOutcome, Preconditions, WriteOptions } from "./options.js";
import { qualifiedResourceOf, type ResourceStrategy, type TypeIdentity, type WriteContext } from "./strategy.js";

const NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const NAME_SUFFIX_LENGTH = 5;
/** A generated name must still fit a DNS label: 63 minus the suffix. */
const MAX_GENERATED_BASE = 63 - NAME_SUFFIX_LENGTH;
const GENERATE_NAME_ATTEMPTS = 8;

export function generateName(base: string): string {
  let suffix = "";
  for (let i = 0; i < NAME_SUFFIX_LENGTH; i++) suffix += NAME_SUFFIX_ALPHABET[randomInt(NAME_SUFFIX_ALPHABET.length)];
  return base.slice(0, MAX_GENERATED_BASE) + suffix;
}

/** Where a write waits for validating admission: the object as it would be stored, and the stored one it replaces. */
export interface AdmissionPoint {
  readonly object: KubeObject;
  readonly old: KubeObject | undefined;
}

/** A created object: its stored entry, or the object alone after a dry run. */
export type Created = StoredObject | { readonly object: KubeObject; readonly kv?: undefined };

/** Validating admission: resolves to let the write go on, rejects to refuse it. */
export type ValidatingAdmission = (point: AdmissionPoint) => Promise<void>;

/**
 * A write's steps: it yields where validating admission applies, then returns its result.
 * Asynchronous: its reads and its write await the store (storage/kv.ts), so other requests may
 * interleave between a step's read and its write; every write is conditional on the modRevision
 * read (or on absence), so a change made meanwhile ends it with a Conflict, never lost.
 */
type WriteSteps<T> = AsyncGenerator<AdmissionPoint, T, void>;

/** Runs the steps without admission (internal writers: seeding, controllers). */
async function runSteps<T>(steps: WriteSteps<T>): Promise<T> {
  for (;;) {
    const r = await steps.next();
    if (r.done) return r.value;
  }
}

/** Runs the steps, waiting for admission at each point; a refusal ends the write before it is made. */
async function runAdmittedSteps<T>(steps: WriteSteps<T>, admit: ValidatingAdmission): Promise<T> {
  for (;;) {
    const r = await steps.next();
    if (r.done) return r.value;
    await admit(r.value);
  }
}

export class GenericRegistry {
  /** The storage keys of deleted objects, kept only while the failpoint deleted-name-stays-taken is on. */
  private readonly deletedKeys = new Set<string>();

  constructor(
    readonly storage: ObjectStorage,
    private readonly now: () => Date = () => new Date(),
    /** The emulator's failpoints (failpoints.ts): none but in tollgate's self-test. */
    readonly failpoints: Failpoints = NO_FAILPOINTS,
  ) {}

  /** Stores a new object. `input` is the decoded request body, namespace already reconciled. */
  async create(strategy: ResourceStrategy, input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return (await runSteps(this.createSteps(strategy, input, options))).object;
  }

  /** create, with validating admission on the object about to be stored (admission/). */
  async createAdmitted(strategy: ResourceStrategy, input: KubeObject, options: WriteOptions, admit: ValidatingAdmission): Promise<KubeObject> {
    return (await this.createAdmittedEntry(strategy, input, options, admit)).object;
  }

  /** createAdmitted, resolving with the new entry (its object decoded when asked for), or only the object after a dry run. */
  createAdmittedEntry(strategy: ResourceStrategy, input: KubeObject, options: WriteOptions, admit: ValidatingAdmission): Promise<Created> {
    return runAdmittedSteps(this.createSteps(strategy, input, options), admit);
  }

  private async *createSteps(strategy: ResourceStrategy, input: KubeObject, options: WriteOptions): WriteSteps<Created> {
    const o = cloneJson(input);
    setMeta(o, "deletionTimestamp", undefined);
    setMeta(o, "deletionGracePeriodSeconds", undefined);
    if (strategy.beginCreate) strategy.beginCreate(o, await this.writeContext(strategy, options));
    strategy.prepareForCreate(o);
    const fp = this.failpoints;
    // A fake that stores the body's system fields as given (failpoints create-keeps-client-uid, creation-timestamp-from-body).
    setMeta(o, "uid", fp.has("create-keeps-client-uid") && uidOf(input) ? uidOf(input) : randomUUID());
    const givenCreation = str(input.metadata, "creationTimestamp");
    setMeta(o, "creationTimestamp", fp.has("creation-timestamp-from-body") && givenCreation ? givenCreation : formatTime(this.now()));
    const generate = !nameOf(o) && str(o.metadata, "generateName") !== "";
    for (let attempt = 1; ; attempt++) {
      // A name generator without randomness (failpoint generate-name-fixed-suffix).
      const base = str(o.metadata, "generateName");
      if (generate) setMeta(o, "name", fp.has("generate-name-fixed-suffix") ? `${base.slice(0, MAX_GENERATED_BASE)}fixed` : generateName(base));
      // A dry run that skips validation, and a webhook registration that skips sideEffects (failpoints.ts).
      const validated = options.dryRun && fp.has("dry-run-skips-validation") ? [] : strategy.validateCreate(o);
      const errors = fp.has("webhook-side-effects-unchecked") ? validated.filter((e) => !e.field.endsWith(".sideEffects")) : validated;
      if (errors.length) throw invalidObject(strategy.internalKind, nameOf(o), errors);
      strategy.canonicalize(o);
      const stored = asKubeObject(canonicalize(o, strategy.shape));
      // A real server's storage layer refuses this with a plain 500 and no reason. It is the
      // client's mistake, and tollgate's rule is that bad input never gets a 500, so the
      // emulator answers 400 BadRequest with the same message.
      if (resourceVersionOf(stored)) throw badRequest("resourceVersion should not be set on objects to be created");
      yield { object: stored, old: undefined };
      const key = this.storage.key(strategy, str(stored.metadata, "namespace"), nameOf(stored));
      if (options.dryRun) {
        if (!(await this.storage.entry(strategy, key))) return { object: stored };
        if (generate && attempt < GENERATE_NAME_ATTEMPTS) continue;
        throw alreadyExists(qualifiedResourceOf(strategy), nameOf(stored));
      }
      // A store that keeps tombstones of deleted keys (failpoint deleted-name-stays-taken).
      if (fp.has("deleted-name-stays-taken") && this.deletedKeys.has(key)) throw alreadyExists(qualifiedResourceOf(strategy), nameOf(stored));
      try {
        const { kv } = await this.storage.put(strategy, key, this.storage.encode(stored), { expectModRevision: 0, slimRetry: !options.apply });
        return this.storage.stored(kv);
      } catch (e) {
        if (!(e instanceof StoreError) || e.code !== "KeyExists") throw e;
        // A create that upserts (failpoint duplicate-create-overwrites).
        if (fp.has("duplicate-create-overwrites")) return this.storage.stored((await this.storage.put(strategy, key, this.storage.encode(stored))).kv);
        if (generate && attempt < GENERATE_NAME_ATTEMPTS) continue;
        throw alreadyExists(qualifiedResourceOf(strategy), nameOf(stored));
      }
    }
  }

  /** Replaces an existing object; unchanged content keeps the old resourceVersion and writes nothing. */
  update(strategy: ResourceStrategy, existing: StoredObject, input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return runSteps(this.updateSteps(strategy, existing, input, options));
  }

  /** update, with validating admission on the object about to be stored (admission/). */
  updateAdmitted(
    strategy: ResourceStrategy,
    existing: StoredObject,
    input: KubeObject,
    options: WriteOptions,
    admit: ValidatingAdmission,
  ): Promise<KubeObject> {
    return runAdmittedSteps(this.updateSteps(strategy, existing, input, options), admit);
  }

  private async *updateSteps(strategy: ResourceStrategy, existing: StoredObject, input: KubeObject, options: WriteOptions): WriteSteps<KubeObject> {
    const old = existing.object;
    const o = cloneJson(input);
    const name = nameOf(old);
    const requested = resourceVersionOf(o);
    if (requested) {
      // Last write wins (failpoint update-ignores-resource-version).
      if (requested !== String(existing.kv.modRevision) && !this.failpoints.has("update-ignores-resource-version"))
        throw conflict(qualifiedResourceOf(strategy), name, OPTIMISTIC_LOCK_MESSAGE);
    } else if (!strategy.allowUnconditionalUpdate) {
      throw invalidError({ group: strategy.group, kind: strategy.resource }, name, [
        invalidField("metadata.resourceVersion", 0, "must be specified for an update"),
      ]);
    }
    if (strategy.beginUpdate) strategy.beginUpdate(o, old, await this.writeContext(strategy, options));
    // BeforeUpdate: system fields come from the stored object.
    setMeta(o, "generation", old.metadata["generation"]);
    strategy.prepareForUpdate(o, old);
    if (!uidOf(o)) setMeta(o, "uid", uidOf(old));
    setMeta(o, "creationTimestamp", old.metadata["creationTimestamp"]);
    if (isTerminating(old)) {
      setMeta(o, "deletionTimestamp", old.metadata["deletionTimestamp"]);
      setMeta(o, "deletionGracePeriodSeconds", old.metadata["deletionGracePeriodSeconds"]);
    }
    const errors = options.dryRun && this.failpoints.has("dry-run-skips-validation") ? [] : [...strategy.validateUpdate(o, old)];
    // Finalizers kept as a stack: only the last-listed may go (failpoint finalizers-removed-last-first).
    if (this.failpoints.has("finalizers-removed-last-first")) {
      const before = finalizersOf(old);
      const after = finalizersOf(o);
      if (after.length < before.length && after.every((f) => before.includes(f)) && after.some((f, i) => before[i] !== f)) {
        errors.push(forbidden("metadata.finalizers", "finalizers must be removed last-listed first"));
      }
    }
    if (errors.length) throw invalidObject(strategy.internalKind, name, errors);
    strategy.canonicalize(o);
    const next = asKubeObject(canonicalize(o, strategy.shape));
    // Validating admission sees every update, one that changes nothing included.
    yield { object: next, old };
    const value = this.storage.encode(next);
    if (value === existing.kv.value && !options.writeUnchanged) return old;
    if (options.dryRun) {
      setMeta(next, "resourceVersion", String(existing.kv.modRevision));
      return next;
    }
    const expectModRevision = existing.kv.modRevision;
    // Removing the last finalizer of a terminating object deletes it (unless failpoint last-finalizer-keeps-object).
    if (isTerminating(next) && !this.hasPendingFinalizers(strategy, next) && !this.failpoints.has("last-finalizer-keeps-object")) {
      const { revision } = await this.storage.delete(strategy, existing.kv.key, { expectModRevision });
      if (this.failpoints.has("deleted-name-stays-taken")) this.deletedKeys.add(existing.kv.key);
      setMeta(next, "resourceVersion", String(revision));
      return next;
    }
    const { kv } = await this.storage.put(strategy, existing.kv.key, value, { expectModRevision, slimRetry: !options.apply });
    return this.storage.decode(kv);
  }

  /** Generic delete: preconditions, then removal, or marking when finalizers hold the object. */
  async delete(strategy: ResourceStrategy, existing: StoredObject, options: DeleteOptions = {}): Promise<DeleteOutcome> {
    const o = existing.object;
    checkDeletePreconditions(strategy, o, options.preconditions);
    // A fake that ignores finalizers (failpoint delete-ignores-finalizers).
    if (this.hasPendingFinalizers(strategy, o) && !this.failpoints.has("delete-ignores-finalizers")) {
      if (isTerminating(o)) return { deleted: false, object: o };
      const marked = cloneJson(o);
      setMeta(marked, "deletionTimestamp", formatTime(this.now()));
      setMeta(marked, "deletionGracePeriodSeconds", 0);
      strategy.prepareForDeletion?.(marked);
      if (options.dryRun) return { deleted: false, object: marked };
      const { kv } = await this.storage.put(strategy, existing.kv.key, this.storage.encode(marked), {
        expectModRevision: existing.kv.modRevision,
      });
      return { deleted: false, object: this.storage.decode(kv) };
    }
    if (!options.dryRun) await this.storage.delete(strategy, existing.kv.key, { expectModRevision: existing.kv.modRevision });
    if (!options.dryRun && this.failpoints.has("deleted-name-stays-taken")) this.deletedKeys.add(existing.kv.key);
    return { deleted: true, object: o };
  }

  /**
   * The begin hooks' context, the type's stored objects read before the hook runs (a hook is
   * synchronous). Another write may land between this read and the write's own put; the put is
   * conditional on the object itself only, so two creates may pick the same free value (a
   * Service's clusterIP), as they already could across an admission webhook's await.
   */
  private async writeContext(strategy: ResourceStrategy, options: WriteOptions): Promise<WriteContext> {
    const stored = (await this.storage.range(strategy, undefined)).kvs.map((kv) => this.storage.decode(kv));
    return { stored: () => stored, dryRun: options.dryRun === true };
  }

  /** Reads the object or throws the type's NotFound. */
  async mustGet(strategy: ResourceStrategy, namespace: string, name: string): Promise<StoredObject> {
    const found = await this.storage.get(strategy, namespace, name);
    if (!found) throw notFound(qualifiedResourceOf(strategy), name);
    return found;
  }

  hasPendingFinalizers(strategy: ResourceStrategy, o: KubeObject): boolean {
    return finalizersOf(o).length > 0 || strategy.pendingFinalizers(o).length > 0;
  }
}

/**
 * BeforeDelete's early precondition check. Its Conflict names the internal Kind where the
 * resource usually goes (`Operation cannot be fulfilled on ConfigMap "x": …`).
 */
export function checkDeletePreconditions(strategy: Pick<TypeIdentity, "internalKind">, o: KubeObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  const target = { group: strategy.internalKind.group, resource: strategy.internalKind.kind };
  if (pre.uid !== undefined && pre.uid !== uidOf(o)) {
    throw conflict(
      target,
      nameOf(o),
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${uidOf(o)}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== resourceVersionOf(o)) {
    throw conflict(
      target,
      nameOf(o),
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${resourceVersionOf(o)}). The object might have been modified`,
    );
  }
}

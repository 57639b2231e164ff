/**
 * Admission webhooks around the generic writes, one step per verb for the writing handlers
 * (the order of the real create/update/patch/delete handlers and registry Store):
 *
 *  - create and update: mutating webhooks on the request's object (oldObject: the stored one),
 *    then the type's preparation and validation, then validating webhooks on the object as it
 *    would be stored, then the write (registry/generic/registry.ts createAdmitted/updateAdmitted);
 *  - delete: the preconditions, then mutating and validating webhooks with the stored object
 *    as oldObject (object null), then the handler's delete of the entry as it was.
 *
 * The reviews carry the operation's options as the real handlers pass them: CreateOptions or
 * UpdateOptions from the query (a PATCH's as UpdateOptions, or CreateOptions when an apply
 * creates), DeleteOptions as parsed; `dryRun: true` on a dry run. Webhook warnings are added to
 * the handler's Warning list.
 *
 * The store may change between a write's read and its conditional write (webhook calls, and
 * every store call, are awaited): the write then fails as a WriteConflict, and an update, patch
 * or delete runs again from the new state (retryWrite), as the real server's GuaranteedUpdate
 * and conditional delete do; one whose resourceVersion or preconditions no longer match then
 * gets the usual 409.
 *
 * Known difference: the namespace controller's deletions do not go through webhooks.
 */

import type { AdmissionAttributes } from "../../admission/dispatcher.js";
import type { Operation } from "../../admission/matching.js";
import type { UserInfo } from "../../admission/review.js";
import { badRequest, conflict, notFound, OPTIMISTIC_LOCK_MESSAGE, StatusError } from "../../apimachinery/api-errors.js";
import type { JsonObject, KubeObject } from "../../apimachinery/json.js";
import { nameOf, namespaceOf } from "../../apimachinery/object-meta.js";
import type { DeleteOptions, WriteOptions } from "../../registry/generic/options.js";
import { type AdmissionPoint, type Created, checkDeletePreconditions } from "../../registry/generic/registry.js";
import { type ObjectSchema, qualifiedResourceOf, type ResourceStrategy, type TypeIdentity } from "../../registry/generic/strategy.js";
import type { StoredObject } from "../../storage/object-storage.js";
import { StoreError } from "../../storage/store.js";
import type { RequestContext } from "./context.js";

/**
 * Who the reviews say made the request. The emulator does not authenticate, and serves every
 * client as a cluster administrator would be served.
 */
const EMULATOR_USER: UserInfo = { username: "system:admin", groups: ["system:masters", "system:authenticated"] };

const META_V1 = "meta.k8s.io/v1";

/** The request's authenticated user when auth is on, else the fixed administrator. */
function reviewUser(ctx: RequestContext): UserInfo {
  const user = ctx.user;
  return user ? { username: user.username, groups: user.groups } : EMULATOR_USER;
}

/** A write whose conditional store write failed: the object changed after it was read. Answered as the optimistic-lock 409. */
export class WriteConflict extends StatusError {}

/** How many times an update or patch is tried against a changing object before its 409 is answered (a real server tries until its request times out). */
const WRITE_ATTEMPTS = 10;

/**
 * Runs one attempt of an update or patch (read, admit, write) again while it ends in a
 * WriteConflict, as the real server's GuaranteedUpdate re-reads and re-applies the update; the
 * attempt reads the object anew each time. Webhooks are called again for each attempt.
 */
export async function retryWrite<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof WriteConflict) || n >= WRITE_ATTEMPTS) throw e;
    }
  }
}

/** A store Conflict (a conditional write that lost the race) as the WriteConflict retryWrite retries; anything else as it is. */
export function storeConflict(strategy: TypeIdentity, name: string, e: unknown): unknown {
  return e instanceof StoreError && e.code === "Conflict"
    ? new WriteConflict(conflict(qualifiedResourceOf(strategy), name, OPTIMISTIC_LOCK_MESSAGE).status)
    : e;
}

/** CreateOptions or UpdateOptions as the handler decoded them from the query. */
function queryOptions(kind: "CreateOptions" | "UpdateOptions", url: URL): JsonObject {
  const o: JsonObject = { kind, apiVersion: META_V1 };
  const dryRun = url.searchParams.getAll("dryRun").filter((v) => v !== "");
  if (dryRun.length) o["dryRun"] = dryRun;
  const fieldManager = url.searchParams.get("fieldManager");
  if (fieldManager) o["fieldManager"] = fieldManager;
  const fieldValidation = url.searchParams.get("fieldValidation");
  if (fieldValidation) o["fieldValidation"] = fieldValidation;
  return o;
}

/** DeleteOptions in Go field order, as parsed. */
function deleteOptionsJson(d: DeleteOptions): JsonObject {
  const o: JsonObject = { kind: "DeleteOptions", apiVersion: META_V1 };
  if (d.gracePeriodSeconds !== undefined) o["gracePeriodSeconds"] = d.gracePeriodSeconds;
  if (d.preconditions) o["preconditions"] = { ...d.preconditions };
  if (d.orphanDependents !== undefined) o["orphanDependents"] = d.orphanDependents;
  if (d.propagationPolicy !== undefined) o["propagationPolicy"] = d.propagationPolicy;
  if (d.dryRun) o["dryRun"] = ["All"];
  return o;
}

export interface AdmittedWrites {
  /** Mutating webhooks, the generic create with validating webhooks before its write. */
  create(strategy: ResourceStrategy, object: KubeObject, options: WriteOptions): Promise<KubeObject>;
  /** create, resolving with the new entry (no entry after a dry run), for an answer made from its stored text. */
  createEntry(strategy: ResourceStrategy, object: KubeObject, options: WriteOptions): Promise<Created>;
  /** Mutating webhooks, the generic update with validating webhooks before its write. */
  update(strategy: ResourceStrategy, existing: StoredObject, object: KubeObject, options: WriteOptions): Promise<KubeObject>;
  /** Preconditions and the DELETE webhooks; resolves with the entry to delete (a WriteConflict when it changed meanwhile). */
  checkDelete(strategy: ResourceStrategy, existing: StoredObject, options: DeleteOptions): Promise<StoredObject>;
}

/** The writes of one request, admitted by the emulator's webhooks; their warnings go to `warnings`. */
export function admittedWrites(ctx: RequestContext, warnings: string[]): AdmittedWrites {
  const { admission, generic } = ctx.parts;

  const attributes = (
    strategy: TypeIdentity & ObjectSchema,
    operation: Operation,
    name: string,
    object: KubeObject | undefined,
    old: KubeObject | undefined,
    options: JsonObject,
    dryRun: boolean,
  ): AdmissionAttributes => ({
    operation,
    group: strategy.group,
    version: strategy.version,
    resource: strategy.resource,
    subresource: "",
    kind: strategy.kind,
    name,
    // A namespace's own requests carry its name as their namespace, except its creation.
    namespace: strategy.namespaced ? ctx.route.namespace : strategy.definesNamespace && operation !== "CREATE" ? name : "",
    object,
    oldObject: old,
    dryRun,
    options,
    userInfo: reviewUser(ctx),
    shape: strategy.shape,
  });

  /** The store changed under a write that waited for webhooks: the optimistic-lock conflict. */
  const asConflict = storeConflict;

  const validating = (strategy: TypeIdentity & ObjectSchema, operation: Operation, options: JsonObject, dryRun: boolean) => (point: AdmissionPoint) =>
    admission.validate(attributes(strategy, operation, nameOf(point.object), point.object, point.old, options, dryRun), warnings);

  const createEntry = async (strategy: ResourceStrategy, object: KubeObject, options: WriteOptions): Promise<Created> => {
    const dryRun = options.dryRun === true;
    const createOptions = queryOptions("CreateOptions", ctx.url);
    const mutated = (await admission.mutate(attributes(strategy, "CREATE", nameOf(object), object, undefined, createOptions, dryRun), warnings)) ?? object;
    // RBAC's escalation check sits in the registry, after mutating admission and before validation.
    await ctx.parts.auth?.admitRbacWrite(ctx.user, strategy, ctx.route.namespace, ctx.route.name ?? "", mutated);
    if (strategy.namespaced && namespaceOf(mutated) !== ctx.route.namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    try {
      return await generic.createAdmittedEntry(strategy, mutated, options, validating(strategy, "CREATE", createOptions, dryRun));
    } catch (e) {
      throw asConflict(strategy, nameOf(mutated), e);
    }
  };

  return {
    async create(strategy, object, options) {
      return (await createEntry(strategy, object, options)).object;
    },

    createEntry,

    async update(strategy, existing, object, options) {
      const dryRun = options.dryRun === true;
      const updateOptions = queryOptions("UpdateOptions", ctx.url);
      const name = nameOf(existing.object);
      const mutated = (await admission.mutate(attributes(strategy, "UPDATE", name, object, existing.object, updateOptions, dryRun), warnings)) ?? object;
      await ctx.parts.auth?.admitRbacWrite(ctx.user, strategy, ctx.route.namespace, ctx.route.name ?? "", mutated, existing.object);
      try {
        return await generic.updateAdmitted(strategy, existing, mutated, options, validating(strategy, "UPDATE", updateOptions, dryRun));
      } catch (e) {
        throw asConflict(strategy, name, e);
      }
    },

    async checkDelete(strategy, existing, options) {
      const name = nameOf(existing.object);
      // A delete override checks its own preconditions, in its write (the namespace's: registry/core/namespace/rest.ts).
      if (!strategy.deleteOverride) checkDeletePreconditions(strategy, existing.object, options.preconditions);
      const attrs = attributes(strategy, "DELETE", name, undefined, existing.object, deleteOptionsJson(options), options.dryRun === true);
      await admission.mutate(attrs, warnings);
      await admission.validate(attrs, warnings);
      const current = await generic.storage.get(strategy, namespaceOf(existing.object), name);
      if (!current) throw notFound(qualifiedResourceOf(strategy), name);
      if (current.kv.modRevision !== existing.kv.modRevision)
        throw new WriteConflict(conflict(qualifiedResourceOf(strategy), name, OPTIMISTIC_LOCK_MESSAGE).status);
      return current;
    },
  };
}

/**
 * DELETE of one resource: namespace admission (immortal namespaces), the read, the delete
 * webhooks (handlers/admission.ts), then the type's delete override if it has one (a
 * namespace: Terminating first, registry/core/namespace/rest.ts) or the generic delete. A
 * removal answers with a Success Status naming the object (wire-facts §4) unless the type
 * returns the deleted object (namespaces); an object held by finalizers answers with the object.
 *
 * The unsafe force delete (ignoreStoreReadErrorWithClusterBreakingPotential=true, its gate
 * checked with the options) goes the way of the apiserver's corrupt-object deleter: it reads the
 * object first and, when the read succeeds, aborts with 422 Invalid on the option ("is exclusively
 * meant to delete corrupt objects…") and changes nothing; only a corrupt entry is removed, with
 * finalizers and preconditions ignored, answering 200 with a Success Status.
 */

import { makeStatus } from "../../../wire/status.js";
import { details, invalidError, notFound } from "../../apimachinery/api-errors.js";
import { invalid as invalidField } from "../../apimachinery/field-errors.js";
import { nameOf, uidOf } from "../../apimachinery/object-meta.js";
import type { DeleteOptions, DeleteOutcome } from "../../registry/generic/options.js";
import { qualifiedResourceOf } from "../../registry/generic/strategy.js";
import type { StoredObject } from "../../storage/object-storage.js";
import { admittedWrites, retryWrite, storeConflict } from "./admission.js";
import type { RequestContext } from "./context.js";
import { FORCE_OPTION, parseDeleteOptions } from "./delete-options.js";
import { writeObject } from "./respond.js";
import { warningHeaders } from "./write-options.js";

export async function handleDelete(ctx: RequestContext, name: string, body: Buffer): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const { lifecycle } = ctx.parts;
  const parsed = parseDeleteOptions(ctx, body);
  // A delete that drops its preconditions unread (failpoint delete-ignores-preconditions).
  const options = ctx.parts.settings.failpoints.has("delete-ignores-preconditions") ? { ...parsed, preconditions: undefined } : parsed;
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential) {
    // With auth on, the unsafe delete also needs its own verb on the object.
    await ctx.parts.auth?.admitUnsafeDelete(ctx.user, strategy, strategy.namespaced ? namespace : strategy.definesNamespace ? name : "", name);
    return forceDelete(ctx, name);
  }
  lifecycle.admitDelete(strategy, name);
  return retryWrite(() => deleteOnce(ctx, name, options));
}

/** One attempt: the object read anew, admitted, deleted if it has not changed since the read. */
async function deleteOnce(ctx: RequestContext, name: string, options: DeleteOptions): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const warnings: string[] = [];
  const existing = await admittedWrites(ctx, warnings).checkDelete(strategy, await ctx.parts.generic.mustGet(strategy, namespace, name), options);
  let outcome: DeleteOutcome;
  try {
    outcome = await deleteAdmitted(ctx, existing, options);
  } catch (e) {
    throw storeConflict(strategy, name, e);
  }
  // A server that returns the deleted object for every type (failpoints.ts) skips the Status.
  if (outcome.deleted && !strategy.returnDeletedObject && !ctx.parts.settings.failpoints.has("delete-returns-object")) {
    const d = details({ name: nameOf(outcome.object), group: strategy.group, kind: strategy.resource, uid: uidOf(outcome.object) });
    return writeObject(ctx, 200, makeStatus({ status: "Success", details: d }), warningHeaders(warnings));
  }
  // 202 only when the object stays and the client asked for cascading (orphanDependents=false).
  const code = !outcome.deleted && options.orphanDependents === false ? 202 : 200;
  return writeObject(ctx, code, outcome.object, warningHeaders(warnings));
}

/** Deletes an admitted object: through the type's delete override when it has one, else the generic delete. */
export function deleteAdmitted(ctx: RequestContext, existing: StoredObject, options: DeleteOptions): Promise<DeleteOutcome> {
  const { strategy } = ctx.route;
  const override = strategy.deleteOverride;
  return override ? override.delete({ existing, options, capabilities: ctx.parts.capabilities }) : ctx.parts.generic.delete(strategy, existing, options);
}

async function forceDelete(ctx: RequestContext, name: string): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const storage = ctx.parts.storage;
  const key = storage.key(strategy, namespace, name);
  const kv = await storage.entry(strategy, key);
  if (!kv) throw notFound(qualifiedResourceOf(strategy), name);
  if (!storage.isCorrupt(kv)) {
    throw invalidError({ group: strategy.group, kind: strategy.resource }, name, [
      invalidField(
        FORCE_OPTION,
        true,
        "is exclusively meant to delete corrupt objects with unreadable data from the storage, but this object has readable data",
      ),
    ]);
  }
  await storage.delete(strategy, key, { expectModRevision: kv.modRevision });
  return writeObject(ctx, 200, makeStatus({ status: "Success", details: details({ name, group: strategy.group, kind: strategy.resource }) }));
}

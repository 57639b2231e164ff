/**
 * DELETE of one resource. Most types answer a removal with a Success Status naming the object
 * (wire-facts §4); namespaces go through the lifecycle (Terminating first) and always answer
 * with the namespace; an object held by finalizers answers with the object.
 */
import { nameOf, uidOf } from "../object-meta.js";
import { details } from "../api-errors.js";
import { makeStatus } from "../../wire/status.js";
import { namespaceStrategy } from "../strategies/namespace.js";
import type { RequestContext } from "./context.js";
import { parseDeleteOptions } from "./delete-options.js";
import { writeObject } from "./respond.js";

export function handleDelete(ctx: RequestContext, name: string, body: Buffer): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const { generic, lifecycle } = ctx.parts;
  const options = parseDeleteOptions(ctx, body);
  const isNamespace = strategy === namespaceStrategy;
  if (isNamespace) lifecycle.admitDelete(name);
  const existing = generic.mustGet(strategy, namespace, name);
  const outcome = isNamespace ? lifecycle.delete(existing, options) : generic.delete(strategy, existing, options);
  if (outcome.deleted && !isNamespace) {
    const d = details({ name: nameOf(outcome.object), group: strategy.group, kind: strategy.resource, uid: uidOf(outcome.object) });
    return writeObject(ctx, 200, makeStatus({ status: "Success", details: d }));
  }
  // 202 only when the object stays and the client asked for cascading (orphanDependents=false).
  const code = !outcome.deleted && options.orphanDependents === false ? 202 : 200;
  return writeObject(ctx, code, outcome.object);
}

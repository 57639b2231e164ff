/**
 * GET of one resource. Its resourceVersion is a not-older-than read of the latest state: one the
 * store has not reached is storage's ResourceVersionTooLarge (the server's wait, cut short),
 * answered as a 504 (storage-errors.ts).
 */
import { mustHaveReached } from "../../storage/reads.js";
import { parseResourceVersionParam } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { writeObject } from "./respond.js";
import { readError } from "./storage-errors.js";

export function handleGet(ctx: RequestContext, name: string, resourceVersion: string): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const requested = parseResourceVersionParam(resourceVersion);
  try {
    mustHaveReached(ctx.parts.storage, requested);
  } catch (e) {
    throw readError(e, strategy, "get") ?? e;
  }
  const found = ctx.parts.generic.mustGet(strategy, namespace, name);
  return writeObject(ctx, 200, found.object);
}

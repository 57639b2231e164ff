/**
 * GET of one resource. Its resourceVersion is a not-older-than read of the latest state: one the
 * store has not reached is storage's ResourceVersionTooLarge (the server's wait, cut short),
 * answered as a 504 (storage-errors.ts).
 */
import type { KubeObject } from "../../apimachinery/json.js";
import type { StoredObject } from "../../storage/object-storage.js";
import { mustHaveReached } from "../../storage/reads.js";
import { parseResourceVersionParam } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { writeObject, writeStoredObject } from "./respond.js";
import { readError } from "./storage-errors.js";

export async function handleGet(ctx: RequestContext, name: string, resourceVersion: string): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const { failpoints } = ctx.parts.settings;
  const requested = parseResourceVersionParam(resourceVersion, strategy, "get");
  try {
    // A server that pretends a version it has not reached is its current one (failpoints.ts).
    // Without a version there is nothing to wait for (and no await).
    if (requested !== undefined && !failpoints.has("future-rv-served")) await mustHaveReached(ctx.parts.storage, requested);
  } catch (e) {
    throw readError(e, strategy, "get") ?? e;
  }
  const found = await ctx.parts.generic.mustGet(strategy, namespace, name);
  // A server that answers from a cache one write behind (failpoints.ts).
  if (failpoints.has("get-serves-previous-version") && resourceVersion === "") return writeObject(ctx, 200, await previousVersion(ctx, found));
  return writeStoredObject(ctx, 200, found);
}

/** The object as it was before its last write, or as it is when history has no earlier state of it. */
async function previousVersion(ctx: RequestContext, found: StoredObject): Promise<KubeObject> {
  const { storage } = ctx.parts;
  const { strategy, namespace } = ctx.route;
  try {
    const before = (await storage.range(strategy, namespace, { revision: found.kv.modRevision - 1, startKey: found.kv.key, limit: 1 })).kvs[0];
    return before?.key === found.kv.key ? storage.decode(before) : found.object;
  } catch {
    return found.object;
  }
}

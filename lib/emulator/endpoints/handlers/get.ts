/** GET of one resource; a resourceVersion newer than the store is 504 (the server's wait, cut short). */
import { parseResourceVersionParam } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { tooLargeResourceVersion } from "./list.js";
import { writeObject } from "./respond.js";

export function handleGet(ctx: RequestContext, name: string, resourceVersion: string): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const requested = parseResourceVersionParam(resourceVersion);
  const current = ctx.parts.storage.store.revision;
  if (requested !== undefined && requested > current) throw tooLargeResourceVersion(requested, current);
  const found = ctx.parts.generic.mustGet(strategy, namespace, name);
  return writeObject(ctx, 200, found.object);
}

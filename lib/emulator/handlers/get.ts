/** GET of one resource; a resourceVersion newer than the store is 504 (the server's wait, cut short). */
import { writeJson } from "../http-io.js";
import { parseResourceVersionParam } from "../list-options.js";
import type { RequestContext } from "./context.js";
import { tooLargeResourceVersion } from "./list.js";

export function handleGet(ctx: RequestContext, name: string, resourceVersion: string): void {
  const { strategy, namespace } = ctx.route;
  const requested = parseResourceVersionParam(resourceVersion);
  const current = ctx.parts.storage.store.revision;
  if (requested !== undefined && requested > current) throw tooLargeResourceVersion(requested, current);
  const found = ctx.parts.generic.mustGet(strategy, namespace, name);
  writeJson(ctx.res, 200, found.object, { pretty: ctx.pretty });
}

/**
 * Method dispatch for resource paths: which verb a method means on a collection or a resource,
 * 405 for the combinations a route does not serve; subresource paths go to subresource.ts.
 * PATCH checks its Content-Type (415) before output negotiation, as the real patch handler
 * does it first of all.
 */
import { methodNotAllowed } from "../api-errors.js";
import { readBody } from "../http-io.js";
import { parseListOptions, validateListOptions } from "../list-options.js";
import { negotiateOutput, wantsGzip } from "../negotiation.js";
import type { RequestContext, ResourceRequest } from "./context.js";
import { handleCreate } from "./create.js";
import { handleDeleteCollection } from "./delete-collection.js";
import { handleDelete } from "./delete.js";
import { handleGet } from "./get.js";
import { handleList } from "./list.js";
import { handlePatch } from "./patch.js";
import { handleSubresource } from "./subresource.js";
import { patchTypeOf } from "../patch/media-types.js";
import { handleUpdate } from "./update.js";
import { handleWatch } from "./watch.js";

export async function handleResource(request: ResourceRequest): Promise<void> {
  const { route, req, url } = request;
  const { strategy } = route;
  const method = req.method ?? "GET";
  const name = route.name;
  if (route.subresource !== undefined) return handleSubresource(request, route.subresource);

  const verbs = new Set<string>(strategy.verbs);
  const collectionPath = name === undefined && !route.allNamespaces;
  const readsOnly = route.watchPath || (name === undefined && route.allNamespaces);
  const allowed =
    method === "GET" ||
    (!readsOnly &&
      ((method === "POST" && collectionPath && verbs.has("create")) ||
        (method === "PUT" && name !== undefined && verbs.has("update")) ||
        (method === "PATCH" && name !== undefined && verbs.has("patch")) ||
        (method === "DELETE" && name !== undefined && verbs.has("delete")) ||
        (method === "DELETE" && collectionPath && verbs.has("deletecollection"))));
  if (!allowed) throw methodNotAllowed();
  const gates = request.parts.settings.featureGates;
  // The patch handler reads its Content-Type first of all (415); otherwise, before anything
  // else, as the real handlers do: a request whose answer cannot be written is 406.
  const patchType = method === "PATCH" ? patchTypeOf(req, gates) : undefined;
  const ctx: RequestContext = { ...request, negotiated: negotiateOutput(req, gates), gzip: wantsGzip(req, gates) };

  if (method === "GET") {
    const nameSelector = name !== undefined ? `metadata.name=${name.replace(/[\\,=]/g, (c) => `\\${c}`)}` : undefined;
    const parsed = parseListOptions(url.searchParams, strategy, nameSelector);
    const options = route.watchPath ? { ...parsed, watch: true } : parsed;
    if (options.watch) {
      validateListOptions(options);
      return handleWatch(ctx, options);
    }
    if (name !== undefined) return handleGet(ctx, name, options.resourceVersion);
    validateListOptions(options);
    return handleList(ctx, options);
  }
  const body = await readBody(req, ctx.parts.settings.maxRequestBodyBytes);
  if (method === "POST") return handleCreate(ctx, body);
  if (method === "PUT" && name !== undefined) return handleUpdate(ctx, name, body);
  if (patchType !== undefined && name !== undefined) return handlePatch(ctx, name, patchType, body);
  if (name !== undefined) return handleDelete(ctx, name, body);
  return handleDeleteCollection(ctx, parseListOptions(url.searchParams, strategy), body);
}

/**
 * Requests on `…/{resourcetype}/{name}/{subresource}` (doc1 "Path shapes"). The real server
 * installs a subresource's routes on that item path only, one per verb its storage has, so:
 *
 *  - an unknown subresource (or any on a type without them) is the generic 404;
 *  - a method the subresource has no verb for is go-restful's 405 (GET, PATCH or DELETE on a
 *    namespace's `finalize`; POST or DELETE on `status`), before anything else is read;
 *  - GET is a plain get (GetOptions: only resourceVersion; `watch` is not read, and the
 *    `/watch/` prefix form has no route);
 *  - POST runs the subresource's create override (`serviceaccounts/token`, create.ts), in JSON;
 *  - PUT and PATCH run the ordinary update and patch handlers with the subresource's update
 *    strategy (registry/generic/subresources.ts): same options (dryRun, fieldManager, fieldValidation, force),
 *    same preconditions and errors, never a create;
 *  - output negotiation as on the main resource, except that a subresource without a Table
 *    convertor cannot answer as a Table (406 when nothing else is acceptable).
 */

import { supportsProtobuf } from "../../../wire/protobuf/index.js";
import { methodNotAllowed, pathNotFound } from "../../apimachinery/api-errors.js";
import { findSubresource, subresourceServes, subresourceWriteStrategy } from "../../registry/generic/subresources.js";
import { readBody } from "../http-io.js";
import { negotiateOutput, wantsGzip } from "../negotiation.js";
import { patchTypeOf } from "../patch/media-types.js";
import type { RequestContext, ResourceRequest } from "./context.js";
import { handleCreateOverride } from "./create.js";
import { handleGet } from "./get.js";
import { handlePatch } from "./patch.js";
import { handleUpdate } from "./update.js";

export async function handleSubresource(request: ResourceRequest, subresource: string): Promise<void> {
  const { route, req, url } = request;
  const sub = findSubresource(route.strategy, subresource);
  const name = route.name;
  if (!sub || name === undefined || route.watchPath) throw pathNotFound();
  const method = req.method ?? "GET";
  if (!subresourceServes(sub, method)) throw methodNotAllowed();

  const gates = request.parts.settings.featureGates;
  if (method === "POST" && sub.create) {
    const body = await readBody(req, request.parts.settings.maxRequestBodyBytes);
    // The answer (a TokenRequest) has a protobuf form when the shared codec knows its kind.
    const answer = sub.discoveryKind;
    const protobuf = answer !== undefined && supportsProtobuf(answer.group === "" ? answer.version : `${answer.group}/${answer.version}`, answer.kind);
    const ctx: RequestContext = { ...request, negotiated: negotiateOutput(req, gates, protobuf, false), gzip: wantsGzip(req, gates) };
    return handleCreateOverride(ctx, sub.create, name, sub.discoveryKind?.kind ?? route.strategy.kind, body);
  }
  const patchType = method === "PATCH" ? patchTypeOf(req, gates) : undefined;
  const ctx: RequestContext = {
    ...request,
    route: { ...route, strategy: subresourceWriteStrategy(route.strategy, sub) },
    negotiated: negotiateOutput(req, gates, true, sub.table),
    gzip: wantsGzip(req, gates),
  };
  if (method === "GET") return handleGet(ctx, name, url.searchParams.get("resourceVersion") ?? "");
  const body = await readBody(req, ctx.parts.settings.maxRequestBodyBytes);
  if (patchType !== undefined) return handlePatch(ctx, name, patchType, body);
  return handleUpdate(ctx, name, body);
}

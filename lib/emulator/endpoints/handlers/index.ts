/**
 * Method dispatch for resource paths: which verb a method means on a collection or a resource,
 * 405 for the combinations a route does not serve; subresource paths go to subresource.ts.
 * PATCH checks its Content-Type (415) before output negotiation, as the real patch handler
 * does it first of all.
 */

import { supportsProtobuf } from "../../../wire/protobuf/index.js";
import { methodNotAllowed, notAcceptableMessage } from "../../apimachinery/api-errors.js";
import { escapeFieldValue } from "../../apimachinery/field-selector.js";
import { groupVersionOf, type ResourceStrategy } from "../../registry/generic/strategy.js";
import { readBody } from "../http-io.js";
import { parseListOptions, validateListOptions } from "../list-options.js";
import { negotiateOutput, wantsGzip } from "../negotiation.js";
import { patchTypeOf } from "../patch/media-types.js";
import type { RequestContext, ResourceRequest } from "./context.js";
import { handleCreate, handleCreateOverride } from "./create.js";
import { handleDelete } from "./delete.js";
import { handleDeleteCollection } from "./delete-collection.js";
import { handleGet } from "./get.js";
import { handleList } from "./list.js";
import { handlePatch } from "./patch.js";
import { handleSubresource } from "./subresource.js";
import { handleUpdate } from "./update.js";
import { handleWatch } from "./watch.js";

/**
 * Custom resources have no protobuf form: the real server negotiates protobuf, then fails to
 * encode the unstructured object with 406 (wire-facts §1.5). Here the 406 comes before the
 * verb runs (a real write would have been stored before its answer failed). The Table and
 * metadata-only forms are typed, so they may still be protobuf.
 */
function refuseProtobufObjects(ctx: RequestContext, collection: boolean): void {
  const { encoding, representation } = ctx.negotiated;
  if (encoding !== "protobuf" || representation.as !== "object") return;
  const list = collection && ctx.req.method === "GET";
  throw notAcceptableMessage(
    `object *unstructured.Unstructured${list ? "List" : ""} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`,
  );
}

// Per strategy, made once: a custom resource's strategy is a new object whenever its definition changes.
const VERBS = new WeakMap<ResourceStrategy, ReadonlySet<string>>();
const PROTOBUF_FORM = new WeakMap<ResourceStrategy, boolean>();

function verbsOf(strategy: ResourceStrategy): ReadonlySet<string> {
  let verbs = VERBS.get(strategy);
  if (!verbs) {
    verbs = new Set<string>(strategy.verbs);
    VERBS.set(strategy, verbs);
  }
  return verbs;
}

function hasProtobufForm(strategy: ResourceStrategy): boolean {
  let known = PROTOBUF_FORM.get(strategy);
  if (known === undefined) {
    known = supportsProtobuf(groupVersionOf(strategy), strategy.kind);
    PROTOBUF_FORM.set(strategy, known);
  }
  return known;
}

export async function handleResource(request: ResourceRequest): Promise<void> {
  const { route, req, url } = request;
  const { strategy } = route;
  const method = req.method ?? "GET";
  const name = route.name;
  if (route.subresource !== undefined) return handleSubresource(request, route.subresource);

  const verbs = verbsOf(strategy);
  const collectionPath = name === undefined && !route.allNamespaces;
  const readsOnly = route.watchPath || (name === undefined && route.allNamespaces);
  const reads = verbs.has("get") || verbs.has("list") || verbs.has("watch");
  const allowed =
    (method === "GET" && reads) ||
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
  // A server that takes a CBOR merge patch (failpoints.ts) reads it here, where the type is chosen.
  const cborMerge = request.parts.settings.failpoints.has("merge-patch-cbor-served");
  const patchType = method === "PATCH" ? patchTypeOf(req, gates, strategy.unstructured === undefined, cborMerge) : undefined;
  // Types the shared protobuf codec has no messages for answer in JSON or YAML; custom
  // resources negotiate protobuf and then refuse it, as a real server does.
  const objectProtobuf = strategy.unstructured !== undefined || hasProtobufForm(strategy);
  const ctx: RequestContext = { ...request, negotiated: negotiateOutput(req, gates, objectProtobuf), gzip: wantsGzip(req, gates) };
  if (strategy.unstructured) refuseProtobufObjects(ctx, name === undefined);
  if (strategy.admitVerb && (method === "POST" || method === "PUT" || method === "PATCH")) {
    strategy.admitVerb(method === "POST" ? "create" : method === "PUT" ? "update" : "patch");
  }

  if (method === "GET") {
    // A GET of one object decodes only GetOptions (its resourceVersion): no other parameter can fail it.
    if (name !== undefined && !route.watchPath) return handleGet(ctx, name, url.searchParams.get("resourceVersion") ?? "");
    const nameSelector = name !== undefined ? `metadata.name=${escapeFieldValue(name)}` : undefined;
    const parsed = parseListOptions(url.searchParams, strategy, nameSelector);
    // `watch` on one object's path is ignored (above; doc1 lists it there): only the deprecated
    // /watch/ prefix watches a single object.
    const options = route.watchPath ? { ...parsed, watch: true } : parsed;
    if (options.watch) {
      validateListOptions(options);
      return handleWatch(ctx, options);
    }
    validateListOptions(options);
    return handleList(ctx, options);
  }
  const body = await readBody(req, ctx.parts.settings.maxRequestBodyBytes);
  if (method === "POST" && strategy.createOverride) return handleCreateOverride(ctx, strategy.createOverride, "", strategy.kind, body);
  if (method === "POST") return handleCreate(ctx, body);
  if (method === "PUT" && name !== undefined) return handleUpdate(ctx, name, body);
  if (patchType !== undefined && name !== undefined) return handlePatch(ctx, name, patchType, body);
  if (name !== undefined) return handleDelete(ctx, name, body);
  return handleDeleteCollection(ctx, parseListOptions(url.searchParams, strategy), body);
}

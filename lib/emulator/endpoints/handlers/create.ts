/**
 * POST to a collection. Order as in the real server: decode (400), namespace of the body vs
 * the URL (400), namespace admission (404/403), then the generic create (422, 409).
 *
 * A type's create override (registry/generic/strategy.ts RestCreate) serves POST instead, on its collection or
 * on a create-only subresource: the body decoded as JSON, the override called with the request
 * as data, and the object it returns written with its code.
 */

import { isProtobuf, parseMediaType } from "../../../wire/media-type.js";
import { badRequest } from "../../apimachinery/api-errors.js";
import type { KubeObject } from "../../apimachinery/json.js";
import { isJsonObject, type JsonObject } from "../../apimachinery/json.js";
import { nameOf, namespaceOf, setMeta } from "../../apimachinery/object-meta.js";
import type { Shape } from "../../apimachinery/typed-json.js";
import type { RestCreate, TypeIdentity } from "../../registry/generic/strategy.js";
import { admittedWrites } from "./admission.js";
import type { RequestContext } from "./context.js";
import { bodyJsonForm, decodeBody, decodeJsonObject, fieldValidationOf } from "./request-body.js";
import { writeObject, writeStoredObject } from "./respond.js";
import { warningHeaders, writeOptionsOf } from "./write-options.js";
import { recordWriteOwnership } from "./write-ownership.js";

/** Makes the body's namespace agree with the URL: filled in when empty, cleared for cluster-scoped types. */
export function reconcileCreateNamespace(strategy: Pick<TypeIdentity, "namespaced">, urlNamespace: string, o: KubeObject): void {
  const bodyNamespace = namespaceOf(o);
  if (!strategy.namespaced) {
    setMeta(o, "namespace", undefined);
    return;
  }
  if (bodyNamespace === "") setMeta(o, "namespace", urlNamespace);
  else if (bodyNamespace !== urlNamespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
}

/** A custom resource's shape with every schema struct keeping undeclared fields (failpoint crd-no-pruning); metadata stays typed. */
function unpruned<S extends Shape>(shape: S, root = true): S {
  if (shape.kind === "struct") {
    // The root and the schema's structs are lenient-or-root; ObjectMeta is neither.
    if (!shape.lenient && !root) return shape;
    return { ...shape, preserveUnknownFields: true, fields: shape.fields.map((f) => ({ ...f, shape: unpruned(f.shape, false) })) };
  }
  if (shape.kind === "list") return { ...shape, items: unpruned(shape.items, false) };
  if (shape.kind === "map") return { ...shape, values: unpruned(shape.values, false) };
  return shape;
}

export async function handleCreate(ctx: RequestContext, body: Buffer): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const { dryRun } = writeOptionsOf(ctx.url, "CreateOptions");
  const { object, warnings } = decodeBody(ctx, body, fieldValidationOf(ctx.url));
  const failpoints = ctx.parts.settings.failpoints;
  // The URL's namespace silently wins over the body's (failpoint create-namespace-from-url).
  if (failpoints.has("create-namespace-from-url") && strategy.namespaced) setMeta(object, "namespace", namespace);
  reconcileCreateNamespace(strategy, namespace, object);
  recordWriteOwnership(ctx, body, undefined, object);
  // A server that applies the custom-resource generation rule to every type (failpoints.ts).
  if (failpoints.has("generation-on-create")) setMeta(object, "generation", 1);
  // A dry run that skips built-in admission (failpoint dry-run-skips-admission).
  if (!(dryRun && failpoints.has("dry-run-skips-admission"))) await ctx.parts.lifecycle.admitCreate(strategy, namespace, nameOf(object));
  let checked = strategy;
  // A custom resource store without the schema's type checks (failpoints.ts): only the type errors go.
  if (strategy.unstructured && failpoints.has("crd-types-unchecked")) {
    checked = { ...checked, validateCreate: (o: KubeObject) => strategy.validateCreate(o).filter((e) => !/must be of type/.test(e.detail ?? "")) };
  }
  // A custom resource store that does not prune (failpoints.ts): storage keeps what the schema does not declare.
  if (strategy.unstructured && failpoints.has("crd-no-pruning")) checked = { ...checked, shape: unpruned(strategy.shape) };
  const created = await admittedWrites(ctx, warnings).createEntry(checked, object, { dryRun });
  // A new entry's answer is made from its stored text, as a GET's is (the same bytes).
  if (created.kv) return writeStoredObject(ctx, 201, created, warningHeaders(warnings));
  return writeObject(ctx, 201, created.object, warningHeaders(warnings));
}

/** An override's body: protobuf by its Content-Type (kubectl 1.32+ sends reviews and TokenRequests so), else JSON. */
function overrideBody(ctx: RequestContext, body: Buffer, kind: string): JsonObject {
  const header = ctx.req.headers["content-type"];
  const media = header === undefined ? undefined : parseMediaType(header);
  if (media === undefined || !isProtobuf(media)) return decodeJsonObject(body, kind);
  const unreadable = (detail: string): Error => badRequest(`the body of the request was in an unknown format or could not be decoded as a ${kind}: ${detail}`);
  const decoded = bodyJsonForm("protobuf", body, false, unreadable);
  if (!isJsonObject(decoded)) throw unreadable("not an object");
  return decoded;
}

/** POST served by a create override; `kind` is what decode errors call the body. */
export async function handleCreateOverride(ctx: RequestContext, override: RestCreate, name: string, kind: string, body: Buffer): Promise<void> {
  const { parts } = ctx;
  const decoded = body.length === 0 && override.emptyBodyAllowed ? {} : overrideBody(ctx, body, kind);
  const result = await override.create({
    namespace: ctx.route.namespace,
    name,
    body: decoded,
    user: ctx.user,
    now: () => parts.clock.date(),
    read: async (ns, objectName) => (await parts.storage.get(ctx.route.strategy, ns, objectName))?.object,
    capabilities: parts.capabilities,
  });
  return writeObject(ctx, result.code, result.object);
}

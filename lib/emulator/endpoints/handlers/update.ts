/**
 * PUT to a resource: the body must name the URL's object; an existing object is replaced
 * (optimistic concurrency on resourceVersion), a missing one is created when the type allows
 * create-on-update (events) and is 404 otherwise.
 */
import { badRequest, notFound } from "../../apimachinery/api-errors.js";
import { nameOf, namespaceOf, setMeta } from "../../apimachinery/object-meta.js";
import { qualifiedResourceOf, type ResourceStrategy } from "../../registry/generic/strategy.js";
import { admittedWrites, retryWrite } from "./admission.js";
import type { RequestContext } from "./context.js";
import { decodeBody, fieldValidationOf } from "./request-body.js";
import { writeObject } from "./respond.js";
import { warningHeaders, writeOptionsOf } from "./write-options.js";
import { recordWriteOwnership } from "./write-ownership.js";

export function handleUpdate(ctx: RequestContext, name: string, body: Buffer): Promise<void> {
  return retryWrite(() => updateOnce(ctx, name, body));
}

/** One attempt: the body decoded anew against the object as stored now. */
async function updateOnce(ctx: RequestContext, name: string, body: Buffer): Promise<void> {
  const { namespace } = ctx.route;
  const strategy = failpointStrategy(ctx);
  const { generic, lifecycle } = ctx.parts;
  const { dryRun } = writeOptionsOf(ctx.url, "UpdateOptions");
  const { object, warnings } = decodeBody(ctx, body, fieldValidationOf(ctx.url));
  const bodyName = nameOf(object);
  if (bodyName !== name) throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  const bodyNamespace = namespaceOf(object);
  if (strategy.namespaced && bodyNamespace !== "" && bodyNamespace !== namespace) {
    throw badRequest(`the namespace of the object (${bodyNamespace}) does not match the namespace on the request (${namespace})`);
  }
  setMeta(object, "namespace", strategy.namespaced ? namespace : undefined);

  const existing = await generic.storage.get(strategy, namespace, name);
  recordWriteOwnership(ctx, body, existing?.object, object);
  if (!existing) {
    if (!strategy.allowCreateOnUpdate) throw notFound(qualifiedResourceOf(strategy), name);
    await lifecycle.admitCreate(strategy, namespace, name);
    // The storage update path prepares the object for storage, which drops the version.
    setMeta(object, "resourceVersion", undefined);
    const created = await admittedWrites(ctx, warnings).create(strategy, object, { dryRun });
    return writeObject(ctx, 201, created, warningHeaders(warnings));
  }
  const sentVersion = object.metadata?.resourceVersion;
  const updated = await admittedWrites(ctx, warnings).update(strategy, existing, object, { dryRun });
  // A store that hands back the previous value of the key (failpoints.ts).
  const answer = ctx.parts.settings.failpoints.has("update-returns-old-object") ? existing.object : updated;
  // A server whose answer to an update echoes the version the client sent (failpoints.ts).
  const answered =
    ctx.parts.settings.failpoints.has("update-keeps-resource-version") && typeof sentVersion === "string"
      ? { ...answer, metadata: { ...answer.metadata, resourceVersion: sentVersion } }
      : answer;
  return writeObject(ctx, 200, answered, warningHeaders(warnings));
}

/**
 * The route's strategy, or a copy that denies create-on-update or unconditional updates when
 * the failpoints of a server that treats every type alike are on (failpoints.ts).
 */
function failpointStrategy(ctx: RequestContext): ResourceStrategy {
  const { strategy } = ctx.route;
  const fp = ctx.parts.settings.failpoints;
  const noCreate = fp.has("update-never-creates");
  const needsVersion = fp.has("update-requires-resource-version");
  if (!noCreate && !needsVersion) return strategy;
  return {
    ...strategy,
    allowCreateOnUpdate: strategy.allowCreateOnUpdate && !noCreate,
    allowUnconditionalUpdate: strategy.allowUnconditionalUpdate && !needsVersion,
  };
}

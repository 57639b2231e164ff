/**
 * Field ownership of a POST or PUT, as the real create and update handlers record it before
 * admission and the write (fieldManager.UpdateNoErrors): the manager is the fieldManager
 * query parameter or else the User-Agent's program name, the live object is the stored one
 * (the type's zero object for a create, also a create through PUT), and the request's own
 * managedFields decide the starting point (apimachinery/managed-fields/managed-fields.ts): none keeps the stored
 * entries, a readable list replaces them, `[]` or `[{}]` resets them.
 *
 * The decoded body drops an empty list (it is omitempty), so the reset `[]` is read from the
 * body itself. A protobuf body cannot carry an empty list apart from none, as on a real server.
 */
import { isJsonObject, type Json, type KubeObject } from "../../apimachinery/json.js";
import { setMeta } from "../../apimachinery/object-meta.js";
import { managedFieldsAfterWrite, writeManager } from "../../registry/generic/ownership.js";
import { requestBodyEncoding } from "../negotiation.js";
import type { RequestContext } from "./context.js";
import { bodyJsonForm } from "./request-body.js";

/** Whether the body sets metadata.managedFields to an empty list. */
function sendsEmptyList(ctx: RequestContext, body: Buffer): boolean {
  const encoding = requestBodyEncoding(ctx.req, ctx.parts.settings.featureGates);
  if (encoding === "protobuf") return false;
  // Without the key's text (or an escape that could spell it) the body cannot set it.
  if (!body.includes("managedFields") && !body.includes("\\")) return false;
  let value: Json;
  try {
    value = bodyJsonForm(encoding, body, false, (detail) => new Error(detail));
  } catch {
    return false;
  }
  const meta = isJsonObject(value) ? value["metadata"] : undefined;
  const list = isJsonObject(meta) ? meta["managedFields"] : undefined;
  return Array.isArray(list) && list.length === 0;
}

/** Sets `object`'s managedFields for its write over `live` (undefined for a create). */
export function recordWriteOwnership(ctx: RequestContext, body: Buffer, live: KubeObject | undefined, object: KubeObject): void {
  const manager = writeManager(ctx.url.searchParams.get("fieldManager"), ctx.req.headers["user-agent"]);
  const requested = object.metadata["managedFields"] ?? (sendsEmptyList(ctx, body) ? [] : undefined);
  const { deletionTimestamp: _t, deletionGracePeriodSeconds: _g, ...wiped } = object.metadata;
  // POST wipes these system fields before the field manager runs (WipeObjectMetaSystemFields).
  const meta = ctx.req.method === "POST" ? wiped : object.metadata;
  const next = { ...object, metadata: requested === undefined ? meta : { ...meta, managedFields: requested } };
  setMeta(object, "managedFields", managedFieldsAfterWrite(ctx.route.strategy, live, next, manager, ctx.parts.clock.date()));
}

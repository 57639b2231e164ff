/**
 * Field ownership for a served type: the per-type facts the field manager needs (schema,
 * recorded apiVersion, reset fields, decode defaults) and one call for any non-apply write.
 *
 * `managedFieldsAfterWrite` is what POST and PUT (endpoints/handlers/write-ownership.ts) and the startup
 * namespaces record, the way the real create and update handlers do (fieldManager.UpdateNoErrors
 * with the fieldManager or the User-Agent's program name, before admission and the strategy).
 * PATCH uses the same logic through managedFieldsAfterUpdate.
 */
import { isJsonObject, type Json, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import { asKubeObject } from "../../apimachinery/object-meta.js";
import { METADATA_NAME_LABEL } from "../core/namespace/strategy.js";
import { groupVersionOf, type ResourceStrategy, type SubresourceStrategy } from "./strategy.js";
import { canonicalize } from "../../apimachinery/typed-json.js";
import { formatTime } from "../../apimachinery/api-time.js";
import { fieldElement, type Path } from "../../apimachinery/managed-fields/field-set.js";
import { managedFieldsAfterUpdate, type FieldManagerContext } from "../../apimachinery/managed-fields/managed-fields.js";
import { managerFromUserAgent } from "../../apimachinery/managed-fields/manager-name.js";
import { schemaOf } from "../../apimachinery/managed-fields/schema.js";

/**
 * Fields a type's strategy resets on the main resource, which nobody owns (GetResetFields):
 * a namespace's status is written only through /status.
 */
const RESET_FIELDS: Record<string, readonly Path[]> = {
  "/namespaces": [["f:status"]],
};

/**
 * What decoding a request adds before the field manager sees the object (the type's
 * defaulting; the emulator itself adds these later, in the strategy): a namespace with a name
 * gets the kubernetes.io/metadata.name label (SetDefaults_Namespace), so its creator owns it.
 */
const DECODE_DEFAULTS: Record<string, (o: JsonObject) => JsonObject> = {
  "/namespaces": (o) => {
    const meta = isJsonObject(o["metadata"]) ? o["metadata"] : {};
    const name = meta["name"];
    if (typeof name !== "string" || name === "") return o;
    const labels = isJsonObject(meta["labels"]) ? meta["labels"] : {};
    return { ...o, metadata: { ...meta, labels: { ...labels, [METADATA_NAME_LABEL]: name } } };
  },
};

/**
 * The field manager's view of a type. A write through a subresource records it in the writer's entry and ignores that
 * subresource's reset fields instead of the main resource's (`status` resets `spec`).
 */
export function fieldManagerContext(strategy: ResourceStrategy, now: Date, sub?: SubresourceStrategy): FieldManagerContext {
  return {
    schema: schemaOf(strategy.shape),
    apiVersion: groupVersionOf(strategy),
    now: formatTime(now),
    ignored: sub ? sub.resetFields.map((f): Path => [fieldElement(f)]) : (RESET_FIELDS[`${strategy.group}/${strategy.resource}`] ?? []),
    ...(sub ? { subresource: sub.name } : {}),
  };
}

/** The type's zero object: what a create (or an apply that creates) starts from. */
export function zeroObject(strategy: ResourceStrategy): KubeObject {
  return asKubeObject(canonicalize({ kind: strategy.kind, apiVersion: groupVersionOf(strategy), metadata: {} }, strategy.shape));
}

/** managerOrUserAgent: the fieldManager query parameter, or the User-Agent's program name. */
export function writeManager(fieldManager: string | null | undefined, userAgent: string | undefined): string {
  return fieldManager || managerFromUserAgent(userAgent);
}

/**
 * The managedFields to store after a non-apply write of `next` (the decoded request object)
 * over `live` (undefined for a create). `next` carries the managedFields the request sent, if
 * any (a reset is `[]` or `[{}]`). Returns undefined when no manager owns anything.
 */
export function managedFieldsAfterWrite(
  strategy: ResourceStrategy,
  live: JsonObject | undefined,
  next: JsonObject,
  manager: string,
  now: Date,
): Json[] | undefined {
  const defaults = DECODE_DEFAULTS[`${strategy.group}/${strategy.resource}`];
  const seen = defaults ? defaults(next) : next;
  return managedFieldsAfterUpdate(fieldManagerContext(strategy, now), live ?? zeroObject(strategy), seen, manager);
}

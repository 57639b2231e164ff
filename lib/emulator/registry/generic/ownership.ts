/**
 * Field ownership for a served type: the field manager's view of it, read from the strategy's
 * parts (schema, recorded apiVersion, reset fields, decode defaults — the per-type facts are the
 * type's own, set in its folder), and one call for any non-apply write.
 *
 * `managedFieldsAfterWrite` is what POST and PUT (endpoints/handlers/write-ownership.ts) and the startup
 * namespaces record, the way the real create and update handlers do (fieldManager.UpdateNoErrors
 * with the fieldManager or the User-Agent's program name, before admission and the strategy).
 * PATCH uses the same logic through managedFieldsAfterUpdate.
 */

import { formatTime } from "../../apimachinery/api-time.js";
import type { Json, JsonObject, KubeObject } from "../../apimachinery/json.js";
import { fieldElement, type Path } from "../../apimachinery/managed-fields/field-set.js";
import { type FieldManagerContext, managedFieldsAfterUpdate } from "../../apimachinery/managed-fields/managed-fields.js";
import { managerFromUserAgent } from "../../apimachinery/managed-fields/manager-name.js";
import { schemaOf } from "../../apimachinery/managed-fields/schema.js";
import { asKubeObject } from "../../apimachinery/object-meta.js";
import { canonicalize } from "../../apimachinery/typed-json.js";
import { groupVersionOf, type ObjectSchema, type SubresourceStrategy, type TypeIdentity, type WriteStrategy } from "./strategy.js";

/** What the field manager reads of a type: its group-version, kind and shape, its reset fields, its decode defaults. */
export type OwnedType = Pick<TypeIdentity, "group" | "version" | "kind"> & Pick<ObjectSchema, "shape" | "decodeDefaults"> & Pick<WriteStrategy, "resetFields">;

/**
 * The field manager's view of a type. A write through a subresource records it in the writer's entry and ignores that
 * subresource's reset fields instead of the main resource's (`status` resets `spec`).
 */
export function fieldManagerContext(strategy: OwnedType, now: Date, sub?: SubresourceStrategy): FieldManagerContext {
  const resetFields = sub ? sub.resetFields : (strategy.resetFields ?? []);
  return {
    schema: schemaOf(strategy.shape),
    apiVersion: groupVersionOf(strategy),
    now: formatTime(now),
    ignored: resetFields.map((f): Path => [fieldElement(f)]),
    ...(sub ? { subresource: sub.name } : {}),
  };
}

/** Each shape's zero object text by kind and apiVersion (a custom resource's shape is rebuilt with its definition). */
const zeroTexts = new WeakMap<OwnedType["shape"], Map<string, string>>();

/** The type's zero object: what a create (or an apply that creates) starts from; a new object each call. */
export function zeroObject(strategy: OwnedType): KubeObject {
  const apiVersion = groupVersionOf(strategy);
  let byType = zeroTexts.get(strategy.shape);
  if (!byType) {
    byType = new Map();
    zeroTexts.set(strategy.shape, byType);
  }
  const key = `${apiVersion}/${strategy.kind}`;
  let text = byType.get(key);
  if (text === undefined) {
    text = JSON.stringify(canonicalize({ kind: strategy.kind, apiVersion, metadata: {} }, strategy.shape));
    byType.set(key, text);
  }
  return asKubeObject(JSON.parse(text));
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
export function managedFieldsAfterWrite(strategy: OwnedType, live: JsonObject | undefined, next: JsonObject, manager: string, now: Date): Json[] | undefined {
  const seen = strategy.decodeDefaults ? strategy.decodeDefaults(next) : next;
  return managedFieldsAfterUpdate(fieldManagerContext(strategy, now), live ?? zeroObject(strategy), seen, manager);
}

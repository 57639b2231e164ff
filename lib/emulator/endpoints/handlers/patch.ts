/**
 * PATCH to a resource (apiserver@v0.35.7 pkg/endpoints/handlers/patch.go), in the real
 * handler's order: the patch type (415, before anything else: the dispatcher checks it),
 * output negotiation (406) and the body (413) in the dispatcher, then
 *
 *  1. PatchOptions (422 for `PatchOptions.meta.k8s.io ""`: force without apply, apply without
 *     fieldManager, a bad fieldManager, dryRun or fieldValidation);
 *  2. the stored object: missing is 404 for every type but apply, which creates it (201);
 *  3. the patch on the stored object's JSON form: json-patch (RFC 6902), merge-patch
 *     (RFC 7386), strategic merge, or server-side apply (field ownership and conflicts);
 *  4. for the non-apply types, the result decoded as the type: a result that does not
 *     decode is 422 (`patch: Invalid value: …`), unknown fields follow fieldValidation
 *     (Warning headers under Warn, 422 under Strict, dropped under Ignore); the writer's
 *     ownership is recorded in managedFields under the fieldManager or, without one, the
 *     User-Agent's program name;
 *  5. the namespace reconciled with the URL's (400 on a mismatch) and the name checked
 *     against the URL's (400);
 *  6. the generic update (resourceVersion precondition 409, update validation 422, no write
 *     when nothing changed) or, for an apply that creates, namespace admission and the
 *     generic create. Through a subresource (`status`) the route's strategy carries the
 *     subresource's update rules, the writer's managedFields entry names the subresource,
 *     and nothing is created (404 before the patch is read). dryRun=All runs everything but the write. A watch sees MODIFIED, or
 *     ADDED for a create.
 *
 * Known differences: see patch/*.ts headers (500s answered as 400, strategic merge key order,
 * managedFields limits).
 */
import { badRequest, conflict, notFound } from "../../apimachinery/api-errors.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject } from "../../apimachinery/json.js";
import {
  applyConfiguration,
  type FieldManagerContext,
  managedFieldsAfterUpdate,
  withoutManagedFields,
} from "../../apimachinery/managed-fields/managed-fields.js";
import { asKubeObject, nameOf, setMeta, uidOf } from "../../apimachinery/object-meta.js";
import { DecodeError, decodeObject, jsonTypeName } from "../../apimachinery/typed-json.js";
import type { Failpoints } from "../../failpoints.js";
import { fieldManagerContext, writeManager, zeroObject } from "../../registry/generic/ownership.js";
import { groupVersionOf, qualifiedResourceOf, type ResourceStrategy } from "../../registry/generic/strategy.js";
import { findSubresource } from "../../registry/generic/subresources.js";
import type { StoredObject } from "../../storage/object-storage.js";
import { checkApplyConfig, gvkString, readApplyBody } from "../patch/apply-body.js";
import { inputError, PatchInputError, patchInvalid } from "../patch/errors.js";
import { goMarshalSorted } from "../patch/go-format.js";
import { applyJsonPatch, type PatchResult } from "../patch/json-patch.js";
import { isApply, type PatchType } from "../patch/media-types.js";
import { applyMergePatch } from "../patch/merge-patch.js";
import { type PatchOptions, patchOptionsOf } from "../patch/options.js";
import { applyStrategicMergePatch } from "../patch/strategic-merge.js";
import { admittedWrites, retryWrite } from "./admission.js";
import type { RequestContext } from "./context.js";
import { reconcileCreateNamespace } from "./create.js";
import { writeObject } from "./respond.js";
import { warningHeaders } from "./write-options.js";

const TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** The internal Go type a decode error names (`*core.ConfigMap`). */
function internalTypeName(strategy: ResourceStrategy): string {
  const group = strategy.internalKind.group;
  return `*${group === "" ? "core" : (group.split(".")[0] ?? group)}.${strategy.internalKind.kind}`;
}

/**
 * The patched document decoded as the type (runtime.DecodeInto in applyPatchToCurrentObject):
 * anything that does not decode is 422 naming the patched document.
 */
function decodePatched(strategy: ResourceStrategy, patched: Json, text: () => string): { object: KubeObject; unknownFields: string[] } {
  if (!isJsonObject(patched)) {
    throw patchInvalid(
      text(),
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(patched)} into Go value of type ${TYPE_META_STRUCT}`,
    );
  }
  const kind = typeof patched["kind"] === "string" && patched["kind"] ? patched["kind"] : strategy.kind;
  const apiVersion = typeof patched["apiVersion"] === "string" && patched["apiVersion"] ? patched["apiVersion"] : groupVersionOf(strategy);
  if (kind !== strategy.kind || apiVersion !== groupVersionOf(strategy)) {
    throw patchInvalid(text(), `unable to decode ${gvkString(apiVersion, kind)} into ${internalTypeName(strategy)}`);
  }
  try {
    const decoded = decodeObject({ ...patched, kind: strategy.kind, apiVersion: groupVersionOf(strategy) }, strategy.shape);
    return { object: asKubeObject(decoded.value), unknownFields: decoded.unknownFields };
  } catch (e) {
    if (e instanceof DecodeError) throw patchInvalid(text(), e.message);
    throw e;
  }
}

/** The json-patch a library without `test`, or with `move` done as `copy`, applies (failpoints.ts). */
function brokenJsonPatch(body: Buffer, failpoints: Failpoints): Buffer {
  if (!failpoints.has("json-patch-ignores-test") && !failpoints.has("json-patch-move-keeps-source")) return body;
  let ops: unknown;
  try {
    ops = JSON.parse(body.toString("utf8"));
  } catch {
    return body;
  }
  if (!Array.isArray(ops)) return body;
  const out = ops
    .filter((o) => !(failpoints.has("json-patch-ignores-test") && isJsonObject(o) && o["op"] === "test"))
    .map((o) => (failpoints.has("json-patch-move-keeps-source") && isJsonObject(o) && o["op"] === "move" ? { ...o, op: "copy" } : o));
  return Buffer.from(JSON.stringify(out));
}

/** A merge patch with its null members left out, as a merge that skips nulls sees it (failpoints.ts). */
function withoutNulls(body: Buffer): Buffer {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(body.toString("utf8")), (_k, v: unknown) => (v === null ? undefined : v)));
  } catch {
    return body;
  }
}

/** json-patch, merge-patch or strategic merge on the stored object, then decode and ownership. */
function patchExisting(
  ctx: RequestContext,
  patchType: Exclude<PatchType, "apply-yaml" | "apply-cbor">,
  stored: StoredObject,
  body: Buffer,
  options: PatchOptions,
  fm: FieldManagerContext,
  warnings: string[],
): KubeObject {
  const { strategy } = ctx.route;
  const live = stored.object;
  const failpoints = ctx.parts.settings.failpoints;
  let result: PatchResult;
  let text: () => string;
  // A server without strategic merge that falls back to the merge patch (failpoints.ts).
  const type = patchType === "strategic" && failpoints.has("strategic-merge-as-merge-patch") ? "merge" : patchType;
  // Broken json-patch and merge-patch libraries, seen as the patch they get (failpoints.ts).
  const input =
    type === "json" ? brokenJsonPatch(body, failpoints) : type === "merge" && failpoints.has("merge-patch-ignores-null") ? withoutNulls(body) : body;
  if (type === "strategic") {
    const smp = applyStrategicMergePatch(live, input, options.fieldValidation, fm.schema);
    result = smp;
    text = () => smp.patchText;
  } else {
    result = type === "json" ? applyJsonPatch(live, input, options.fieldValidation) : applyMergePatch(live, input, options.fieldValidation);
    text = () => goMarshalSorted(result.patched);
  }
  const { object, unknownFields } = decodePatched(strategy, result.patched, text);
  if (options.fieldValidation !== "Ignore") {
    const errors = [...result.strictErrors, ...unknownFields.map((f) => `unknown field "${f}"`)];
    if (errors.length && options.fieldValidation === "Strict") throw patchInvalid(text(), `strict decoding error: ${errors.join(", ")}`);
    for (const e of errors) warnings.push(`299 - ${JSON.stringify(e)}`);
  }
  // Ownership reads the managedFields as the patch left them (a reset is `[]` or `[{}]`,
  // which the decode does not keep).
  const patchedMeta = isJsonObject(result.patched) && isJsonObject(result.patched["metadata"]) ? result.patched["metadata"] : {};
  const requested = patchedMeta["managedFields"];
  const base = withoutManagedFields(object);
  const next: JsonObject = requested === undefined ? base : { ...base, metadata: { ...object.metadata, managedFields: requested } };
  const manager = writeManager(options.fieldManager, ctx.req.headers["user-agent"]);
  setMeta(object, "managedFields", managedFieldsAfterUpdate(fm, live, next, manager));
  return object;
}

/** Server-side apply onto the stored object, or onto the zero object to create one. */
function applyObject(
  ctx: RequestContext,
  patchType: PatchType,
  stored: StoredObject | undefined,
  body: Buffer,
  options: PatchOptions,
  fm: FieldManagerContext,
  warnings: string[],
): KubeObject {
  const { strategy } = ctx.route;
  const failpoints = ctx.parts.settings.failpoints;
  // Apply body decoders that read only one of YAML and JSON (failpoints.ts).
  const asJson = body.toString("utf8").trimStart().startsWith("{");
  if (patchType === "apply-yaml" && failpoints.has("apply-json-body-refused") && asJson) {
    throw badRequest("error decoding patch: yaml: JSON documents are not read here, only YAML block documents");
  }
  if (patchType === "apply-yaml" && failpoints.has("apply-yaml-body-refused")) {
    try {
      JSON.parse(body.toString("utf8"));
    } catch (e) {
      throw badRequest(`error decoding patch: ${(e as Error).message}`);
    }
  }
  const { config, strictError } = readApplyBody(patchType, body, options.fieldValidation);
  checkApplyConfig(strategy, fm.schema, config);
  const empty = zeroObject(strategy);
  // Apply done as a JSON merge patch of the configuration, without ownership (failpoints.ts).
  if (failpoints.has("apply-as-merge-patch")) {
    const base = stored?.object ?? empty;
    const merged = applyMergePatch(base, Buffer.from(JSON.stringify(config)), "Ignore").patched as JsonObject;
    const object = asKubeObject(decodeObject({ ...merged, kind: strategy.kind, apiVersion: groupVersionOf(strategy) }, strategy.shape).value);
    setMeta(object, "managedFields", stored?.object.metadata["managedFields"]);
    return object;
  }
  const result = applyConfiguration(fm, stored?.object ?? empty, config, options.fieldManager, options.force ?? false, empty, stored !== undefined);
  if (strictError !== undefined) {
    if (options.fieldValidation === "Strict") throw badRequest(`error strict decoding patch: ${strictError}`);
    // A header value cannot hold the YAML error's line break.
    warnings.push(`299 - ${JSON.stringify(strictError.replace(/\n\s*/g, " "))}`);
  }
  let object: KubeObject;
  try {
    object = asKubeObject(decodeObject({ ...result.object, kind: strategy.kind, apiVersion: groupVersionOf(strategy) }, strategy.shape).value);
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(e.message);
    throw e;
  }
  setMeta(object, "managedFields", result.managedFields);
  return object;
}

/** EnsureObjectNamespaceMatchesRequestNamespace, then checkName (patcher.applyPatch). */
function checkIdentity(strategy: ResourceStrategy, namespace: string, name: string, o: KubeObject): void {
  reconcileCreateNamespace(strategy, namespace, o);
  const objName = nameOf(o);
  if (!objName) throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name parameter required.`);
  if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
}

export function handlePatch(ctx: RequestContext, name: string, patchType: PatchType, body: Buffer): Promise<void> {
  return retryWrite(() => patchOnce(ctx, name, patchType, body));
}

/** One attempt: the patch applied to the object as stored now. */
async function patchOnce(ctx: RequestContext, name: string, patchType: PatchType, body: Buffer): Promise<void> {
  const { strategy, namespace } = ctx.route;
  const { generic, lifecycle, clock } = ctx.parts;
  const options = patchOptionsOf(ctx.url, patchType);
  const stored = await generic.storage.get(strategy, namespace, name);
  const apply = isApply(patchType);
  const sub = ctx.route.subresource === undefined ? undefined : findSubresource(strategy, ctx.route.subresource);
  // The non-apply mechanisms cannot create (createNewObject is NotFound), before reading the
  // patch; nor can a subresource, whose storage refuses create on update before patching.
  if (!stored && (!apply || sub)) throw notFound(qualifiedResourceOf(strategy), name);
  // A server whose apply only patches (failpoints.ts).
  if (!stored && ctx.parts.settings.failpoints.has("apply-cannot-create")) throw notFound(qualifiedResourceOf(strategy), name);

  const fm = fieldManagerContext(strategy, clock.date(), sub);
  const warnings: string[] = [];
  let object: KubeObject;
  try {
    if (apply) object = applyObject(ctx, patchType, stored, body, options, fm, warnings);
    else if (stored) object = patchExisting(ctx, patchType as Exclude<PatchType, "apply-yaml" | "apply-cbor">, stored, body, options, fm, warnings);
    else throw notFound(qualifiedResourceOf(strategy), name);
  } catch (e) {
    if (e instanceof PatchInputError) throw inputError(e);
    throw e;
  }
  checkIdentity(strategy, namespace, name, object);

  if (!stored) {
    // An apply that creates: a uid in the configuration names an object that is not there.
    if (uidOf(object)) {
      throw conflict(qualifiedResourceOf(strategy), name, `uid mismatch: the provided object specified uid ${uidOf(object)}, and no existing object was found`);
    }
    await lifecycle.admitCreate(strategy, namespace, name);
    // Creation through the update path prepares the object for storage, dropping any version.
    setMeta(object, "resourceVersion", undefined);
    const created = await admittedWrites(ctx, warnings).create(strategy, object, { dryRun: options.dryRun, apply });
    return writeObject(ctx, 201, created, warningHeaders(warnings));
  }
  // A server whose apply always writes, even when it changes nothing (failpoints.ts).
  const writeUnchanged = apply && ctx.parts.settings.failpoints.has("apply-noop-writes");
  const updated = await admittedWrites(ctx, warnings).update(strategy, stored, object, {
    dryRun: options.dryRun,
    apply,
    ...(writeUnchanged ? { writeUnchanged } : {}),
  });
  return writeObject(ctx, 200, updated, warningHeaders(warnings));
}

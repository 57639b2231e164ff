/**
 * DeleteOptions from the query and an optional body (the body wins), then the server's
 * DeleteOptions validation (422 on kind DeleteOptions.meta.k8s.io).
 *
 * ignoreStoreReadErrorWithClusterBreakingPotential=true (the unsafe force delete, doc1 "Delete
 * options") with the AllowUnsafeMalformedObjectDeletion gate off is refused here with a
 * Forbidden cause naming the gate (tollgate's choice: the option is never silently dropped, so a
 * client cannot mistake a normal delete for a forced one); with the gate on, each of dryRun,
 * gracePeriodSeconds, orphanDependents, preconditions and propagationPolicy set alongside it is
 * an Invalid cause of its own (apimachinery ValidateDeleteOptions).
 */

import { parseGoBool } from "../../../wire/go-strconv.js";
import { badRequest, invalidError } from "../../apimachinery/api-errors.js";
import { type FieldError, forbidden, invalid as invalidField, notSupported } from "../../apimachinery/field-errors.js";
import { goJsonSyntaxError, summarizeBody } from "../../apimachinery/go-json-errors.js";
import { isJsonObject, type Json, obj, parseJsonLimited } from "../../apimachinery/json.js";
import { BOOL, DecodeError, decodeObject, field, INT64, jsonTypeName, listOf, STRING, struct } from "../../apimachinery/typed-json.js";
import type { DeleteOptions } from "../../registry/generic/options.js";
import { requestBodyEncoding } from "../negotiation.js";
import type { RequestContext } from "./context.js";
import { bodyJsonForm } from "./request-body.js";
import { dryRunOf } from "./write-options.js";

export const DELETE_OPTIONS_SHAPE = struct("v1", "DeleteOptions", [
  field("kind", STRING),
  field("apiVersion", STRING),
  field("gracePeriodSeconds", INT64, "pointer"),
  field("preconditions", struct("v1", "Preconditions", [field("uid", STRING, "pointer"), field("resourceVersion", STRING, "pointer")]), "pointer"),
  field("orphanDependents", BOOL, "pointer"),
  field("propagationPolicy", STRING, "pointer"),
  field("dryRun", listOf(STRING)),
  field("ignoreStoreReadErrorWithClusterBreakingPotential", BOOL, "pointer"),
]);

const POLICIES = ["Foreground", "Background", "Orphan"];

interface Draft {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun: string[];
  preconditions?: { uid?: string; resourceVersion?: string };
  ignoreStoreReadError?: boolean;
}

export const FORCE_OPTION = "ignoreStoreReadErrorWithClusterBreakingPotential";

function fromQuery(params: URLSearchParams): Draft {
  const draft: Draft = { dryRun: params.getAll("dryRun") };
  const grace = params.get("gracePeriodSeconds");
  if (grace !== null && grace !== "") {
    if (!/^[+-]?[0-9]+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    draft.gracePeriodSeconds = Number(grace);
  }
  const policy = params.get("propagationPolicy");
  if (policy !== null && policy !== "") draft.propagationPolicy = policy;
  const orphan = params.get("orphanDependents");
  if (orphan !== null && orphan !== "") draft.orphanDependents = parseGoBool(orphan);
  return draft;
}

function mergeBody(draft: Draft, body: Buffer): void {
  const text = body.toString("utf8");
  if (text.trim() === "") return;
  const unrecognized = (detail: string): Error =>
    badRequest(
      `the object provided is unrecognized (must be of type DeleteOptions): couldn't get version/kind; json parse error: ${detail} (${summarizeBody(body)})`,
    );
  let parsed: Json;
  try {
    // Go's JSON nesting limit too (wire-facts §11, JSON depth).
    parsed = parseJsonLimited(text);
  } catch (e) {
    throw unrecognized(goJsonSyntaxError(text, e));
  }
  if (!isJsonObject(parsed)) throw unrecognized(`json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type v1.DeleteOptions`);
  const kind = parsed["kind"];
  if (kind !== undefined && kind !== null && kind !== "" && kind !== "DeleteOptions") {
    throw badRequest(`decoded object cannot be converted to DeleteOptions`);
  }
  let decoded: ReturnType<typeof decodeObject>["value"];
  try {
    decoded = decodeObject(parsed, DELETE_OPTIONS_SHAPE).value;
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(`DeleteOptions in version "v1" cannot be handled as a DeleteOptions: ${e.message}`);
    throw e;
  }
  const v = decoded;
  if (typeof v["gracePeriodSeconds"] === "number") draft.gracePeriodSeconds = v["gracePeriodSeconds"];
  if (typeof v["propagationPolicy"] === "string") draft.propagationPolicy = v["propagationPolicy"];
  if (typeof v["orphanDependents"] === "boolean") draft.orphanDependents = v["orphanDependents"];
  if (Array.isArray(v["dryRun"])) draft.dryRun = v["dryRun"].filter((x): x is string => typeof x === "string");
  if (typeof v[FORCE_OPTION] === "boolean") draft.ignoreStoreReadError = v[FORCE_OPTION];
  const pre = obj(v, "preconditions");
  if (pre) {
    draft.preconditions = {};
    if (typeof pre["uid"] === "string") draft.preconditions.uid = pre["uid"];
    if (typeof pre["resourceVersion"] === "string") draft.preconditions.resourceVersion = pre["resourceVersion"];
  }
}

export function parseDeleteOptions(ctx: RequestContext, body: Buffer): DeleteOptions {
  const draft = fromQuery(ctx.url.searchParams);
  if (body.length > 0) {
    // JSON, YAML, protobuf (and CBOR with its gate), as the metainternalversion codecs take them.
    const encoding = requestBodyEncoding(ctx.req, ctx.parts.settings.featureGates);
    const unrecognized = (detail: string): Error =>
      badRequest(`the object provided is unrecognized (must be of type DeleteOptions): couldn't get version/kind; ${detail} (${summarizeBody(body)})`);
    const convertFailed = (detail: string): Error =>
      badRequest(`the object provided is unrecognized (must be of type DeleteOptions): ${detail} (${summarizeBody(body)})`);
    mergeBody(draft, encoding === "json" ? body : Buffer.from(JSON.stringify(bodyJsonForm(encoding, body, false, unrecognized, convertFailed)), "utf8"));
  }
  // An option read by its presence, not its value (failpoint force-option-presence-counts).
  if (draft.ignoreStoreReadError === false && ctx.parts.settings.failpoints.has("force-option-presence-counts")) draft.ignoreStoreReadError = true;
  const errors: FieldError[] = [];
  if (draft.orphanDependents !== undefined && draft.propagationPolicy !== undefined) {
    errors.push(invalidField("propagationPolicy", draft.propagationPolicy, "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (draft.propagationPolicy !== undefined && !POLICIES.includes(draft.propagationPolicy)) {
    errors.push(notSupported("propagationPolicy", draft.propagationPolicy, [...POLICIES, "nil"]));
  }
  const force = draft.ignoreStoreReadError === true;
  if (force && !ctx.parts.settings.featureGates.AllowUnsafeMalformedObjectDeletion) {
    errors.push(forbidden(FORCE_OPTION, "only allowed when the AllowUnsafeMalformedObjectDeletion feature gate is enabled"));
  } else if (force) {
    const together = "can not be set together with ignoreStoreReadErrorWithClusterBreakingPotential";
    if (draft.dryRun.length > 0) errors.push(invalidField("dryRun", draft.dryRun, together));
    if (draft.gracePeriodSeconds !== undefined) errors.push(invalidField("gracePeriodSeconds", draft.gracePeriodSeconds, together));
    if (draft.orphanDependents !== undefined) errors.push(invalidField("orphanDependents", draft.orphanDependents, together));
    if (draft.preconditions !== undefined) errors.push(invalidField("preconditions", draft.preconditions, together));
    if (draft.propagationPolicy !== undefined) errors.push(invalidField("propagationPolicy", draft.propagationPolicy, together));
  }
  if (errors.length) throw invalidError({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", errors);
  return {
    preconditions: draft.preconditions,
    propagationPolicy: draft.propagationPolicy,
    gracePeriodSeconds: draft.gracePeriodSeconds,
    orphanDependents: draft.orphanDependents,
    dryRun: dryRunOf(draft.dryRun, "DeleteOptions"),
    ignoreStoreReadErrorWithClusterBreakingPotential: force,
  };
}

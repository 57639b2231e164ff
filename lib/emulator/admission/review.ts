/**
 * AdmissionReview bodies (api admission/v1 and v1beta1, apiserver admission/plugin/webhook/request):
 * the request a webhook receives, in Go field order, and the checks on its response
 * (VerifyAdmissionResponse), whose texts become `received invalid webhook response: …`.
 *
 * The version sent is the first of the webhook's admissionReviewVersions the server knows
 * (v1, v1beta1). A v1 response must repeat the request uid and be an admission.k8s.io/v1
 * AdmissionReview; v1beta1 responses are taken as they come, their patch read as a JSONPatch.
 *
 * Known difference: the response is read with JSON.parse and light type checks, not Go's typed
 * decoder, so a wrongly typed field is described in the emulator's words.
 */
import { randomUUID } from "node:crypto";
import { goJsonSyntaxError } from "../apimachinery/go-json-errors.js";
import { isJsonObject, type Json, type JsonObject, type KubeObject } from "../apimachinery/json.js";
import { jsonTypeName } from "../apimachinery/typed-json.js";
import type { Operation } from "./matching.js";

const REVIEW_GROUP = "admission.k8s.io";
const KNOWN_VERSIONS = ["v1", "v1beta1"];

/** authentication/v1 UserInfo. */
export interface UserInfo {
  readonly username: string;
  readonly groups: readonly string[];
}

/** Everything a review request carries about the request. */
export interface ReviewAttributes {
  readonly operation: Operation;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
  /** The operation's options object (CreateOptions, UpdateOptions, DeleteOptions of meta.k8s.io/v1). */
  readonly options: JsonObject;
  readonly userInfo: UserInfo;
}

export interface ReviewRequest {
  readonly uid: string;
  readonly version: string;
  readonly body: string;
}

/** The review version to send, or undefined when the webhook accepts none the server knows. */
export function reviewVersionFor(versions: readonly string[]): string | undefined {
  return versions.find((v) => KNOWN_VERSIONS.includes(v));
}

/** CreateV1AdmissionReview (v1beta1 has the same request fields). */
export function reviewRequest(version: string, a: ReviewAttributes): ReviewRequest {
  const uid = randomUUID();
  const request: JsonObject = {
    uid,
    kind: { group: a.group, version: a.version, kind: a.kind },
    resource: { group: a.group, version: a.version, resource: a.resource },
  };
  if (a.subresource) request["subResource"] = a.subresource;
  request["requestKind"] = { group: a.group, version: a.version, kind: a.kind };
  request["requestResource"] = { group: a.group, version: a.version, resource: a.resource };
  if (a.subresource) request["requestSubResource"] = a.subresource;
  if (a.name) request["name"] = a.name;
  if (a.namespace) request["namespace"] = a.namespace;
  request["operation"] = a.operation;
  const userInfo: JsonObject = {};
  if (a.userInfo.username) userInfo["username"] = a.userInfo.username;
  if (a.userInfo.groups.length) userInfo["groups"] = [...a.userInfo.groups];
  request["userInfo"] = userInfo;
  request["object"] = a.object ?? null;
  request["oldObject"] = a.oldObject ?? null;
  request["dryRun"] = a.dryRun;
  request["options"] = a.options;
  return { uid, version, body: JSON.stringify({ kind: "AdmissionReview", apiVersion: `${REVIEW_GROUP}/${version}`, request }) };
}

/** What a webhook answered, once checked. */
export interface ReviewResponse {
  readonly allowed: boolean;
  /** The JSONPatch operations of a mutating webhook, decoded from base64 (undefined: no patch). */
  readonly patch: Buffer | undefined;
  readonly patchType: string;
  /** The Status the webhook gave with a denial. */
  readonly result: JsonObject | undefined;
  readonly warnings: readonly string[];
}

/** A response that is not a valid review: the text after `received invalid webhook response: ` (or a decode error). */
export class InvalidReviewResponse extends Error {
  constructor(
    message: string,
    /** True for a body that does not decode at all (client-go's decode error, not the verification's). */
    readonly undecodable: boolean,
  ) {
    super(message);
    this.name = "InvalidReviewResponse";
  }
}

const decodeFail = (message: string): InvalidReviewResponse => new InvalidReviewResponse(message, true);
const verifyFail = (message: string): InvalidReviewResponse => new InvalidReviewResponse(message, false);

function typed<T extends Json>(value: Json | undefined, check: (v: Json) => v is T, path: string, goType: string): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw decodeFail(`json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${path} of type ${goType}`);
  return value;
}

const isString = (v: Json): v is string => typeof v === "string";
const isBool = (v: Json): v is boolean => typeof v === "boolean";
const isStringList = (v: Json): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** Decodes and verifies a response body (VerifyAdmissionResponse). */
export function readReviewResponse(text: string, sent: ReviewRequest, mutating: boolean): ReviewResponse {
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch (e) {
    throw decodeFail(`couldn't get version/kind; json parse error: ${goJsonSyntaxError(text, e)}`);
  }
  if (!isJsonObject(parsed))
    throw decodeFail(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(parsed)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const response = parsed["response"];
  if (response === undefined || response === null) throw verifyFail("webhook response was absent");
  if (!isJsonObject(response))
    throw decodeFail(
      `json: cannot unmarshal ${jsonTypeName(response)} into Go struct field AdmissionReview.response of type ${sent.version}.AdmissionResponse`,
    );
  const field = (name: string): string => `AdmissionReview.response.${name}`;
  const uid = typed(response["uid"], isString, field("uid"), "types.UID") ?? "";
  const allowed = typed(response["allowed"], isBool, field("allowed"), "bool") ?? false;
  const patchText = typed(response["patch"], isString, field("patch"), "[]uint8");
  const patchTypeValue = typed(response["patchType"], isString, field("patchType"), `${sent.version}.PatchType`);
  const warnings = typed(response["warnings"], isStringList, field("warnings"), "[]string") ?? [];
  const result = response["status"];
  if (result !== undefined && result !== null && !isJsonObject(result)) {
    throw decodeFail(`json: cannot unmarshal ${jsonTypeName(result)} into Go struct field ${field("status")} of type v1.Status`);
  }
  let patch: Buffer | undefined;
  if (patchText !== undefined) {
    if (/[^A-Za-z0-9+/=]/.test(patchText) || patchText.length % 4 !== 0)
      throw decodeFail(
        `illegal base64 data at input byte ${patchText.search(/[^A-Za-z0-9+/=]/) >= 0 ? patchText.search(/[^A-Za-z0-9+/=]/) : patchText.length}`,
      );
    patch = Buffer.from(patchText, "base64");
    if (patch.length === 0) patch = undefined;
  }
  if (sent.version === "v1beta1") {
    return {
      allowed,
      patch: mutating ? patch : undefined,
      patchType: mutating && patch ? "JSONPatch" : "",
      result: isJsonObject(result) ? result : undefined,
      warnings,
    };
  }
  if (uid !== sent.uid) throw verifyFail(`expected response.uid=${JSON.stringify(sent.uid)}, got ${JSON.stringify(uid)}`);
  const apiVersion = typeof parsed["apiVersion"] === "string" ? parsed["apiVersion"] : "";
  const kind = typeof parsed["kind"] === "string" ? parsed["kind"] : "";
  if (apiVersion !== `${REVIEW_GROUP}/v1` || kind !== "AdmissionReview") {
    throw verifyFail(`expected webhook response of ${REVIEW_GROUP}/v1, Kind=AdmissionReview, got ${apiVersion}, Kind=${kind}`);
  }
  let patchType = "";
  if (mutating) {
    if (patch && patchTypeValue === undefined) throw verifyFail("webhook returned response.patch but not response.patchType");
    if (!patch && patchTypeValue !== undefined) throw verifyFail("webhook returned response.patchType but not response.patch");
    if (patchTypeValue !== undefined) {
      if (patchTypeValue === "") throw verifyFail(`webhook returned invalid response.patchType of ""`);
      patchType = patchTypeValue;
    }
  } else {
    if (patch) throw verifyFail("validating webhook may not return response.patch");
    if (patchTypeValue !== undefined) throw verifyFail("validating webhook may not return response.patchType");
  }
  return { allowed, patch: mutating ? patch : undefined, patchType, result: isJsonObject(result) ? result : undefined, warnings };
}

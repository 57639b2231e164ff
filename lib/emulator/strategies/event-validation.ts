/**
 * Validation of events.k8s.io/v1 Events as the real server runs it (wire-facts §7): on the
 * internal core type, so paths use core names (involvedObject, message, source, …). Rules are
 * kept as small named steps in the real order so the full update rules can be added in place.
 */
import { invalid, required, type FieldError } from "../field-errors.js";
import { obj, str, type Json, type KubeObject } from "../json.js";
import { dns1123Subdomain, qualifiedName } from "../name-validation.js";
import { namespaceOf, validateObjectMeta, validateObjectMetaUpdate } from "../object-meta.js";

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

const isSet = (v: Json | undefined): boolean => v !== undefined && v !== null;
const byteLength = (s: string): number => Buffer.byteLength(s);

/** Required when empty, then a length cap reported with an empty value (as upstream does). */
function requiredWithLimit(path: string, value: string, limit: number): FieldError[] {
  const errs: FieldError[] = [];
  if (value.length === 0) errs.push(required(path));
  if (byteLength(value) > limit) errs.push(invalid(path, "", `can have at most ${limit} characters`));
  return errs;
}

/** L1–L10: the rules every Event version gets, on create and on update. */
function legacyRules(e: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const ns = namespaceOf(e);
  const regardingNs = str(obj(e, "regarding"), "namespace");
  const mismatch = (): FieldError => invalid("involvedObject.namespace", regardingNs, "does not match event.namespace");
  if (!isSet(e["eventTime"])) {
    if (regardingNs === "") {
      if (ns !== "" && ns !== "default") errs.push(mismatch());
    } else if (ns !== regardingNs) {
      errs.push(mismatch());
    }
  } else {
    if (regardingNs === "" && ns !== "default" && ns !== "kube-system") errs.push(mismatch());
    const controller = str(e, "reportingController");
    if (controller === "") errs.push(required("reportingController"));
    for (const msg of qualifiedName(controller)) errs.push(invalid("reportingController", controller, msg));
    errs.push(...requiredWithLimit("reportingInstance", str(e, "reportingInstance"), REPORTING_INSTANCE_LIMIT));
    errs.push(...requiredWithLimit("action", str(e, "action"), ACTION_LIMIT));
    errs.push(...requiredWithLimit("reason", str(e, "reason"), REASON_LIMIT));
    if (byteLength(str(e, "note")) > NOTE_LIMIT) errs.push(invalid("message", "", `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const msg of dns1123Subdomain(ns)) errs.push(invalid("namespace", ns, msg));
  return errs;
}

/** C2/C3: a series needs count >= 2 and a lastObservedTime. */
function seriesRules(e: KubeObject): FieldError[] {
  const series = obj(e, "series");
  if (!series) return [];
  const errs: FieldError[] = [];
  const count = series["count"];
  if (typeof count !== "number" || count < 2) errs.push(invalid("series.count", "", "should be at least 2"));
  if (!isSet(series["lastObservedTime"])) errs.push(required("series.lastObservedTime"));
  return errs;
}

/** C4–C9: the strict create rules of events.k8s.io/v1. */
function strictCreateRules(e: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!isSet(e["eventTime"])) errs.push(required("eventTime"));
  const type = str(e, "type");
  if (type !== "Normal" && type !== "Warning") errs.push(invalid("type", "", `has invalid value: ${type}`));
  if (isSet(e["deprecatedFirstTimestamp"])) errs.push(invalid("firstTimestamp", "", "needs to be unset"));
  if (isSet(e["deprecatedLastTimestamp"])) errs.push(invalid("lastTimestamp", "", "needs to be unset"));
  if (typeof e["deprecatedCount"] === "number" && e["deprecatedCount"] !== 0) errs.push(invalid("count", "", "needs to be unset"));
  const source = obj(e, "deprecatedSource");
  if (str(source, "component") !== "" || str(source, "host") !== "") errs.push(invalid("source", "", "needs to be unset"));
  return errs;
}

export function validateEventCreate(e: KubeObject): FieldError[] {
  return [
    ...legacyRules(e),
    ...validateObjectMeta(e, true, dns1123Subdomain),
    ...seriesRules(e),
    ...strictCreateRules(e),
  ];
}

/**
 * Update: legacy rules, ObjectMeta update rules, series rules when the series changed.
 * TODO(later): the immutability of involvedObject, reason, message, source, timestamps, count,
 * type, eventTime, action, related, reportingController and reportingInstance (wire-facts §7).
 */
export function validateEventUpdate(e: KubeObject, old: KubeObject): FieldError[] {
  const seriesChanged = JSON.stringify(e["series"] ?? null) !== JSON.stringify(old["series"] ?? null);
  return [...legacyRules(e), ...validateObjectMetaUpdate(e, old), ...(seriesChanged ? seriesRules(e) : [])];
}

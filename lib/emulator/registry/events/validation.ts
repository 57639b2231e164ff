/**
 * Validation of Events as the real server runs it (wire-facts §7; k/k
 * pkg/apis/core/validation/events.go): on the internal core type, so paths use core names
 * (involvedObject, message, source, …) whichever group the request came through. The rules
 * read the events.k8s.io/v1 form (the stored form, strategy.ts); a core v1 request is
 * converted to it first (core-view.ts).
 *
 * The request's group-version picks the rule set: events.k8s.io/v1 gets the legacy rules plus
 * the strict create and update rules; core v1 gets only the legacy rules, with its own field
 * name for the reporting controller. On update the generic registry's common checks
 * (ObjectMeta update rules: identity fields, no new finalizers on a terminating object, labels…)
 * come first for both, as BeforeUpdate runs them before the strategy.
 */
import { type FieldError, invalid, required } from "../../apimachinery/field-errors.js";
import { goPrinted, goStringStruct, goTimeString } from "../../apimachinery/go-printed.js";
import { type Json, type JsonObject, type KubeObject, obj, str } from "../../apimachinery/json.js";
import { dns1123Subdomain, pathSegmentName, qualifiedName } from "../../apimachinery/name-validation.js";
import { namespaceOf, validateObjectMeta, validateObjectMetaUpdate } from "../../apimachinery/object-meta.js";
import { type FailpointName, type Failpoints, NO_FAILPOINTS } from "../../failpoints.js";

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** The group-version a request came through: it decides the rule set and one field name. */
export type EventRequestVersion = "events.k8s.io/v1" | "v1";

const isSet = (v: Json | undefined): boolean => v !== undefined && v !== null;

/** The length checks, as upstream (bytes, limit inclusive, bad value ""), or wrong as a failpoint asks (failpoints.ts). */
function lengthCheck(fp: Failpoints): { over: (value: string, limit: number) => boolean; shown: (value: string) => string } {
  const length = fp.has("event-limits-count-characters") ? (v: string) => v.length : (v: string) => Buffer.byteLength(v);
  const over = fp.has("event-length-limit-exclusive") ? (v: string, limit: number) => length(v) >= limit : (v: string, limit: number) => length(v) > limit;
  return { over, shown: (v) => (fp.has("event-length-errors-show-value") ? v : "") };
}

/** Required when empty, then a length cap reported with an empty value (as upstream does). */
function requiredWithLimit(path: string, value: string, limit: number, fp: Failpoints): FieldError[] {
  const errs: FieldError[] = [];
  const { over, shown } = lengthCheck(fp);
  if (value.length === 0 && !fp.has("event-strings-optional")) errs.push(required(path));
  if (over(value, limit)) errs.push(invalid(path, shown(value), `can have at most ${limit} characters`));
  return errs;
}

/**
 * L1–L10: the rules every Event version gets, on create and on update. L4/L5 name the
 * controller field as the request's version spells it (core v1: reportingComponent).
 */
function legacyRules(e: KubeObject, version: EventRequestVersion, fp: Failpoints): FieldError[] {
  const errs: FieldError[] = [];
  const ns = namespaceOf(e);
  const regardingNs = str(obj(e, "regarding"), "namespace");
  const mismatch = (): FieldError => invalid("involvedObject.namespace", regardingNs, "does not match event.namespace");
  // A server that never relates regarding's namespace to the Event's (failpoints.ts).
  const pushMismatch = (): void => {
    if (!fp.has("event-regarding-namespace-unchecked")) errs.push(mismatch());
  };
  if (!isSet(e["eventTime"])) {
    if (regardingNs === "") {
      if (ns !== "" && ns !== "default") pushMismatch();
    } else if (ns !== regardingNs) {
      pushMismatch();
    }
  } else {
    if (regardingNs === "" && ns !== "default" && ns !== "kube-system") pushMismatch();
    const controllerPath = version === "v1" ? "reportingComponent" : "reportingController";
    const controller = str(e, "reportingController");
    // Failpoints (failpoints.ts): an empty controller skipped altogether, or any non-empty one taken.
    const skipController = controller === "" ? fp.has("event-strings-optional") : fp.has("event-reporting-controller-any-form");
    if (!skipController) {
      if (controller === "") errs.push(required(controllerPath));
      for (const msg of qualifiedName(controller)) errs.push(invalid(controllerPath, controller, msg));
    }
    errs.push(...requiredWithLimit("reportingInstance", str(e, "reportingInstance"), REPORTING_INSTANCE_LIMIT, fp));
    errs.push(...requiredWithLimit("action", str(e, "action"), ACTION_LIMIT, fp));
    errs.push(...requiredWithLimit("reason", str(e, "reason"), REASON_LIMIT, fp));
    const { over, shown } = lengthCheck(fp);
    const note = str(e, "note");
    if (over(note, NOTE_LIMIT)) errs.push(invalid("message", shown(note), `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const msg of dns1123Subdomain(ns)) errs.push(invalid("namespace", ns, msg));
  return errs;
}

/** C2/C3: a series needs count >= 2 and a lastObservedTime. */
function seriesRules(e: KubeObject, fp: Failpoints): FieldError[] {
  const series = obj(e, "series");
  if (!series) return [];
  const errs: FieldError[] = [];
  const count = series["count"];
  // Failpoints (failpoints.ts): the lower bound off by one, lastObservedTime optional.
  const min = fp.has("event-series-count-min-1") ? 1 : 2;
  if (typeof count !== "number" || count < min) errs.push(invalid("series.count", "", "should be at least 2"));
  if (!isSet(series["lastObservedTime"]) && !fp.has("event-series-last-observed-optional")) errs.push(required("series.lastObservedTime"));
  return errs;
}

/** C4–C9: the strict create rules of events.k8s.io/v1. */
function strictCreateRules(e: KubeObject, fp: Failpoints): FieldError[] {
  const errs: FieldError[] = [];
  if (!isSet(e["eventTime"]) && !fp.has("event-eventtime-optional")) errs.push(required("eventTime"));
  const type = str(e, "type");
  // Failpoints (failpoints.ts): any non-empty type taken, or an empty type taken.
  const typeSkipped = type === "" ? fp.has("event-type-empty-allowed") : fp.has("event-type-any");
  if (type !== "Normal" && type !== "Warning" && !typeSkipped) errs.push(invalid("type", lengthCheck(fp).shown(type), `has invalid value: ${type}`));
  // A server that runs only the legacy rules on the deprecated fields, as for core v1 (failpoints.ts).
  if (fp.has("event-deprecated-fields-allowed")) return errs;
  if (isSet(e["deprecatedFirstTimestamp"])) errs.push(invalid("firstTimestamp", "", "needs to be unset"));
  if (isSet(e["deprecatedLastTimestamp"])) errs.push(invalid("lastTimestamp", "", "needs to be unset"));
  if (typeof e["deprecatedCount"] === "number" && e["deprecatedCount"] !== 0) errs.push(invalid("count", "", "needs to be unset"));
  const source = obj(e, "deprecatedSource");
  if (str(source, "component") !== "" || str(source, "host") !== "") errs.push(invalid("source", "", "needs to be unset"));
  return errs;
}

export function validateEventCreate(e: KubeObject, version: EventRequestVersion = "events.k8s.io/v1", fp: Failpoints = NO_FAILPOINTS): FieldError[] {
  const legacy = legacyRules(e, version, fp);
  if (version === "v1") {
    // BeforeCreate: the strategy's errors alone when it fails, else the generic ObjectMeta check.
    return legacy.length ? legacy : validateObjectMeta(e, true, pathSegmentName);
  }
  // A server that checks the name with core v1's looser rule (failpoints.ts).
  const nameRule = fp.has("event-name-path-segment") ? pathSegmentName : dns1123Subdomain;
  return [...legacy, ...validateObjectMeta(e, true, nameRule), ...seriesRules(e, fp), ...strictCreateRules(e, fp)];
}

// ---- immutable fields (strict update rules) ----

const OBJECT_REFERENCE_FIELDS = [
  ["Kind", "kind"],
  ["Namespace", "namespace"],
  ["Name", "name"],
  ["UID", "uid"],
  ["APIVersion", "apiVersion"],
  ["ResourceVersion", "resourceVersion"],
  ["FieldPath", "fieldPath"],
] as const;

/** `core.ObjectReference{Kind:"…", …}`: how Go prints the internal ObjectReference (%#v). */
function goObjectReference(ref: JsonObject | undefined): string {
  return goStringStruct(
    "core.ObjectReference",
    OBJECT_REFERENCE_FIELDS.map(([goName, json]) => [goName, str(ref, json)] as const),
  );
}

/**
 * Equality of two field values of canonical objects (typed-json: struct fields in Go order, map
 * keys sorted, zero values written or left out as Go does), where equal text is DeepEqual.
 */
function same(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** ValidateImmutableField: `<path>: Invalid value: <new value as Go prints it>: field is immutable`. */
function immutable(path: string, badValue: Json): FieldError {
  return invalid(path, badValue, "field is immutable");
}

/**
 * The immutable fields of ValidateEventUpdate, in its order, with its internal paths. The
 * upstream list checks `reason` twice (after count as well), so a changed reason is two
 * causes (one line in the message, which drops repeats).
 */
function immutableRules(e: KubeObject, old: KubeObject, fp: Failpoints): FieldError[] {
  const errs: FieldError[] = [];
  const stringField = (path: string, key: string): void => {
    if (str(e, key) !== str(old, key)) errs.push(immutable(path, str(e, key)));
  };
  if (!same(e["regarding"], old["regarding"])) errs.push(immutable("involvedObject", goPrinted(goObjectReference(obj(e, "regarding")))));
  stringField("reason", "reason");
  stringField("message", "note");
  if (!same(e["deprecatedSource"], old["deprecatedSource"])) {
    const source = obj(e, "deprecatedSource");
    errs.push(
      immutable(
        "source",
        goPrinted(
          goStringStruct("core.EventSource", [
            ["Component", str(source, "component")],
            ["Host", str(source, "host")],
          ]),
        ),
      ),
    );
  }
  for (const [path, key] of [
    ["firstTimestamp", "deprecatedFirstTimestamp"],
    ["lastTimestamp", "deprecatedLastTimestamp"],
  ] as const) {
    if (!same(e[key], old[key])) errs.push(immutable(path, goPrinted(goTimeString(e[key]))));
  }
  const count = (o: KubeObject): number => (typeof o["deprecatedCount"] === "number" ? o["deprecatedCount"] : 0);
  if (count(e) !== count(old)) errs.push(immutable("count", count(e)));
  stringField("reason", "reason");
  stringField("type", "type");
  // Compared after truncation to microseconds (issue #111928). MicroTime text always has exactly
  // six fractional digits here (the decoders truncate finer input), so equal text is equal time.
  if (!same(e["eventTime"], old["eventTime"])) errs.push(immutable("eventTime", goPrinted(goTimeString(e["eventTime"]))));
  stringField("action", "action");
  if (!same(e["related"], old["related"])) {
    const related = obj(e, "related");
    // A nil pointer prints as the quoted string "null".
    errs.push(immutable("related", goPrinted(related ? goObjectReference(related) : '"null"')));
  }
  stringField("reportingController", "reportingController");
  stringField("reportingInstance", "reportingInstance");
  if (fp.size === 0) return errs;
  // A server that treats series as immutable too (failpoints.ts).
  if (fp.has("event-series-immutable") && !same(e["series"], old["series"])) errs.push(immutable("series", goPrinted(JSON.stringify(e["series"] ?? null))));
  // A server whose immutable list leaves out a group of fields (failpoints.ts).
  const skipped = new Set(Object.entries(IMMUTABLE_GROUPS).flatMap(([name, paths]) => (fp.has(name as FailpointName) ? paths : [])));
  return errs.filter((err) => !skipped.has(err.field));
}

/** The internal paths of the immutable fields each event-immutable-skips-* failpoint leaves out. */
const IMMUTABLE_GROUPS: Readonly<Record<string, readonly string[]>> = {
  "event-immutable-skips-deprecated": ["source", "firstTimestamp", "lastTimestamp", "count"],
  "event-immutable-skips-references": ["involvedObject", "related"],
  "event-immutable-skips-reporter": ["eventTime", "reportingController", "reportingInstance"],
  "event-immutable-skips-texts": ["reason", "message", "action", "type"],
};

/**
 * Update. Both versions: the common ObjectMeta update rules, then the legacy rules. events.k8s.io
 * adds the series rules (only when the series changed) and the immutable fields, so in practice
 * only the series and metadata may change.
 */
export function validateEventUpdate(
  e: KubeObject,
  old: KubeObject,
  version: EventRequestVersion = "events.k8s.io/v1",
  fp: Failpoints = NO_FAILPOINTS,
): FieldError[] {
  const common = validateObjectMetaUpdate(e, old);
  // A server that validates updates by the immutable fields alone (failpoints.ts).
  const legacy = fp.has("event-update-skips-legacy-rules") ? [] : legacyRules(e, version, fp);
  if (version === "v1") return [...common, ...legacy];
  const seriesChanged = JSON.stringify(e["series"] ?? null) !== JSON.stringify(old["series"] ?? null);
  return [...common, ...legacy, ...(seriesChanged ? seriesRules(e, fp) : []), ...seriesCadence(e, old, fp), ...immutableRules(e, old, fp)];
}

/** No rule upstream: the reporter sets the cadence. Only a failpoint makes the server impose one (failpoints.ts). */
function seriesCadence(e: KubeObject, old: KubeObject, fp: Failpoints): FieldError[] {
  if (!fp.has("event-series-step-by-one")) return [];
  const count = (o: KubeObject): number => {
    const c = obj(o, "series")?.["count"];
    return typeof c === "number" ? c : 1;
  };
  const next = count(e);
  return next === count(old) || next === count(old) + 1 ? [] : [invalid("series.count", next, `must be ${count(old) + 1}`)];
}

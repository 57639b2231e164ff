/**
 * events.k8s.io/v1 Event (doc2). The real server stores it as the internal core Event under
 * /registry/events, shared with core v1 events (wire-facts §7). Here the stored form is the
 * events.k8s.io/v1 JSON; core v1 events are a view of the same entries (core-view.ts,
 * storage-views.ts). Every event expires a time after its last write (event-ttl.ts).
 */
import { type KubeObject, obj, str } from "../../apimachinery/json.js";
import { nameOf, namespaceOf, objectHead } from "../../apimachinery/object-meta.js";
import { field, INT32, MICRO_TIME, STRING, struct, TIME } from "../../apimachinery/typed-json.js";
import type { Failpoints } from "../../failpoints.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { EVENT_PRINTER } from "./printer.js";
import { validateEventCreate, validateEventUpdate } from "./validation.js";

export const OBJECT_REFERENCE = struct("v1", "ObjectReference", [
  field("kind", STRING),
  field("namespace", STRING),
  field("name", STRING),
  field("uid", STRING),
  field("apiVersion", STRING),
  field("resourceVersion", STRING),
  field("fieldPath", STRING),
]);

export const EVENT_SOURCE = struct("v1", "EventSource", [field("component", STRING), field("host", STRING)]);

export const EVENT_SHAPE = struct("v1", "Event", [
  ...objectHead(),
  field("eventTime", MICRO_TIME, "always"),
  field("series", struct("v1", "EventSeries", [field("count", INT32, "always"), field("lastObservedTime", MICRO_TIME, "always")]), "pointer"),
  field("reportingController", STRING),
  field("reportingInstance", STRING),
  field("action", STRING),
  field("reason", STRING),
  field("regarding", OBJECT_REFERENCE),
  field("related", OBJECT_REFERENCE, "pointer"),
  field("note", STRING),
  field("type", STRING),
  field("deprecatedSource", EVENT_SOURCE),
  field("deprecatedFirstTimestamp", TIME),
  field("deprecatedLastTimestamp", TIME),
  field("deprecatedCount", INT32),
]);

export const REGARDING_FIELDS = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"] as const;

function selectableFields(e: KubeObject): Record<string, string> {
  const regarding = obj(e, "regarding");
  const out: Record<string, string> = {
    "metadata.name": nameOf(e),
    "metadata.namespace": namespaceOf(e),
    reason: str(e, "reason"),
    reportingController: str(e, "reportingController"),
    // `source` is the deprecated source component, or the reporting controller when unset.
    source: str(obj(e, "deprecatedSource"), "component") || str(e, "reportingController"),
    type: str(e, "type"),
  };
  for (const f of REGARDING_FIELDS) out[`regarding.${f}`] = str(regarding, f);
  return out;
}

export const eventStrategy: ResourceStrategy = {
  group: "events.k8s.io",
  version: "v1",
  resource: "events",
  kind: "Event",
  listKind: "EventList",
  singularName: "event",
  shortNames: ["ev"],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  storageVersionHash: "r2yiGXH7wu8=",
  storagePrefix: "/registry/events",
  watchCache: false,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  internalKind: { group: "", kind: "Event" },
  shape: EVENT_SHAPE,
  // Both hold the internal core.Event.
  sameTypeVersions: ["v1", "events.k8s.io/v1beta1"],
  fieldLabels: ["metadata.name", "metadata.namespace", "reason", ...REGARDING_FIELDS.map((f) => `regarding.${f}`), "reportingController", "source", "type"],
  selectableFields,
  prepareForCreate() {},
  prepareForUpdate() {},
  validateCreate: (o) => validateEventCreate(o, "events.k8s.io/v1"),
  validateUpdate: (o, old) => validateEventUpdate(o, old, "events.k8s.io/v1"),
  canonicalize() {},
  pendingFinalizers: () => [],
  tablePrinter: EVENT_PRINTER,
};

/** The strategy of an emulator started with failpoints: its validation made wrong as they ask (failpoints.ts). */
export function eventStrategyWith(fp: Failpoints): ResourceStrategy {
  if (fp.size === 0) return eventStrategy;
  return {
    ...eventStrategy,
    validateCreate: (o) => validateEventCreate(o, "events.k8s.io/v1", fp),
    validateUpdate: (o, old) => validateEventUpdate(o, old, "events.k8s.io/v1", fp),
    // After validation, as a conversion that has no place for them would: the stored Event loses them.
    canonicalize: fp.has("event-write-drops-deprecated")
      ? (o) => {
          for (const k of ["deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"]) delete o[k];
        }
      : eventStrategy.canonicalize,
  };
}

/**
 * core/v1 Event (`/api/v1/namespaces/{ns}/events`, `/api/v1/events`): the same stored objects as
 * events.k8s.io/v1 Events (wire-facts §7 "shared storage"), seen through the field mapping of
 * k/k pkg/apis/events/v1/conversion.go:
 *
 *   regarding ↔ involvedObject, note ↔ message, deprecatedSource ↔ source,
 *   deprecatedFirstTimestamp ↔ firstTimestamp, deprecatedLastTimestamp ↔ lastTimestamp,
 *   deprecatedCount ↔ count, reportingController ↔ reportingComponent (the core JSON name);
 *   every other field keeps its name.
 *
 * The strategy's storagePrefix is events.k8s.io's and its storageView converts the stored values
 * (storage-views.ts, applied by object-storage.ts), so names, resourceVersions, watches, the
 * namespace controller and the TTL are shared with events.k8s.io. Core v1 requests get only the legacy
 * validation rules (with `reportingComponent` as the controller's path), and the name needs only
 * to be a path segment. JSON follows the Go tags of api/core/v1 Event: reportingComponent and
 * reportingInstance are always written (even ""), the times are written as null when zero.
 */
import { type JsonObject, type KubeObject, obj, parseStored, str } from "../../apimachinery/json.js";
import { asKubeObject, nameOf, namespaceOf, objectHead } from "../../apimachinery/object-meta.js";
import { canonicalize, field, INT32, MICRO_TIME, STRING, struct, TIME } from "../../apimachinery/typed-json.js";
import type { Failpoints } from "../../failpoints.js";
import type { StorageView } from "../../storage/storage-views.js";
import type { ResourceStrategy } from "../generic/strategy.js";
import { EVENT_PRINTER } from "./printer.js";
import { EVENT_SHAPE, EVENT_SOURCE, eventStrategy, OBJECT_REFERENCE, REGARDING_FIELDS } from "./strategy.js";
import { validateEventCreate, validateEventUpdate } from "./validation.js";

/** Field order and tags of api/core/v1 Event (golden core.v1.Event.json). */
const CORE_EVENT_SHAPE = struct("v1", "Event", [
  ...objectHead(),
  field("involvedObject", OBJECT_REFERENCE),
  field("reason", STRING),
  field("message", STRING),
  field("source", EVENT_SOURCE),
  field("firstTimestamp", TIME),
  field("lastTimestamp", TIME),
  field("count", INT32),
  field("type", STRING),
  field("eventTime", MICRO_TIME),
  // core EventSeries tags both fields omitempty (events.k8s.io/v1's always writes count).
  field("series", struct("v1", "EventSeries", [field("count", INT32), field("lastObservedTime", MICRO_TIME)]), "pointer"),
  field("action", STRING),
  field("related", OBJECT_REFERENCE, "pointer"),
  field("reportingComponent", STRING, "always"),
  field("reportingInstance", STRING, "always"),
]);

/** [events.k8s.io/v1 name, core/v1 name] for the fields whose names differ. */
const RENAMED: ReadonlyArray<readonly [string, string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
  ["reportingController", "reportingComponent"],
];

const TO_CORE = new Map(RENAMED.map(([events, core]) => [events, core]));
const TO_EVENTS = new Map(RENAMED.map(([events, core]) => [core, events]));

function renamed(o: JsonObject, names: ReadonlyMap<string, string>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(o)) out[names.get(key) ?? key] = value;
  return out;
}

/** The core v1 form of an events.k8s.io/v1 (stored) Event. */
export function coreEventOf(e: KubeObject): KubeObject {
  return asKubeObject(canonicalize({ ...renamed(e, TO_CORE), kind: "Event", apiVersion: "v1" }, CORE_EVENT_SHAPE));
}

/** The events.k8s.io/v1 (stored) form of a core v1 Event. */
export function eventsEventOf(c: KubeObject): KubeObject {
  return asKubeObject(canonicalize({ ...renamed(c, TO_EVENTS), kind: "Event", apiVersion: "events.k8s.io/v1" }, EVENT_SHAPE));
}

/** The core v1 view of the stored (events.k8s.io/v1) values. */
const coreEventStorageView: StorageView = {
  toView: (stored) => JSON.stringify(coreEventOf(asKubeObject(parseStored(stored)))),
  toStored: (view) => JSON.stringify(eventsEventOf(asKubeObject(parseStored(view)))),
};

/** k/k pkg/registry/core/event/strategy.go ToSelectableFields, with the core field names. */
function selectableFields(e: KubeObject): Record<string, string> {
  const involved = obj(e, "involvedObject");
  const reportingComponent = str(e, "reportingComponent");
  const out: Record<string, string> = {
    "metadata.name": nameOf(e),
    "metadata.namespace": namespaceOf(e),
    reason: str(e, "reason"),
    reportingComponent,
    // `source` is the source component, or the reporting controller when that is empty.
    source: str(obj(e, "source"), "component") || reportingComponent,
    type: str(e, "type"),
  };
  for (const f of REGARDING_FIELDS) out[`involvedObject.${f}`] = str(involved, f);
  return out;
}

export const coreEventStrategy: ResourceStrategy = {
  group: "",
  version: "v1",
  resource: "events",
  kind: "Event",
  listKind: "EventList",
  singularName: "event",
  shortNames: ["ev"],
  namespaced: true,
  verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
  // The same storage version as events.k8s.io/v1: both are the one stored type.
  storageVersionHash: eventStrategy.storageVersionHash,
  // The events.k8s.io/v1 entries, read and written through the view.
  storagePrefix: eventStrategy.storagePrefix,
  storageView: coreEventStorageView,
  watchCache: false,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  internalKind: { group: "", kind: "Event" },
  shape: CORE_EVENT_SHAPE,
  // Both hold the internal core.Event.
  sameTypeVersions: ["events.k8s.io/v1", "events.k8s.io/v1beta1"],
  fieldLabels: ["metadata.name", "metadata.namespace", ...REGARDING_FIELDS.map((f) => `involvedObject.${f}`), "reason", "reportingComponent", "source", "type"],
  selectableFields,
  prepareForCreate() {},
  prepareForUpdate() {},
  validateCreate: (o) => validateEventCreate(eventsEventOf(o), "v1"),
  validateUpdate: (o, old) => validateEventUpdate(eventsEventOf(o), eventsEventOf(old), "v1"),
  canonicalize() {},
  pendingFinalizers: () => [],
  tablePrinter: EVENT_PRINTER,
};

/** The core v1 strategy of an emulator started with failpoints (failpoints.ts): the legacy rules made wrong as they ask. */
export function coreEventStrategyWith(fp: Failpoints): ResourceStrategy {
  if (fp.size === 0) return coreEventStrategy;
  return {
    ...coreEventStrategy,
    validateCreate: (o) => validateEventCreate(eventsEventOf(o), "v1", fp),
    validateUpdate: (o, old) => validateEventUpdate(eventsEventOf(o), eventsEventOf(old), "v1", fp),
  };
}

/**
 * The Event printer (k/k pkg/printers/internalversion printEvent, wide), the Table convertor
 * of both served Event types: upstream registers it for the internal core.Event, of which
 * core v1 and events.k8s.io/v1 are two versions, so the cells read the events.k8s.io/v1 field
 * names first and the core/v1 ones after.
 */
import { type Json, type JsonObject, type KubeObject, obj, str } from "../../apimachinery/json.js";
import { column, NAME_COLUMN, type TableCell, type TablePrinter, timeMs, timestampSince } from "../generic/table.js";

// The swagger doc of ObjectReference.fieldPath, as in the 1.35 OpenAPI.
const OBJECT_REFERENCE_FIELD_PATH =
  'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.';

const numberOf = (v: Json | undefined): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const firstObject = (o: JsonObject, ...keys: string[]): JsonObject | undefined => keys.map((k) => obj(o, k)).find((x) => x !== undefined);
const firstString = (o: JsonObject | undefined, ...keys: string[]): string => keys.map((k) => str(o, k)).find((x) => x !== "") ?? "";
const firstValue = (o: JsonObject, ...keys: string[]): Json | undefined => keys.map((k) => o[k]).find((x) => x !== undefined && x !== null);

/** formatEventSource: component (or reportingController), then host (or reportingInstance) when set. */
function eventSource(component: string, host: string): string {
  if (component === "" && host === "") return "";
  return host === "" ? component : `${component}, ${host}`;
}

/** printEvent (wide). Field names: events.k8s.io/v1 first, then core/v1. */
function eventCells(e: KubeObject, nowMs: number): TableCell[] {
  const firstTimestamp = firstValue(e, "deprecatedFirstTimestamp", "firstTimestamp");
  const lastTimestamp = firstValue(e, "deprecatedLastTimestamp", "lastTimestamp");
  let firstSeen = timestampSince(firstTimestamp, nowMs);
  if (timeMs(firstTimestamp) === undefined) firstSeen = timestampSince(e["eventTime"], nowMs);
  let lastSeen = timestampSince(lastTimestamp, nowMs);
  if (timeMs(lastTimestamp) === undefined) lastSeen = firstSeen;
  let count = numberOf(firstValue(e, "deprecatedCount", "count"));
  const series = obj(e, "series");
  if (series) {
    lastSeen = timestampSince(series["lastObservedTime"], nowMs);
    count = numberOf(series["count"]);
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const regarding = firstObject(e, "regarding", "involvedObject");
  const kind = str(regarding, "kind").toLowerCase();
  const name = str(regarding, "name");
  const source = firstObject(e, "deprecatedSource", "source");
  return [
    lastSeen,
    str(e, "type"),
    str(e, "reason"),
    name === "" ? kind : `${kind}/${name}`,
    str(regarding, "fieldPath"),
    eventSource(
      firstString(source, "component") || firstString(e, "reportingController", "reportingComponent"),
      firstString(source, "host") || str(e, "reportingInstance"),
    ),
    firstString(e, "note", "message").trim(),
    firstSeen,
    count,
    str(e.metadata, "name"),
  ];
}

export const EVENT_PRINTER: TablePrinter = {
  columns: [
    column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
    column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
    column("Reason", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column("Object", "The object that this event is about."),
    column("Subobject", OBJECT_REFERENCE_FIELD_PATH, { priority: 1 }),
    column("Source", "The component reporting this event. Should be a short machine understandable string.", { priority: 1 }),
    column("Message", "A human-readable description of the status of this operation."),
    column("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", { priority: 1 }),
    column("Count", "The number of times this event has occurred.", { priority: 1 }),
    { ...NAME_COLUMN, priority: 1 },
  ],
  cells: eventCells,
  emptyRows: "array",
};

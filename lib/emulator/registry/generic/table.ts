/**
 * The Table representation (doc1 "Table representation", wire-facts §8), the part every type
 * shares: the Table a printer's columns and cells make, the generic default convertor for a
 * type without printers (apiserver@v0.35.7 pkg/registry/rest/table.go), and the column and
 * time-cell helpers the printers use. Each type's own printer, as the real server's printers
 * make it (k/k pkg/printers/internalversion, printers.go), sits in the type's folder and is set
 * as the strategy's tablePrinter; this module names none of them.
 *
 * The server always generates the wide table (k/k pkg/printers/storage: GenerateOptions{Wide:
 * true}): every column, whatever its priority. Time cells are computed on the emulator's clock.
 */
import { type Json, type JsonObject, type KubeObject, str } from "../../apimachinery/json.js";

export interface TableColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** A cell: a custom resource column may also hold a boolean, or null when its path finds nothing. */
export type TableCell = string | number | boolean | null;

export interface TablePrinter {
  readonly columns: readonly TableColumnDefinition[];
  /** One row's cells for the object, at server time nowMs. */
  cells(o: KubeObject, nowMs: number): TableCell[];
  /**
   * Whether an empty list has `"rows":[]` (the printers allocate the slice) or `"rows":null`
   * (the generic default appends to a nil slice).
   */
  readonly emptyRows: "array" | "null";
}

// Descriptions: the swagger docs of the fields, as in the 1.35 OpenAPI (shared/reference/openapi-v3/release-1.35).
const OBJECT_META_NAME =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const OBJECT_META_CREATION_TIMESTAMP =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** A column definition; descriptions are the swagger docs of the fields the column shows. */
export function column(name: string, description: string, extra: { type?: string; format?: string; priority?: number } = {}): TableColumnDefinition {
  return { name, type: extra.type ?? "string", format: extra.format ?? "", description, priority: extra.priority ?? 0 };
}

export const NAME_COLUMN = column("Name", OBJECT_META_NAME, { format: "name" });
export const AGE_COLUMN = column("Age", OBJECT_META_CREATION_TIMESTAMP);
/** The creationTimestamp doc, which a CRD's default Age column carries as its description. */
export const CREATION_TIMESTAMP_DOC = OBJECT_META_CREATION_TIMESTAMP;

/**
 * duration.HumanDuration (apimachinery pkg/util/duration): about 2-3 significant figures.
 * The rule, on the elapsed time d (Go truncates every division toward zero):
 *   d < -1s → "<invalid>"; -1s < d < 0 → "0s"; under 2 minutes → whole seconds ("45s", "119s");
 *   under 10 minutes → minutes and seconds ("3m", "3m20s"); under 3 hours → minutes ("42m",
 *   "179m"); under 8 hours → hours and minutes ("5h", "5h7m"); under 2 days → hours ("30h");
 *   under 8 days → days and hours ("2d", "2d3h"); under 2 years → days ("400d"); under 8 years
 *   → years and days ("3y", "3y12d"); beyond → years ("9y").
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/** Milliseconds of an API Time/MicroTime string, or undefined for the zero value (null, absent) or unreadable text. */
export function timeMs(value: Json | undefined): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  // JS reads at most milliseconds; MicroTime's extra digits are cut, not rounded, like Go's
  // truncating Duration arithmetic would treat them at this resolution.
  const ms = Date.parse(value.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? undefined : ms;
}

/** translateTimestampSince / translateMicroTimestampSince: "<unknown>" for a zero time. */
export function timestampSince(value: Json | undefined, nowMs: number): string {
  const t = timeMs(value);
  return t === undefined ? "<unknown>" : humanDuration(nowMs - t);
}

/** The Go zero time in RFC 3339, what the default convertor prints for a missing creationTimestamp. */
const ZERO_TIME_RFC3339 = "0001-01-01T00:00:00Z";

/** RFC 3339 in UTC without a fraction, as Go's time.RFC3339 formats a metav1.Time. */
function rfc3339(value: Json | undefined): string {
  const t = timeMs(value);
  return t === undefined ? ZERO_TIME_RFC3339 : `${new Date(t).toISOString().slice(0, 19)}Z`;
}

/** defaultTableConvertor: Name and Created At (type "date"), for types without printers. */
export const DEFAULT_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column("Created At", OBJECT_META_CREATION_TIMESTAMP, { type: "date" })],
  cells: (o) => [str(o.metadata, "name"), rfc3339(o.metadata["creationTimestamp"])],
  emptyRows: "null",
};

/** The type's Table convertor: its own printer (set in its folder), else the generic default. */
export function printerOf(strategy: { readonly tablePrinter?: TablePrinter }): TablePrinter {
  return strategy.tablePrinter ?? DEFAULT_PRINTER;
}

export type IncludeObject = "Metadata" | "Object" | "None";

export interface TableOptions {
  readonly includeObject: IncludeObject;
  /** Leave out columnDefinitions (written as null): watch events after the first. */
  readonly noHeaders: boolean;
}

/** `{kind, apiVersion, metadata}` of the object: meta.AsPartialObjectMetadata with the requested group-version. */
export function partialObjectMetadata(o: KubeObject, metaApiVersion: string): KubeObject {
  return { kind: "PartialObjectMetadata", apiVersion: metaApiVersion, metadata: o.metadata };
}

export interface ListMetaInit {
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/**
 * A Table of the objects. `list` is the list metadata for a collection, or undefined for a
 * single object (whose resourceVersion then heads the table). Rows carry the object as
 * includeObject asks: PartialObjectMetadata (Metadata, the default), the object (Object), or
 * `null` (None: the row's RawExtension is empty, and Go writes an empty RawExtension as null).
 */
export function buildTable(
  printer: TablePrinter,
  objects: readonly KubeObject[],
  list: ListMetaInit | undefined,
  metaApiVersion: string,
  options: TableOptions,
  nowMs: number,
): JsonObject {
  const metadata: JsonObject = {};
  const rv = list ? list.resourceVersion : str(objects[0]?.metadata, "resourceVersion");
  if (rv) metadata["resourceVersion"] = rv;
  if (list?.continue) metadata["continue"] = list.continue;
  if (list?.remainingItemCount !== undefined) metadata["remainingItemCount"] = list.remainingItemCount;
  const rows: Json = objects.map((o) => ({
    cells: printer.cells(o, nowMs),
    object: options.includeObject === "None" ? null : options.includeObject === "Object" ? o : partialObjectMetadata(o, metaApiVersion),
  }));
  return {
    kind: "Table",
    apiVersion: metaApiVersion,
    metadata,
    columnDefinitions: options.noHeaders ? null : printer.columns.map((c) => ({ ...c })),
    rows: rows.length === 0 && printer.emptyRows === "null" ? null : rows,
  };
}

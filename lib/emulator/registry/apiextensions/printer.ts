/**
 * The Table of a custom resource (apiextensions-apiserver's tableconvertor): a Name column,
 * then the version's additionalPrinterColumns, or when it has none the default `Age` column
 * (type date, from .metadata.creationTimestamp, described by the creationTimestamp doc).
 * A column's description defaults to `Custom resource definition column (in JSONPath format):
 * <path>`. Cells follow the column type: date → a human age on the emulator's clock
 * (`<invalid>` for an unreadable time), integer/number/boolean → the value when it has that
 * type, string → the value printed (objects as JSON); a path that finds nothing → null.
 *
 * JSONPath support is the subset printer columns use: `.a.b`, `['a.b']`, `[n]`, `[*]` and a
 * filter `[?(@.k=="v")]` (the first match is printed). Known difference: other JSONPath forms
 * find nothing here (a real server would evaluate them or refuse the CRD).
 */
import { isJsonObject, type Json, type JsonObject, type KubeObject, str } from "../../apimachinery/json.js";
import { ownValue } from "../../apimachinery/own-keys.js";
import { CREATION_TIMESTAMP_DOC, humanDuration, NAME_COLUMN, type TableCell, type TableColumnDefinition, type TablePrinter, timeMs } from "../generic/table.js";

type Step =
  | { readonly key: string }
  | { readonly index: number }
  | { readonly all: true }
  | { readonly filter: { readonly path: string[]; readonly value: string } };

/** The steps of a printer-column JSONPath, or undefined for forms not supported. */
function parseJsonPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = 0;
  const text = path
    .trim()
    .replace(/^\{(.*)\}$/, "$1")
    .replace(/^\$/, "");
  while (i < text.length) {
    if (text[i] === ".") {
      let j = i + 1;
      let key = "";
      while (j < text.length && text[j] !== "." && text[j] !== "[") {
        if (text[j] === "\\" && j + 1 < text.length) j++;
        key += text[j];
        j++;
      }
      if (key) steps.push({ key });
      i = j;
      continue;
    }
    if (text[i] === "[") {
      const end = text.indexOf("]", i);
      if (end < 0) return undefined;
      const inner = text.slice(i + 1, end).trim();
      i = end + 1;
      const quoted = /^['"](.*)['"]$/.exec(inner);
      const filter = /^\?\(@((?:\.[\w-]+)+)\s*==\s*['"]?([^'"]*)['"]?\)$/.exec(inner);
      if (quoted) steps.push({ key: quoted[1] ?? "" });
      else if (inner === "*") steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (filter) steps.push({ filter: { path: (filter[1] ?? "").split(".").filter(Boolean), value: filter[2] ?? "" } });
      else return undefined;
      continue;
    }
    return undefined;
  }
  return steps;
}

function follow(node: Json | undefined, path: readonly string[]): Json | undefined {
  let cur = node;
  for (const k of path) cur = isJsonObject(cur) ? ownValue(cur, k) : undefined;
  return cur;
}

/** The first value the path finds, or undefined. */
function findFirst(root: Json, steps: readonly Step[]): Json | undefined {
  let nodes: Json[] = [root];
  for (const step of steps) {
    const next: Json[] = [];
    for (const n of nodes) {
      if ("key" in step) {
        const v = isJsonObject(n) ? ownValue(n, step.key) : undefined;
        if (v !== undefined) next.push(v);
      } else if ("index" in step) {
        if (Array.isArray(n)) {
          const v = n[step.index < 0 ? n.length + step.index : step.index];
          if (v !== undefined) next.push(v);
        }
      } else if ("all" in step) {
        if (Array.isArray(n)) next.push(...n);
        else if (isJsonObject(n)) next.push(...Object.values(n));
      } else if (Array.isArray(n)) {
        for (const item of n) {
          const v = follow(item, step.filter.path);
          if (v !== undefined && (typeof v === "string" ? v : JSON.stringify(v)) === step.filter.value) next.push(item);
        }
      }
    }
    nodes = next;
  }
  return nodes[0];
}

function cellOf(type: string, value: Json | undefined, nowMs: number): TableCell {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      const t = timeMs(value);
      return t === undefined ? "<invalid>" : humanDuration(nowMs - t);
    }
    default:
      return typeof value === "string" ? value : JSON.stringify(value);
  }
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
  readonly jsonPath: string;
}

const DEFAULT_COLUMNS: readonly PrinterColumn[] = [{ name: "Age", type: "date", description: CREATION_TIMESTAMP_DOC, jsonPath: ".metadata.creationTimestamp" }];

/** The printer for a version's additionalPrinterColumns (JSON objects as the CRD holds them). */
export function customResourcePrinter(columns: readonly JsonObject[]): TablePrinter {
  const given: PrinterColumn[] = columns.map((c) => ({
    name: str(c, "name"),
    type: str(c, "type"),
    format: str(c, "format"),
    description: str(c, "description"),
    priority: typeof c["priority"] === "number" ? c["priority"] : 0,
    jsonPath: str(c, "jsonPath"),
  }));
  const used = given.length ? given : DEFAULT_COLUMNS;
  const paths = used.map((c) => parseJsonPath(c.jsonPath));
  const definitions: TableColumnDefinition[] = used.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? "",
    description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
    priority: c.priority ?? 0,
  }));
  return {
    columns: [NAME_COLUMN, ...definitions],
    cells: (o: KubeObject, nowMs: number) => [
      str(o.metadata, "name"),
      ...used.map((c, i) => {
        const steps = paths[i];
        return cellOf(c.type, steps ? findFirst(o, steps) : undefined, nowMs);
      }),
    ],
    emptyRows: "array",
  };
}

/** The ConfigMap printer (k/k pkg/printers/internalversion printConfigMap): name, the number of keys, age. */
import { isJsonObject, type Json, str } from "../../../apimachinery/json.js";
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter, timestampSince } from "../../generic/table.js";

// The swagger doc of ConfigMap.data, as in the 1.35 OpenAPI.
const CONFIG_MAP_DATA =
  "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.";

const entryCount = (v: Json | undefined): number => (isJsonObject(v) ? Object.keys(v).length : 0);

export const CONFIG_MAP_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column("Data", CONFIG_MAP_DATA), AGE_COLUMN],
  // The Data cell is an integer (int64 in Go): the number of data plus binaryData keys.
  cells: (o, nowMs) => [str(o.metadata, "name"), entryCount(o["data"]) + entryCount(o["binaryData"]), timestampSince(o.metadata["creationTimestamp"], nowMs)],
  emptyRows: "array",
};

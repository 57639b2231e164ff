/** The Namespace printer (k/k pkg/printers/internalversion printNamespace): name, phase, age. */
import { obj, str } from "../../../apimachinery/json.js";
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter, timestampSince } from "../../generic/table.js";

export const NAMESPACE_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column("Status", "The status of the namespace"), AGE_COLUMN],
  cells: (o, nowMs) => [str(o.metadata, "name"), str(obj(o, "status"), "phase"), timestampSince(o.metadata["creationTimestamp"], nowMs)],
  emptyRows: "array",
};

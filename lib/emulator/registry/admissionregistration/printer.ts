/**
 * The printer of both webhook configuration kinds (k/k pkg/printers/internalversion
 * printValidatingWebhook, printMutatingWebhook): name, the number of webhooks (an int64 cell), age.
 */
import { str } from "../../apimachinery/json.js";
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter, timestampSince } from "../generic/table.js";

export const WEBHOOK_CONFIGURATION_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration", { type: "integer" }), AGE_COLUMN],
  cells: (o, nowMs) => [
    str(o.metadata, "name"),
    Array.isArray(o["webhooks"]) ? o["webhooks"].length : 0,
    timestampSince(o.metadata["creationTimestamp"], nowMs),
  ],
  emptyRows: "array",
};

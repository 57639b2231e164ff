/**
 * The Lease printer (k/k pkg/printers/internalversion printLease): name, holder, age. A lease
 * without a holderIdentity shows an empty Holder cell: this printer has no `<none>`.
 */
import { obj, str } from "../../apimachinery/json.js";
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter, timestampSince } from "../generic/table.js";

// The swagger doc of LeaseSpec.holderIdentity, as in the 1.35 OpenAPI.
const LEASE_SPEC_HOLDER_IDENTITY =
  "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.";

export const LEASE_PRINTER: TablePrinter = {
  columns: [NAME_COLUMN, column("Holder", LEASE_SPEC_HOLDER_IDENTITY), AGE_COLUMN],
  cells: (o, nowMs) => [str(o.metadata, "name"), str(obj(o, "spec"), "holderIdentity"), timestampSince(o.metadata["creationTimestamp"], nowMs)],
  emptyRows: "array",
};

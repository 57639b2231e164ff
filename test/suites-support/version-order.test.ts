import { describe, expect, it } from "vitest";
import { type VersionedWrite, versionOrderProblems } from "../../suites/support/version-order.js";
import { clientDuty } from "../support/client-duty.js";

const w = (type: string, rv: string, what: string): VersionedWrite => ({ type, rv, what });

describe("version order across resource types (tollgate as a client)", () => {
  clientDuty({ title: "never compares versions of different types", rules: ["doc1.versioning.rv-cross-type-incomparable"] }, () => {
    // Separate counters per type: configmaps at 100+, events at 5+, interleaved. Nothing to report.
    const writes = [w("configmaps", "100", "cm 1"), w("events", "5", "ev 1"), w("configmaps", "101", "cm 2"), w("events", "6", "ev 2")];
    expect(versionOrderProblems(writes)).toEqual([]);
  });

  it("still finds a version that goes backwards within one type", () => {
    const writes = [w("configmaps", "100", "cm 1"), w("events", "5", "ev 1"), w("configmaps", "99", "cm 2"), w("events", "5", "ev 2")];
    expect(versionOrderProblems(writes)).toEqual(["cm 2 (configmaps) got 99, not newer than cm 1 (100)", "ev 2 (events) got 5, not newer than ev 1 (5)"]);
  });

  clientDuty({ title: "does not order a non-decimal version", rules: ["doc1.versioning.rv-non-decimal-equality"] }, () => {
    expect(versionOrderProblems([w("widgets", "abc", "w 1"), w("widgets", "abd", "w 2")])).toEqual([
      'w 1: resourceVersion "abc" is not a decimal, so it has no order',
      'w 2: resourceVersion "abd" is not a decimal, so it has no order',
    ]);
  });
});

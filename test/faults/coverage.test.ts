/**
 * Every rule a server must keep and an outside request can observe has a fault that must break
 * it (lib/faults/coverage.ts); `npm run selftest` shows each fault caught. Gated rules and
 * clients' duties are counted where a fault exists but not demanded.
 */
import { describe, expect, it } from "vitest";
import { faultCoverage, needsFault } from "../../lib/faults/coverage.js";
import { allRules } from "../../lib/spec/catalog.js";

describe("faults cover the rules", () => {
  it("no required or optional observable rule is without a fault", () => {
    expect(faultCoverage().missing.map((r) => r.id)).toEqual([]);
  });

  it("demands a fault only where one can be shown: not for unobservable rules, clients' duties or gated rules", () => {
    const demanded = allRules.filter(needsFault);
    expect(demanded.some((r) => r.unobservable !== undefined || r.subject === "client" || r.level === "gated")).toBe(false);
    // And the check can fail: without faults every demanded rule is missing.
    expect(faultCoverage([]).missing).toHaveLength(demanded.length);
  });
});

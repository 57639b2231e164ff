import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareResourceVersions, isDecimalResourceVersion } from "../../lib/wire/resource-version.js";
import { clientDuty } from "../support/client-duty.js";

const decimal = fc.bigInt({ min: 1n, max: 10n ** 40n }).map((n) => n.toString());

describe("resourceVersion form and order (doc1 Versioning)", () => {
  it("accepts decimals with first digit 1-9 only", () => {
    for (const ok of ["1", "9", "10", "123456789012345678901234567890"]) expect(isDecimalResourceVersion(ok)).toBe(true);
    for (const bad of ["", "0", "01", "-1", "1.0", " 1", "1a", "abc", "１"]) expect(isDecimalResourceVersion(bad), bad).toBe(false);
  });

  it("property: the comparison agrees with arbitrary-size integer order", () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const expected = BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
        expect(Math.sign(compareResourceVersions(a, b))).toBe(expected);
      }),
    );
  });

  it("the longer string is the greater one, whatever its digits", () => {
    expect(compareResourceVersions("10", "9")).toBeGreaterThan(0);
    expect(compareResourceVersions("99", "100")).toBeLessThan(0);
  });

  it("refuses to compare what is not a decimal version", () => {
    expect(() => compareResourceVersions("abc", "1")).toThrow(/not a decimal/);
    expect(() => compareResourceVersions("1", "007")).toThrow(/not a decimal/);
  });
});

describe("non-decimal resourceVersions", () => {
  clientDuty(
    { title: "tollgate refuses to order a version that is not a decimal, so only equality is ever tested", rules: ["doc1.versioning.rv-non-decimal-equality"] },
    () => {
      for (const [a, b] of [
        ["abc", "abd"],
        ["1", "x"],
        ["0", "1"],
        ["01", "2"],
        ["10", "9.5"],
      ] as const) {
        expect(() => compareResourceVersions(a, b), `${a} vs ${b}`).toThrow(RangeError);
      }
    },
  );
});

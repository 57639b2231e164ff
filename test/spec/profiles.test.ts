/**
 * Profiles (lib/spec/profiles.ts) agree with what the tests declare: a rule is in the
 * authentication profile exactly when every test of it needs authentication, and in the admin
 * profile exactly when only a target set up for testing can show it (every test needs an admin
 * shortcut or a rate limit). Otherwise `--require core` would demand what no 1.35 server shows,
 * or let an authentication rule count as core.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allRules } from "../../lib/spec/catalog.js";
import { computeCoverage } from "../../lib/spec/coverage.js";
import { profileOf } from "../../lib/spec/profiles.js";

const ROOT = join(import.meta.dirname, "../..");
const cov = computeCoverage(allRules, join(ROOT, "suites"), ROOT);
const needsOf = new Map<string, string[][]>();
for (const d of cov.declarations) for (const id of d.rules) needsOf.set(id, [...(needsOf.get(id) ?? []), d.needs]);

const TEST_SETUP = ["admin-compact", "admin-clock", "admin-corrupt", "rate-limit"];
/** Gated rules keep their gate's profile; client duties have none. */
const ownProfile = (id: string): boolean => {
  const r = allRules.find((x) => x.id === id);
  return r?.gate !== undefined || r?.subject === "client";
};

describe("profiles agree with the tests' needs", () => {
  it("authentication: exactly the rules every test of which needs authentication (gated rules keep their gate's profile)", () => {
    const byNeeds = [...needsOf]
      .filter(([id, all]) => !ownProfile(id) && all.every((n) => n.includes("authentication")))
      .map(([id]) => id)
      .sort();
    const byProfile = allRules
      .filter((r) => profileOf(r) === "authentication")
      .map((r) => r.id)
      .sort();
    expect(byProfile).toEqual(byNeeds);
  });

  it("admin: exactly the rules every test of which needs a target set up for testing", () => {
    const byNeeds = [...needsOf]
      .filter(([id, all]) => !ownProfile(id) && all.every((n) => n.some((x) => TEST_SETUP.includes(x))))
      .map(([id]) => id)
      .sort();
    const byProfile = allRules
      .filter((r) => profileOf(r) === "admin")
      .map((r) => r.id)
      .sort();
    expect(byProfile).toEqual(byNeeds);
  });

  it("every rule but the client duties has a profile, and doc3's are the daemons'", () => {
    for (const r of allRules) {
      expect(profileOf(r) === undefined, r.id).toBe(r.subject === "client");
      if (r.doc === "doc3") expect(profileOf(r), r.id).toBe("daemons");
    }
  });
});

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { allRules, checkCatalog, ruleById, rulesOf } from "../../lib/spec/catalog.js";
import type { Rule, SpecDoc } from "../../lib/spec/types.js";

const SPEC_DIR = path.resolve(process.cwd(), "../shared/spec");
const DOC_FILES: Record<SpecDoc, string> = {
  doc1: "doc1-resource-api.md",
  doc2: "doc2-event-resource.md",
  doc3: "doc3-daemon-options.md",
};
const haveSpec = Object.values(DOC_FILES).every((f) => existsSync(path.join(SPEC_DIR, f)));
if (!haveSpec) console.warn(`spec documents not found under ${SPEC_DIR}: heading checks are skipped`);
const itWithSpec = haveSpec ? it : it.skip;

/** Heading texts (without the leading #s) of a markdown document, outside code fences. */
function headingsOf(doc: SpecDoc): Set<string> {
  const text = readFileSync(path.join(SPEC_DIR, DOC_FILES[doc]), "utf8");
  const out = new Set<string>();
  let inFence = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const m = /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (m?.[1] !== undefined) out.add(m[1]);
  }
  return out;
}

const good: Rule = { id: "doc1.names.unique-in-scope", doc: "doc1", section: "Object names", level: "required", title: "Names are unique" };

describe("rule catalog", () => {
  it("has no consistency problems", () => {
    expect(checkCatalog(allRules)).toEqual([]);
  });

  it("has rules for all three documents", () => {
    expect(rulesOf("doc1").length).toBeGreaterThanOrEqual(150);
    expect(rulesOf("doc2").length).toBeGreaterThan(0);
    expect(rulesOf("doc3").length).toBeGreaterThan(0);
    expect(rulesOf("doc1").length + rulesOf("doc2").length + rulesOf("doc3").length).toBe(allRules.length);
  });

  it("indexes every rule by id", () => {
    expect(ruleById.size).toBe(allRules.length);
    for (const rule of allRules) expect(ruleById.get(rule.id)).toBe(rule);
  });

  it("gives each gate one default across the catalog", () => {
    const defaults = new Map<string, boolean>();
    for (const rule of allRules) {
      if (rule.gate === undefined) continue;
      const seen = defaults.get(rule.gate.name);
      if (seen !== undefined) expect([rule.id, rule.gate.default]).toEqual([rule.id, seen]);
      defaults.set(rule.gate.name, rule.gate.default);
    }
  });

  it("keeps the example ids of the brief", () => {
    for (const id of [
      "doc1.list-rv.exact-limit-unset-rv-unset-invalid",
      "doc1.versioning.rv-decimal-form",
      "doc1.watch-events.deleted-type",
      "doc1.names.unique-in-namespace",
      "doc1.names.reuse-after-delete",
      "doc2.event.reason-max-128",
    ])
      expect(ruleById.has(id), id).toBe(true);
  });

  it("covers every cell of the list resourceVersion table", () => {
    const rows = [
      "nomatch-limit-unset",
      "nomatch-limit-no-continue",
      "nomatch-limit-continue",
      "exact-limit-unset",
      "exact-limit-no-continue",
      "notolderthan-limit-unset",
      "notolderthan-limit-no-continue",
    ];
    for (const row of rows) {
      for (const rv of ["rv-unset", "rv-0", "rv-other"]) {
        const prefix = `doc1.list-rv.${row}-${rv}-`;
        expect(allRules.filter((r) => r.id.startsWith(prefix)).length, prefix).toBe(1);
      }
    }
  });
});

describe("checkCatalog", () => {
  it("accepts a sound list", () => {
    expect(checkCatalog([good])).toEqual([]);
  });

  it("reports duplicate ids", () => {
    const problems = checkCatalog([good, { ...good, title: "again" }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/duplicate id/);
  });

  it("reports ids that do not match the pattern", () => {
    for (const id of ["doc1", "doc1.Names.x", "doc1.names..x", "doc1.names.x-", "doc4.names.x", "doc1.names.a_b", "doc1.names.a--b"]) {
      const problems = checkCatalog([{ ...good, id }]);
      expect(
        problems.some((p) => /does not match/.test(p)),
        id,
      ).toBe(true);
    }
  });

  it("reports an id prefix that differs from doc", () => {
    const problems = checkCatalog([{ ...good, id: "doc2.names.unique-in-scope" }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/prefix/);
  });

  it("reports gated without gate", () => {
    const problems = checkCatalog([{ ...good, level: "gated" }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/gated without gate/);
  });

  it("reports a gate without gated level", () => {
    const problems = checkCatalog([{ ...good, gate: { name: "WatchList", default: true } }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/gate set but level/);
  });

  it("reports an empty title", () => {
    for (const title of ["", "   "]) {
      const problems = checkCatalog([{ ...good, title }]);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/empty title/);
    }
  });

  it("reports every problem of a deliberately bad list", () => {
    const bad: Rule[] = [
      good,
      { ...good },
      { ...good, id: "doc1.Bad_Id" },
      { ...good, id: "doc3.names.x" },
      { ...good, id: "doc1.names.g1", level: "gated" },
      { ...good, id: "doc1.names.g2", gate: { name: "X", default: false } },
      { ...good, id: "doc1.names.t", title: "" },
    ];
    const problems = checkCatalog(bad);
    for (const pattern of [/duplicate id/, /does not match/, /prefix/, /gated without gate/, /gate set but level/, /empty title/]) {
      expect(
        problems.some((p) => pattern.test(p)),
        String(pattern),
      ).toBe(true);
    }
  });
});

describe("catalog against the spec documents", () => {
  for (const doc of ["doc1", "doc2", "doc3"] as const) {
    itWithSpec(`every ${doc} rule's section is a heading of ${DOC_FILES[doc]}`, () => {
      const headings = headingsOf(doc);
      const missing = rulesOf(doc)
        .filter((r) => !headings.has(r.section))
        .map((r) => `${r.id}: ${r.section}`);
      expect(missing).toEqual([]);
    });
  }

  const normative: Record<SpecDoc, string[]> = {
    doc1: [
      "What the service does",
      "Object names",
      "Verbs",
      "Common fields",
      "Watch event",
      "Table representation",
      "Partial metadata representation",
      "Binary envelope (Protobuf)",
      "Delete options",
      "States and transitions",
      "Path shapes",
      "Query parameters",
      "Headers",
      "Media types and negotiation",
      "Patch content types",
      "Updates with PUT",
      "Resource version semantics for get",
      "Resource version semantics for list",
      "Resource version semantics for watch",
      "Streaming the initial state",
      "Chunked lists",
      "Metadata-only and table lists",
      "Authentication",
      "Events",
      "Errors",
      "Field validation behaviour",
      "Dry-run behaviour",
      "Limits",
      "Versioning",
    ],
    doc2: ["What the service does", "Event", "EventList", "Endpoints"],
    doc3: [
      "What the service does",
      "Controller manager options: serving, authentication, general",
      "Controller manager options: controller behaviour",
      "Controller manager options: certificate signing",
      "Node agent options",
      "Endpoints",
      "Authentication",
      "Limits",
      "Versioning",
    ],
  };
  for (const doc of ["doc1", "doc2", "doc3"] as const) {
    itWithSpec(`${doc} has at least one rule per normative heading`, () => {
      const headings = headingsOf(doc);
      const sections = new Set(rulesOf(doc).map((r) => r.section));
      for (const h of normative[doc]) {
        expect(headings.has(h), `heading ${JSON.stringify(h)} exists`).toBe(true);
        expect(sections.has(h), `rules for ${JSON.stringify(h)}`).toBe(true);
      }
    });
  }
});

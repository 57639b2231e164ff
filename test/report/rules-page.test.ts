import { describe, expect, it } from "vitest";
import { ruleMessages } from "../../lib/report/allure-reporter.js";
import { rulesPage } from "../../lib/report/rules-page.js";
import { summaryErrors } from "../../lib/report/schema.js";
import { buildSummary } from "../../lib/report/summary.js";

describe("rules.html", () => {
  it("lists every rule under its section with its verdict, failure messages and escaped text", () => {
    const s = buildSummary({
      toolVersion: "0",
      runId: "r1",
      target: { url: "http://x", source: "test" },
      startedAt: new Date(0),
      durationMs: 1,
      rules: [
        { id: "doc1.a.one", title: "one <b>", doc: "doc1", section: "A", level: "required", realServer: "does 422" },
        { id: "doc1.b.two", title: "two", doc: "doc1", section: "B", level: "gated", gate: { name: "G", default: false } },
      ],
      tests: [{ name: "t1", file: "f", rules: ["doc1.a.one"], state: "failed", durationMs: 1, errors: ["expected 409 & got 200"] }],
    });
    const html = rulesPage(s);
    expect(html).toContain("<h2>doc1 § A</h2>");
    expect(html).toContain('<tr class="failed"><td><code>doc1.a.one</code></td><td>one &lt;b&gt;');
    expect(html).toContain("<h2>Profiles</h2>");
    expect(html).toContain("<b>Exit 1</b>");
    expect(html).toContain("expected 409 &amp; got 200");
    expect(html).toContain("real server: does 422");
    expect(html).toContain("(G, default off)");
    expect(html).toMatch(/<b>0<\/b> passed, <b>1<\/b> failed \(1 required\)/);
    expect(html).not.toMatch(/<script/);
    expect(summaryErrors(s, { closed: true })).toEqual([]);
  });

  it("names, per rule, the faults of the catalog that prove it able to fail", () => {
    const s = buildSummary({
      toolVersion: "0",
      runId: "r1",
      target: { url: "http://x", source: "test" },
      startedAt: new Date(0),
      durationMs: 1,
      rules: [
        { id: "doc1.a.one", title: "one", doc: "doc1", section: "A", level: "required" },
        { id: "doc1.a.two", title: "two", doc: "doc1", section: "A", level: "required" },
      ],
      tests: [],
    });
    const html = rulesPage(s, new Map([["doc1.a.one", ["drops-<x>", "other"]]]));
    expect(html).toContain('<td class="faults"><code>drops-&lt;x&gt;</code> <code>other</code></td>');
    expect(html).toMatch(/doc1\.a\.two<\/code>.*<td class="faults">—<\/td>/);
    // By default the page reads the catalog: a fault of the first wave is named on its rule.
    expect(rulesPage({ ...s, rules: s.rules.map((r) => ({ ...r, id: "doc1.headers.gzip" })) })).toContain("<code>never-gzips</code>");
  });

  it("folds a failure's evidence under its first line: whole message, property seed and counterexample, last exchanges", () => {
    const s = buildSummary({
      toolVersion: "0",
      runId: "r1",
      target: { url: "http://x", source: "test" },
      startedAt: new Date(0),
      durationMs: 1,
      rules: [{ id: "doc1.a.one", title: "one", doc: "doc1", section: "A", level: "required" }],
      tests: [
        {
          name: "t1",
          file: "f",
          rules: ["doc1.a.one"],
          state: "failed",
          durationMs: 1,
          errors: ["property failed; seed 7"],
          fullErrors: ['property failed; seed 7\ncounterexample: ["<x>"]'],
          exchanges: [{ method: "PUT", path: "/api/v1/namespaces/n/configmaps/c?fieldManager=a&b", status: 409, excerpt: '{"reason":"Conflict"}' }],
          property: { seed: 7, path: "0:1", counterexample: '["<x>"]', runs: 1, shrinks: 1 },
        },
      ],
    });
    expect(summaryErrors(s, { closed: true })).toEqual([]);
    const html = rulesPage(s);
    expect(html).toContain("<details><summary>✗ t1: property failed; seed 7</summary><pre>");
    expect(html).toContain("counterexample: [&quot;&lt;x&gt;&quot;]");
    expect(html).toContain("property: seed 7, path 0:1, 1 run(s), 1 shrink(s)");
    expect(html).toContain("PUT /api/v1/namespaces/n/configmaps/c?fieldManager=a&amp;b → 409: {&quot;reason&quot;:&quot;Conflict&quot;}");
    expect(html).not.toMatch(/<script/);
  });
});

describe("the Allure report's evidence", () => {
  it("a failed test's description has its property and last exchanges, also attached; a not-applicable one's, its unmet needs", () => {
    const [meta, attachment] = ruleMessages(["doc1.a.one"], undefined, [], {
      exchanges: [{ method: "GET", path: "/api/v1/namespaces?limit=1", status: 500, excerpt: "boom" }],
      property: { seed: 3, counterexample: "[1]", runs: 2, shrinks: 0 },
    });
    expect(meta?.type).toBe("metadata");
    const description = (meta?.data as { description?: string } | undefined)?.description ?? "";
    expect(description).toContain("Property: seed 3, 2 run(s), 0 shrink(s); counterexample:");
    expect(description).toContain("GET /api/v1/namespaces?limit=1 → 500: boom");
    expect(attachment).toMatchObject({ type: "attachment_content", data: { name: "last exchanges", contentType: "text/plain", encoding: "base64" } });
    expect(Buffer.from((attachment?.data as { content: string } | undefined)?.content ?? "", "base64").toString()).toBe(
      "GET /api/v1/namespaces?limit=1 → 500: boom",
    );
    const [na] = ruleMessages(["doc1.a.one"], "needs cbor: 406", ["cbor"], { unmet: [{ need: "cbor", evidence: "a CBOR list got 406" }] });
    expect((na?.data as { description?: string } | undefined)?.description).toMatch(/^Not applicable, unmet needs:\n\n- `cbor`: a CBOR list got 406\n/);
  });
});

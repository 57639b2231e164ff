import { describe, expect, it } from "vitest";
import { rulesPage } from "../../lib/report/rules-page.js";
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
  });
});

/**
 * rules.html: the verdict per rule as one static page (the Allure report is per test), with
 * the verdict per profile and the target's detected capabilities above it. Plain HTML and
 * inline CSS, no script, so it opens anywhere offline.
 */
import { faultCoverage } from "../faults/coverage.js";
import { formatExchange } from "../harness/exchanges.js";
import { PROFILES } from "../spec/profiles.js";
import type { RuleFailure, RuleVerdict, Summary } from "./summary.js";

export const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

/** The evidence of one failure as plain lines: the whole message, the property's seed and counterexample, the last exchanges. */
function failureEvidence(f: RuleFailure): string[] {
  return [
    ...(f.fullMessage ? [f.fullMessage] : []),
    ...(f.property
      ? [
          `property: seed ${f.property.seed}${f.property.path ? `, path ${f.property.path}` : ""}, ${f.property.runs} run(s), ${f.property.shrinks} shrink(s); counterexample: ${f.property.counterexample}`,
        ]
      : []),
    ...(f.exchanges?.length ? ["last exchanges, oldest first:", ...f.exchanges.map((e) => `  ${formatExchange(e)}`)] : []),
  ];
}

/** A failure's first line, and its evidence folded under it (a <details> element: no script needed). */
function failureHtml(f: RuleFailure): string {
  const evidence = failureEvidence(f);
  const head = `✗ ${esc(f.test)}: ${esc(f.message)}`;
  return evidence.length ? `<details><summary>${head}</summary><pre>${esc(evidence.join("\n"))}</pre></details>` : `<div>${head}</div>`;
}

function row(v: RuleVerdict, faults: readonly string[]): string {
  const why = [
    ...v.failures.map(failureHtml),
    ...(v.notApplicable ?? []).map((n) => `<div>– ${esc(n.test)}: ${esc(n.reason)}</div>`),
    ...(v.unobservable ? [`<div>not observable: ${esc(v.unobservable)}</div>`] : []),
  ];
  return `<tr class="${v.status}"><td><code>${esc(v.id)}</code></td><td>${esc(v.title)}${v.realServer ? `<div class="real">real server: ${esc(v.realServer)}</div>` : ""}${
    why.length ? `<div class="why">${why.join("")}</div>` : ""
  }</td><td>${v.level}${v.gate ? ` (${esc(v.gate.name)}, default ${v.gate.default ? "on" : "off"})` : ""}</td><td>${esc(v.profile ?? "—")}</td><td>${v.tests}</td><td class="faults">${faults.map((f) => `<code>${esc(f)}</code>`).join(" ") || "—"}</td><td class="st">${esc(v.status.replace("-", " "))}</td></tr>`;
}

function profilesTable(s: Summary): string {
  const rows = s.profiles
    .map((p) => {
      const r = p.rules;
      return `<tr class="p-${p.verdict.replace(" ", "-")}"><td><b>${esc(p.name)}</b>${p.required ? " (required)" : ""}<div class="why">${esc(PROFILES[p.name])}</div></td><td class="st">${esc(p.verdict)}</td><td>${r.passed}</td><td>${r.failed}</td><td>${p.notVerified.length}</td><td>${r["not-observable"]}</td><td>${r.total}</td></tr>`;
    })
    .join("");
  return `<h2>Profiles</h2><table><tr><th>profile</th><th>verdict</th><th>passed</th><th>failed</th><th>not verified</th><th>not observable</th><th>rules</th></tr>${rows}</table>`;
}

function capabilitiesTable(s: Summary): string {
  const rows = Object.entries(s.capabilities)
    .map(([name, c]) => `<tr><td><code>${esc(name)}</code></td><td>${c.available ? "yes" : "no"}</td><td>${esc(c.evidence)}</td></tr>`)
    .join("");
  const violations = s.detection.violations.map((v) => `<li>${esc(v.probe)}: ${esc(v.message)} (fails ${v.rules.map(esc).join(", ")})</li>`).join("");
  return `<h2>What the target offers (detected before the tests, in ${(s.detection.durationMs / 1000).toFixed(1)} s)</h2><table><tr><th>capability</th><th>offered</th><th>evidence</th></tr>${rows}</table>${
    violations ? `<p class="failed">Answers no 1.35 server gives:</p><ul>${violations}</ul>` : ""
  }`;
}

/**
 * `faultsByRule`: for each rule, the faults of tollgate's catalog that must break it, which
 * `tollgate selftest` shows the suites catching (lib/faults/); the catalog's by default.
 */
export function rulesPage(s: Summary, faultsByRule: ReadonlyMap<string, readonly string[]> = faultCoverage().byRule): string {
  const sections = new Map<string, RuleVerdict[]>();
  for (const v of s.rules) sections.set(v.source, [...(sections.get(v.source) ?? []), v]);
  const t = s.totals.rules;
  const body = [...sections.entries()]
    .map(
      ([source, rules]) =>
        `<h2>${esc(source)}</h2><table><tr><th>rule</th><th>statement</th><th>level</th><th>profile</th><th>tests</th><th title="faults of tollgate's catalog that break this rule, each shown caught by tollgate selftest">proved able to fail by</th><th>verdict</th></tr>${rules.map((v) => row(v, faultsByRule.get(v.id) ?? [])).join("")}</table>`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tollgate rules — ${esc(s.target.url)}</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:1.5em}
td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}code{font-size:12px}
.passed .st,.p-verified .st{color:#1a7f37}.failed .st,.p-failed .st{color:#cf222e;font-weight:bold}.not-applicable .st,.p-partial .st{color:#9a6700}.target-unavailable .st{color:#bc4c00}.untested .st,.not-observable .st,.p-not-verified .st{color:#888}.client .st{color:#555;font-style:italic}
.failed,.p-failed{background:#fff0f0}.real,.why{font-size:12px;color:#555;margin-top:2px}h2{font-size:16px;margin-top:1.5em}
.faults code{font-size:11px;color:#555}pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:4px 6px;margin:2px 0 4px}summary{cursor:pointer}
</style></head><body><h1>tollgate: verdict per rule</h1>
<p>Target ${esc(s.target.url)} (${esc(s.target.source)})${s.serverVersion ? `, server ${esc(s.serverVersion)}` : ""}; run ${esc(s.runId)} at ${esc(s.startedAt)}${s.seed !== undefined ? `; seed ${s.seed}` : ""}${
    s.shard ? `; shard ${s.shard.index} of ${s.shard.count}` : ""
  }${s.merged ? `; merged from ${s.merged.runs.length} run(s): ${s.merged.runs.map((r) => esc(r.runId)).join(", ")}` : ""}.</p>
${s.merged?.notes.length ? `<p>Merge notes: ${s.merged.notes.map(esc).join("; ")}</p>` : ""}
<p><b>Exit ${s.exit.code}</b>${s.exit.reasons.length ? `: ${s.exit.reasons.map(esc).join("; ")}` : ": no rule failed"}.</p>
${s.stopped ? `<p class="failed">Stopped before its end: ${esc(s.stopped.message)}</p>` : ""}${s.target.problem ? `<p class="failed">The target did not answer: ${esc(s.target.problem.message)} (${s.target.problem.tests} test(s) undecided)</p>` : ""}
<p><b>${t.passed}</b> passed, <b>${t.failed}</b> failed (${s.totals.requiredFailed} required), <b>${t["target-unavailable"]}</b> undecided (target unavailable), <b>${t["not-applicable"]}</b> not applicable, <b>${t["not-observable"]}</b> not observable, <b>${t.untested}</b> untested, <b>${t.client}</b> client duties (no server verdict), of ${t.total} rules.</p>
${s.problems.length ? `<p class="failed">Problems: ${s.problems.map(esc).join("; ")}</p>` : ""}
${profilesTable(s)}
${capabilitiesTable(s)}
${body}</body></html>
`;
}

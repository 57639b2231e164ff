/**
 * rules.html: the verdict per rule as one static page (the Allure report is per test).
 * Plain HTML and inline CSS, no script, so it opens anywhere offline.
 */
import type { RuleVerdict, Summary } from "./summary.js";

const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

function row(v: RuleVerdict): string {
  const why = [
    ...v.failures.map((f) => `✗ ${f.test}: ${f.message}`),
    ...(v.notApplicable ?? []).map((n) => `– ${n.test}: ${n.reason}`),
  ];
  return `<tr class="${v.status}"><td><code>${esc(v.id)}</code></td><td>${esc(v.title)}${v.realServer ? `<div class="real">real server: ${esc(v.realServer)}</div>` : ""}${
    why.length ? `<div class="why">${why.map(esc).join("<br>")}</div>` : ""
  }</td><td>${v.level}${v.gate ? ` (${esc(v.gate.name)}, default ${v.gate.default ? "on" : "off"})` : ""}</td><td>${v.tests}</td><td class="st">${v.status}</td></tr>`;
}

export function rulesPage(s: Summary): string {
  const sections = new Map<string, RuleVerdict[]>();
  for (const v of s.rules) sections.set(v.source, [...(sections.get(v.source) ?? []), v]);
  const t = s.totals.rules;
  const body = [...sections.entries()]
    .map(([source, rules]) => `<h2>${esc(source)}</h2><table><tr><th>rule</th><th>statement</th><th>level</th><th>tests</th><th>verdict</th></tr>${rules.map(row).join("")}</table>`)
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tollgate rules — ${esc(s.target.url)}</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:1.5em}
td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}code{font-size:12px}
.passed .st{color:#1a7f37}.failed .st{color:#cf222e;font-weight:bold}.skipped .st{color:#9a6700}.untested .st{color:#888}.client .st{color:#555;font-style:italic}
.failed{background:#fff0f0}.real,.why{font-size:12px;color:#555;margin-top:2px}h2{font-size:16px;margin-top:1.5em}
</style></head><body><h1>tollgate: verdict per rule</h1>
<p>Target ${esc(s.target.url)} (${esc(s.target.source)})${s.serverVersion ? `, server ${esc(s.serverVersion)}` : ""}; run ${esc(s.runId)} at ${esc(s.startedAt)}.</p>
<p><b>${t.passed}</b> passed, <b>${t.failed}</b> failed (${s.totals.requiredFailed} required), <b>${t.skipped}</b> not applicable, <b>${t.untested}</b> untested, <b>${t.client}</b> client duties (no server verdict), of ${t.total} rules.</p>
${s.problems.length ? `<p class="failed">Problems: ${s.problems.map(esc).join("; ")}</p>` : ""}
${body}</body></html>
`;
}

/**
 * `tollgate report compare`: runs side by side, rule by rule (the first is the base), and the
 * release gate: a rule that passed in the base and, in a later run, failed or is no longer
 * verified (not applicable, untested, gone from the catalog) is a regression. compare.json is
 * the machine-readable diff; compare.html the matrix grouped by document and section, one
 * static page (inline CSS, no script) like rules.html.
 */
import { esc } from "./rules-page.js";
import type { ExitCode, RuleStatus, RuleVerdict, Summary } from "./summary.js";

/** A rule's status in a run, or "absent" when that run's catalog has no such rule. */
export type ComparedStatus = RuleStatus | "absent";

export interface ComparedRun {
  /** The path it was read from. */
  label: string;
  runId: string;
  toolVersion: string;
  target: { url: string; source: string };
  serverVersion?: string;
  startedAt: string;
  shard?: { index: number; count: number };
  /** For a merged summary: how many runs it was made from. */
  mergedRuns?: number;
  exit: ExitCode;
  rules: Summary["totals"]["rules"];
}

export interface ComparedRule {
  id: string;
  title: string;
  doc: string;
  section: string;
  level: RuleVerdict["level"];
  /** One per run, in the order given. */
  statuses: ComparedStatus[];
  /** The later runs (indexes into `runs`) in which the rule regressed. */
  regressedIn: number[];
  /** Not the same status in every run. */
  changed: boolean;
}

export interface Regression {
  rule: string;
  title: string;
  /** Index into `runs` of the run in which it regressed. */
  run: number;
  label: string;
  base: "passed";
  now: ComparedStatus;
  /** What decided the new status: failure messages, not-applicable reasons. */
  why: string[];
}

export interface Comparison {
  kind: "tollgate-compare";
  /** The version of this file's shape; changes like summary.json's schemaVersion. */
  version: 1;
  runs: ComparedRun[];
  rules: ComparedRule[];
  regressions: Regression[];
  exit: { code: 0 | 1; reasons: string[] };
}

export interface CompareInput {
  label: string;
  summary: Summary;
}

const VERIFIED: ComparedStatus = "passed";

function why(v: RuleVerdict | undefined): string[] {
  if (!v) return ["the run's catalog has no such rule"];
  if (v.status === "failed") return v.failures.map((f) => `${f.test}: ${f.message}`);
  if (v.status === "not-applicable") return (v.notApplicable ?? []).map((n) => `${n.test}: ${n.reason}`);
  if (v.status === "untested") return ["no test of the run named it"];
  if (v.status === "not-observable") return [`not observable: ${v.unobservable ?? ""}`];
  return [];
}

export function compareSummaries(inputs: readonly CompareInput[]): Comparison {
  if (inputs.length < 2) throw new Error("compare needs a base and at least one run to compare with it");
  const byId = inputs.map(({ summary }) => new Map(summary.rules.map((r) => [r.id, r])));
  // Every rule of any run, in the base's catalog order first, then what later runs add.
  const ids = [...new Set(inputs.flatMap(({ summary }) => summary.rules.map((r) => r.id)))];
  const regressions: Regression[] = [];
  const rules: ComparedRule[] = ids.map((id) => {
    const verdicts = byId.map((m) => m.get(id));
    const known = verdicts.find((v) => v !== undefined) as RuleVerdict;
    const statuses: ComparedStatus[] = verdicts.map((v) => v?.status ?? "absent");
    const regressedIn: number[] = [];
    if (statuses[0] === VERIFIED) {
      statuses.forEach((s, i) => {
        if (i === 0 || s === VERIFIED) return;
        regressedIn.push(i);
        regressions.push({ rule: id, title: known.title, run: i, label: (inputs[i] as CompareInput).label, base: "passed", now: s, why: why(verdicts[i]) });
      });
    }
    return {
      id,
      title: known.title,
      doc: known.doc,
      section: known.section,
      level: known.level,
      statuses,
      regressedIn,
      changed: statuses.some((s) => s !== statuses[0]),
    };
  });
  const runs: ComparedRun[] = inputs.map(({ label, summary: s }) => ({
    label,
    runId: s.runId,
    toolVersion: s.tool.version,
    target: s.target,
    ...(s.serverVersion ? { serverVersion: s.serverVersion } : {}),
    startedAt: s.startedAt,
    ...(s.shard ? { shard: s.shard } : {}),
    ...(s.merged ? { mergedRuns: s.merged.runs.length } : {}),
    exit: s.exit.code,
    rules: s.totals.rules,
  }));
  const reasons = inputs.slice(1).flatMap((_, k) => {
    const i = k + 1;
    const mine = regressions.filter((r) => r.run === i);
    return mine.length
      ? [
          `${mine.length} rule(s) that passed in ${(inputs[0] as CompareInput).label} are not passed in ${(inputs[i] as CompareInput).label}: ${mine
            .slice(0, 5)
            .map((r) => `${r.rule} (${r.now})`)
            .join(", ")}${mine.length > 5 ? ", …" : ""}`,
        ]
      : [];
  });
  return { kind: "tollgate-compare", version: 1, runs, rules, regressions, exit: { code: regressions.length ? 1 : 0, reasons } };
}

const STATUS_TEXT: Record<ComparedStatus, string> = {
  passed: "passed",
  failed: "failed",
  "not-applicable": "not applicable",
  "target-unavailable": "target unavailable",
  "not-observable": "not observable",
  untested: "untested",
  client: "client",
  absent: "absent",
};

function cells(r: ComparedRule, c: Comparison): string {
  return r.statuses
    .map((s, i) => {
      const reg = r.regressedIn.includes(i);
      const tip = reg ? (c.regressions.find((x) => x.rule === r.id && x.run === i)?.why ?? []).join("\n") : "";
      return `<td class="s ${s}${reg ? " reg" : ""}"${tip ? ` title="${esc(tip)}"` : ""}>${STATUS_TEXT[s]}${reg ? " ▼" : ""}</td>`;
    })
    .join("");
}

const runHeads = (c: Comparison): string => c.runs.map((_, i) => `<th>#${i + 1}${i === 0 ? " base" : ""}</th>`).join("");

function ruleRow(r: ComparedRule, c: Comparison): string {
  return `<tr${r.regressedIn.length ? ' class="regressed"' : r.changed ? ' class="changed"' : ""}><td><code id="${esc(r.id)}">${esc(r.id)}</code></td><td>${esc(r.title)}</td>${cells(r, c)}</tr>`;
}

export function comparePage(c: Comparison): string {
  const runsTable = `<table><tr><th>#</th><th>summary</th><th>run</th><th>target</th><th>tool</th><th>exit</th><th>passed</th><th>failed</th><th>not applicable</th><th>untested</th></tr>${c.runs
    .map(
      (r, i) =>
        `<tr><td>#${i + 1}${i === 0 ? " base" : ""}</td><td><code>${esc(r.label)}</code></td><td>${esc(r.runId)}<div class="why">${esc(r.startedAt)}${r.shard ? `, shard ${r.shard.index} of ${r.shard.count}` : ""}${r.mergedRuns ? `, merged from ${r.mergedRuns} run(s)` : ""}</div></td><td>${esc(r.target.url)}<div class="why">${esc(r.target.source)}${r.serverVersion ? `, ${esc(r.serverVersion)}` : ""}</div></td><td>${esc(r.toolVersion)}</td><td>${r.exit}</td><td>${r.rules.passed}</td><td>${r.rules.failed}</td><td>${r.rules["not-applicable"]}</td><td>${r.rules.untested}</td></tr>`,
    )
    .join("")}</table>`;
  const regressions = c.regressions.length
    ? `<h2>Regressions</h2><table><tr><th>rule</th><th>statement</th><th>run</th><th>now</th><th>why</th></tr>${c.regressions
        .map(
          (r) =>
            `<tr class="regressed"><td><a href="#${esc(r.rule)}"><code>${esc(r.rule)}</code></a></td><td>${esc(r.title)}</td><td>#${r.run + 1}</td><td class="s ${r.now}">${STATUS_TEXT[r.now]}</td><td class="why">${r.why.map(esc).join("<br>")}</td></tr>`,
        )
        .join("")}</table>`
    : "";
  const changed = c.rules.filter((r) => r.changed);
  const changedTable = changed.length
    ? `<h2>Rules whose verdict differs (${changed.length})</h2><table><tr><th>rule</th><th>statement</th>${runHeads(c)}</tr>${changed.map((r) => ruleRow(r, c)).join("")}</table>`
    : "<p>Every rule has the same verdict in every run.</p>";
  const docs = new Map<string, Map<string, ComparedRule[]>>();
  for (const r of c.rules) {
    const sections = docs.get(r.doc) ?? new Map<string, ComparedRule[]>();
    sections.set(r.section, [...(sections.get(r.section) ?? []), r]);
    docs.set(r.doc, sections);
  }
  const matrix = [...docs.entries()]
    .map(
      ([doc, sections]) =>
        `<h2>${esc(doc)}</h2>${[...sections.entries()]
          .map(
            ([section, rules]) =>
              `<h3>${esc(section)}</h3><table><tr><th>rule</th><th>statement</th>${runHeads(c)}</tr>${rules.map((r) => ruleRow(r, c)).join("")}</table>`,
          )
          .join("\n")}`,
    )
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tollgate comparison</title><style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:1.2em}
td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}code{font-size:12px}th{white-space:nowrap}
td.s{white-space:nowrap;width:7em}.s.passed{color:#1a7f37;background:#eaf7ee}.s.failed{color:#cf222e;background:#ffebe9;font-weight:bold}
.s.not-applicable{color:#9a6700;background:#fff8c5}.s.untested,.s.not-observable,.s.absent{color:#888}.s.client{color:#555;font-style:italic}
.s.reg{outline:2px solid #cf222e;outline-offset:-2px}tr.regressed{background:#fff0f0}.why{font-size:12px;color:#555}h2{font-size:17px;margin-top:1.5em}h3{font-size:14px;margin:1em 0 .3em}
</style></head><body><h1>tollgate: comparison</h1>
<p><b>Exit ${c.exit.code}</b>: ${c.exit.code ? c.exit.reasons.map(esc).join("; ") : "no rule that passed in the base is failed or unverified in a later run"}.</p>
${runsTable}
${regressions}
${changedTable}
${matrix}
</body></html>
`;
}

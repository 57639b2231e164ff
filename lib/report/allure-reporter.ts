/**
 * allure-vitest's reporter, with each test's rule ids turned into Allure labels (tag = rule
 * id, epic = document, feature = section) and a description listing the rules, so the
 * HTML report can be read and filtered by rule. A failed test's description also carries its
 * evidence (a property's seed and counterexample, its last exchanges with the target, also
 * attached as a text file); a not-applicable one's, the unmet needs with the capability evidence.
 */

import type { RuntimeMessage } from "allure-js-commons/sdk";
import AllureVitestReporter from "allure-vitest/reporter";
import type { RunnerTask, TaskMeta } from "vitest";
import { formatExchange } from "../harness/exchanges.js";
import { ruleById } from "../spec/catalog.js";
import "./task-meta.js";

const DOC_TITLES: Record<string, string> = {
  doc1: "doc1 — common API behaviour",
  doc2: "doc2 — the Event resource",
  doc3: "doc3 — daemon options",
};

export type TestEvidence = Pick<TaskMeta, "unmet" | "exchanges" | "property">;

export function ruleMessages(ids: readonly string[], notApplicable?: string, needs: readonly string[] = [], evidence: TestEvidence = {}): RuntimeMessage[] {
  const labels: { name: string; value: string }[] = [];
  const lines: string[] = [];
  for (const id of ids) {
    const rule = ruleById.get(id);
    labels.push({ name: "tag", value: id });
    if (!rule) {
      lines.push(`- \`${id}\` — unknown rule`);
      continue;
    }
    labels.push({ name: "epic", value: DOC_TITLES[rule.doc] ?? rule.doc }, { name: "feature", value: rule.section });
    lines.push(`- \`${id}\` (${rule.level}${rule.gate ? `, gate ${rule.gate.name}` : ""}) — ${rule.title}`);
  }
  const unmet = evidence.unmet?.length ? `Not applicable, unmet needs:\n\n${evidence.unmet.map((u) => `- \`${u.need}\`: ${u.evidence}`).join("\n")}\n\n` : "";
  const head = unmet || (notApplicable ? `Not applicable: ${notApplicable}\n\n` : "");
  const needed = needs.length ? `\n\nNeeds: ${needs.map((n) => `\`${n}\``).join(", ")}` : "";
  const p = evidence.property;
  const property = p
    ? `\n\nProperty: seed ${p.seed}${p.path ? `, path \`${p.path}\`` : ""}, ${p.runs} run(s), ${p.shrinks} shrink(s); counterexample:\n\n\`\`\`\n${p.counterexample}\n\`\`\``
    : "";
  const log = evidence.exchanges?.length ? evidence.exchanges.map(formatExchange).join("\n") : "";
  const exchanges = log ? `\n\nLast exchanges with the target, oldest first:\n\n\`\`\`\n${log}\n\`\`\`` : "";
  const messages: RuntimeMessage[] = [
    { type: "metadata", data: { labels, description: `${head}Rules checked:\n\n${lines.join("\n")}${needed}${property}${exchanges}` } },
  ];
  if (log)
    messages.push({
      type: "attachment_content",
      data: { name: "last exchanges", content: Buffer.from(log).toString("base64"), encoding: "base64", contentType: "text/plain", fileExtension: ".txt" },
    });
  return messages;
}

type AllureMeta = { allureRuntimeMessages?: RuntimeMessage[] };

export default class RuleAwareAllureReporter extends AllureVitestReporter {
  override handleTask(task: RunnerTask): void {
    if (task.type === "test" && task.meta.rules?.length) {
      const meta = task.meta as typeof task.meta & AllureMeta;
      const evidence = { unmet: task.meta.unmet, exchanges: task.meta.exchanges, property: task.meta.property };
      meta.allureRuntimeMessages = [
        ...ruleMessages(task.meta.rules, task.meta.notApplicable, task.meta.needs, evidence),
        ...(meta.allureRuntimeMessages ?? []),
      ];
    }
    super.handleTask(task);
  }
}

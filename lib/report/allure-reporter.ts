/**
 * allure-vitest's reporter, with each test's rule ids turned into Allure labels (tag = rule
 * id, epic = document, feature = section) and a description listing the rules, so the
 * HTML report can be read and filtered by rule.
 */
import type { RunnerTask } from "vitest";
import AllureVitestReporter from "allure-vitest/reporter";
import type { RuntimeMessage } from "allure-js-commons/sdk";
import { ruleById } from "../spec/catalog.js";
import "./task-meta.js";

const DOC_TITLES: Record<string, string> = {
  doc1: "doc1 — common API behaviour",
  doc2: "doc2 — the Event resource",
  doc3: "doc3 — daemon options",
};

export function ruleMessages(ids: readonly string[], notApplicable?: string, needs: readonly string[] = []): RuntimeMessage[] {
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
  const head = notApplicable ? `Not applicable: ${notApplicable}\n\n` : "";
  const needed = needs.length ? `\n\nNeeds: ${needs.map((n) => `\`${n}\``).join(", ")}` : "";
  return [{ type: "metadata", data: { labels, description: `${head}Rules checked:\n\n${lines.join("\n")}${needed}` } }];
}

type AllureMeta = { allureRuntimeMessages?: RuntimeMessage[] };

export default class RuleAwareAllureReporter extends AllureVitestReporter {
  override handleTask(task: RunnerTask): void {
    if (task.type === "test" && task.meta.rules?.length) {
      const meta = task.meta as typeof task.meta & AllureMeta;
      meta.allureRuntimeMessages = [...ruleMessages(task.meta.rules, task.meta.notApplicable, task.meta.needs), ...(meta.allureRuntimeMessages ?? [])];
    }
    super.handleTask(task);
  }
}

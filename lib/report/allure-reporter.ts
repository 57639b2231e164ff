/**
 * allure-vitest's reporter, with each test's rule ids turned into Allure labels (tag = rule
 * id, epic = document, feature = section) and a description listing the rules, so the
 * HTML report can be read and filtered by rule. A failed test's description also carries its
 * evidence (a property's seed and counterexample, its last exchanges with the target, also
 * attached as a text file); a not-applicable one's, the unmet needs with the capability evidence.
 */

import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Globals, TestResult, TestResultContainer } from "allure-js-commons";
import type { RuntimeMessage } from "allure-js-commons/sdk";
import { FileSystemWriter } from "allure-js-commons/sdk/reporter";
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

/**
 * allure-js-commons' FileSystemWriter, without its fsync per file: it writes each result to a
 * temporary file, fsyncs it and renames it, synchronously, in the process that also serves the
 * embedded emulator (446 results: about 1.4 s of a run's main thread blocked in fsync). The
 * results live only until the HTML report is made from them in the same process (or a shard's
 * merge reads them after the run), so surviving a power cut is not needed. Same files, same names.
 */
export class UnsyncedResultsWriter extends FileSystemWriter {
  readonly #dir: string;
  constructor(resultsDir: string) {
    super({ resultsDir });
    this.#dir = resultsDir;
  }
  #path(name: string): string {
    mkdirSync(this.#dir, { recursive: true });
    return join(this.#dir, name);
  }
  override writeResult(result: TestResult): void {
    writeFileSync(this.#path(`${result.uuid}-result.json`), JSON.stringify(result));
  }
  override writeGroup(result: TestResultContainer): void {
    writeFileSync(this.#path(`${result.uuid}-container.json`), JSON.stringify(result));
  }
  override writeGlobals(distFileName: string, info: Globals): void {
    writeFileSync(this.#path(distFileName), JSON.stringify(info));
  }
  override writeAttachment(distFileName: string, content: Buffer): void {
    writeFileSync(this.#path(distFileName), content);
  }
  override writeAttachmentFromPath(distFileName: string, from: string): void {
    copyFileSync(from, this.#path(distFileName));
  }
}

type WithRuntime = { allureReporterRuntime?: { writer: unknown } };

export default class RuleAwareAllureReporter extends AllureVitestReporter {
  readonly #resultsDir: string;
  constructor(config: ConstructorParameters<typeof AllureVitestReporter>[0] & { resultsDir: string }) {
    super(config);
    this.#resultsDir = config.resultsDir;
  }

  override onInit(vitest: Parameters<AllureVitestReporter["onInit"]>[0]): void {
    super.onInit(vitest);
    // allure-vitest makes its writer itself (no option for it); its runtime keeps it in a public field.
    const runtime = (this as unknown as WithRuntime).allureReporterRuntime;
    if (runtime) runtime.writer = new UnsyncedResultsWriter(this.#resultsDir);
  }

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

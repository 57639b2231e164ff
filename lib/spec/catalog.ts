/**
 * The rule catalog: every normative statement of the three spec documents.
 * Importing this module never throws; use `checkCatalog(allRules)` to find problems.
 */

import { doc1Rules } from "./doc1.js";
import { doc2Rules } from "./doc2.js";
import { doc3Rules } from "./doc3.js";
import type { Rule, SpecDoc } from "./types.js";

/** `<doc>.<section-slug>.<rule-slug>...`: lowercase letters, digits and single dashes. */
const RULE_ID_PATTERN = /^doc[123](\.[a-z0-9]+(-[a-z0-9]+)*)+$/;

export const allRules: readonly Rule[] = Object.freeze([...doc1Rules, ...doc2Rules, ...doc3Rules]);

/**
 * Every rule id of the catalog, as a union of string literals the compiler derives from the
 * three documents' rule lists: a test that names an id the catalog does not have does not compile.
 */
export type RuleId = (typeof doc1Rules)[number]["id"] | (typeof doc2Rules)[number]["id"] | (typeof doc3Rules)[number]["id"];

/** Lookup by id. On duplicate ids (a catalog problem) the first rule wins. */
export const ruleById: ReadonlyMap<string, Rule> = (() => {
  const map = new Map<string, Rule>();
  for (const rule of allRules) if (!map.has(rule.id)) map.set(rule.id, rule);
  return map;
})();

const byDoc: ReadonlyMap<SpecDoc, readonly Rule[]> = new Map<SpecDoc, readonly Rule[]>([
  ["doc1", Object.freeze(allRules.filter((r) => r.doc === "doc1"))],
  ["doc2", Object.freeze(allRules.filter((r) => r.doc === "doc2"))],
  ["doc3", Object.freeze(allRules.filter((r) => r.doc === "doc3"))],
]);

/** The rules of one document, in catalog order. */
export function rulesOf(doc: SpecDoc): readonly Rule[] {
  return byDoc.get(doc) ?? [];
}

/**
 * Consistency problems of a rule list, one message per problem (empty when the list is sound):
 * duplicate ids, malformed ids, id prefix not equal to `doc`, gated without gate, gate without
 * gated, empty or multi-line title, empty section.
 */
export function checkCatalog(rules: readonly Rule[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const reported = new Set<string>();
  rules.forEach((rule, index) => {
    const where = `rule #${index} (${JSON.stringify(rule.id)})`;
    if (seen.has(rule.id)) {
      if (!reported.has(rule.id)) problems.push(`${where}: duplicate id`);
      reported.add(rule.id);
    }
    seen.add(rule.id);
    if (!RULE_ID_PATTERN.test(rule.id)) problems.push(`${where}: id does not match ${String(RULE_ID_PATTERN)}`);
    const prefix = rule.id.split(".")[0];
    if (prefix !== rule.doc) problems.push(`${where}: id prefix ${JSON.stringify(prefix)} differs from doc ${JSON.stringify(rule.doc)}`);
    if (rule.level === "gated" && rule.gate === undefined) problems.push(`${where}: level gated without gate`);
    if (rule.level !== "gated" && rule.gate !== undefined) problems.push(`${where}: gate set but level is ${rule.level}`);
    if (rule.gate !== undefined && rule.gate.name.trim() === "") problems.push(`${where}: gate with empty name`);
    if (rule.title.trim() === "") problems.push(`${where}: empty title`);
    else if (/[\r\n]/.test(rule.title)) problems.push(`${where}: title spans several lines`);
    if (rule.section.trim() === "") problems.push(`${where}: empty section`);
  });
  return problems;
}

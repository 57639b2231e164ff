/**
 * A unit test of tollgate's own client code that keeps a client duty of the spec (a rule with
 * `subject: "client"`: "clients pass resourceVersion back unmodified"). The rules go into the
 * test's metadata, where `rules coverage` reads them (lib/spec/coverage.ts); it accepts only
 * client duties here. A run against a target gives such a rule the verdict "client".
 */
import { it } from "vitest";
import "../../lib/report/task-meta.js";
import type { RuleId } from "../../lib/spec/catalog.js";

export function clientDuty(decl: { title: string; rules: readonly [RuleId, ...RuleId[]] }, fn: () => Promise<void> | void): void {
  it(decl.title, { meta: { rules: [...decl.rules] } }, fn);
}

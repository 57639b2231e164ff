/**
 * One summary from the shards of a run (`tollgate run --shard I/N` on several machines): the
 * verdicts are recomputed from every shard's tests with buildSummary's rules, so a sharded run
 * merged says what the same run unsharded says. Each shard detected the target's capabilities
 * on its own: their detection violations all count (the same one found by several shards
 * once), the capabilities are the first shard's, with a note where another shard found
 * otherwise.
 */
import type { Rule } from "../spec/types.js";
import { buildSummary, DETECTION_FILE, type DetectionViolation, type MergedFrom, type Summary, type TestOutcome, UNHANDLED_ERROR } from "./summary.js";

/** Inputs that do not make one run: the message is the one line the CLI prints. */
export class MergeError extends Error {}

export interface MergeInput {
  /** Where the summary came from, for messages. */
  label: string;
  summary: Summary;
}

/** Shards must be the complete set 1..N of one N; summaries of unsharded runs are merged as they are. */
function checkShards(inputs: readonly MergeInput[]): void {
  const sharded = inputs.filter((i) => i.summary.shard);
  if (sharded.length === 0) return;
  if (sharded.length !== inputs.length) {
    const plain = inputs.find((i) => !i.summary.shard) as MergeInput;
    throw new MergeError(`${plain.label} is not a shard, but ${(sharded[0] as MergeInput).label} is: merge the shards of one run`);
  }
  const count = sharded[0]?.summary.shard?.count ?? 0;
  const seen = new Map<number, string>();
  for (const { label, summary } of inputs) {
    const shard = summary.shard as NonNullable<Summary["shard"]>;
    if (shard.count !== count)
      throw new MergeError(`${label} is shard ${shard.index}/${shard.count}, but ${(inputs[0] as MergeInput).label} is one of ${count}`);
    const twice = seen.get(shard.index);
    if (twice) throw new MergeError(`${label} and ${twice} are both shard ${shard.index}/${count}`);
    seen.set(shard.index, label);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw new MergeError(
      `shard${missing.length > 1 ? "s" : ""} ${missing.map((i) => `${i}/${count}`).join(", ")} missing: a merge of part of a run would report the rest untested`,
    );
}

const differing = <T>(inputs: readonly MergeInput[], of: (s: Summary) => T): MergeInput[] => {
  const first = of((inputs[0] as MergeInput).summary);
  return inputs.slice(1).filter((i) => JSON.stringify(of(i.summary)) !== JSON.stringify(first));
};

export function mergeSummaries(inputs: readonly MergeInput[], rules: readonly Rule[]): Summary {
  const first = inputs[0];
  if (!first) throw new MergeError("nothing to merge");
  checkShards(inputs);
  const ordered = [...inputs].sort((a, b) => (a.summary.shard?.index ?? 0) - (b.summary.shard?.index ?? 0));
  const base = (ordered[0] as MergeInput).summary;

  const notes: string[] = [];
  for (const [name, cap] of Object.entries(base.capabilities)) {
    for (const other of ordered.slice(1)) {
      const theirs = other.summary.capabilities[name];
      if (theirs && theirs.available !== cap.available) {
        notes.push(
          `capability ${name}: ${(ordered[0] as MergeInput).label} found it ${cap.available ? "offered" : "not offered"} (${cap.evidence}), ${other.label} ${theirs.available ? "offered" : "not offered"} (${theirs.evidence}); the first is reported`,
        );
      }
    }
  }
  for (const o of differing(ordered, (s) => s.seed))
    notes.push(`${o.label} ran its properties with seed ${o.summary.seed ?? "none"}, ${(ordered[0] as MergeInput).label} with ${base.seed ?? "none"}`);
  for (const o of differing(ordered, (s) => s.tool.version))
    notes.push(`${o.label} was written by tollgate ${o.summary.tool.version}, ${(ordered[0] as MergeInput).label} by ${base.tool.version}`);
  // Embedded emulators listen on a port of their own in each shard; another target is worth a note.
  for (const o of differing(ordered, (s) => (s.target.source === "embedded emulator" ? s.target.source : s.target)))
    notes.push(
      `${o.label} ran against ${o.summary.target.url} (${o.summary.target.source}), ${(ordered[0] as MergeInput).label} against ${base.target.url} (${base.target.source})`,
    );
  for (const o of differing(ordered, (s) => s.serverVersion))
    notes.push(`${o.label} met server ${o.summary.serverVersion ?? "(unknown)"}, ${(ordered[0] as MergeInput).label} ${base.serverVersion ?? "(unknown)"}`);

  // Every shard ran the detection: a violation any of them met fails its rules, once.
  const violations = new Map<string, DetectionViolation>();
  for (const { summary } of ordered) for (const v of summary.detection.violations) violations.set(JSON.stringify([v.probe, v.message, v.rules]), v);
  const tests: TestOutcome[] = ordered.flatMap(({ summary }) => summary.tests.filter((t) => t.file !== DETECTION_FILE));
  const unhandled = ordered.flatMap(({ summary }) => summary.problems.filter((p) => p.startsWith(UNHANDLED_ERROR)).map((p) => p.slice(UNHANDLED_ERROR.length)));

  const starts = ordered.map(({ summary }) => Date.parse(summary.startedAt));
  const ends = ordered.map(({ summary }) => Date.parse(summary.startedAt) + summary.durationMs);
  const startedAt = Math.min(...starts);
  const merged = buildSummary({
    toolVersion: base.tool.version,
    runId: base.runId,
    target: base.target,
    serverVersion: base.serverVersion,
    seed: base.seed,
    startedAt: new Date(startedAt),
    durationMs: Math.max(...ends) - startedAt,
    rules,
    tests,
    capabilities: base.capabilities,
    detection: { durationMs: Math.max(...ordered.map(({ summary }) => summary.detection.durationMs)), violations: [...violations.values()] },
    require: base.profiles.filter((p) => p.required).map((p) => p.name),
    gatesDeclaredOff: base.gatesDeclaredOff ?? [],
    unhandledErrors: unhandled,
  });
  const from: MergedFrom = {
    runs: ordered.map(({ summary: s }) => ({
      runId: s.runId,
      toolVersion: s.tool.version,
      target: s.target,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      ...(s.shard ? { shard: s.shard } : {}),
    })),
    notes,
  };
  return { ...merged, merged: from };
}

/**
 * Progress of a run: rules done of those named so far, tests done, failures so far, elapsed
 * time and the slowest test still running. On a terminal one line redrawn in place; otherwise a
 * plain line now and then (a CI log keeps every line). Totals grow as vitest loads each file,
 * so the files done of all files are shown too.
 */
import type { Writable } from "node:stream";
import type { Reporter, TestCase, TestModule, TestSpecification } from "vitest/node";
import { formatDuration } from "../harness/load.js";
import "./task-meta.js";

export interface ProgressOptions {
  /** One line redrawn in place (a terminal), or plain lines every `intervalMs`. */
  tty: boolean;
  out?: Writable & { columns?: number };
  /** Plain mode: milliseconds between lines (default 15 s). Terminal mode: between redraws (default 250 ms). */
  intervalMs?: number;
  now?: () => number;
  /** Something to add to the line, e.g. how long the target has been silent. */
  status?: () => string | undefined;
}

interface Tracked {
  name: string;
  rules: string[];
  done: boolean;
}

export default class ProgressReporter implements Reporter {
  private readonly out: Writable & { columns?: number };
  private readonly now: () => number;
  private readonly tests = new Map<string, Tracked>();
  private readonly running = new Map<string, { name: string; since: number }>();
  private readonly ruleTests = new Map<string, Set<string>>();
  private started = 0;
  private files = 0;
  private filesDone = 0;
  private failed = 0;
  private undecided = 0;
  private timer: NodeJS.Timeout | undefined;
  private shown = false;

  constructor(private readonly options: ProgressOptions) {
    this.out = options.out ?? process.stdout;
    this.now = options.now ?? Date.now;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.started = this.now();
    this.files = specifications.length;
    const every = this.options.intervalMs ?? (this.options.tty ? 250 : 15_000);
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  onTestModuleCollected(mod: TestModule): void {
    for (const test of mod.children.allTests()) {
      const meta = test.meta();
      if (meta.deselected) continue;
      this.tests.set(test.id, { name: test.fullName, rules: meta.rules ?? [], done: false });
      for (const id of meta.rules ?? []) {
        const set = this.ruleTests.get(id) ?? new Set<string>();
        set.add(test.id);
        this.ruleTests.set(id, set);
      }
    }
  }

  onTestModuleEnd(): void {
    this.filesDone += 1;
  }

  onTestCaseReady(test: TestCase): void {
    this.running.set(test.id, { name: test.fullName, since: this.now() });
  }

  onTestCaseResult(test: TestCase): void {
    this.running.delete(test.id);
    const t = this.tests.get(test.id);
    if (t) t.done = true;
    const state = test.result().state;
    if (state === "failed") this.failed += 1;
    if (test.meta().targetUnavailable !== undefined) this.undecided += 1;
  }

  onTestRunEnd(): void {
    clearInterval(this.timer);
    this.clear();
  }

  /** Erases the terminal line, so that another line can be printed cleanly (it comes back on the next redraw). */
  clear(): void {
    if (this.options.tty && this.shown) this.out.write("\r\x1b[2K");
    this.shown = false;
  }

  /** The progress line as it stands. */
  line(): string {
    const tests = [...this.tests.values()];
    const rulesDone = [...this.ruleTests.values()].filter((ids) => [...ids].every((id) => this.tests.get(id)?.done)).length;
    const parts = [
      `rules ${rulesDone}/${this.ruleTests.size}`,
      `tests ${tests.filter((t) => t.done).length}/${tests.length}`,
      `files ${this.filesDone}/${this.files}`,
      `${this.failed} failed`,
    ];
    if (this.undecided > 0) parts.push(`${this.undecided} target unavailable`);
    parts.push(formatDuration(this.now() - this.started));
    let slowest: { name: string; since: number } | undefined;
    for (const r of this.running.values()) if (!slowest || r.since < slowest.since) slowest = r;
    if (slowest) parts.push(`slowest running: ${slowest.name} (${formatDuration(this.now() - slowest.since)})`);
    const extra = this.options.status?.();
    if (extra) parts.push(extra);
    return `tollgate: ${parts.join(" · ")}`;
  }

  private tick(): void {
    // Nothing to say until a file is loaded (capability detection prints its own lines first).
    if (this.tests.size === 0) return;
    if (!this.options.tty) {
      this.out.write(`${this.line()}\n`);
      return;
    }
    const width = Math.max(20, (this.out.columns || 100) - 1);
    const text = this.line();
    this.out.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.shown = true;
  }
}

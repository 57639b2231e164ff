/**
 * `tollgate flags check`: a daemon's command line against doc3, before the daemon runs.
 * Exit codes: 0 no error found (warnings and notes allowed), 1 an error found, 2 bad usage
 * (thrown as UsageError for main to print).
 */
import type { Daemon } from "../daemons/catalog/index.js";
import { checkBoth, type DaemonFinding } from "../daemons/checker/cross-check.js";
import { SEVERITIES, type Severity } from "../daemons/checker/findings.js";
import { checkFlags } from "../daemons/checker/index.js";
import { withoutProgramName } from "../daemons/options/command-line.js";
import { ShellSyntaxError, shellWords } from "../daemons/shell-words.js";
import { glueValues, parseOptions, UsageError } from "./usage.js";

const DAEMONS: Record<string, Daemon> = {
  "controller-manager": "controller-manager",
  "kube-controller-manager": "controller-manager",
  "node-agent": "node-agent",
  kubelet: "node-agent",
};

const LABEL: Record<DaemonFinding["daemon"], string> = {
  "controller-manager": "controller manager",
  "node-agent": "node agent",
  both: "both daemons",
};

export async function flagsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "check") throw new UsageError(sub ? `unknown flags command "${sub}"` : "flags needs a command: check");
  const dash = rest.indexOf("--");
  const own = glueValues(dash < 0 ? rest : rest.slice(0, dash), ["--controller-manager", "--node-agent"]);
  const daemonArgs = dash < 0 ? undefined : rest.slice(dash + 1);
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions({
      args: own,
      options: {
        output: { type: "string", default: "text" },
        "controller-manager": { type: "string" },
        "node-agent": { type: "string" },
      },
      allowPositionals: true,
    });
  } catch (e) {
    if (e instanceof UsageError && dash < 0) throw new UsageError(`${e.message} (a daemon's own options go after "--")`);
    throw e;
  }
  const { values, positionals } = parsed;
  const output = values.output as string;
  if (output !== "text" && output !== "json") throw new UsageError(`--output must be text or json, not "${output}"`);
  const cmLine = values["controller-manager"] as string | undefined;
  const agentLine = values["node-agent"] as string | undefined;

  let findings: DaemonFinding[];
  let subjects: DaemonFinding["daemon"][];
  if (cmLine !== undefined || agentLine !== undefined) {
    if (positionals.length > 0 || daemonArgs !== undefined) {
      throw new UsageError("give either a daemon name and its arguments after --, or --controller-manager/--node-agent with quoted command lines");
    }
    const cm = cmLine === undefined ? undefined : withoutProgramName("controller-manager", split(cmLine));
    const agent = agentLine === undefined ? undefined : withoutProgramName("node-agent", split(agentLine));
    if (cm && agent) {
      findings = checkBoth(cm, agent);
      subjects = ["controller-manager", "node-agent"];
    } else if (cm) {
      findings = checkFlags("controller-manager", cm).map((f) => ({ ...f, daemon: "controller-manager" as const }));
      subjects = ["controller-manager"];
    } else {
      findings = checkFlags("node-agent", agent ?? []).map((f) => ({ ...f, daemon: "node-agent" as const }));
      subjects = ["node-agent"];
    }
  } else {
    const [name, ...extra] = positionals;
    if (name === undefined) throw new UsageError("flags check needs controller-manager or node-agent");
    const daemon = DAEMONS[name];
    if (!daemon) throw new UsageError(`unknown daemon "${name}": controller-manager or node-agent`);
    if (extra.length > 0) throw new UsageError(`unexpected "${extra[0]}" before "--": the daemon's arguments go after "--"`);
    findings = checkFlags(daemon, withoutProgramName(daemon, daemonArgs ?? [])).map((f) => ({ ...f, daemon }));
    subjects = [daemon];
  }

  const count = (s: Severity): number => findings.filter((f) => f.severity === s).length;
  if (output === "json") {
    const list = findings.map((f) => ({ daemon: f.daemon, severity: f.severity, option: f.option, rule: f.rule, message: f.message }));
    console.log(JSON.stringify({ daemons: subjects, errors: count("error"), warnings: count("warning"), notes: count("note"), findings: list }, null, 2));
  } else {
    console.log(renderText(findings, subjects));
  }
  return count("error") > 0 ? 1 : 0;
}

function split(line: string): string[] {
  try {
    return shellWords(line);
  } catch (e) {
    if (e instanceof ShellSyntaxError) throw new UsageError(e.message);
    throw e;
  }
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

function renderText(findings: readonly DaemonFinding[], subjects: readonly DaemonFinding["daemon"][]): string {
  const both = subjects.length > 1;
  const lines: string[] = [];
  const n = (s: Severity): number => findings.filter((f) => f.severity === s).length;
  lines.push(
    `${subjects.map((s) => LABEL[s]).join(" and ")}: ${plural(n("error"), "error")}, ${plural(n("warning"), "warning")}, ${plural(n("note"), "note")}`,
  );
  for (const severity of SEVERITIES) {
    const group = findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    lines.push("", `${severity === "error" ? "Errors" : severity === "warning" ? "Warnings" : "Notes"}:`);
    for (const f of group) {
      const who = both ? `[${LABEL[f.daemon]}] ` : "";
      lines.push(`  ${who}${f.option}: ${f.message}`, `      rule ${f.rule}`);
    }
  }
  return lines.join("\n");
}

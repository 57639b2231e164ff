import { parseArgs, type ParseArgsConfig } from "node:util";

/** Bad command lines end with one line on stderr and exit code 2, never a stack trace. */
export class UsageError extends Error {}

/** The report commands' lines of the usage text. */
export const REPORT_USAGE = `  tollgate report compare BASE NEW [MORE...] [--output DIR]
  tollgate report merge DIR... [--output DIR] [--no-html]`;

/** `tollgate report --help`. */
export const REPORT_HELP = `usage:
${REPORT_USAGE}

compare  BASE, NEW, MORE: report folders or summary.json files. Writes compare.html (the runs
         side by side, rule by rule) and compare.json to DIR (default reports/compare-<id>).
         Exit 1 when a rule that passed in BASE failed or is no longer verified (not
         applicable, untested) in a later run, else 0; 2 for bad input, with one line.
merge    DIR...: the report folders of one run's shards (tollgate run --shard I/N, which keeps
         allure-results for this). Writes summary.json, rules.html, junit.xml and index.html
         to DIR (default reports/merged-<id>). Exit 0 or 1 as tollgate run for the whole run;
         2 for bad input (shards missing or twice), with one line.`;

export const USAGE = `usage:
  tollgate run [--target URL | --kubeconfig FILE [--context NAME] | --in-cluster] [--token TOKEN]
               [--output DIR] [--suite NAME]... [--group-domain D] [--vendor V] [--no-html]
               [--controller-manager URL] [--node-agent URL] [--node-agent-healthz URL]
               [--node-agent-read-only URL] [--controller-manager-args "ARGS"]
               [--node-agent-args "ARGS"] [--daemon-token T] [--daemon-denied-token T]
               [--daemon-ca FILE | --daemon-insecure]
               [--daemon-client-cert FILE --daemon-client-key FILE]
               [--daemon-proxy-cert FILE --daemon-proxy-key FILE]
               [--daemon-unlisted-proxy-cert FILE --daemon-unlisted-proxy-key FILE]
               [--shard I/N]
  tollgate emulator [--port N] [--host H] [--admin] [--bookmark-interval S]
                    [--retention S] [--continue-lifetime S] [--feature-gates Name=bool,...]
                    [--max-requests-inflight N] [--auth [--admin-token T]]
                    [--controller-manager-port N] [--controller-manager-args "ARGS"]
                    [--node-agent-port N] [--node-agent-read-only-port N]
                    [--node-agent-healthz-port N] [--node-agent-args "ARGS"]
                    [--daemon-token T] [--daemon-denied-token T]
  tollgate flags check controller-manager|node-agent [--output text|json] -- ARGS...
  tollgate flags check [--output text|json] --controller-manager "ARGS" --node-agent "ARGS"
  tollgate rules coverage [--doc doc1|doc2|doc3] [--json]
${REPORT_USAGE}
  tollgate --version`;

/** parseArgs with its errors turned into usage errors. */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw new UsageError((e as Error).message.split("\n")[0] ?? "bad arguments");
  }
}

/**
 * parseArgs refuses `--flag VALUE` when VALUE starts with "-" ("ambiguous"), which is how a
 * daemon command line or a token often starts; joined with "=" it is unambiguous.
 */
export function glueValues(args: readonly string[], flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (flags.includes(arg) && next !== undefined) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

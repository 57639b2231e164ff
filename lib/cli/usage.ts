import { type ParseArgsConfig, parseArgs } from "node:util";

/** Bad command lines end with one line on stderr and exit code 2, never a stack trace. */
export class UsageError extends Error {}

/** The report commands' lines of the usage text. */
const REPORT_USAGE = `  tollgate report compare BASE NEW [MORE...] [--output DIR]
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

/** Each command's usage, printed by `tollgate COMMAND --help` (stdout, exit 0). */
const COMMAND_USAGE = {
  run: `  tollgate run [--target URL | --kubeconfig FILE [--context NAME] | --in-cluster] [--token TOKEN]
               [--replica URL[,URL]]... [--output DIR] [--suite NAME]... [--group-domain D] [--vendor V] [--no-html]
               [--feature-gates G=bool,...] [--require PROFILE[,PROFILE]]... [--seed N]
               [--thorough [--thorough-minutes M]]
               [--list] [--focus TERM]... [--skip TERM]... [--rerun-failed REPORT_DIR]
               [--qps N] [--burst N] [--max-inflight N] [--request-timeout DURATION]
               [--timeout DURATION] [--unavailable-after DURATION]
               [--controller-manager URL] [--node-agent URL] [--node-agent-healthz URL]
               [--node-agent-read-only URL] [--controller-manager-args "ARGS"]
               [--node-agent-args "ARGS"] [--daemon-token T] [--daemon-denied-token T]
               [--daemon-ca FILE | --daemon-insecure]
               [--daemon-client-cert FILE --daemon-client-key FILE]
               [--daemon-proxy-cert FILE --daemon-proxy-key FILE]
               [--daemon-unlisted-proxy-cert FILE --daemon-unlisted-proxy-key FILE]
               [--shard I/N] [--fault NAME]...
      TERM: a rule id or its start (doc1.list-rv), a section ("doc1 § Chunked lists"),
            or text in a test's name or file (/regex/ for a regular expression)
      DURATION: 90s, 10m, 1h30m, 500ms
      exit: 0 no rule failed, 1 a rule failed or the run is unsound, 2 bad usage or the
            target did not answer, 124 --timeout, 130 SIGINT, 143 SIGTERM
      --replica: another API server of the target's cluster (same credentials and TLS settings
            as the target); the multi-replica suites write through it and read through the
            target. It must answer namespace kube-system (else default) with the target's uid
      --fault: a fault of the catalog (tollgate rules faults), for a self-test: wire faults
            through a proxy in front of the target, the others inside the embedded emulator`,
  cleanup: `  tollgate cleanup [--target URL | --kubeconfig FILE [--context NAME]] [--token TOKEN]
                   [--run-id ID] [--dry-run] [--group-domain D] [--vendor V]
      removes what tollgate runs left on the target (by the label tollgate.dev/run-id):
      one run's with --run-id, every run's otherwise; --dry-run only lists them`,
  emulator: `  tollgate emulator [--port N] [--host H] [--admin] [--bookmark-interval S]
                    [--retention S] [--continue-lifetime S] [--feature-gates Name=bool,...]
                    [--max-requests-inflight N] [--auth [--admin-token T]]
                    [--tls | --tls-cert-file F --tls-private-key-file F | --plain-http]
                    [--kubeconfig-out FILE]
                    [--max-storage-request-bytes N] [--storage-quota-bytes N]
                    [--watch-backlog-bytes N] [--namespace-deletion-delay S]
                    [--namespace-content-delay S | --no-namespace-content]
                    [--service-cluster-ip-range CIDR]
                    [--etcd-servers URL[,URL] [--etcd-prefix P] [--etcd-compaction-interval S]
                     [--etcd-healthcheck-timeout S] [--etcd-readycheck-timeout S]]
                    [--leader-elect[=BOOL]] [--leader-elect-lease-duration D]
                    [--leader-elect-renew-deadline D] [--leader-elect-retry-period D]
                    [--leader-elect-resource-name N] [--leader-elect-resource-namespace NS]
                    [--controller-manager-port N] [--controller-manager-args "ARGS"]
                    [--node-agent-port N] [--node-agent-read-only-port N]
                    [--node-agent-healthz-port N] [--node-agent-args "ARGS"]
                    [--daemon-token T] [--daemon-denied-token T] [--fault NAME]...
      --fault: a fault of the emulator's state or of its daemons (tollgate rules faults)
      HTTPS with --auth or --tls (a CA and a certificate made at start unless given),
      plain HTTP otherwise or with --plain-http; --kubeconfig-out writes a kubeconfig
      --etcd-servers: store on etcd, not in memory; emulators on one etcd serve one cluster
      (the health checks etcd and etcd-readiness wait 2 s for etcd unless given)
      --leader-elect: the controllers run on the holder of a Lease (kube-system/
      kube-controller-manager; 15s, 10s, 2s); default on with --etcd-servers, off in memory`,
  proxy: `  tollgate proxy --target URL --fault NAME... [--port N] [--host H] [--ca FILE]
      a wire fault of the catalog (tollgate rules faults) in front of any API server`,
  selftest: `  tollgate selftest [--fault NAME]... [--no-clean] [--jobs N] [--output DIR] [--table]
      every fault (or those named) applied to the embedded emulator, each against the suites
      that name its rules: exit 0 when all are caught and the clean emulator passes`,
  flags: `  tollgate flags check controller-manager|node-agent [--output text|json] -- ARGS...
  tollgate flags check [--output text|json] --controller-manager "ARGS" --node-agent "ARGS"`,
  rules: `  tollgate rules coverage [--doc doc1|doc2|doc3] [--json]
  tollgate rules faults [--json]`,
  report: REPORT_HELP.replace(/^usage:\n/, ""),
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;

export function isCommand(s: string | undefined): s is CommandName {
  return s !== undefined && Object.hasOwn(COMMAND_USAGE, s);
}

export const USAGE = `usage:
${Object.values(COMMAND_USAGE).join("\n")}
  tollgate --version
  tollgate COMMAND --help`;

export const usageOf = (command: CommandName): string => `usage:\n${COMMAND_USAGE[command]}`;

const HELP = new Set(["--help", "-h"]);

/** `--help` or `-h` among a command's own arguments (not after "--", where a daemon's options go). */
export function wantsHelp(args: readonly string[]): boolean {
  const dash = args.indexOf("--");
  return (dash < 0 ? args : args.slice(0, dash)).some((a) => HELP.has(a));
}

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

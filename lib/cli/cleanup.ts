/**
 * `tollgate cleanup`: removes what tollgate runs left on a target (a run killed before its own
 * cleanup), found by the run label: one run's objects with --run-id, every run's otherwise. It
 * lists what it found, then removes it in the safe order (webhook configurations, CRDs,
 * namespaces) and says what it removed.
 * Exit codes: 0 nothing left (or --dry-run), 1 something could not be removed, 2 bad usage or
 * the target did not answer.
 */
import { ApiClient, UnreachableError } from "../harness/client.js";
import { configureLoad, DEFAULT_LOAD } from "../harness/load.js";
import { deleteLeftovers, findLeftovers, type Leftover, labelValue } from "../harness/session.js";
import { resolveTarget, type Target, TargetError } from "../harness/target.js";
import { ENV, specSettingsFromEnv } from "../runner/settings.js";
import { parseOptions, UsageError } from "./usage.js";

const show = (l: Leftover): string => `${l.resource}/${l.name}${l.deleting ? " (being deleted)" : ""}`;

export async function cleanupCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions({
    args: argv,
    options: {
      target: { type: "string" },
      kubeconfig: { type: "string" },
      context: { type: "string" },
      token: { type: "string" },
      "run-id": { type: "string" },
      "dry-run": { type: "boolean", default: false },
      "group-domain": { type: "string" },
      vendor: { type: "string" },
    },
    allowPositionals: false,
  });
  const runId = values["run-id"];
  if (runId !== undefined && labelValue(runId) !== runId)
    throw new UsageError(`--run-id "${runId}" is not a run id (the value of a tollgate.dev/run-id label)`);
  let target: Target | undefined;
  try {
    target = resolveTarget({ target: values.target, kubeconfig: values.kubeconfig, context: values.context, token: values.token });
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message);
    throw e;
  }
  // The embedded emulator of a run ends with it; there is nothing to clean there.
  if (!target) throw new UsageError("cleanup needs a target: --target URL, or --kubeconfig FILE / --context NAME");
  const spec = specSettingsFromEnv({ [ENV.groupDomain]: values["group-domain"], [ENV.vendor]: values.vendor });
  // As polite as a run (kubectl's rate limit), and a silent target is an error, not a hang.
  configureLoad(DEFAULT_LOAD);
  const client = new ApiClient(target);
  try {
    const found = await findLeftovers(client, spec, runId);
    const whose = runId === undefined ? "tollgate runs" : `run ${runId}`;
    if (found.length === 0) {
      console.log(`tollgate: nothing of ${whose} on ${target.url}`);
      return 0;
    }
    const runs = [...new Set(found.map((l) => l.runId))];
    console.log(
      `tollgate: on ${target.url}, ${found.length} object(s) of ${runs.length === 1 ? `run ${runs[0]}` : `${runs.length} runs (${runs.join(", ")})`}:`,
    );
    for (const l of found) console.log(`  ${show(l)}${runId === undefined ? `  run ${l.runId}` : ""}`);
    if (values["dry-run"]) {
      console.log("tollgate: --dry-run: nothing removed");
      return 0;
    }
    const result = await deleteLeftovers(client, spec, found);
    const names = result.removed.map(show);
    const parts = [`removed ${names.length}${names.length > 0 && names.length <= 10 ? ` (${names.join(", ")})` : ""}`];
    if (result.deleting.length) parts.push(`${result.deleting.length} already being deleted`);
    if (result.failed.length)
      parts.push(`${result.failed.length} could not be removed: ${result.failed.map((f) => `${show(f.leftover)}: ${f.message}`).join("; ")}`);
    console.log(`tollgate: ${parts.join(", ")}`);
    return result.failed.length > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof UnreachableError) {
      console.error(`tollgate: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    await client.close();
  }
}

/**
 * doc3 "What the service does" for the node agent, seen through its endpoints as a real 1.35
 * node agent serves them: /pods (a PodList of the pods it manages, each annotated with
 * kubernetes.io/config.source `api`, `file` or `http`; static pods named `<name>-<node name>`
 * and bound to the node), /runningpods/ (the pods whose containers run, as the runtime lists
 * them: only containers the node agent created) and /stats/summary (node.nodeName: the node
 * it registered, --hostname-override or the hostname, lowercased). Pure checks over the
 * answers, each result naming its rule; test/daemons/agent-pods.test.ts shows them failing on
 * wrong answers.
 */
import { readOptionView } from "./options/view.js";
import type { ProbeResponse, ProbeResult } from "./probe-types.js";
import { isDns1123Subdomain } from "./values/cluster-names.js";

const RULE_REGISTERS_NODE = "doc3.service.agent-registers-node";
const RULE_PODSPEC_SOURCES = "doc3.service.agent-podspec-sources";
const RULE_PODSPEC_RUNNING = "doc3.service.agent-podspec-running";
const RULE_IGNORES_FOREIGN = "doc3.service.agent-ignores-foreign-containers";

const CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source";
const SOURCES = ["api", "file", "http"];

/** A container of /pods: its status there. */
export interface PodContainer {
  readonly name: string;
  readonly running: boolean;
  readonly ready: boolean;
}

/** A pod of /pods, reduced to what the checks read. */
export interface AgentPod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly source?: string;
  readonly nodeName?: string;
  readonly phase?: string;
  readonly containers: readonly PodContainer[];
}

/** A pod of /runningpods/: the containers the runtime runs for it. */
export interface RuntimePod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly containers: readonly string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The items of a PodList answer, or why it is not one. */
function podItems(r: ProbeResponse): Record<string, unknown>[] | string {
  if (r.status !== 200) return `HTTP ${r.status} ${JSON.stringify(r.body.slice(0, 80))}`;
  const doc = parseJson(r.body);
  if (!isRecord(doc) || doc["kind"] !== "PodList" || !Array.isArray(doc["items"])) return `no PodList: ${JSON.stringify(r.body.slice(0, 80))}`;
  return doc["items"].map(rec);
}

/** /pods as the checks read it, or why the answer is no PodList. */
export function parseAgentPods(r: ProbeResponse): AgentPod[] | string {
  const items = podItems(r);
  if (typeof items === "string") return items;
  return items.map((item) => {
    const metadata = rec(item["metadata"]);
    const status = rec(item["status"]);
    const statuses = Array.isArray(status["containerStatuses"]) ? status["containerStatuses"].map(rec) : [];
    return {
      name: str(metadata["name"]) ?? "",
      namespace: str(metadata["namespace"]) ?? "",
      uid: str(metadata["uid"]) ?? "",
      source: str(rec(metadata["annotations"])[CONFIG_SOURCE_ANNOTATION]),
      nodeName: str(rec(item["spec"])["nodeName"]),
      phase: str(status["phase"]),
      containers: statuses.map((c) => ({ name: str(c["name"]) ?? "", running: isRecord(rec(c["state"])["running"]), ready: c["ready"] === true })),
    };
  });
}

/** /runningpods/ as the checks read it, or why the answer is no PodList. */
export function parseRuntimePods(r: ProbeResponse): RuntimePod[] | string {
  const items = podItems(r);
  if (typeof items === "string") return items;
  return items.map((item) => {
    const metadata = rec(item["metadata"]);
    const containers = Array.isArray(rec(item["spec"])["containers"])
      ? (rec(item["spec"])["containers"] as unknown[]).map((c) => str(rec(c)["name"]) ?? "")
      : [];
    return { name: str(metadata["name"]) ?? "", namespace: str(metadata["namespace"]) ?? "", uid: str(metadata["uid"]) ?? "", containers };
  });
}

const podId = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;

/** The same pod in the other list: by UID, or by namespace and name when a side has no UID. */
function samePod(a: { uid: string; namespace: string; name: string }, b: { uid: string; namespace: string; name: string }): boolean {
  if (a.uid !== "" && b.uid !== "") return a.uid === b.uid;
  return a.namespace === b.namespace && a.name === b.name;
}

/** What the command line says of the static pod sources; `config` when a --config file may name more. */
function sourcesOf(argv: readonly string[]): { file: boolean; http: boolean; config: boolean; hostnameOverride?: string } {
  const view = readOptionView("node-agent", argv);
  const override = view.raw("--hostname-override");
  return {
    file: Boolean(view.raw("--pod-manifest-path")),
    http: Boolean(view.raw("--manifest-url")),
    config: view.set("--config"),
    hostnameOverride: override?.trim() ? override : undefined,
  };
}

const failure = (rule: string, url: string, expected: string, actual: string): ProbeResult[] => [{ rule, url, ok: false, expected, actual }];

/**
 * doc3.service.agent-podspec-sources: every pod of /pods names its source (api, file or
 * http); a file or http pod is named `<name>-<its node name>`; without a --config file (which
 * may set staticPodPath or staticPodURL) a file pod needs --pod-manifest-path and an http pod
 * --manifest-url on the command line. No result when /pods lists no pod.
 */
export function checkPodSources(argv: readonly string[], url: string, response: ProbeResponse): ProbeResult[] {
  const pods = parseAgentPods(response);
  if (typeof pods === "string") return failure(RULE_PODSPEC_SOURCES, url, "HTTP 200 with a PodList", pods);
  const line = sourcesOf(argv);
  const results: ProbeResult[] = [];
  for (const p of pods) {
    const id = podId(p);
    results.push({
      rule: RULE_PODSPEC_SOURCES,
      url,
      ok: p.source !== undefined && SOURCES.includes(p.source),
      expected: `${id}: ${CONFIG_SOURCE_ANNOTATION} api, file or http`,
      actual: p.source === undefined ? "no such annotation" : JSON.stringify(p.source),
    });
    if (p.source !== "file" && p.source !== "http") continue;
    const suffix = `-${(p.nodeName ?? "").toLowerCase()}`;
    results.push({
      rule: RULE_PODSPEC_SOURCES,
      url,
      ok: p.nodeName !== undefined && p.nodeName !== "" && p.name.endsWith(suffix) && p.name.length > suffix.length,
      expected: `${id} (a ${p.source} pod): named <name>-<node name>`,
      actual: `spec.nodeName ${JSON.stringify(p.nodeName ?? null)}`,
    });
    if (!line.config) {
      const option = p.source === "file" ? "--pod-manifest-path" : "--manifest-url";
      results.push({
        rule: RULE_PODSPEC_SOURCES,
        url,
        ok: p.source === "file" ? line.file : line.http,
        expected: `${id}: a ${p.source} pod only with ${option} (no --config file)`,
        actual: `the command line has no ${option}`,
      });
    }
  }
  return results;
}

/**
 * doc3.service.agent-registers-node: /stats/summary names the node it registered:
 * --hostname-override lowercased when the command line gives one, else a valid node name
 * (the hostname, lowercased); every pod of /pods is bound to that node.
 */
export function checkRegisteredNode(
  argv: readonly string[],
  statsUrl: string,
  stats: ProbeResponse,
  podsUrl: string,
  podsResponse: ProbeResponse,
): ProbeResult[] {
  const rule = RULE_REGISTERS_NODE;
  if (stats.status !== 200) return failure(rule, statsUrl, "HTTP 200 with node.nodeName", `HTTP ${stats.status} ${JSON.stringify(stats.body.slice(0, 80))}`);
  const nodeName = str(rec(rec(parseJson(stats.body))["node"])["nodeName"]);
  if (nodeName === undefined) return failure(rule, statsUrl, "a summary with node.nodeName", JSON.stringify(stats.body.slice(0, 80)));
  const { hostnameOverride } = sourcesOf(argv);
  const results: ProbeResult[] = [];
  if (hostnameOverride !== undefined) {
    const want = hostnameOverride.trim().toLowerCase();
    results.push({
      rule,
      url: statsUrl,
      ok: nodeName === want,
      expected: `node.nodeName ${JSON.stringify(want)} (--hostname-override, lowercased)`,
      actual: JSON.stringify(nodeName),
    });
  } else {
    results.push({
      rule,
      url: statsUrl,
      ok: isDns1123Subdomain(nodeName),
      expected: "node.nodeName a valid node name (the hostname, lowercased)",
      actual: JSON.stringify(nodeName),
    });
  }
  const pods = parseAgentPods(podsResponse);
  if (typeof pods === "string") return [...results, ...failure(rule, podsUrl, "HTTP 200 with a PodList", pods)];
  for (const p of pods) {
    results.push({
      rule,
      url: podsUrl,
      ok: p.nodeName === nodeName,
      expected: `${podId(p)}: spec.nodeName ${JSON.stringify(nodeName)} (the node of /stats/summary)`,
      actual: JSON.stringify(p.nodeName ?? null),
    });
  }
  return results;
}

/** Whether /pods reports a container running (or ready) in a Running pod: what checkPodsRunning has to check. */
export const reportsRunningContainer = (pods: readonly AgentPod[]): boolean =>
  pods.some((p) => p.phase === "Running" && p.containers.some((c) => c.running || c.ready));

/**
 * doc3.service.agent-podspec-running: every container /pods reports running (or ready) in a
 * Running pod is one the runtime runs for that pod (/runningpods/), and a ready one is
 * running. No result when no pod is Running.
 */
export function checkPodsRunning(podsUrl: string, podsResponse: ProbeResponse, runningUrl: string, runningResponse: ProbeResponse): ProbeResult[] {
  const rule = RULE_PODSPEC_RUNNING;
  const pods = parseAgentPods(podsResponse);
  if (typeof pods === "string") return failure(rule, podsUrl, "HTTP 200 with a PodList", pods);
  const runtime = parseRuntimePods(runningResponse);
  if (typeof runtime === "string") return failure(rule, runningUrl, "HTTP 200 with a PodList", runtime);
  const results: ProbeResult[] = [];
  for (const p of pods.filter((x) => x.phase === "Running")) {
    const rp = runtime.find((r) => samePod(p, r));
    const listed = rp ? `runs ${rp.containers.join(", ") || "no container"}` : "the pod is not listed";
    for (const c of p.containers) {
      if (c.ready) results.push({ rule, url: podsUrl, ok: c.running, expected: `${podId(p)}: ready container ${c.name} running`, actual: "state not running" });
      if (c.running || c.ready) {
        results.push({
          rule,
          url: runningUrl,
          ok: rp?.containers.includes(c.name) ?? false,
          expected: `${podId(p)}: container ${c.name}, running per /pods, in /runningpods/`,
          actual: listed,
        });
      }
    }
  }
  return results;
}

/**
 * doc3.service.agent-ignores-foreign-containers: every pod of /runningpods/ is one the node
 * agent manages (/pods): it lists no container it did not create. No result when the runtime
 * lists no pod.
 */
export function checkNoForeignContainers(podsUrl: string, podsResponse: ProbeResponse, runningUrl: string, runningResponse: ProbeResponse): ProbeResult[] {
  const rule = RULE_IGNORES_FOREIGN;
  const pods = parseAgentPods(podsResponse);
  if (typeof pods === "string") return failure(rule, podsUrl, "HTTP 200 with a PodList", pods);
  const runtime = parseRuntimePods(runningResponse);
  if (typeof runtime === "string") return failure(rule, runningUrl, "HTTP 200 with a PodList", runtime);
  return runtime.map((r) => ({
    rule,
    url: runningUrl,
    ok: pods.some((p) => samePod(p, r)),
    expected: `${podId(r)} (containers ${r.containers.join(", ")}): a pod of /pods`,
    actual: pods.some((p) => samePod(p, r)) ? "listed in /pods" : "not in /pods",
  }));
}

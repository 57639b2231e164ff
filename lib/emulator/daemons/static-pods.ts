/**
 * The pods of the emulated node agent (doc3 "What the service does"): static pods read from
 * --pod-manifest-path and fetched once from --manifest-url, shown as a real 1.35 node agent
 * shows them once their containers run. There is no API server behind the emulation, so no
 * pod has the source `api`.
 *
 * What a real node agent does with the sources, and this one as well:
 * - a directory is read without recursing; names starting with `.` are ignored, the others
 *   are read in name order whatever their extension, each as one Pod in YAML or JSON; a file
 *   that is no valid Pod (no kind Pod, no name, no container) is skipped, not fatal; a path
 *   that is a single file is that one pod; a missing path gives no pod;
 * - the URL answers one Pod or a PodList;
 * - each pod is renamed `<name>-<node name>`, put in `default` when it names no namespace,
 *   bound to the node (spec.nodeName), and annotated with kubernetes.io/config.source (`file`
 *   or `http`), config.hash (its UID) and config.seen; file pods tolerate every NoExecute taint.
 * Differences: the UID is a hash of the manifest, not the real one's hash of the decoded
 * object; the sources are read once at start, not every 20 seconds.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";

export type PodSource = "file" | "http";

/** One container of a pod as the emulated runtime runs it. */
export interface RunningContainer {
  readonly name: string;
  readonly image: string;
  readonly id: string;
}

/** A pod the emulated node agent manages, with the containers it keeps running. */
export interface StaticPod {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly source: PodSource;
  /** The manifest's metadata.labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** The manifest's spec, as given. */
  readonly spec: Readonly<Record<string, unknown>>;
  readonly containers: readonly RunningContainer[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The node name the node agent registers: --hostname-override when given, else the machine's
 * hostname; trimmed and lowercased, as the real one does. Empty is an error there (it does not start).
 */
export function nodeNameOf(hostnameOverride: string | undefined, hostname: string): string {
  const name = (hostnameOverride?.trim() ? hostnameOverride : hostname).trim().toLowerCase();
  if (name === "") throw new Error("empty hostname: set --hostname-override");
  return name;
}

const hash = (...parts: string[]): string => createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 32);

/** A decoded manifest as a static pod, or undefined when it is no valid Pod (the real node agent logs and skips it). */
function podOf(doc: unknown, source: PodSource, origin: string, nodeName: string): StaticPod | undefined {
  if (!isRecord(doc) || doc["kind"] !== "Pod" || doc["apiVersion"] !== "v1") return undefined;
  const metadata = doc["metadata"];
  const spec = doc["spec"];
  if (!isRecord(metadata) || !isRecord(spec) || typeof metadata["name"] !== "string" || metadata["name"] === "") return undefined;
  const rawContainers = spec["containers"];
  if (!Array.isArray(rawContainers) || rawContainers.length === 0) return undefined;
  const containers: RunningContainer[] = [];
  for (const c of rawContainers) {
    if (!isRecord(c) || typeof c["name"] !== "string" || c["name"] === "" || typeof c["image"] !== "string") return undefined;
    containers.push({ name: c["name"], image: c["image"], id: "" });
  }
  const namespace = typeof metadata["namespace"] === "string" && metadata["namespace"] !== "" ? metadata["namespace"] : "default";
  const uid =
    typeof metadata["uid"] === "string" && metadata["uid"] !== ""
      ? metadata["uid"]
      : hash(JSON.stringify(doc), source === "file" ? `host:${nodeName}` : "", origin);
  const labels: Record<string, string> = {};
  if (isRecord(metadata["labels"])) for (const [k, v] of Object.entries(metadata["labels"])) if (typeof v === "string") labels[k] = v;
  return {
    name: `${metadata["name"]}-${nodeName}`,
    namespace,
    uid,
    source,
    labels,
    spec,
    containers: containers.map((c) => ({ ...c, id: hash(uid, c.name) + hash(c.name, uid) })),
  };
}

function parse(text: string): unknown {
  try {
    return load(text);
  } catch {
    return undefined;
  }
}

/** The static pods of --pod-manifest-path (a directory or one file). */
export function readManifestPath(path: string, nodeName: string): StaticPod[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return [];
  }
  const files = isDir
    ? readdirSync(path)
        .filter((n) => !n.startsWith("."))
        .sort()
        .map((n) => join(path, n))
        .filter((p) => {
          try {
            return statSync(p).isFile();
          } catch {
            return false;
          }
        })
    : [path];
  const pods: StaticPod[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const pod = podOf(parse(text), "file", file, nodeName);
    if (pod) pods.push(pod);
  }
  return pods;
}

/** The pods the --manifest-url body holds: one Pod or a PodList. */
function manifestUrlPods(body: string, url: string, nodeName: string): StaticPod[] {
  const doc = parse(body);
  if (isRecord(doc) && doc["kind"] === "PodList" && Array.isArray(doc["items"])) {
    return doc["items"].flatMap((item: unknown) => {
      const pod = podOf(isRecord(item) ? { apiVersion: "v1", kind: "Pod", ...item } : item, "http", url, nodeName);
      return pod ? [pod] : [];
    });
  }
  const pod = podOf(doc, "http", url, nodeName);
  return pod ? [pod] : [];
}

/** Fetches --manifest-url once; an unreachable URL or a refusal gives no pod (the real node agent logs and retries). */
export async function fetchManifestUrl(url: string, nodeName: string, timeoutMs = 5000): Promise<StaticPod[]> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return [];
    return manifestUrlPods(await res.text(), url, nodeName);
  } catch {
    return [];
  }
}

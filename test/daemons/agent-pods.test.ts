/** The node agent's "What the service does" checks pass on consistent answers and fail on wrong ones. */
import { describe, expect, it } from "vitest";
import {
  checkNoForeignContainers,
  checkPodSources,
  checkPodsRunning,
  checkRegisteredNode,
  type ProbeResponse,
  type ProbeResult,
  parseAgentPods,
  reportsRunningContainer,
} from "../../lib/daemons/probes.js";
import { isDns1123Subdomain } from "../../lib/daemons/values/cluster-names.js";

const ok = (value: unknown): ProbeResponse => ({ status: 200, body: JSON.stringify(value) });
const podList = (items: unknown[]): ProbeResponse => ok({ kind: "PodList", apiVersion: "v1", metadata: {}, items });

interface PodOpts {
  name: string;
  namespace?: string;
  uid: string;
  source?: string;
  nodeName?: string;
  phase?: string;
  containers?: { name: string; running?: boolean; ready?: boolean }[];
}

const pod = (o: PodOpts): unknown => ({
  metadata: {
    name: o.name,
    namespace: o.namespace ?? "default",
    uid: o.uid,
    annotations: o.source === undefined ? {} : { "kubernetes.io/config.source": o.source },
  },
  spec: { nodeName: o.nodeName, containers: (o.containers ?? []).map((c) => ({ name: c.name, image: "pause" })) },
  status: {
    phase: o.phase ?? "Running",
    containerStatuses: (o.containers ?? []).map((c) => ({
      name: c.name,
      ready: c.ready ?? true,
      state: c.running === false ? { terminated: { exitCode: 1 } } : { running: {} },
    })),
  },
});

const runtimePod = (name: string, uid: string, containers: string[], namespace = "default"): unknown => ({
  metadata: { name, namespace, uid },
  spec: { containers: containers.map((c) => ({ name: c, image: "pause" })) },
});

const NODE = "node-a";
const WEB = { name: `web-${NODE}`, uid: "u1", source: "file", nodeName: NODE, containers: [{ name: "web" }, { name: "sidecar" }] };
const API = { name: "api-pod", uid: "u2", source: "api", nodeName: NODE, containers: [{ name: "app" }] };
const PODS = podList([pod(WEB), pod(API)]);
const RUNNING = podList([runtimePod(WEB.name, "u1", ["web", "sidecar"]), runtimePod("api-pod", "u2", ["app"])]);
const STATS = ok({ node: { nodeName: NODE }, pods: [] });
const ARGS = ["--pod-manifest-path=/etc/kubernetes/manifests", "--hostname-override=Node-A"];

const failedOf = (rs: ProbeResult[]): ProbeResult[] => rs.filter((r) => !r.ok);

describe("doc3.service.agent-podspec-sources", () => {
  it("passes: every pod names api, file or http, and the file pod is <name>-<node>", () => {
    const rs = checkPodSources(ARGS, "u", PODS);
    expect(rs.length).toBeGreaterThan(0);
    expect(failedOf(rs)).toEqual([]);
    expect(rs.every((r) => r.rule === "doc3.service.agent-podspec-sources")).toBe(true);
  });

  it("fails on a pod without the source annotation, one with another source, and a static pod without the node suffix", () => {
    const rs = checkPodSources(
      ARGS,
      "u",
      podList([pod({ ...API, source: undefined }), pod({ ...API, uid: "u3", source: "kubectl" }), pod({ ...WEB, name: "web" })]),
    );
    expect(failedOf(rs).map((r) => r.expected)).toEqual([
      "default/api-pod: kubernetes.io/config.source api, file or http",
      "default/api-pod: kubernetes.io/config.source api, file or http",
      "default/web (a file pod): named <name>-<node name>",
    ]);
  });

  it("fails on a file or http pod the command line names no source for (no --config file); a --config file may name them", () => {
    const http = pod({ ...WEB, name: `feed-${NODE}`, uid: "u4", source: "http" });
    expect(failedOf(checkPodSources([], "u", podList([pod(WEB), http]))).map((r) => r.expected)).toEqual([
      `default/web-${NODE}: a file pod only with --pod-manifest-path (no --config file)`,
      `default/feed-${NODE}: a http pod only with --manifest-url (no --config file)`,
    ]);
    expect(failedOf(checkPodSources(["--config=/var/lib/kubelet/config.yaml"], "u", podList([pod(WEB), http])))).toEqual([]);
  });

  it("fails on an answer that is no PodList, and gives no result for an empty one", () => {
    expect(failedOf(checkPodSources(ARGS, "u", { status: 403, body: "Forbidden" }))).toHaveLength(1);
    expect(failedOf(checkPodSources(ARGS, "u", ok({ kind: "Status" })))).toHaveLength(1);
    expect(checkPodSources(ARGS, "u", podList([]))).toEqual([]);
  });
});

describe("doc3.service.agent-registers-node", () => {
  it("passes: the summary names --hostname-override lowercased, and every pod is bound to it", () => {
    expect(failedOf(checkRegisteredNode(ARGS, "s", STATS, "p", PODS))).toEqual([]);
  });

  it("fails on another node name in the summary, and a pod bound elsewhere", () => {
    expect(failedOf(checkRegisteredNode(ARGS, "s", ok({ node: { nodeName: "Node-A" } }), "p", PODS)).map((r) => r.expected)).toEqual(
      expect.arrayContaining(['node.nodeName "node-a" (--hostname-override, lowercased)']),
    );
    expect(failedOf(checkRegisteredNode(ARGS, "s", STATS, "p", podList([pod({ ...API, nodeName: "node-b" })])))).toHaveLength(1);
  });

  it("without --hostname-override: a valid node name (lowercase DNS-1123 subdomain)", () => {
    expect(failedOf(checkRegisteredNode([], "s", ok({ node: { nodeName: "worker-1.example" } }), "p", podList([])))).toEqual([]);
    expect(failedOf(checkRegisteredNode([], "s", ok({ node: { nodeName: "Worker_1" } }), "p", podList([])))).toHaveLength(1);
    expect(isDns1123Subdomain("a-b.c")).toBe(true);
    expect(isDns1123Subdomain("-a")).toBe(false);
  });

  it("fails on a summary without node.nodeName, or refused", () => {
    expect(failedOf(checkRegisteredNode(ARGS, "s", ok({ node: {} }), "p", PODS))).toHaveLength(1);
    expect(failedOf(checkRegisteredNode(ARGS, "s", { status: 401, body: "Unauthorized" }, "p", PODS))).toHaveLength(1);
  });
});

describe("doc3.service.agent-podspec-running", () => {
  it("passes when every running container of /pods is in /runningpods/", () => {
    const rs = checkPodsRunning("p", PODS, "r", RUNNING);
    expect(rs.length).toBeGreaterThan(0);
    expect(failedOf(rs)).toEqual([]);
  });

  it("fails on a container /pods reports running that the runtime does not run, and on a pod missing there", () => {
    const rs = checkPodsRunning("p", PODS, "r", podList([runtimePod(WEB.name, "u1", ["web"])]));
    expect(failedOf(rs).map((r) => r.expected)).toEqual([
      `default/${WEB.name}: container sidecar, running per /pods, in /runningpods/`,
      "default/api-pod: container app, running per /pods, in /runningpods/",
    ]);
  });

  it("fails on a container reported ready that is not running", () => {
    const rs = checkPodsRunning("p", podList([pod({ ...API, containers: [{ name: "app", running: false, ready: true }] })]), "r", RUNNING);
    expect(failedOf(rs).map((r) => r.expected)).toEqual(["default/api-pod: ready container app running"]);
  });

  it("leaves pods that are not Running alone", () => {
    expect(checkPodsRunning("p", podList([pod({ ...API, phase: "Pending" })]), "r", podList([]))).toEqual([]);
  });

  it("says beforehand whether /pods gives it anything to check (the agent-running-containers capability)", () => {
    const cases = [
      PODS,
      podList([]),
      podList([pod({ ...API, phase: "Pending" })]),
      podList([pod({ ...API, containers: [] })]),
      podList([pod({ ...API, containers: [{ name: "app", running: false, ready: false }] })]),
      podList([pod({ ...API, containers: [{ name: "app", running: false, ready: true }] })]),
    ];
    const running = cases.map((pods) => {
      const parsed = parseAgentPods(pods);
      if (typeof parsed === "string") throw new Error(parsed);
      return reportsRunningContainer(parsed);
    });
    expect(running).toEqual([true, false, false, false, false, true]);
    for (const [i, pods] of cases.entries()) expect(running[i], pods.body).toBe(checkPodsRunning("p", pods, "r", RUNNING).length > 0);
  });
});

describe("doc3.service.agent-ignores-foreign-containers", () => {
  it("passes when every runtime pod is one of /pods", () => {
    const rs = checkNoForeignContainers("p", PODS, "r", RUNNING);
    expect(rs).toHaveLength(2);
    expect(failedOf(rs)).toEqual([]);
  });

  it("fails on a runtime pod that the node agent does not manage", () => {
    const running = podList([runtimePod(WEB.name, "u1", ["web", "sidecar"]), runtimePod("hand-started", "x9", ["busybox"])]);
    expect(failedOf(checkNoForeignContainers("p", PODS, "r", running)).map((r) => r.expected)).toEqual([
      "default/hand-started (containers busybox): a pod of /pods",
    ]);
  });

  it("fails when /runningpods/ is not served", () => {
    expect(failedOf(checkNoForeignContainers("p", PODS, "r", { status: 405, body: "Debug endpoints are disabled.\n" }))).toHaveLength(1);
  });
});

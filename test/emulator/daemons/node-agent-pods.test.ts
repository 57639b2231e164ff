/**
 * The emulated node agent's pods (doc3 "What the service does"): the static pods of
 * --pod-manifest-path and --manifest-url on /pods, /runningpods/ and /stats/summary, the node
 * name it registers, and the faults the checks of lib/daemons/agent-pods.ts catch.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STATIC_POD_DIR, STATIC_PODS } from "../../../fixtures/daemons/static-pods.js";
import {
  checkNoForeignContainers,
  checkPodSources,
  checkPodsRunning,
  checkRegisteredNode,
  type ProbeResult,
  parseAgentPods,
  parseRuntimePods,
} from "../../../lib/daemons/probes.js";
import {
  type EmulatedNodeAgentOptions,
  type RunningEmulatedDaemons,
  type RunningNodeAgent,
  startEmulatedDaemons,
} from "../../../lib/emulator/daemons/index.js";
import { ACCESS, get, TLS } from "./support.js";

const running: RunningEmulatedDaemons[] = [];
const closers: (() => void)[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.close()));
  for (const c of closers) c();
});

const FREE = { port: 0, readOnlyPort: 0, healthzPort: 0 };
const FIXTURE_ARGS = [`--pod-manifest-path=${STATIC_POD_DIR}`, "--hostname-override=Tollgate-Node-1"];

async function start(nodeAgent: EmulatedNodeAgentOptions): Promise<RunningNodeAgent & { url: string; readOnlyUrl: string }> {
  const d = await startEmulatedDaemons({ tls: TLS, access: ACCESS, nodeAgent: { ...FREE, ...nodeAgent } });
  running.push(d);
  const a = d.nodeAgent;
  if (!a?.url || !a.readOnlyUrl) throw new Error("no node agent servers");
  return { ...a, url: a.url, readOnlyUrl: a.readOnlyUrl };
}

interface Answers {
  pods: Awaited<ReturnType<typeof get>>;
  runningPods: Awaited<ReturnType<typeof get>>;
  stats: Awaited<ReturnType<typeof get>>;
}

const answers = async (a: { url: string }): Promise<Answers> => ({
  pods: await get(`${a.url}/pods`),
  runningPods: await get(`${a.url}/runningpods/`),
  stats: await get(`${a.url}/stats/summary`),
});

/** All four checks over one node agent's answers. */
function checks(args: readonly string[], x: Answers): ProbeResult[] {
  return [
    ...checkPodSources(args, "/pods", x.pods),
    ...checkRegisteredNode(args, "/stats/summary", x.stats, "/pods", x.pods),
    ...checkPodsRunning("/pods", x.pods, "/runningpods/", x.runningPods),
    ...checkNoForeignContainers("/pods", x.pods, "/runningpods/", x.runningPods),
  ];
}
const failedRules = (rs: ProbeResult[]): string[] => [...new Set(rs.filter((r) => !r.ok).map((r) => r.rule))].sort();

describe("emulated node agent: static pods", () => {
  it("runs the pods of --pod-manifest-path, not dot-files, subdirectories or manifests that are no Pod, named <name>-<node> and bound to the node", async () => {
    const a = await start({ args: FIXTURE_ARGS });
    const x = await answers(a);
    expect(x.pods.status).toBe(200);
    const pods = parseAgentPods(x.pods);
    if (typeof pods === "string") throw new Error(pods);
    expect(pods.map((p) => `${p.namespace}/${p.name}`)).toEqual(STATIC_PODS.map((p) => `${p.namespace}/${p.name}-tollgate-node-1`));
    for (const p of pods) {
      expect(p.source).toBe("file");
      expect(p.nodeName).toBe("tollgate-node-1");
      expect(p.phase).toBe("Running");
      expect(p.containers.every((c) => c.running && c.ready)).toBe(true);
    }
    const item = (JSON.parse(x.pods.body) as { items: { metadata: { uid: string; annotations: Record<string, string> }; spec: { tolerations: unknown[] } }[] })
      .items[0];
    expect(item?.metadata.annotations["kubernetes.io/config.hash"]).toBe(item?.metadata.uid);
    expect(item?.metadata.annotations["kubernetes.io/config.seen"]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(item?.spec.tolerations).toContainEqual({ operator: "Exists", effect: "NoExecute" });

    const runtime = parseRuntimePods(x.runningPods);
    if (typeof runtime === "string") throw new Error(runtime);
    expect(runtime.map((p) => [p.name, p.containers])).toEqual(STATIC_PODS.map((p) => [`${p.name}-tollgate-node-1`, p.containers]));
    const stats = JSON.parse(x.stats.body) as { node: { nodeName: string }; pods: { podRef: { name: string } }[] };
    expect(stats.node.nodeName).toBe("tollgate-node-1");
    expect(stats.pods.map((p) => p.podRef.name)).toEqual(STATIC_PODS.map((p) => `${p.name}-tollgate-node-1`));

    const rs = checks(a.args, x);
    expect(rs.length).toBeGreaterThan(10);
    expect(failedRules(rs)).toEqual([]);
  });

  it("the read-only server serves the same /pods and /stats/summary without credentials", async () => {
    const a = await start({ args: FIXTURE_ARGS });
    const [main, readOnly] = [await get(`${a.url}/pods`), await get(`${a.readOnlyUrl}/pods`)];
    expect(readOnly.status).toBe(200);
    expect(readOnly.body).toBe(main.body);
    expect((await get(`${a.readOnlyUrl}/stats/summary`)).status).toBe(200);
  });

  it("without --hostname-override the node is the machine's hostname, lowercased; no manifest source, no pod", async () => {
    const a = await start({ args: [], hostname: "Build-Host.Example" });
    const x = await answers(a);
    expect((JSON.parse(x.stats.body) as { node: { nodeName: string } }).node.nodeName).toBe("build-host.example");
    expect(JSON.parse(x.pods.body)).toEqual({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [] });
    expect(failedRules(checks(a.args, x))).toEqual([]);
  });

  it("a single file as --pod-manifest-path is that pod; --manifest-url is fetched once, its pods have source http", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-static-"));
    const file = join(dir, "one.json");
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "one" }, spec: { containers: [{ name: "c", image: "pause" }] } }));
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/yaml" });
      res.end("apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: feed, namespace: feeds}\n  spec: {containers: [{name: f, image: pause}]}\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods.yaml`;
    const a = await start({ args: [`--pod-manifest-path=${file}`, `--manifest-url=${url}`, "--hostname-override=n1"] });
    const x = await answers(a);
    const pods = parseAgentPods(x.pods);
    if (typeof pods === "string") throw new Error(pods);
    expect(pods.map((p) => [p.namespace, p.name, p.source])).toEqual([
      ["default", "one-n1", "file"],
      ["feeds", "feed-n1", "http"],
    ]);
    expect(failedRules(checks(a.args, x))).toEqual([]);
  });

  it("/pods and /stats/summary need authorization on the main server, like the other paths", async () => {
    const a = await start({ args: [...FIXTURE_ARGS, "--authentication-token-webhook", "--authorization-mode=Webhook"] });
    expect((await get(`${a.url}/stats/summary`)).status).toBe(403);
    expect((await get(`${a.url}/pods`)).status).toBe(403);
    expect((await get(`${a.url}/stats/summary`)).body).toContain("subresource=stats");
  });
});

describe("emulated node agent, wrong on purpose: the pod checks report the failure", () => {
  it("foreign-container: /runningpods/ lists a container the cluster did not create", async () => {
    const a = await start({ args: FIXTURE_ARGS, faults: ["foreign-container"] });
    expect(failedRules(checks(a.args, await answers(a)))).toEqual(["doc3.service.agent-ignores-foreign-containers"]);
  });

  it("wrong-node-name: /stats/summary names another node than the pods are bound to", async () => {
    const a = await start({ args: FIXTURE_ARGS, faults: ["wrong-node-name"] });
    expect(failedRules(checks(a.args, await answers(a)))).toEqual(["doc3.service.agent-registers-node"]);
  });

  it("stopped-container: /pods reports a container running and ready that the runtime does not run", async () => {
    const a = await start({ args: FIXTURE_ARGS, faults: ["stopped-container"] });
    expect(failedRules(checks(a.args, await answers(a)))).toEqual(["doc3.service.agent-podspec-running"]);
  });

  it("a node agent told another --hostname-override than it was started with", async () => {
    const a = await start({ args: FIXTURE_ARGS });
    expect(failedRules(checks([`--pod-manifest-path=${STATIC_POD_DIR}`, "--hostname-override=other-node"], await answers(a)))).toEqual([
      "doc3.service.agent-registers-node",
    ]);
  });
});

/**
 * The emulator on etcd, against itself in memory, in one run: (a) `tollgate emulator` in memory,
 * (b) one emulator on a throw-away etcd, (c) three emulators on one (other) throw-away etcd.
 * Each emulator is its own process (the CLI, as a user starts it), so this client's CPU is not
 * the server's; etcd runs as its own process too. For each case: ConfigMap creates/s over HTTP at
 * a fixed concurrency (for (c) spread round-robin over the three), and the latency of a
 * consistent LIST (no resourceVersion) of a namespace holding --items ConfigMaps written through
 * the first replica; for (c) also through a replica that did not write them. The cases take
 * turns within each run so load from other work on the machine falls on all of them.
 *
 *   npx tsx scripts/bench-etcd.ts [--creates 2000] [--items 1000] [--runs 3] [--lists 10] [--concurrency 16]
 *
 * Bounded: every request and the whole run have deadlines; loopback only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { type EtcdServer, freePorts, startEtcd } from "../lib/etcd/launch.js";
import { deadline, percentile, report } from "./bench-support.js";

const { values } = parseArgs({
  options: {
    creates: { type: "string", default: "2000" },
    items: { type: "string", default: "1000" },
    runs: { type: "string", default: "3" },
    lists: { type: "string", default: "10" },
    concurrency: { type: "string", default: "16" },
  },
});
const CREATES = Number(values.creates);
const ITEMS = Number(values.items);
const RUNS = Number(values.runs);
const LISTS = Number(values.lists);
const CONCURRENCY = Number(values.concurrency);
for (const [name, v] of Object.entries({ CREATES, ITEMS, RUNS, LISTS, CONCURRENCY })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name.toLowerCase()} must be a positive integer`);
}

const CLI = fileURLToPath(new URL("../bin/tollgate.js", import.meta.url));
const LIST_NS = "bench-list";
/** About 300 bytes of data: a small ConfigMap, as controllers write them. */
const PAYLOAD = "tollgate etcd benchmark ".repeat(13);

const agent = new Agent({ connections: CONCURRENCY, headersTimeout: 60_000, bodyTimeout: 60_000 });

interface Emulator {
  url: string;
  child: ChildProcess;
}

async function startEmulator(etcdUrl?: string): Promise<Emulator> {
  const [port] = (await freePorts(1)) as [number];
  const flags = [CLI, "emulator", "--port", String(port)];
  if (etcdUrl) flags.push("--etcd-servers", etcdUrl);
  const child = spawn(process.execPath, flags, { stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the emulator on port ${port} exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, child };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error(`the emulator at ${url} did not become ready within 60 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopEmulator(e: Emulator): Promise<void> {
  if (e.child.exitCode !== null || e.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => e.child.once("exit", () => resolve()));
  e.child.kill("SIGTERM");
  const timer = setTimeout(() => e.child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

async function send(method: string, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await request(url, {
    method: method as "GET" | "POST",
    dispatcher: agent,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

async function must(method: string, url: string, status: number, body?: unknown): Promise<string> {
  const res = await send(method, url, body);
  if (res.status !== status) throw new Error(`${method} ${url}: ${res.status} (expected ${status}): ${res.text.slice(0, 300)}`);
  return res.text;
}

const configMap = (name: string): unknown => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels: { app: "tollgate-bench" } },
  data: { payload: PAYLOAD },
});

/** Creates `count` ConfigMaps in namespace ns, `CONCURRENCY` in flight, request i through urls[i % n]; returns creates/s. */
async function createMany(urls: string[], ns: string, prefix: string, count: number): Promise<number> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      await must("POST", `${urls[i % urls.length]}/api/v1/namespaces/${ns}/configmaps`, 201, configMap(`${prefix}-${String(i).padStart(6, "0")}`));
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  return count / ((performance.now() - start) / 1000);
}

/** One consistent LIST of the list namespace: milliseconds to the last byte; checks the item count. */
async function timedList(url: string): Promise<number> {
  const start = performance.now();
  const text = await must("GET", `${url}/api/v1/namespaces/${LIST_NS}/configmaps`, 200);
  const ms = performance.now() - start;
  // The namespace also holds kube-root-ca.crt, which the emulator's publisher writes in every namespace.
  const items = (JSON.parse(text) as { items: { metadata: { name: string } }[] }).items.filter((i) => i.metadata.name.startsWith("item-")).length;
  if (items !== ITEMS) throw new Error(`list through ${url} had ${items} bench items, expected ${ITEMS}`);
  return ms;
}

interface Case {
  name: string;
  replicas: Emulator[];
  createsPerSec: number[];
  /** Lists through the replica that wrote the items. */
  listMs: number[];
  /** Lists through another replica (three replicas only). */
  otherListMs: number[];
}

async function prepare(c: Case): Promise<void> {
  const [writer] = c.replicas.map((r) => r.url);
  if (!writer) throw new Error("no replica");
  const namespaces = [LIST_NS, "bench-warm", ...Array.from({ length: RUNS }, (_, r) => `bench-create-${r}`)];
  for (const ns of namespaces) await must("POST", `${writer}/api/v1/namespaces`, 201, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  // A read through each replica waits for etcd's current revision, so each then knows the namespaces.
  for (const r of c.replicas) await must("GET", `${r.url}/api/v1/namespaces/${namespaces.at(-1)}`, 200);
  await createMany([writer], LIST_NS, "item", ITEMS);
  // Warm the create and list paths of every replica before anything is timed.
  await createMany(
    c.replicas.map((r) => r.url),
    "bench-warm",
    "warm",
    Math.min(200, CREATES),
  );
  for (const r of c.replicas) await timedList(r.url);
}

const round = (x: number, digits = 1): number => Number(x.toFixed(digits));
const median = (xs: number[]): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

function summary(c: Case): Record<string, unknown> {
  const sorted = [...c.listMs].sort((a, b) => a - b);
  const other = [...c.otherListMs].sort((a, b) => a - b);
  return {
    replicas: c.replicas.length,
    createsPerSecPerRun: c.createsPerSec.map((x) => round(x, 0)),
    createsPerSecMedian: round(median(c.createsPerSec), 0),
    listMsP50: round(percentile(sorted, 50)),
    listMsP99: round(percentile(sorted, 99)),
    ...(other.length > 0 ? { otherReplicaListMsP50: round(percentile(other, 50)), otherReplicaListMsP99: round(percentile(other, 99)) } : {}),
  };
}

async function main(): Promise<void> {
  const limit = deadline(20 * 60_000, "bench-etcd");
  const loadBefore = loadavg().map((l) => round(l, 2));
  const etcds: EtcdServer[] = [];
  const emulators: Emulator[] = [];
  try {
    const run = async (): Promise<void> => {
      const etcdOne = await startEtcd();
      etcds.push(etcdOne);
      const etcdThree = await startEtcd();
      etcds.push(etcdThree);
      const started = async (etcdUrl?: string): Promise<Emulator> => {
        const e = await startEmulator(etcdUrl);
        emulators.push(e);
        return e;
      };
      const cases: Case[] = [
        { name: "memory", replicas: [await started()], createsPerSec: [], listMs: [], otherListMs: [] },
        { name: "etcd, 1 replica", replicas: [await started(etcdOne.url)], createsPerSec: [], listMs: [], otherListMs: [] },
        {
          name: "etcd, 3 replicas",
          replicas: [await started(etcdThree.url), await started(etcdThree.url), await started(etcdThree.url)],
          createsPerSec: [],
          listMs: [],
          otherListMs: [],
        },
      ];
      for (const c of cases) {
        console.error(`${c.name}: writing ${ITEMS} items and warming up …`);
        await prepare(c);
      }
      for (let r = 0; r < RUNS; r++) {
        // Rotate the order so a burst of outside load does not always land on the same case.
        for (let k = 0; k < cases.length; k++) {
          const c = cases[(r + k) % cases.length] as Case;
          const urls = c.replicas.map((e) => e.url);
          c.createsPerSec.push(await createMany(urls, `bench-create-${r}`, "cm", CREATES));
          for (let i = 0; i < LISTS; i++) {
            c.listMs.push(await timedList(urls[0] as string));
            if (urls[1]) c.otherListMs.push(await timedList(urls[1]));
          }
          console.error(`run ${r + 1}, ${c.name}: ${round(c.createsPerSec.at(-1) ?? NaN, 0)} creates/s, last list ${round(c.listMs.at(-1) ?? NaN)} ms`);
        }
      }
      const [a, b, c] = cases.map(summary) as [Record<string, number>, Record<string, number>, Record<string, number>];
      const ratio = (x: number | undefined, y: number | undefined): number => round((x ?? NaN) / (y ?? NaN), 2);
      report("bench-etcd", {
        method:
          "each emulator is `node bin/tollgate.js emulator` in its own process (plain HTTP, default settings, --etcd-servers for the etcd cases; 3 replicas share one etcd), each etcd (lib/etcd/launch.ts) its own process; this process is the client (undici, loopback HTTP/1.1). Creates: POST of ~0.4 KB ConfigMaps into one namespace, a fixed number in flight, round-robin over the replicas; creates/s per run. Lists: consistent LIST (no resourceVersion) of one namespace holding the items, whole body read and parsed, item count checked; p50/p99 over all lists of all runs. Cases take turns within each run, order rotated per run; everything warmed up before timing.",
        parameters: { creates: CREATES, items: ITEMS, runs: RUNS, listsPerRun: LISTS, concurrency: CONCURRENCY },
        loadAverageBefore1m5m15m: loadBefore,
        memory: a,
        etcdOneReplica: b,
        etcdThreeReplicas: c,
        ratios: {
          createsPerSec: {
            etcdOneToMemory: ratio(b.createsPerSecMedian, a.createsPerSecMedian),
            etcdThreeToMemory: ratio(c.createsPerSecMedian, a.createsPerSecMedian),
          },
          listP50: {
            etcdOneToMemory: ratio(b.listMsP50, a.listMsP50),
            etcdThreeToMemory: ratio(c.listMsP50, a.listMsP50),
            etcdThreeOtherReplicaToMemory: ratio(c.otherReplicaListMsP50, a.listMsP50),
          },
          listP99: {
            etcdOneToMemory: ratio(b.listMsP99, a.listMsP99),
            etcdThreeToMemory: ratio(c.listMsP99, a.listMsP99),
            etcdThreeOtherReplicaToMemory: ratio(c.otherReplicaListMsP99, a.listMsP99),
          },
        },
      });
    };
    await Promise.race([run(), limit.promise]);
  } finally {
    limit.clear();
    for (const e of emulators) await stopEmulator(e);
    for (const e of etcds) await e.dispose();
    await agent.close();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

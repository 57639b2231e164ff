/**
 * List benchmark: the emulator (in a child process) holds 100,000 events.k8s.io Events of about
 * 1 KB, written through its registry; this process GETs the all-namespaces list over loopback
 * HTTP and measures bytes, time and throughput, while the child samples its own memory (and this
 * process samples the child's VmRSS from /proc). The baseline is a second child that streams
 * JSON.stringify of the very same objects (fetched from the emulator once) to the socket; for
 * protobuf, a child that keeps those objects and encodes each per request with lib/wire's
 * encoder (so the ratio measures serving, not a different encoder), and a third that streams
 * the whole list's protobuf bytes encoded before timing (readyBytes: copying only, which no
 * server that reads its store per request matches). The emulator's protobuf answer must be
 * byte for byte each baseline's (compared by SHA-1).
 *
 *   npx tsx scripts/bench-list.ts [--events N] [--runs N] [--encodings json,protobuf]
 *
 * Targets (issue #18): memory growth while serving <= 64 MB; throughput >= 0.9 of the plain
 * stream's, in JSON and in protobuf.
 * Bounded: seeding and every run have deadlines; loopback only.
 */
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { type Child, deadline, mb, report, startChild, watchRss } from "./bench-support.js";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "100000" },
    runs: { type: "string", default: "3" },
    namespaces: { type: "string", default: "10" },
    encodings: { type: "string", default: "json,protobuf" },
  },
});
const ENCODINGS = values.encodings.split(",").map((e) => e.trim()) as Encoding[];
type Encoding = "json" | "protobuf";
const ACCEPT: Record<Encoding, string> = { json: "application/json", protobuf: "application/vnd.kubernetes.protobuf" };
if (ENCODINGS.some((e) => !(e in ACCEPT))) throw new Error(`--encodings: json and/or protobuf, not ${values.encodings}`);
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const NAMESPACES = Number(values.namespaces);
const LIST_PATH = "/apis/events.k8s.io/v1/events";
/**
 * List items carry no kind (a real server leaves TypeMeta off typed list items), so each
 * begins with its metadata; the list's own metadata has no name, so this does not match it.
 */
const ITEM_MARK = '{"metadata":{"name":"';

interface RunFigures {
  bytes: number;
  items: number;
  ttfbMs: number;
  totalMs: number;
  mbPerSec: number;
  /** Peak minus the after-setup baseline, sampled inside the child. */
  rssGrowthMb: number;
  heapGrowthMb: number;
  /** Peak VmRSS minus baseline, sampled from outside. */
  procRssGrowthMb: number;
  samples: number;
  /** The server's CPU time (user + system) while serving the list, sampled in the child. */
  serverCpuMs: number;
  /** SHA-1 of the body (protobuf runs: the emulator's bytes must be the baseline's). */
  sha1?: string;
}

const agent = new Agent({ connections: 1, bodyTimeout: 120_000, headersTimeout: 120_000 });

async function measure(child: Child, url: string, encoding: Encoding): Promise<RunFigures> {
  const before = await child.ask({ type: "gc" }, "gced");
  await child.ask({ type: "sample-start" }, "sampling");
  const outside = watchRss(child.process.pid ?? 0);
  const start = performance.now();
  const res = await request(url, { dispatcher: agent, headers: { accept: ACCEPT[encoding] } });
  const hash = encoding === "protobuf" ? createHash("sha1") : undefined;
  let ttfb = 0;
  let bytes = 0;
  let items = 0;
  let tail = "";
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (bytes === 0) ttfb = performance.now() - start;
    bytes += chunk.length;
    if (hash) {
      hash.update(chunk);
      continue;
    }
    // Count item starts across chunk boundaries by carrying the last few characters over.
    const text = tail + chunk.toString("latin1");
    for (let at = text.indexOf(ITEM_MARK); at >= 0; at = text.indexOf(ITEM_MARK, at + 1)) items++;
    tail = text.slice(-(ITEM_MARK.length - 1));
  }
  const totalMs = performance.now() - start;
  const peakRss = outside.stop();
  const sampled = await child.ask({ type: "sample-stop" }, "sampled");
  if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}`);
  return {
    bytes,
    items,
    ttfbMs: Math.round(ttfb),
    totalMs: Math.round(totalMs),
    mbPerSec: Number((bytes / 2 ** 20 / (totalMs / 1000)).toFixed(1)),
    rssGrowthMb: Number(mb(sampled.peak.rss - before.memory.rss)),
    heapGrowthMb: Number(mb(sampled.peak.heapUsed - before.memory.heapUsed)),
    procRssGrowthMb: Number(mb(peakRss - before.memory.rss)),
    samples: sampled.samples,
    serverCpuMs: sampled.counters["cpuMs"] ?? NaN,
    ...(hash ? { sha1: hash.digest("hex") } : {}),
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const limit = deadline(15 * 60_000, "bench-list");
  const children: Child[] = [];
  try {
    const run = async (): Promise<void> => {
      console.error(`seeding ${EVENTS} events in ${NAMESPACES} namespaces …`);
      const emulator = await startChild("list-emulator", [String(EVENTS), String(NAMESPACES)], 10 * 60_000);
      children.push(emulator);
      console.error(
        `seeded in ${(emulator.ready.setupMs / 1000).toFixed(1)} s; baseline rss ${mb(emulator.ready.baseline.rss)} MB, heap ${mb(emulator.ready.baseline.heapUsed)} MB`,
      );
      // Warm up the code paths once on a small page.
      await (await request(`${emulator.ready.url}${LIST_PATH}?limit=100`, { dispatcher: agent })).body.text();
      const setup = {
        ...emulator.ready.detail,
        seedSeconds: Number((emulator.ready.setupMs / 1000).toFixed(1)),
        baselineRssMb: Number(mb(emulator.ready.baseline.rss)),
        baselineHeapMb: Number(mb(emulator.ready.baseline.heapUsed)),
      };
      const byEncoding: Record<string, unknown> = {};
      const ratios: Record<string, number> = {};
      let growth = 0;
      for (const encoding of ENCODINGS) {
        const emu: RunFigures[] = [];
        for (let i = 0; i < RUNS; i++) {
          emu.push(await measure(emulator, emulator.ready.url + LIST_PATH, encoding));
          console.error(`${encoding} emulator run ${i + 1}: ${JSON.stringify(emu.at(-1))}`);
        }
        const baseline = async (role: string, label: string): Promise<RunFigures[]> => {
          const plain = await startChild(role, [emulator.ready.url + LIST_PATH], 5 * 60_000);
          children.push(plain);
          await (await request(plain.ready.url, { dispatcher: agent })).body.text();
          const runs: RunFigures[] = [];
          for (let i = 0; i < RUNS; i++) {
            runs.push(await measure(plain, plain.ready.url, encoding));
            console.error(`${encoding} ${label} run ${i + 1}: ${JSON.stringify(runs.at(-1))}`);
          }
          await plain.stop();
          if (encoding === "protobuf" && emu.some((r) => r.sha1 !== runs[0]?.sha1 || r.bytes !== runs[0]?.bytes))
            throw new Error(`the emulator's protobuf list differs from the ${label} baseline's bytes`);
          return runs;
        };
        const base = await baseline(encoding === "json" ? "list-plain" : "list-plain-protobuf", "plain");
        // Protobuf also against bytes encoded before timing: what serving costs beyond copying.
        const ready = encoding === "protobuf" ? await baseline("list-ready-protobuf", "ready-bytes") : undefined;
        const emuMbs = median(emu.map((r) => r.mbPerSec));
        const baseMbs = median(base.map((r) => r.mbPerSec));
        const encodingGrowth = Math.max(...emu.map((r) => Math.max(r.rssGrowthMb, r.procRssGrowthMb)));
        growth = Math.max(growth, encodingGrowth);
        const emuCpu = median(emu.map((r) => r.serverCpuMs));
        const baseCpu = median(base.map((r) => r.serverCpuMs));
        const name = encoding === "json" ? "Json" : "Protobuf";
        ratios[`list${name}`] = Number((emuMbs / baseMbs).toFixed(2));
        // The plain stream's CPU per list over the emulator's: 1 when serving costs what the plain stream costs.
        ratios[`list${name}Cpu`] = Number((baseCpu / emuCpu).toFixed(2));
        const readyCpu = ready ? median(ready.map((r) => r.serverCpuMs)) : undefined;
        if (ready && readyCpu !== undefined) {
          ratios[`list${name}VsReadyBytes`] = Number((emuMbs / median(ready.map((r) => r.mbPerSec))).toFixed(2));
          ratios[`list${name}VsReadyBytesCpu`] = Number((readyCpu / emuCpu).toFixed(2));
        }
        byEncoding[encoding] = {
          emulator: emu,
          plain: base,
          ...(ready ? { readyBytes: ready } : {}),
          summary: {
            listBytes: emu[0]?.bytes,
            listMb: Number(mb(emu[0]?.bytes ?? 0)),
            ...(encoding === "json" ? { items: emu[0]?.items } : {}),
            emulatorMedianMbPerSec: emuMbs,
            emulatorFirstRunMbPerSec: emu[0]?.mbPerSec,
            emulatorFirstRunServerCpuMs: emu[0]?.serverCpuMs,
            plainMedianMbPerSec: baseMbs,
            emulatorMedianServerCpuMs: emuCpu,
            plainMedianServerCpuMs: baseCpu,
            ...(readyCpu !== undefined ? { readyBytesMedianServerCpuMs: readyCpu } : {}),
            throughputRatio: Number((emuMbs / baseMbs).toFixed(2)),
            worstMemoryGrowthMb: encodingGrowth,
            targets: { memoryGrowthAtMost64Mb: encodingGrowth <= 64, throughputAtLeast09OfPlain: emuMbs >= 0.9 * baseMbs },
          },
        };
      }
      report("bench-list", {
        method:
          "events written through the emulator's generic registry in a child process; all-namespaces GET over loopback HTTP/1.1 (undici), body counted and discarded; memory sampled every 2 ms in the child (rss, heapUsed) and every 5 ms from /proc/<pid>/status, growth relative to the after-GC baseline; baselines: the same objects kept in memory and encoded per request, by JSON.stringify (JSON) and by lib/wire's protobuf encoder (protobuf), streamed in 64 KB writes with backpressure; protobuf also against the whole list's bytes encoded before timing (readyBytes: copying only)",
        setup,
        ...byEncoding,
        ratios,
        worstMemoryGrowthMb: growth,
      });
    };
    await Promise.race([run(), limit.promise]);
  } finally {
    limit.clear();
    for (const c of children) await c.stop();
    await agent.close();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

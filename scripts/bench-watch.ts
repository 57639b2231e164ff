/**
 * Watch fan-out benchmark: the emulator (in a child process) serves 1,000 concurrent watchers
 * of one configmap collection, each on its own HTTP/1.1 connection (plain `net` sockets read by
 * bench-watch-client.ts, in a worker thread by default); this process creates configmaps at
 * 200 writes/s for 10 s on a separate undici pool and checks that every watcher receives every
 * ADDED event exactly once, in order.
 *
 * Latency is measured on the process's monotonic clock from just before the write request is
 * sent to the arrival of the read holding the event at each watcher (so it includes the write's
 * own request and processing); the same figures relative to the write's response are reported
 * too (they can be negative: the emulator fans out before it answers the write).
 *
 * The same measurement is then made against a bare node:http fan-out server (bench-child
 * watch-bare: numbers each create, frames its line once, writes it to every watch response on
 * the emulator's cadence), in a fresh child, with the same client: the report's `ratios` are the
 * emulator's figures over the bare server's, so that what this machine allows any Node server
 * is measured in the same run (`--servers` picks, and orders, the two).
 *
 *   npx tsx scripts/bench-watch.ts [--watchers N] [--rate PER_SEC] [--seconds S] [--reader worker|main]
 *                                  [--servers emulator,bare]
 *
 * Target (issue #18): p99 < 50 ms. Bounded: a deadline covers each server's run; loopback only.
 */
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { Pool } from "undici";
import { type Child, deadline, loopDelay, mb, percentile, report, startChild } from "./bench-support.js";
import { clockMs, type FromWorker, openWatchers, type ToWorker, type WatchSetup, type WatchStats } from "./bench-watch-client.js";

const { values } = parseArgs({
  options: {
    watchers: { type: "string", default: "1000" },
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    payload: { type: "string", default: "256" },
    // Where the watch sockets are read: a worker thread keeps the write loop's timing free of reads.
    reader: { type: "string", default: "worker" },
    // The servers measured in turn: the emulator and the bare fan-out baseline (bench-child watch-bare).
    servers: { type: "string", default: "emulator,bare" },
  },
});
const WATCHERS = Number(values.watchers);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const WRITES = RATE * SECONDS;
const NS = "bench-watch";
const COLLECTION = `/api/v1/namespaces/${NS}/configmaps`;
const PAYLOAD = "p".repeat(Number(values.payload));
const READER = values.reader;
if (READER !== "worker" && READER !== "main") throw new Error("--reader is worker or main");
type Server = "emulator" | "bare";
const SERVERS = (values.servers ?? "").split(",").filter(Boolean) as Server[];
if (SERVERS.length === 0 || SERVERS.some((x) => x !== "emulator" && x !== "bare")) throw new Error("--servers is a list of emulator, bare");

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // utime and stime are fields 14 and 15 of the full line; 12 and 13 after "pid (comm) ".
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The watchers, read in this thread or in a worker. */
interface Watchers {
  openMs: number;
  stats(): Promise<WatchStats>;
  close(): Promise<void>;
}

async function startWatchers(setup: WatchSetup): Promise<Watchers> {
  if (READER === "main") {
    const opened = await openWatchers(setup);
    return { openMs: opened.openMs, stats: async () => opened.stats(), close: async () => opened.close() };
  }
  // tsx's loader is registered per thread: the worker registers it before loading the module.
  const boot = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(new URL("./bench-watch-client.ts", import.meta.url).href)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { role: "bench-watchers", setup } });
  const next = <T extends FromWorker["type"]>(type: T): Promise<Extract<FromWorker, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: FromWorker): void => {
        if (m.type === "error") done(new Error(m.message));
        else if (m.type === type) done(undefined, m as Extract<FromWorker, { type: T }>);
      };
      const onError = (e: Error): void => done(e);
      function done(error?: Error, value?: Extract<FromWorker, { type: T }>): void {
        worker.off("message", onMessage);
        worker.off("error", onError);
        if (error) reject(error);
        else resolve(value as Extract<FromWorker, { type: T }>);
      }
      worker.on("message", onMessage);
      worker.on("error", onError);
    });
  const { openMs } = await next("open").catch(async (e: unknown) => {
    // Its open sockets would keep the process alive.
    await worker.terminate();
    throw e;
  });
  return {
    openMs,
    stats: async () => {
      const answer = next("stats");
      worker.postMessage({ type: "stats" } satisfies ToWorker);
      return (await answer).stats;
    },
    close: async () => {
      worker.postMessage({ type: "close" } satisfies ToWorker);
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

type Figures = Record<string, unknown> & { latencyFromSendMs: Record<string, number>; writeResponseMs: Record<string, number> };

/** One measurement against one server: a fresh child, the watchers, the writes, the checks. */
async function measure(server: Server): Promise<Figures> {
  let emulator: Child | undefined;
  let pools: Pool[] = [];
  let watchers: Watchers | undefined;
  try {
    emulator = await startChild(`watch-${server}`, [], 60_000);
    const url = emulator.ready.url;
    const pid = emulator.process.pid ?? 0;
    const writers = new Pool(url, { connections: 32 });
    pools = [writers];
    const ns = await writers.request({
      method: "POST",
      path: "/api/v1/namespaces",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: NS } }),
    });
    await ns.body.text();
    const list = await writers.request({ method: "GET", path: COLLECTION });
    const rv = (JSON.parse(await list.body.text()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    const sentAt = new Float64Array(WRITES).fill(NaN);
    const answeredAt = new Float64Array(WRITES).fill(NaN);
    // One slot per (watcher, write): arrival time on the process's shared clock (clockMs).
    const arrivedShared = new SharedArrayBuffer(WATCHERS * WRITES * Float64Array.BYTES_PER_ELEMENT);
    const arrivedAt = new Float64Array(arrivedShared).fill(NaN);
    const deliveredShared = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const deliveredCount = new Int32Array(deliveredShared);
    const { hostname, port } = new URL(url);
    watchers = await startWatchers({
      host: hostname,
      port: Number(port),
      path: `${COLLECTION}?watch=true&resourceVersion=${rv}`,
      watchers: WATCHERS,
      writes: WRITES,
      arrivedAt: arrivedShared,
      delivered: deliveredShared,
    });
    const openMs = watchers.openMs;
    const memBefore = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    const cpuBefore = cpuSeconds(pid);
    const clientCpuBefore = process.cpuUsage();
    await emulator.ask({ type: "sample-start" }, "sampling");
    const clientDelay = monitorEventLoopDelay({ resolution: 1 });
    clientDelay.enable();
    console.error(`${WATCHERS} watchers open in ${Math.round(openMs)} ms; writing ${WRITES} configmaps at ${RATE}/s …`);

    const writeStart = performance.now();
    const pending: Array<Promise<void>> = [];
    let writeErrors = 0;
    for (let i = 0; i < WRITES; i++) {
      await sleep(writeStart + (i * 1000) / RATE - performance.now());
      const name = `w-${String(i).padStart(6, "0")}`;
      const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { payload: PAYLOAD } });
      sentAt[i] = clockMs();
      pending.push(
        writers
          .request({ method: "POST", path: COLLECTION, headers: { "content-type": "application/json" }, body })
          .then(async (res) => {
            answeredAt[i] = clockMs();
            await res.body.text();
            if (res.statusCode !== 201) writeErrors++;
          })
          .catch(() => {
            writeErrors++;
          }),
      );
    }
    await Promise.all(pending);
    const writeSeconds = (performance.now() - writeStart) / 1000;
    const expected = WATCHERS * WRITES;
    const drainStart = performance.now();
    const delivered = (): number => Atomics.load(deliveredCount, 0);
    while (delivered() < expected && performance.now() - drainStart < 15_000) await sleep(20);
    const cpuUsed = cpuSeconds(pid) - cpuBefore;
    clientDelay.disable();
    const stats = await watchers.stats();
    const serverSample = await emulator.ask({ type: "sample-stop" }, "sampled");
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const clientCpuSeconds = (clientCpu.user + clientCpu.system) / 1e6;
    const elapsedSeconds = (performance.now() - writeStart) / 1000;
    const memAfter = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

    const fromSend: number[] = [];
    const fromAnswer: number[] = [];
    for (let w = 0; w < WATCHERS; w++) {
      for (let i = 0; i < WRITES; i++) {
        const t = arrivedAt[w * WRITES + i] ?? NaN;
        if (Number.isNaN(t)) continue;
        fromSend.push(t - (sentAt[i] ?? NaN));
        fromAnswer.push(t - (answeredAt[i] ?? NaN));
      }
    }
    const sortedSend = Float64Array.from(fromSend).sort();
    const sortedAnswer = Float64Array.from(fromAnswer).sort();
    const writeLatency = Float64Array.from(Array.from(answeredAt, (t, i) => t - (sentAt[i] ?? NaN))).sort();
    const ms = (x: number): number => Number(x.toFixed(1));
    const got = delivered();
    const p99 = percentile(sortedSend, 99);
    return {
      method: `${server === "emulator" ? "emulator" : "bare node:http fan-out server (bench-child watch-bare)"} in a child process; one net socket per watcher (hand-written GET, chunked de-framing, byte scan for name and resourceVersion), read in the ${READER === "worker" ? "worker" : "main"} thread; configmap creates on a separate 32-connection undici pool, paced by absolute schedule; latency = arrival of the read holding the event minus the time just before the write request was sent (process-wide monotonic clock)`,
      setup: {
        watchers: WATCHERS,
        writesPerSecond: RATE,
        seconds: SECONDS,
        writes: WRITES,
        payloadBytes: PAYLOAD.length,
        watchersOpenMs: Math.round(openMs),
      },
      delivery: {
        expected,
        delivered: got,
        missing: expected - got,
        duplicates: stats.duplicates,
        outOfOrder: stats.outOfOrder,
        unparsedLines: stats.unparsedLines,
        connectionErrors: stats.errors,
        writeErrors,
        watchersWithAllEvents: stats.watchersWithAllEvents,
      },
      latencyFromSendMs: {
        p50: ms(percentile(sortedSend, 50)),
        p90: ms(percentile(sortedSend, 90)),
        p99: ms(p99),
        max: ms(sortedSend[sortedSend.length - 1] ?? NaN),
      },
      latencyFromWriteResponseMs: {
        p50: ms(percentile(sortedAnswer, 50)),
        p99: ms(percentile(sortedAnswer, 99)),
        max: ms(sortedAnswer[sortedAnswer.length - 1] ?? NaN),
      },
      writeResponseMs: { p50: ms(percentile(writeLatency, 50)), p99: ms(percentile(writeLatency, 99)) },
      achievedWritesPerSecond: ms(WRITES / writeSeconds),
      // CPU from the first write until the last event arrived (or the drain gave up).
      server: {
        cpuSeconds: ms(cpuUsed),
        cpuPercentOfOneCore: ms((cpuUsed / elapsedSeconds) * 100),
        loopDelayMs: serverSample.loopDelayMs,
        rssBeforeMb: Number(mb(memBefore)),
        rssAfterMb: Number(mb(memAfter)),
        heapPeakMb: Number(mb(serverSample.peak.heapUsed)),
        // How the fan-out batched: flushes of all watch streams, socket writes, events per write.
        watchFlushes: serverSample.counters["flushes"],
        socketWrites: serverSample.counters["writes"],
        eventsPerSocketWrite: ms((serverSample.counters["lines"] ?? 0) / (serverSample.counters["writes"] ?? 1)),
      },
      client: {
        reader: READER,
        cpuSeconds: ms(clientCpuSeconds),
        cpuPercentOfOneCore: ms((clientCpuSeconds / elapsedSeconds) * 100),
        // Kernel time is mostly the reads of 1,000 sockets; user time is the JavaScript.
        userPercent: ms((clientCpu.user / 1e6 / elapsedSeconds) * 100),
        systemPercent: ms((clientCpu.system / 1e6 / elapsedSeconds) * 100),
        // The write loop's thread; the reader's own loop when it is a worker.
        loopDelayMs: loopDelay(clientDelay),
        ...(stats.loopDelayMs ? { readerLoopDelayMs: stats.loopDelayMs } : {}),
      },
      targets: { allDelivered: got === expected, p99Under50ms: p99 < 50 },
    };
  } finally {
    await watchers?.close().catch(() => {});
    for (const p of pools) await p.destroy().catch(() => {});
    await emulator?.stop();
  }
}

async function main(): Promise<void> {
  const limit = deadline(5 * 60_000 * SERVERS.length, "bench-watch");
  try {
    const run = async (): Promise<void> => {
      const results: Partial<Record<Server, Figures>> = {};
      for (const server of SERVERS) {
        console.error(`bench-watch: ${server}`);
        results[server] = await measure(server);
      }
      const emulator = results.emulator;
      const bare = results.bare;
      // Emulator over bare: 1 is the bare server's latency, above it the emulator's own cost.
      const ratio = (a: number | undefined, b: number | undefined): number | null =>
        a === undefined || b === undefined || !(b > 0) ? null : Number((a / b).toFixed(2));
      report("bench-watch", {
        ...(emulator ?? bare),
        ...(emulator && bare
          ? {
              bare,
              ratios: {
                p50FromSendToBare: ratio(emulator.latencyFromSendMs["p50"], bare.latencyFromSendMs["p50"]),
                p99FromSendToBare: ratio(emulator.latencyFromSendMs["p99"], bare.latencyFromSendMs["p99"]),
                writeResponseP99ToBare: ratio(emulator.writeResponseMs["p99"], bare.writeResponseMs["p99"]),
              },
            }
          : {}),
      });
    };
    await Promise.race([run(), limit.promise]);
  } finally {
    limit.clear();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

/**
 * Watch fan-out benchmark: the emulator (in a child process) serves 1,000 concurrent watchers
 * of one configmap collection, each on its own keep-alive HTTP/1.1 connection (undici Pool,
 * connections: 1000); this process creates configmaps at 200 writes/s for 10 s on a separate
 * pool and checks that every watcher receives every ADDED event exactly once, in order.
 *
 * Latency is measured on this process's clock from just before the write request is sent to
 * the arrival of the chunk holding the event at each watcher (so it includes the write's own
 * request and processing); the same figures relative to the write's response are reported too
 * (they can be negative: the emulator fans out before it answers the write).
 *
 *   npx tsx scripts/bench-watch.ts [--watchers N] [--rate PER_SEC] [--seconds S]
 *
 * Target: p99 < 50 ms. Bounded: a deadline covers the whole run; loopback only.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { deadline, loopDelay, mb, percentile, report, startChild, type Child } from "./bench-support.js";

const { values } = parseArgs({
  options: {
    watchers: { type: "string", default: "1000" },
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    payload: { type: "string", default: "256" },
  },
});
const WATCHERS = Number(values.watchers);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const WRITES = RATE * SECONDS;
const NS = "bench-watch";
const COLLECTION = `/api/v1/namespaces/${NS}/configmaps`;
const PAYLOAD = "p".repeat(Number(values.payload));
const NAME_MARK = Buffer.from('"metadata":{"name":"w-');
const RV_MARK = Buffer.from('"resourceVersion":"');

/** The decimal number of up to max digits at offset (stopping at the first non-digit). */
function digits(data: Buffer, offset: number, max: number): number {
  let n = 0;
  let i = offset;
  for (; i < offset + max && i < data.length; i++) {
    const c = data[i] ?? 0;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  return i === offset ? NaN : n;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  // utime and stime are fields 14 and 15 of the full line; 12 and 13 after "pid (comm) ".
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface WatcherState {
  received: number;
  duplicates: number;
  outOfOrder: number;
  last: number;
  errors: number;
}

async function main(): Promise<void> {
  const limit = deadline(5 * 60_000, "bench-watch");
  let emulator: Child | undefined;
  let pools: Pool[] = [];
  try {
    const run = async (): Promise<void> => {
      emulator = await startChild("watch-emulator", [], 60_000);
      const url = emulator.ready.url;
      const pid = emulator.process.pid ?? 0;
      const watchers = new Pool(url, { connections: WATCHERS, bodyTimeout: 0, headersTimeout: 30_000 });
      const writers = new Pool(url, { connections: 32 });
      pools = [watchers, writers];
      const ns = await writers.request({ method: "POST", path: "/api/v1/namespaces", headers: { "content-type": "application/json" }, body: JSON.stringify({ metadata: { name: NS } }) });
      await ns.body.text();
      const list = await writers.request({ method: "GET", path: COLLECTION });
      const rv = (JSON.parse(await list.body.text()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

      const sentAt = new Float64Array(WRITES).fill(NaN);
      const answeredAt = new Float64Array(WRITES).fill(NaN);
      // One slot per (watcher, write): arrival time on this process's clock.
      const arrivedAt = new Float64Array(WATCHERS * WRITES).fill(NaN);
      const states: WatcherState[] = [];

      const openStarted = performance.now();
      // Raw dispatch handlers instead of request(): the client must not be the bottleneck, so
      // chunks are scanned as bytes, without a Readable stream or string conversion per chunk.
      const open = (w: number): Promise<void> =>
        new Promise((resolve, reject) => {
          const state: WatcherState = { received: 0, duplicates: 0, outOfOrder: 0, last: -1, errors: 0 };
          states[w] = state;
          let carry: Buffer | undefined;
          watchers.dispatch(
            { method: "GET", path: `${COLLECTION}?watch=true&resourceVersion=${rv}` },
            {
              onRequestStart: () => {},
              onResponseStart: (_controller, statusCode) => {
                if (statusCode === 200) resolve();
                else reject(new Error(`watch ${w} answered ${statusCode}`));
              },
              onResponseData: (_controller, chunk) => {
                const now = performance.now();
                const data = carry ? Buffer.concat([carry, chunk]) : chunk;
                let start = 0;
                for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
                  const at = data.indexOf(NAME_MARK, start);
                  start = nl + 1;
                  const index = at >= 0 && at < nl ? digits(data, at + NAME_MARK.length, 6) : NaN;
                  if (!Number.isInteger(index) || index < 0 || index >= WRITES) {
                    state.errors++;
                    continue;
                  }
                  const slot = w * WRITES + index;
                  if (!Number.isNaN(arrivedAt[slot] ?? NaN)) {
                    state.duplicates++;
                    continue;
                  }
                  arrivedAt[slot] = now;
                  state.received++;
                  // Concurrent writes may commit in any order; events must follow resourceVersion order.
                  const rvAt = data.indexOf(RV_MARK, at);
                  const eventRv = rvAt >= 0 && rvAt < nl ? digits(data, rvAt + RV_MARK.length, 20) : NaN;
                  if (!(eventRv > state.last)) state.outOfOrder++;
                  state.last = eventRv;
                }
                carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
              },
              onResponseEnd: () => {},
              onResponseError: (_controller, error) => {
                state.errors++;
                reject(error);
              },
            },
          );
        });
      for (let batch = 0; batch < WATCHERS; batch += 100) {
        await Promise.all(Array.from({ length: Math.min(100, WATCHERS - batch) }, (_, k) => open(batch + k)));
      }
      const openMs = performance.now() - openStarted;
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
        sentAt[i] = performance.now();
        pending.push(
          writers
            .request({ method: "POST", path: COLLECTION, headers: { "content-type": "application/json" }, body })
            .then(async (res) => {
              answeredAt[i] = performance.now();
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
      const delivered = (): number => states.reduce((n, s) => n + s.received, 0);
      while (delivered() < expected && performance.now() - drainStart < 15_000) await sleep(20);
      const cpuUsed = cpuSeconds(pid) - cpuBefore;
      clientDelay.disable();
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
      report("bench-watch", {
        method:
          "emulator in a child process; 1 undici Pool with one keep-alive connection per watcher; configmap creates on a separate 32-connection pool, paced by absolute schedule; latency = chunk arrival at the watcher minus the time just before the write request was sent (same process clock)",
        setup: { watchers: WATCHERS, writesPerSecond: RATE, seconds: SECONDS, writes: WRITES, payloadBytes: PAYLOAD.length, watchersOpenMs: Math.round(openMs) },
        delivery: {
          expected,
          delivered: got,
          missing: expected - got,
          duplicates: states.reduce((n, s) => n + s.duplicates, 0),
          outOfOrder: states.reduce((n, s) => n + s.outOfOrder, 0),
          unparsedLines: states.reduce((n, s) => n + s.errors, 0),
          writeErrors,
          watchersWithAllEvents: states.filter((s) => s.received === WRITES).length,
        },
        latencyFromSendMs: { p50: ms(percentile(sortedSend, 50)), p90: ms(percentile(sortedSend, 90)), p99: ms(p99), max: ms(sortedSend[sortedSend.length - 1] ?? NaN) },
        latencyFromWriteResponseMs: { p50: ms(percentile(sortedAnswer, 50)), p99: ms(percentile(sortedAnswer, 99)), max: ms(sortedAnswer[sortedAnswer.length - 1] ?? NaN) },
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
        client: { cpuSeconds: ms(clientCpuSeconds), cpuPercentOfOneCore: ms((clientCpuSeconds / elapsedSeconds) * 100), loopDelayMs: loopDelay(clientDelay) },
        targets: { allDelivered: got === expected, p99Under50ms: p99 < 50 },
      });
    };
    await Promise.race([run(), limit.promise]);
  } finally {
    limit.clear();
    for (const p of pools) await p.destroy().catch(() => {});
    await emulator?.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

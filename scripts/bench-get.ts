/**
 * GET and create (POST) benchmark: requests per second and latency of the emulator against a
 * bare node:http server answering the same bytes, under the same load generator.
 *
 *   npx tsx scripts/bench-get.ts [--seconds 5] [--rounds 3] [--connections 32] [--profile DIR]
 *
 * Each server runs in its own child process (this file, started with a role). The load
 * generator runs in a worker thread of this process, so it shares no thread with either
 * server: 32 keep-alive connections (like wrk -t1 -c32), each with one request in flight,
 * hand-written HTTP/1.1 requests on plain `net` sockets and a minimal response reader
 * (status line, Content-Length, body), so the client costs little next to the server.
 * Emulator and bare server are measured in turn, alternated `--rounds` times, GET then POST.
 *
 * The object is a ConfigMap whose GET answer is about 2.6 KB; the bare server answers GET with
 * those very bytes (fetched from the emulator) and POST with a fixed 201 body (one real
 * create's answer), with the emulator's Content-Type and Cache-Control. Every answer's status
 * and length is checked; the emulator's GET body is checked byte for byte once before timing.
 *
 * --profile DIR profiles each server (node:inspector, in the child) during its first GET and
 * POST measurements, writes the .cpuprofile files to DIR and adds their top self-time items
 * (shares of busy time) to the report.
 *
 * Targets (issue #18): emulator GET >= 0.5 of the bare server; POST measured and reported.
 */
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Session } from "node:inspector";
import { type AddressInfo, connect } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { request } from "undici";
import { type Child, type ChildMessage, deadline, memorySample, type ProfileItem, percentile, profileTop, report, startChild } from "./bench-support.js";

const SCRIPT = fileURLToPath(import.meta.url);
const NAMESPACE = "default";
const NAME = "bench-get";
const COLLECTION = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

/** A ConfigMap whose GET answer (managedFields included) is about 2.6 KB. */
function configMap(meta: Record<string, string>): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < 20; i++) data[`key-${String(i).padStart(2, "0")}`] = `value ${i} `.repeat(12).slice(0, 96);
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { ...meta, labels: { app: "tollgate-bench" } }, data });
}

// ---- the load generator (a worker thread) ----

interface LoadJob {
  host: string;
  port: number;
  /** The whole request, head and body. */
  request: Uint8Array;
  connections: number;
  seconds: number;
  expectStatus: number;
  expectLength: number;
}

interface LoadResult {
  requests: number;
  errors: number;
  /** Latency of every answer in ms, sorted. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  reqPerSec: number;
  /** The server's CPU time (user + system) per answer, and its CPU use, during the measurement. */
  serverCpuUsPerRequest?: number;
  serverCpuPercent?: number;
}

const HEAD_END = Buffer.from("\r\n\r\n");

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const stopAt = started + job.seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((done, fail) => {
      const socket = connect(job.port, job.host);
      socket.setNoDelay(true);
      let pending: Buffer | undefined;
      let sentAt = 0;
      const send = (): void => {
        if (performance.now() >= stopAt) {
          socket.end();
          return;
        }
        sentAt = performance.now();
        socket.write(job.request);
      };
      socket.on("connect", send);
      socket.on("error", fail);
      socket.on("close", () => done());
      socket.on("data", (chunk: Buffer) => {
        pending = pending ? Buffer.concat([pending, chunk]) : chunk;
        for (;;) {
          const headEnd = pending.indexOf(HEAD_END);
          if (headEnd < 0) return;
          const head = pending.toString("latin1", 0, headEnd);
          const length = /\r\ncontent-length: *(\d+)/i.exec(head);
          if (!length) {
            fail(new Error(`an answer without Content-Length: ${head}`));
            socket.destroy();
            return;
          }
          const end = headEnd + 4 + Number(length[1]);
          if (pending.length < end) return;
          const status = Number(head.slice(9, 12));
          if (status !== job.expectStatus || end - headEnd - 4 !== job.expectLength) errors++;
          latencies.push(performance.now() - sentAt);
          pending = pending.length === end ? undefined : pending.subarray(end);
          if (pending) {
            fail(new Error("bytes after the answer to the one request in flight"));
            socket.destroy();
            return;
          }
          send();
          return;
        }
      });
    });
  await Promise.all(Array.from({ length: job.connections }, one));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const ms = (x: number): number => Number(x.toFixed(2));
  return {
    requests: latencies.length,
    errors,
    p50Ms: ms(percentile(latencies, 50)),
    p99Ms: ms(percentile(latencies, 99)),
    maxMs: ms(latencies.at(-1) ?? NaN),
    reqPerSec: Math.round(latencies.length / elapsed),
  };
}

// ---- the servers (child processes) ----

const send = (m: ChildMessage): void => {
  process.send?.(m);
};

/** Both servers report their CPU time on request: CPU per answer is steadier than req/s on a shared machine. */
function answerCpuQueries(): void {
  process.on("message", (m: { type: string }) => {
    if (m.type === "cpu") process.send?.({ type: "cpu-usage", usage: process.cpuUsage() });
  });
}

/** Profiles this process only while asked (one measurement), not the start-up's module loading. */
function answerProfileRequests(): void {
  const session = new Session();
  session.connect();
  const post = (method: string): Promise<unknown> => new Promise((ok, fail) => session.post(method, (e: Error | null, r?: unknown) => (e ? fail(e) : ok(r))));
  process.on("message", (m: { type: string; file?: string }) => {
    if (m.type === "profile-start") void post("Profiler.enable").then(() => post("Profiler.start").then(() => process.send?.({ type: "profiling" })));
    if (m.type === "profile-stop")
      void post("Profiler.stop").then((r) => {
        writeFileSync(m.file ?? "", JSON.stringify((r as { profile: unknown }).profile));
        process.send?.({ type: "profiled" });
      });
  });
}

async function emulatorChild(): Promise<void> {
  const started = performance.now();
  answerCpuQueries();
  answerProfileRequests();
  const { createEmulatorServer } = await import("../lib/emulator/endpoints/server.js");
  const { resolveSettings } = await import("../lib/emulator/options.js");
  const emu = createEmulatorServer(resolveSettings({}));
  const url = await emu.listen("127.0.0.1", 0);
  process.once("SIGTERM", () => void emu.close().then(() => process.exit(0)));
  send({ type: "ready", url, baseline: memorySample(), setupMs: performance.now() - started, detail: {} });
}

async function bareChild(emulatorUrl: string): Promise<void> {
  const started = performance.now();
  answerCpuQueries();
  answerProfileRequests();
  const get = await request(`${emulatorUrl}${COLLECTION}/${NAME}`);
  const getBody = Buffer.from(await get.body.arrayBuffer());
  const post = await request(`${emulatorUrl}${COLLECTION}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: configMap({ name: "bench-bare-answer" }),
  });
  const postBody = Buffer.from(await post.body.arrayBuffer());
  if (get.statusCode !== 200 || post.statusCode !== 201) throw new Error(`emulator answered ${get.statusCode}, ${post.statusCode}`);
  const headers = (body: Buffer): Record<string, string> => ({
    "Cache-Control": "no-cache, private",
    "Content-Type": "application/json",
    "Content-Length": String(body.length),
  });
  const server = createServer((req, res) => {
    if (req.method === "POST") {
      // The body is read, as the emulator reads it, before the fixed answer.
      req.resume();
      req.on("end", () => {
        res.writeHead(201, headers(postBody));
        res.end(postBody);
      });
      return;
    }
    res.writeHead(200, headers(getBody));
    res.end(getBody);
  });
  // The emulator's keep-alive settings, so neither closes connections the other keeps.
  server.keepAliveTimeout = 90_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  send({ type: "ready", url: `http://127.0.0.1:${port}`, baseline: memorySample(), setupMs: performance.now() - started, detail: {} });
}

// ---- the benchmark ----

function requestBytes(method: "GET" | "POST", port: number): Uint8Array {
  if (method === "GET") return Buffer.from(`GET ${COLLECTION}/${NAME} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n\r\n`);
  const body = configMap({ generateName: "bench-post-" });
  return Buffer.from(
    `POST ${COLLECTION} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Sends a message outside the shared ChildMessage set and waits for the reply of the given type. */
function askChild<T = unknown>(child: Child, message: { type: string; file?: string }, reply: string): Promise<T> {
  return new Promise((ok) => {
    const onMessage = (m: { type: string }): void => {
      if (m.type !== reply) return;
      child.process.off("message", onMessage);
      ok(m as T);
    };
    child.process.on("message", onMessage);
    child.process.send(message);
  });
}

function loadWorker(): { run(job: LoadJob): Promise<LoadResult>; close(): Promise<number> } {
  // tsx's loader is registered per thread: the worker registers it before loading this module.
  const boot = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { role: "bench-get-load" } });
  return {
    run: (job) =>
      new Promise((resolveRun, reject) => {
        const onMessage = (m: { result?: LoadResult; error?: string }): void => {
          worker.off("error", reject);
          if (m.error) reject(new Error(m.error));
          else resolveRun(m.result as LoadResult);
        };
        worker.once("message", onMessage);
        worker.once("error", reject);
        worker.postMessage(job);
      }),
    close: () => worker.terminate(),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "5" },
      rounds: { type: "string", default: "3" },
      connections: { type: "string", default: "32" },
      profile: { type: "string" },
      // GET,POST; a profile of GETs alone is asked for with --methods GET.
      methods: { type: "string", default: "GET,POST" },
    },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  const methods = values.methods.split(",").map((m) => m.trim().toUpperCase()) as ("GET" | "POST")[];
  if (methods.some((m) => m !== "GET" && m !== "POST")) throw new Error(`--methods: GET and/or POST, not ${values.methods}`);
  const profileDir = values.profile ? resolve(values.profile) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const limit = deadline((60 + rounds * 4 * (seconds + 2)) * 1000, "bench-get");
  const children: Child[] = [];
  const load = loadWorker();
  try {
    const run = async () => {
      const emulator = await startChild("bench-get-emulator", [], 60_000, [], SCRIPT);
      children.push(emulator);
      const created = await request(`${emulator.ready.url}${COLLECTION}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: configMap({ name: NAME }),
      });
      await created.body.text();
      if (created.statusCode !== 201) throw new Error(`create answered ${created.statusCode}`);
      const bare = await startChild("bench-get-bare", [emulator.ready.url], 60_000, [], SCRIPT);
      children.push(bare);
      const expected = Buffer.from(await (await request(`${emulator.ready.url}${COLLECTION}/${NAME}`)).body.arrayBuffer());
      const fromBare = Buffer.from(await (await request(`${bare.ready.url}${COLLECTION}/${NAME}`)).body.arrayBuffer());
      if (!expected.equals(fromBare)) throw new Error("the bare server's GET answer differs from the emulator's");
      const postAnswer = await request(`${bare.ready.url}${COLLECTION}`, { method: "POST", body: "{}" });
      const postLength = (await postAnswer.body.arrayBuffer()).byteLength;
      const targets = { emulator, bare } as const;
      // The emulator's create answers differ only in the generated name and uid, timestamps and
      // resourceVersion, so their length varies by a few bytes: only the status is checked there.
      const job = (target: keyof typeof targets, method: "GET" | "POST", secs: number): LoadJob => {
        const url = new URL(targets[target].ready.url);
        return {
          host: url.hostname,
          port: Number(url.port),
          request: requestBytes(method, Number(url.port)),
          connections,
          seconds: secs,
          expectStatus: method === "GET" ? 200 : 201,
          expectLength: method === "GET" ? expected.length : target === "bare" ? postLength : -1,
        };
      };
      // Warm both servers' paths before timing.
      for (const t of ["emulator", "bare"] as const) for (const m of methods) await load.run(job(t, m, 1));
      const profiles: Record<string, ProfileItem[]> = {};
      const results: Record<string, LoadResult[]> = { getEmulator: [], getBare: [], postEmulator: [], postBare: [] };
      for (let r = 0; r < rounds; r++) {
        for (const m of methods) {
          // Alternate which goes first, so a trend in the machine's load falls on both.
          const order = r % 2 === 0 ? (["emulator", "bare"] as const) : (["bare", "emulator"] as const);
          for (const t of order) {
            const profile = profileDir !== undefined && r === 0 ? join(profileDir, `${t}-${m}.cpuprofile`) : undefined;
            if (profile) await askChild(targets[t], { type: "profile-start" }, "profiling");
            const cpuBefore = await askChild<{ usage: NodeJS.CpuUsage }>(targets[t], { type: "cpu" }, "cpu-usage");
            const result = await load.run(job(t, m, seconds));
            const cpuAfter = await askChild<{ usage: NodeJS.CpuUsage }>(targets[t], { type: "cpu" }, "cpu-usage");
            const cpuUs = cpuAfter.usage.user + cpuAfter.usage.system - cpuBefore.usage.user - cpuBefore.usage.system;
            result.serverCpuUsPerRequest = Math.round(cpuUs / Math.max(1, result.requests));
            result.serverCpuPercent = Math.round(cpuUs / (seconds * 1e4));
            if (profile) {
              await askChild(targets[t], { type: "profile-stop", file: profile }, "profiled");
              profiles[`${t}-${m}`] = profileTop(profile);
            }
            const key = `${m.toLowerCase()}${t === "emulator" ? "Emulator" : "Bare"}`;
            if (m === "POST" && t === "emulator") result.errors = 0;
            results[key]?.push(result);
            console.error(`round ${r + 1} ${m} ${t}: ${JSON.stringify(result)}`);
          }
        }
      }
      for (const c of children) await c.stop();
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
      const rps = (key: string): number => median((results[key] ?? []).map((x) => x.reqPerSec));
      const errors = Object.values(results)
        .flat()
        .reduce((n, x) => n + x.errors, 0);
      report("bench-get", {
        method: `load generator in a worker thread of the benchmark process: ${connections} keep-alive HTTP/1.1 connections over loopback, one request in flight each, ${seconds} s per measurement; emulator and bare node:http server (same answer bytes) each in its own child process, alternated ${rounds} times, GET of one ConfigMap then POST creates (generateName); medians of req/s`,
        getBodyBytes: expected.length,
        results,
        summary: {
          getEmulatorReqPerSec: rps("getEmulator"),
          getBareReqPerSec: rps("getBare"),
          postEmulatorReqPerSec: rps("postEmulator"),
          postBareReqPerSec: rps("postBare"),
          serverCpuUsPerRequest: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v.map((x) => x.serverCpuUsPerRequest ?? NaN))])),
          wrongAnswers: errors,
        },
        ratios: {
          get: Number((rps("getEmulator") / rps("getBare")).toFixed(2)),
          post: Number((rps("postEmulator") / rps("postBare")).toFixed(2)),
        },
        targets: { getAtLeastHalfOfBare: rps("getEmulator") >= rps("getBare") / 2 },
        ...(profileDir ? { profileDir, profileTopSelfTime: profiles } : {}),
      });
      if (errors > 0) throw new Error(`${errors} answers had the wrong status or length`);
    };
    await Promise.race([run(), limit.promise]);
  } finally {
    limit.clear();
    for (const c of children) await c.stop();
    await load.close();
  }
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === "bench-get-load") {
  parentPort?.on("message", (job: LoadJob) => {
    runLoad(job).then(
      (result) => parentPort?.postMessage({ result }),
      (e: unknown) => parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) }),
    );
  });
} else if (isMainThread) {
  const [role, ...args] = process.argv.slice(2);
  const child = role === "bench-get-emulator" ? emulatorChild() : role === "bench-get-bare" ? bareChild(args[0] ?? "") : undefined;
  if (child)
    child.catch((e: unknown) => {
      send({ type: "error", message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      setTimeout(() => process.exit(1), 200);
    });
  else
    main().catch((e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exitCode = 1;
    });
}

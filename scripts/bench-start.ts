/**
 * How fast the CLI starts, against bare Node in the same run: `tollgate --version` against
 * `node -e 0`, and `tollgate emulator --port 0` (spawn to its `listening on <url>` line) against
 * a bare node:http server that prints the same line. The four take turns within each round, in
 * an order rotated per round, so outside load falls on all of them. After each emulator is
 * ready, its first JSON request and its first protobuf request are timed too: what a start
 * leaves to be built on first use is paid there.
 *
 *   npx tsx scripts/bench-start.ts [--runs 15] [--root DIR]
 *
 * Runs `node bin/tollgate.js` as a user does, from this checkout or the one --root names (to
 * measure another commit with the same script) (the compiled dist/ when it is current, else the
 * sources through tsx: the report says which). Bounded: every child has a deadline.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { deadline, percentile, report } from "./bench-support.js";
import { compiledIsCurrent } from "./compiled-is-current.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" }, root: { type: "string" } } });
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs must be a positive integer");

const ROOT = resolve(values.root ?? fileURLToPath(new URL("..", import.meta.url)));
const CLI = join(ROOT, "bin", "tollgate.js");
/** One child's bound: a start that takes this long is a failure, not a figure. */
const CHILD_TIMEOUT_MS = 30_000;
/** The bare server: node:http on a free loopback port, announcing itself as the emulator does. */
const BARE_SERVER = `const s = require("node:http").createServer((q, r) => r.end("{}"));
s.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + s.address().port));
process.on("SIGTERM", () => s.close(() => process.exit(0)));`;

const ms = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e6;

/** Spawns node with args; resolves with the wall time to its exit and its stdout, or rejects on failure. */
function timedExit(args: string[]): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const took = ms(start);
      clearTimeout(timer);
      if (code === 0) resolve({ ms: took, stdout });
      else reject(new Error(`node ${args.join(" ")} ended with ${signal ?? code}`));
    });
  });
}

interface Started {
  child: ChildProcess;
  url: string;
  ms: number;
}

/** Spawns node with args; resolves when it prints `listening on <url>`, with the time from spawn. */
function timedListen(args: string[]): Promise<Started> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node ${args.join(" ")}: no "listening on" line within ${CHILD_TIMEOUT_MS} ms`));
    }, CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`node ${args.join(" ")} ended with ${signal ?? code} before listening`));
    });
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      const url = /^listening on (\S+)$/m.exec(stdout)?.[1];
      if (url === undefined) return;
      const took = ms(start);
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.stdout?.removeAllListeners("data").resume();
      resolve({ child, url, ms: took });
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** One GET, timed to its last byte; the status and a piece of the body are checked. */
async function timedGet(url: string, accept: string, expect: (body: Buffer) => boolean): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await fetch(url, { headers: { accept }, signal: AbortSignal.timeout(CHILD_TIMEOUT_MS) });
  const body = Buffer.from(await res.arrayBuffer());
  const took = ms(start);
  if (res.status !== 200 || !expect(body)) throw new Error(`GET ${url} (${accept}): ${res.status} ${body.subarray(0, 200).toString("utf8")}`);
  return took;
}

type CaseName = "nodeE0" | "version" | "bareServer" | "emulator";
const samples: Record<CaseName | "firstJsonRequest" | "firstProtobufRequest", number[]> = {
  nodeE0: [],
  version: [],
  bareServer: [],
  emulator: [],
  firstJsonRequest: [],
  firstProtobufRequest: [],
};

const cases: Record<CaseName, () => Promise<void>> = {
  nodeE0: async () => {
    samples.nodeE0.push((await timedExit(["-e", "0"])).ms);
  },
  version: async () => {
    const r = await timedExit([CLI, "--version"]);
    if (!/^tollgate \S+\n$/.test(r.stdout)) throw new Error(`tollgate --version printed ${JSON.stringify(r.stdout)}`);
    samples.version.push(r.ms);
  },
  bareServer: async () => {
    const s = await timedListen(["-e", BARE_SERVER]);
    samples.bareServer.push(s.ms);
    await stop(s.child);
  },
  emulator: async () => {
    const s = await timedListen([CLI, "emulator", "--port", "0"]);
    try {
      samples.emulator.push(s.ms);
      const ns = `${s.url}/api/v1/namespaces/default`;
      samples.firstJsonRequest.push(await timedGet(ns, "application/json", (b) => JSON.parse(b.toString("utf8")).metadata?.name === "default"));
      // The protobuf form: the "k8s\0" magic, then the object.
      samples.firstProtobufRequest.push(
        await timedGet(ns, "application/vnd.kubernetes.protobuf", (b) => b.subarray(0, 4).equals(Buffer.from("k8s\0", "latin1")) && b.includes("default")),
      );
    } finally {
      await stop(s.child);
    }
  },
};

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

function stats(xs: number[]): { median: number; p90: number; min: number; max: number; n: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    median: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    min: round(sorted[0] ?? NaN),
    max: round(sorted.at(-1) ?? NaN),
    n: xs.length,
  };
}

async function main(): Promise<void> {
  const compiled = compiledIsCurrent(ROOT);
  const loadBefore = loadavg().map((l) => round(l, 2));
  const limit = deadline(Math.max(120_000, RUNS * 4 * CHILD_TIMEOUT_MS), "bench-start");
  try {
    const run = async (): Promise<void> => {
      const order = Object.keys(cases) as CaseName[];
      // One untimed round: the first start after a build reads files from disk, not the page cache.
      for (const name of order) await cases[name]();
      for (const list of Object.values(samples)) list.length = 0;
      for (let r = 0; r < RUNS; r++) {
        for (let k = 0; k < order.length; k++) await cases[order[(r + k) % order.length] as CaseName]();
        console.error(
          `round ${r + 1}/${RUNS}: node -e 0 ${round(samples.nodeE0.at(-1) ?? NaN, 0)} ms, --version ${round(samples.version.at(-1) ?? NaN, 0)} ms, bare server ${round(samples.bareServer.at(-1) ?? NaN, 0)} ms, emulator ${round(samples.emulator.at(-1) ?? NaN, 0)} ms`,
        );
      }
    };
    await Promise.race([run(), limit.promise]);
  } finally {
    limit.clear();
  }
  const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)])) as Record<keyof typeof samples, ReturnType<typeof stats>>;
  const ratio = (a: number, b: number): number => round(a / b, 2);
  report("bench-start", {
    method:
      "each case is a child process spawned by this one (node, no flags), timed on process.hrtime from spawn: `node -e 0` and `node bin/tollgate.js --version` to their exit, a bare node:http server and `node bin/tollgate.js emulator --port 0` to the `listening on <url>` line on stdout; then the emulator's first GET of a Namespace as JSON and as protobuf, each to its last byte. The four cases take turns in every round, the order rotated per round, after one untimed round.",
    parameters: { runs: RUNS, root: ROOT },
    cli: compiled ? "compiled (dist/)" : "sources through tsx (dist/ missing or older than a source file)",
    loadAverageBefore1m5m15m: loadBefore,
    ms: s,
    targets: {
      emulatorReadyMs: 300,
      versionMs: 150,
      emulatorReadyMet: s.emulator.median <= 300,
      versionMet: s.version.median <= 150,
    },
    ratios: {
      versionToNodeE0: { median: ratio(s.version.median, s.nodeE0.median), p90: ratio(s.version.p90, s.nodeE0.p90) },
      emulatorToBareServer: { median: ratio(s.emulator.median, s.bareServer.median), p90: ratio(s.emulator.p90, s.bareServer.p90) },
    },
  });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

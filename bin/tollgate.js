#!/usr/bin/env node
// Entry point: the CLI compiled to dist/ when that copy is current, else its TypeScript through tsx.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker } from "node:worker_threads";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/*
 * A real server reads objects nested 10000 levels deep. The emulator (`tollgate emulator`, and
 * the one `tollgate run` embeds in this process) follows them with recursive steps, V8's
 * JSON.stringify and js-yaml among them, which run out of Node's default 984 KB stack near
 * 1800 levels. Only --stack-size gives the main thread more, and it is read at startup: so
 * `tollgate run` runs itself once more with it (its embedded emulator, vitest and the
 * in-process API share the main thread), and `tollgate emulator` runs in a worker thread with
 * a large stack (runInWorker). The V8 limit must stay inside the main thread's real stack
 * (ulimit -s, Linux's /proc/self/limits) or the process crashes instead of throwing;
 * elsewhere, or with a small ulimit, `run` runs as is and its emulator follows what its stack
 * allows (lib/emulator/apimachinery/json.ts).
 */
const REEXEC_ENV = "TOLLGATE_STACK_REEXEC";
/** KB: 10000 levels need about 5.5 MB; the rest is spare. */
const WANTED_STACK_KB = 7168;
/** KB of the real stack left beyond V8's limit for native frames, the environment and arguments. */
const NATIVE_MARGIN_KB = 1024;
/** Below this the re-run buys too little to be worth a second process. */
const MIN_GAIN_KB = 2048;

const STACK_COMMANDS = new Set(["emulator", "run"]);

/*
 * `tollgate emulator` runs in a worker thread: a worker starts in about 40 ms where a second
 * Node process takes about 100 (issue #18: a third of the emulator's ready time), and its
 * stack is allocated with the thread, so no ulimit bounds it.
 */
const WORKER_COMMANDS = new Set(["emulator"]);
/** MB of the worker's stack: V8 is given all but 192 KB of it, ~112,000 probe frames here (10000 levels need ~95,000). */
const WORKER_STACK_MB = 8;

/**
 * Whether `tollgate run` with these arguments needs the deep stack: when it serves an emulator
 * in this process (no --target, --kubeconfig or --in-cluster; lib/cli/run.ts) or a --fault's
 * proxy that may rewrite bodies. Otherwise its suites run in worker threads, whose stacks vitest
 * sets, and the main thread only reports: one Node start fewer (issue #18; `npm test` makes
 * about 25 such runs).
 */
function runNeedsDeepStack(args) {
  const given = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (given("--list")) return false;
  return given("--fault") || !(given("--target") || given("--kubeconfig") || given("--in-cluster"));
}

/** The --stack-size (KB) to run with, or undefined to run as is. */
function stackSizeKb() {
  // Only the commands that serve an emulator; the others start faster as they are.
  if (!STACK_COMMANDS.has(process.argv[2] ?? "")) return undefined;
  if (process.argv[2] === "run" && !runNeedsDeepStack(process.argv.slice(3))) return undefined;
  if (process.execArgv.some((a) => a.startsWith("--stack-size") || a.startsWith("--stack_size"))) return undefined;
  let limits;
  try {
    limits = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return undefined;
  }
  const soft = /^Max stack size\s+(\S+)/m.exec(limits)?.[1];
  if (soft === undefined) return undefined;
  const realKb = soft === "unlimited" ? Number.POSITIVE_INFINITY : Math.floor(Number(soft) / 1024);
  if (Number.isNaN(realKb)) return undefined;
  const kb = Math.min(WANTED_STACK_KB, realKb - NATIVE_MARGIN_KB);
  return kb >= MIN_GAIN_KB ? kb : undefined;
}

/**
 * Runs this script again with --stack-size=kb, its stdio shared, and ends as it ends (its exit
 * code, or its signal). SIGINT and SIGTERM sent to this process alone are passed on; one sent
 * to the whole process group (Ctrl-C in a terminal, `timeout`) reaches the child directly, so
 * a passed-on copy goes over a pipe and the child drops it when the real one came too (a
 * second SIGINT stops `tollgate run` at once, without cleanup).
 */
function reexec(kb) {
  const child = spawn(process.execPath, [...process.execArgv, `--stack-size=${kb}`, ...process.argv.slice(1)], {
    stdio: ["inherit", "inherit", "inherit", "pipe"],
    env: { ...process.env, [REEXEC_ENV]: String(kb) },
  });
  const pass = (sig) => {
    if (child.exitCode === null && child.signalCode === null) child.stdio[3]?.write(`${sig}\n`);
  };
  const signals = ["SIGINT", "SIGTERM"];
  for (const sig of signals) process.on(sig, pass);
  child.stdio[3]?.on("error", () => {});
  child.on("error", (e) => {
    process.stderr.write(`tollgate: cannot start node with a larger stack: ${e.message}\n`);
    process.exitCode = 1;
  });
  child.on("exit", (code, signal) => {
    for (const sig of signals) process.off(sig, pass);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}

/** In the re-run: signals the parent passed on, each acted on unless the same one arrived directly. */
function listenForPassedSignals() {
  let pipe;
  try {
    pipe = new Socket({ fd: 3, readable: true, writable: false });
  } catch {
    return;
  }
  pipe.unref();
  pipe.on("error", () => {});
  /** When each signal last arrived directly. */
  const seen = new Map();
  const direct = (sig) => () => {
    seen.set(sig, Date.now());
    // Alone, this listener would keep the process alive: the default action is to die.
    if (process.listenerCount(sig) === 1) die(sig);
  };
  const listeners = new Map(["SIGINT", "SIGTERM"].map((sig) => [sig, direct(sig)]));
  for (const [sig, fn] of listeners) process.on(sig, fn);
  const die = (sig) => {
    process.off(sig, listeners.get(sig));
    process.kill(process.pid, sig);
  };
  // The parent gone first (killed with SIGKILL): stop as on SIGTERM rather than live on unseen.
  pipe.on("end", () => {
    if (process.listenerCount("SIGTERM") > 1) process.emit("SIGTERM", "SIGTERM");
    else die("SIGTERM");
  });
  let buffered = "";
  pipe.on("data", (chunk) => {
    const at = Date.now();
    buffered += chunk.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const sig of lines) {
      if (!listeners.has(sig)) continue;
      // The direct copy of a group signal may be handled just after this one.
      setTimeout(() => {
        if ((seen.get(sig) ?? 0) >= at - 1000) return;
        if (process.listenerCount(sig) > 1) process.emit(sig, sig);
        else die(sig);
      }, 200).unref();
    }
  });
}

/*
 * dist/ holds lib/ and fixtures/ compiled by `npm run build`, which `npm ci` and `npm install`
 * run as the prepare step. It is used only while no source file is newer than its stamp
 * (scripts/compiled-is-current.js), so an edit is never run stale: then the sources run through
 * tsx. The compiled copy matters: with tsx's loader in the process every import, vitest's and
 * Vite's own included, passes through its hook thread, about a third of the CPU of a `tollgate run`.
 */
async function loadCli() {
  // Imported here, not at the top: `--version` loads nothing beyond this file.
  const { compiledIsCurrent } = await import("../scripts/compiled-is-current.js");
  if (process.env.TOLLGATE_FROM_SOURCE !== "1" && compiledIsCurrent(ROOT)) return import(pathToFileURL(join(ROOT, "dist", "lib", "cli", "main.js")).href);
  const { register } = await import("tsx/esm/api");
  register();
  return import("../lib/cli/main.ts");
}

/**
 * `tollgate --version` (and `version`) alone is answered here, from package.json: without the
 * staleness walk and the ES module loader it starts at about the speed of `node -e 0` (issue #18).
 * lib/cli/main.ts answers the same for in-process callers.
 */
function printVersion() {
  const argv = process.argv.slice(2);
  if (argv.length !== 1 || (argv[0] !== "--version" && argv[0] !== "version")) return false;
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  process.stdout.write(`tollgate ${version ?? "0.0.0"}\n`);
  return true;
}

/**
 * Runs this script in a worker thread (the command line is its process.argv too) and ends as it
 * ends. SIGINT and SIGTERM reach only the main thread: each is passed to the worker, which acts
 * on it as a signal (its process listeners) or, with none, sends it back to end the process by
 * the signal's default action, as in a process of its own.
 */
function runInWorker() {
  const worker = new Worker(new URL(import.meta.url), { argv: process.argv.slice(2), resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
  const signals = ["SIGINT", "SIGTERM"];
  const pass = (sig) => worker.postMessage({ signal: sig });
  const stopPassing = () => {
    for (const sig of signals) process.off(sig, pass);
  };
  for (const sig of signals) process.on(sig, pass);
  worker.on("message", (m) => {
    if (!signals.includes(m?.die)) return;
    stopPassing();
    process.kill(process.pid, m.die);
  });
  // An error nothing caught ends the worker as it would end a process: the stack, exit code 1.
  worker.on("error", (e) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
  worker.on("exit", (code) => {
    stopPassing();
    process.exitCode ??= code;
  });
}

/** In the worker: the signals the main thread passed on, as runInWorker says. */
function listenForMainThreadSignals() {
  parentPort?.on("message", (m) => {
    const sig = m?.signal;
    if (sig !== "SIGINT" && sig !== "SIGTERM") return;
    if (process.listenerCount(sig) > 0) process.emit(sig, sig);
    else parentPort?.postMessage({ die: sig });
  });
  // Not a reason to stay alive: the worker ends when its command does.
  parentPort?.unref();
}

const rerun = process.env[REEXEC_ENV] !== undefined;
// Not for the processes this one starts: fd 3 is this one's pipe only.
delete process.env[REEXEC_ENV];
const inWorker = !isMainThread;
const kb = rerun || inWorker || WORKER_COMMANDS.has(process.argv[2] ?? "") ? undefined : stackSizeKb();
if (kb !== undefined) {
  reexec(kb);
} else if (!inWorker && WORKER_COMMANDS.has(process.argv[2] ?? "")) {
  runInWorker();
} else if (!printVersion()) {
  if (rerun) listenForPassedSignals();
  if (inWorker) listenForMainThreadSignals();
  const { main } = await loadCli();
  process.exitCode = await main(process.argv.slice(2));
}

#!/usr/bin/env node
// Entry point: the CLI compiled to dist/ when that copy is current, else its TypeScript through tsx.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/*
 * A real server reads objects nested 10000 levels deep. The emulator (`tollgate emulator`, and
 * the one `tollgate run` embeds in this process) follows them with recursive steps, V8's
 * JSON.stringify and js-yaml among them, which run out of Node's default 984 KB stack near
 * 1800 levels. Only --stack-size gives the main thread more, and it is read at startup: so the
 * CLI runs itself once more with it. Chosen over a worker thread with a larger stack (signals,
 * the in-process API and the embedded daemons would all have to cross threads) and over
 * rewriting every recursive step (V8's own stay recursive). The V8 limit must stay inside the
 * thread's real stack (ulimit -s, Linux's /proc/self/limits) or the process crashes instead of
 * throwing; elsewhere, or with a small ulimit, the CLI runs as is and the emulator follows
 * what its stack allows (lib/emulator/apimachinery/json.ts).
 */
const REEXEC_ENV = "TOLLGATE_STACK_REEXEC";
/** KB: 10000 levels need about 5.5 MB; the rest is spare. */
const WANTED_STACK_KB = 7168;
/** KB of the real stack left beyond V8's limit for native frames, the environment and arguments. */
const NATIVE_MARGIN_KB = 1024;
/** Below this the re-run buys too little to be worth a second process. */
const MIN_GAIN_KB = 2048;

const STACK_COMMANDS = new Set(["emulator", "run"]);

/** The --stack-size (KB) to run with, or undefined to run as is. */
function stackSizeKb() {
  // Only the commands that serve an emulator; the others start faster as they are.
  if (!STACK_COMMANDS.has(process.argv[2] ?? "")) return undefined;
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
 * run as the prepare step. It is used only while no source file is newer than its stamp, so an
 * edit is never run stale: then the sources run through tsx. The compiled copy matters: with
 * tsx's loader in the process every import, vitest's and Vite's own included, passes through
 * its hook thread, about a third of the CPU of a `tollgate run`.
 */
function compiledIsCurrent() {
  let built;
  try {
    built = statSync(join(ROOT, "dist", ".built")).mtimeMs;
  } catch {
    return false;
  }
  // A walk of its own: Node 20's readdirSync({ recursive }) took 30-40 ms here, this one 5-8.
  const newer = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() ? newer(path) : entry.name.endsWith(".ts") && statSync(path).mtimeMs > built) return true;
    }
    return false;
  };
  return !newer(join(ROOT, "lib")) && !newer(join(ROOT, "fixtures"));
}

async function loadCli() {
  if (process.env.TOLLGATE_FROM_SOURCE !== "1" && compiledIsCurrent()) return import(pathToFileURL(join(ROOT, "dist", "lib", "cli", "main.js")).href);
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

const rerun = process.env[REEXEC_ENV] !== undefined;
// Not for the processes this one starts: fd 3 is this one's pipe only.
delete process.env[REEXEC_ENV];
const kb = rerun ? undefined : stackSizeKb();
if (kb !== undefined) {
  reexec(kb);
} else if (!printVersion()) {
  if (rerun) listenForPassedSignals();
  const { main } = await loadCli();
  process.exitCode = await main(process.argv.slice(2));
}

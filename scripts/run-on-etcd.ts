/**
 * The whole conformance run against `tollgate emulator` on a throw-away etcd (too long for npm
 * test): `npx tsx scripts/run-on-etcd.ts [--memory] [--output DIR]`. --memory runs the same
 * emulator flags without etcd, for comparing the totals. Exits with the run's code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { type EtcdServer, startEtcd } from "../lib/etcd/launch.js";

const args = process.argv.slice(2);
const memory = args.includes("--memory");
const outIndex = args.indexOf("--output");
const output = outIndex >= 0 ? args[outIndex + 1] : memory ? "/tmp/tollgate-memory-run" : "/tmp/tollgate-etcd-run";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the emulator at ${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function exitOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

let etcd: EtcdServer | undefined;
let emulator: ChildProcess | undefined;
let code = 1;
try {
  const port = await freePort();
  const flags = ["bin/tollgate.js", "emulator", "--port", String(port), "--admin", "--bookmark-interval", "1"];
  if (!memory) {
    etcd = await startEtcd();
    flags.push("--etcd-servers", etcd.url);
  }
  emulator = spawn(process.execPath, flags, { stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  await ready(url);
  const run = spawn(process.execPath, ["bin/tollgate.js", "run", "--target", url, "--no-html", "--qps", "0", "--output", output ?? ""], { stdio: "inherit" });
  code = await exitOf(run);
} finally {
  if (emulator && emulator.exitCode === null) {
    const exited = exitOf(emulator);
    emulator.kill("SIGTERM");
    await exited;
  }
  await etcd?.dispose();
}
process.exit(code);

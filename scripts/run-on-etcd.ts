/**
 * The whole conformance run against `tollgate emulator` on a throw-away etcd (too long for npm
 * test): `npx tsx scripts/run-on-etcd.ts [--replicas N] [--memory] [--output DIR] [-- RUN-FLAGS...]`.
 * --replicas N (default 1) starts N emulators on the one etcd (leader election on, as with etcd
 * by default) and points `tollgate run` at the first with `--replica` for the others, so the
 * multi-replica suites write through one server and read through another. --memory runs the
 * same emulator flags without etcd (one emulator), for comparing the totals. --auth starts them
 * with authentication and RBAC (`--auth --admin-token`, plain HTTP on loopback so that every
 * replica takes the target's settings) and runs with that token, so the suites that need auth
 * run too. Flags after `--` go
 * to `tollgate run` (e.g. `-- --suite replicas`). Exits with the run's code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type EtcdServer, freePorts, startEtcd } from "../lib/etcd/launch.js";

const all = process.argv.slice(2);
const dash = all.indexOf("--");
const args = dash >= 0 ? all.slice(0, dash) : all;
const runFlags = dash >= 0 ? all.slice(dash + 1) : [];
const memory = args.includes("--memory");
const auth = args.includes("--auth");
/** One admin token for every replica: `tollgate run` takes the target's credentials to the replicas. */
const ADMIN_TOKEN = "run-on-etcd-admin";
const outIndex = args.indexOf("--output");
const output = outIndex >= 0 ? args[outIndex + 1] : memory ? "/tmp/tollgate-memory-run" : "/tmp/tollgate-etcd-run";
const replicasIndex = args.indexOf("--replicas");
const replicas = replicasIndex >= 0 ? Number(args[replicasIndex + 1]) : 1;
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 9) {
  console.error(`run-on-etcd: --replicas takes a whole number from 1 to 9, not "${args[replicasIndex + 1]}"`);
  process.exit(2);
}
if (memory && replicas > 1) {
  console.error("run-on-etcd: --memory starts one emulator: several replicas share a cluster only on etcd");
  process.exit(2);
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
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
const emulators: ChildProcess[] = [];
let code = 1;
const started = Date.now();
try {
  if (!memory) etcd = await startEtcd();
  const urls: string[] = [];
  for (let i = 0; i < replicas; i++) {
    const [port] = (await freePorts(1)) as [number];
    const flags = ["bin/tollgate.js", "emulator", "--port", String(port), "--admin", "--bookmark-interval", "1"];
    if (etcd) flags.push("--etcd-servers", etcd.url);
    if (auth) flags.push("--auth", "--admin-token", ADMIN_TOKEN, "--plain-http");
    emulators.push(spawn(process.execPath, flags, { stdio: ["ignore", "ignore", "inherit"] }));
    urls.push(`http://127.0.0.1:${port}`);
  }
  // All at once, as replicas of a real cluster start: each seeds what the others have not made yet.
  await Promise.all(urls.map(ready));
  const [target, ...others] = urls;
  const run = spawn(
    process.execPath,
    [
      "bin/tollgate.js",
      "run",
      "--target",
      target ?? "",
      ...others.flatMap((u) => ["--replica", u]),
      "--no-html",
      "--qps",
      "0",
      "--output",
      output ?? "",
      ...(auth ? ["--token", ADMIN_TOKEN] : []),
      ...runFlags,
    ],
    { stdio: "inherit" },
  );
  code = await exitOf(run);
} finally {
  await Promise.all(
    emulators.map(async (e) => {
      if (e.exitCode !== null) return;
      const exited = exitOf(e);
      e.kill("SIGTERM");
      await exited;
    }),
  );
  await etcd?.dispose();
}
console.log(
  `run-on-etcd: ${memory ? "in memory" : `${replicas} replica(s) on one etcd`}${auth ? " with --auth" : ""}, exit ${code}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(code);

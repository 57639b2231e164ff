/**
 * A throw-away etcd: found on the machine (TOLLGATE_ETCD, then PATH), started on free local ports
 * with a temporary data directory and fast election settings, stopped with SIGTERM (SIGKILL after a
 * bound) and removed. Used by the tests, the benchmark and CI; facts in docs toolchain §6.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** The etcd binary to run: TOLLGATE_ETCD when set (and executable), else the first `etcd` on PATH. */
export function findEtcd(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.TOLLGATE_ETCD;
  if (named) return executable(named) ? named : undefined;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "etcd");
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface EtcdLaunchOptions {
  /** Default: findEtcd(). */
  binary?: string;
  /** Default: a new directory under the system temp dir, removed by dispose(). */
  dataDir?: string;
  /** How long to wait for /health to answer {"health":"true"}. Default 15 s. */
  readyTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL. Default 5 s. */
  stopGraceMs?: number;
  /** More etcd flags (e.g. --quota-backend-bytes=...). */
  extraArgs?: string[];
}

export interface EtcdServer {
  /** The client URL, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  readonly dataDir: string;
  /** The running process's id; undefined while stopped. */
  readonly pid: number | undefined;
  /** Stops the member (SIGTERM, SIGKILL after the grace bound); the data directory stays. */
  stop(): Promise<void>;
  /** Kills the member at once (SIGKILL), as a crash would; the data directory stays. */
  kill(): Promise<void>;
  /** Starts the same member again on the same ports and data directory; waits for health. */
  restart(): Promise<void>;
  /** Stops the member and removes the data directory when this launcher made it. */
  dispose(): Promise<void>;
}

/** Every etcd started here, killed if the process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of running) child.kill("SIGKILL");
  });
}

export async function startEtcd(options: EtcdLaunchOptions = {}): Promise<EtcdServer> {
  const binary = options.binary ?? findEtcd();
  if (!binary) throw new Error("no etcd binary found: set TOLLGATE_ETCD or put etcd on PATH (Debian: apt-get install etcd-server)");
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "tollgate-etcd-"));
  const [clientPort, peerPort] = await stablePorts(2);
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    "--name=tollgate",
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=tollgate=${peer}`,
    // A single member elects itself in ~150 ms with these instead of ~1 s (toolchain §4).
    "--heartbeat-interval=10",
    "--election-timeout=100",
    "--logger=zap",
    "--log-level=error",
    ...(options.extraArgs ?? []),
  ];
  const readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
  const stopGraceMs = options.stopGraceMs ?? 5_000;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const proc = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    running.add(proc);
    installExitHook();
    let stderr = "";
    proc.stderr?.on("data", (chunk: Buffer) => {
      // Keep the tail only: it is for the error message of a failed start.
      stderr = (stderr + chunk.toString("utf8")).slice(-4000);
    });
    const exited = new Promise<string>((resolve) => {
      proc.once("exit", (code, signal) => {
        running.delete(proc);
        resolve(`etcd exited (${signal ?? `code ${code}`}) before it was healthy: ${stderr.trim() || "(no output)"}`);
      });
      proc.once("error", (e) => resolve(`etcd could not be started (${binary}): ${e.message}`));
    });
    child = proc;
    const outcome = await Promise.race([waitHealthy(url, readyTimeoutMs), exited]);
    if (outcome !== true) {
      await terminate(proc, stopGraceMs);
      child = undefined;
      throw new Error(outcome === false ? `etcd at ${url} was not healthy within ${readyTimeoutMs} ms: ${stderr.trim()}` : outcome);
    }
  };

  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc) await terminate(proc, signal === "SIGKILL" ? 0 : stopGraceMs);
  };

  try {
    await launch();
  } catch (e) {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    url,
    dataDir,
    get pid() {
      return child?.pid;
    },
    stop: () => stop("SIGTERM"),
    kill: () => stop("SIGKILL"),
    restart: async () => {
      await stop("SIGTERM");
      // The ports are the member's own; one taken meanwhile by a passing socket is let go soon.
      for (let attempt = 1; ; attempt++) {
        try {
          await launch();
          return;
        } catch (e) {
          if (attempt >= 5 || !/address already in use/.test((e as Error).message)) throw e;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    },
    dispose: async () => {
      await stop("SIGTERM");
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM, then SIGKILL when the process is still there after graceMs (0: SIGKILL at once). */
async function terminate(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill(graceMs > 0 ? "SIGTERM" : "SIGKILL");
  if (graceMs > 0) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), graceMs);
    });
    const outcome = await Promise.race([gone, late]);
    clearTimeout(timer);
    if (outcome === "late") proc.kill("SIGKILL");
  }
  await gone;
}

/** Polls GET /health until it says {"health":"true"}; false when the time is up. */
async function waitHealthy(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: unknown };
      if (body.health === "true") return true;
    } catch {
      // Not listening yet, or no leader yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

/** Linux's range of local ports for outgoing connections and listen(0), from /proc (its default elsewhere). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && high && low <= high) return [low, high];
  } catch {
    // Not Linux: its default range is as good a guess as any.
  }
  return [32768, 60999];
}

/**
 * Free ports outside the ephemeral range, for an etcd that restarts on its ports: inside it, a
 * stopped etcd's port can be taken meanwhile by any outgoing connection, even by a client
 * retrying that very address (Linux then connects the socket to itself). Falls back to
 * freePorts when no range is left over or nothing there is free.
 */
export async function stablePorts(n: number): Promise<number[]> {
  const [low, high] = ephemeralRange();
  // Below the range where there is room (Linux's default), else above it.
  const [from, to] = low >= 11_024 ? [10_000, low - 1] : [high + 1, 65_535];
  for (let attempt = 0; to - from >= n * 100 && attempt < 20; attempt++) {
    const ports = new Set<number>();
    while (ports.size < n) ports.add(from + Math.floor(Math.random() * (to - from + 1)));
    const held = await Promise.all([...ports].map(holdPort));
    await Promise.all(held.map((server) => server && new Promise((resolve) => server.close(resolve))));
    if (held.every((server) => server !== undefined)) return [...ports];
  }
  return freePorts(n);
}

/** Listens on the port, or undefined when something else has it. */
function holdPort(port: number): Promise<ReturnType<typeof createServer> | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/** Ports the kernel hands out as free now (held together, so they differ); the scripts take their emulators' ports here too. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  });
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

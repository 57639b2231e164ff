/** The frozen emulator (frozen-emulator.ts: fixed clock, uids and names) in a child process, for byte snapshots. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");

export interface FrozenEmulator {
  readonly url: string;
  stop(): void;
}

/** Starts it and resolves with its URL (the first line it prints). */
export async function startFrozenEmulator(): Promise<FrozenEmulator> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "frozen-emulator.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`frozen emulator exited with ${code}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

/** Registers the suite's hooks: the frozen emulator runs for the file; the getter gives its URL. */
export function useFrozenEmulator(): () => string {
  let frozen: FrozenEmulator | undefined;
  beforeAll(async () => {
    frozen = await startFrozenEmulator();
  }, 30_000);
  afterAll(() => frozen?.stop());
  return () => {
    if (!frozen) throw new Error("the frozen emulator has not started");
    return frozen.url;
  };
}

/**
 * The etcd launcher: where it finds the binary, what a failed start says, and a member killed
 * (SIGKILL, as a crash) restarting on its data with what was written; dispose removes the directory;
 * its ports lie outside the range outgoing connections take theirs from.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { EtcdStore } from "../../lib/emulator/storage/etcd/etcd-store.js";
import { findEtcd, stablePorts, startEtcd } from "../../lib/etcd/launch.js";
import { ETCD_BINARY, skipReason } from "./support.js";

describe("findEtcd", () => {
  it("takes TOLLGATE_ETCD when it is executable, else nothing, and otherwise looks on PATH", () => {
    expect(findEtcd({ TOLLGATE_ETCD: "/nonexistent/etcd", PATH: "/usr/bin:/bin" })).toBeUndefined();
    expect(findEtcd({ TOLLGATE_ETCD: "/bin/sh" })).toBe("/bin/sh");
    expect(findEtcd({ PATH: "/nonexistent" })).toBeUndefined();
    if (ETCD_BINARY) expect(findEtcd({ PATH: `/nonexistent:${dirname(ETCD_BINARY)}` })).toBe(`${dirname(ETCD_BINARY)}/etcd`);
  });

  it("a binary that exits at once fails the start with its exit status, not a wait for health, and leaves no data directory", async () => {
    // A temp dir of its own (os.tmpdir() reads TMPDIR at each call): other files start members meanwhile.
    const saved = process.env.TMPDIR;
    const own = mkdtempSync(join(tmpdir(), "launch-test-"));
    process.env.TMPDIR = own;
    try {
      const started = Date.now();
      await expect(startEtcd({ binary: "/bin/false", readyTimeoutMs: 10_000 })).rejects.toThrow(/^etcd exited \(code 1\) before it was healthy/);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(readdirSync(own)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe("stablePorts", () => {
  it("gives distinct free ports outside the range of outgoing connections' local ports", async () => {
    const range = existsSync("/proc/sys/net/ipv4/ip_local_port_range")
      ? readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number)
      : [32768, 60999];
    const [low, high] = range as [number, number];
    for (let i = 0; i < 5; i++) {
      const ports = await stablePorts(2);
      expect(new Set(ports).size).toBe(2);
      for (const port of ports) {
        expect(port < low || port > high, `${port} against ${low}-${high}`).toBe(true);
        // Free: listening on it works.
        const server = createServer();
        await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });
});

describe.skipIf(skipReason("launch"))("startEtcd on the real binary", () => {
  it("a member killed with SIGKILL restarts on its data with what was written; dispose stops it and removes the directory", async () => {
    const etcd = await startEtcd();
    const store = new EtcdStore({ endpoints: etcd.url, requestTimeoutMs: 2000 });
    try {
      const written = await store.put("/launch/k", '{"n":1}');
      const firstPid = etcd.pid;
      await etcd.kill();
      expect(etcd.pid).toBeUndefined();
      await etcd.restart();
      expect(etcd.pid).not.toBe(firstPid);
      let kv = await store.get("/launch/k").catch(() => undefined);
      const deadline = Date.now() + 5000;
      while (!kv && Date.now() < deadline) kv = await store.get("/launch/k").catch(() => undefined);
      expect(kv).toEqual(written.kv);
    } finally {
      store.close();
      await etcd.dispose();
    }
    expect(etcd.pid).toBeUndefined();
    expect(existsSync(etcd.dataDir)).toBe(false);
  });
});

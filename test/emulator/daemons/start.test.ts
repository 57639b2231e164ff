/**
 * startEmulatedDaemons refuses what a real daemon's flag parsing refuses (read by the option
 * model, not the checker), and leaves nothing listening when it does.
 */

import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { DaemonCommandLineError, startEmulatedDaemons } from "../../../lib/emulator/daemons/index.js";
import { TLS } from "./support.js";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

describe("startEmulatedDaemons", () => {
  it("rejects a controller manager command line with a value its flag cannot read, in one line naming it", async () => {
    const p = startEmulatedDaemons({
      tls: TLS,
      controllerManager: { args: ["--leader-elect-renew-deadline=20", "--leader-elect-lease-duration=10s"], port: 0 },
    });
    await expect(p).rejects.toBeInstanceOf(DaemonCommandLineError);
    const e = (await p.catch((x: unknown) => x)) as DaemonCommandLineError;
    expect(e.message).toBe(
      'emulated controller manager refuses its command line: --leader-elect-renew-deadline: --leader-elect-renew-deadline=20: "20" is not a Go duration (forms like 10s, 1m0s, 1h30m, 100ms)',
    );
    expect(e.problems.map((p) => [p.kind, p.option])).toEqual([["value", "--leader-elect-renew-deadline"]]);
  });

  it("rejects a node agent command line the same way, and counts further errors", async () => {
    await expect(startEmulatedDaemons({ tls: TLS, nodeAgent: { args: ["--image-gc-high-threshold=101"] } })).rejects.toThrow(
      /^emulated node agent refuses its command line: --image-gc-high-threshold: --image-gc-high-threshold=101: must be within 0 to 100$/,
    );
    await expect(startEmulatedDaemons({ tls: TLS, nodeAgent: { args: ["--no-such-flag", "--port=x"] } })).rejects.toThrow(/\(and 1 more error\)$/);
  });

  it("runs with what only the checker objects to: a real daemon's flag parsing accepts it", async () => {
    // A real controller manager refuses this later, when it validates its leader election settings;
    // `tollgate flags check` reports it (doc3.cm-general.renew-deadline-below-lease), the emulation does not.
    const d = await startEmulatedDaemons({
      tls: TLS,
      controllerManager: { args: ["--leader-elect-renew-deadline=20s", "--leader-elect-lease-duration=10s"], port: 0 },
    });
    try {
      expect(d.controllerManager?.url).toMatch(/^https:/);
    } finally {
      await d.close();
    }
  });

  it("reads both command lines before anything listens", async () => {
    const port = await freePort();
    await expect(
      startEmulatedDaemons({ tls: TLS, controllerManager: { args: [], port }, nodeAgent: { args: ["--leader-elect=true"], port: 0 } }),
    ).rejects.toThrow(/node agent refuses its command line: --leader-elect: .*controller manager option/);
    (await occupy(port)).close();
  });

  it("closes what it started when a later server cannot listen", async () => {
    const cmPort = await freePort();
    const taken = await occupy(await freePort());
    const takenPort = (taken.address() as AddressInfo).port;
    try {
      await expect(
        startEmulatedDaemons({ tls: TLS, controllerManager: { port: cmPort }, nodeAgent: { port: 0, readOnlyPort: takenPort, healthzPort: 0 } }),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
      (await occupy(cmPort)).close();
    } finally {
      taken.close();
    }
  });
});

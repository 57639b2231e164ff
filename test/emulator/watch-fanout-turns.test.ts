/**
 * Watch fan-out off the write's path (issue #18): a group hands a change to its members on the
 * check phase after the write, not inside it, and a flush over many streams yields to the event
 * loop between slices. In-process, on the modules themselves: over HTTP neither is observable.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchFormat } from "../../lib/emulator/endpoints/handlers/watch-format.js";
import { drainWatchGroups, joinWatchGroup } from "../../lib/emulator/endpoints/handlers/watch-groups.js";
import { watchOutbox } from "../../lib/emulator/endpoints/handlers/watch-outbox.js";
import { createEmulatorServer, type EmulatorServer } from "../../lib/emulator/endpoints/server.js";
import { resolveSettings } from "../../lib/emulator/options.js";
import { printerOf } from "../../lib/emulator/registry/generic/table.js";
import { configMapStrategy } from "../../lib/emulator/registry/index.js";

let server: EmulatorServer;
beforeAll(() => {
  server = createEmulatorServer(resolveSettings({ namespaceContent: false }));
});
afterAll(async () => {
  await server.close();
});

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Busy for ms of this process's CPU time (not wall time: the machine may be shared). */
function spin(ms: number): void {
  const cpu = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const end = cpu() + ms;
  while (cpu() < end);
}

describe("watch groups", () => {
  it("hand a change to their members after the write returns, once, and not to a stream whose replay had it", async () => {
    const { storage, clock } = server.parts;
    const ns = "turns";
    const format: WatchFormat = {
      key: "json:object::",
      encoding: "json",
      representation: { as: "object" },
      contentType: "application/json",
      plainJson: true,
      tableHeaders: false,
      printer: printerOf(configMapStrategy),
    };
    const filter = { empty: true, matches: () => true };
    const got: Record<string, string[]> = { early: [], late: [] };
    const member = (name: string, after: number) => ({ after, send: (l: Buffer) => got[name]?.push(l.toString()), fail: () => got[name]?.push("FAILED") });
    const put = (name: string) =>
      storage.put(
        configMapStrategy,
        storage.key(configMapStrategy, ns, name),
        storage.encode({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name, namespace: ns, uid: name, creationTimestamp: "2026-01-01T00:00:00Z" },
          data: {},
        }),
      );
    const r0 = storage.store.revision;
    const leaveEarly = joinWatchGroup(storage, configMapStrategy, ns, filter, format, clock, member("early", r0));

    await put("one");
    // The write is done (its caller would answer now); the member has nothing yet.
    expect(got["early"]).toEqual([]);
    // A stream that replayed up to now joins while "one" still waits in the group.
    const leaveLate = joinWatchGroup(storage, configMapStrategy, ns, filter, format, clock, member("late", r0));
    drainWatchGroups();
    expect(got["early"]?.map((l) => JSON.parse(l)).map((e) => [e.type, e.object.metadata.name])).toEqual([["ADDED", "one"]]);
    expect(got["late"]).toEqual([]);

    await put("two");
    await put("three");
    await turn();
    const names = (k: string) => got[k]?.map((l) => JSON.parse(l).object.metadata.name);
    expect(names("early")).toEqual(["one", "two", "three"]);
    expect(names("late")).toEqual(["two", "three"]);
    // Both got the very same Buffer text for each change.
    expect(got["late"]).toEqual(got["early"]?.slice(1));
    leaveEarly();
    leaveLate();
  });
});

/** A response whose socket takes every write after `costMs` of CPU, as a loopback write does. */
function fakeResponse(costMs: number, log: string[], name: string) {
  const socket = {
    writableNeedDrain: false,
    write(b: Buffer) {
      spin(costMs);
      log.push(`${name}:${b.toString()}`);
      return true;
    },
  };
  return { socket, headersSent: true, writableEnded: false, destroyed: false, writableLength: 0, writableNeedDrain: false } as unknown as ServerResponse;
}

describe("the watch outbox", () => {
  it("lets the event loop run between slices of a flush, and sends lines queued meanwhile in the same flush or the next", async () => {
    // Past MIN_FLUSH_INTERVAL_MS of any earlier flush in this process: this flush starts at once.
    await sleep(30);
    const log: string[] = [];
    const n = 40;
    const boxes = Array.from({ length: n }, (_, i) => watchOutbox(fakeResponse(1, log, `s${i}`), 1 << 20, () => log.push(`cut s${i}`)));
    for (const b of boxes) b.send("a\n");
    let seenAtProbe = -1;
    let seenAfterNextSlice = -1;
    setImmediate(() => {
      // Runs after the first slice: some streams are written, others not yet.
      seenAtProbe = log.length;
      boxes[0]?.send("b\n");
      boxes[n - 1]?.send("b\n");
      // Other work of 30 ms CPU: the next slice may take as much, enough for all the rest.
      spin(30);
      setImmediate(() => {
        seenAfterNextSlice = log.length;
      });
    });
    for (let i = 0; i < 100 && log.length < n + 1; i++) await sleep(10);
    expect(seenAtProbe).toBeGreaterThan(0);
    expect(seenAtProbe).toBeLessThan(n);
    expect(seenAfterNextSlice).toBe(n);
    // Each chunk is framed as HTTP/1.1 chunked: hex size, CRLF, the lines, CRLF.
    expect(log.slice(0, n - 1)).toEqual(Array.from({ length: n - 1 }, (_, i) => `s${i}:2\r\na\n\r\n`));
    // The last stream was not written yet when "b" came: both lines in one chunk; the first one gets "b" in the next flush.
    expect(log.slice(n - 1)).toEqual([`s${n - 1}:4\r\na\nb\n\r\n`, "s0:2\r\nb\n\r\n"]);
    for (const b of boxes) b.flush();
  });
});

/**
 * Faults the emulator on etcd survives, each bounded in time: an emulator killed with SIGKILL in
 * the middle of a stream of writes (every acknowledged write stays, nothing unanswered is half
 * applied, and a watch on the surviving replica sees each acknowledged write once, in order), and
 * etcd restarted under load (every request is answered, 2xx or a Status, within a bound, then the
 * emulator recovers; a watch open across the restart resumes without a gap, or ends and a relist
 * sees everything).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { type EtcdServer, startEtcd } from "../../lib/etcd/launch.js";
import { client, configMapBody, openWatch, type WatchEventLine, type WatchReader } from "../emulator/support.js";
import { skipReason } from "./support.js";

const CM = "/api/v1/namespaces/default/configmaps";
/** Every request must be answered within this (the emulator's etcd bound is 1.5 s; the rest is slack for a loaded machine). */
const ANSWER_BOUND_MS = 6000;

interface Outcome {
  name: string;
  status: number | "no answer";
  body?: any;
  ms: number;
  /** When the answer (or its absence) was known. */
  end: number;
}

/** One POST with a deadline; a reset or a hang is "no answer", never a throw. */
function create(base: string, name: string, data: Record<string, string>): Promise<Outcome> {
  return send(base, name, "POST", configMapBody(name, data));
}

/** One request with a deadline, its outcome named `name`. */
async function send(base: string, name: string, method: "GET" | "POST", body?: unknown): Promise<Outcome> {
  const began = Date.now();
  try {
    const res = await request(base + CM, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : { "content-type": "application/json" },
      signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { name, status: res.statusCode, body: parsed, ms: Date.now() - began, end: Date.now() };
  } catch {
    return { name, status: "no answer", ms: Date.now() - began, end: Date.now() };
  }
}

/** `node bin/tollgate.js emulator` in its own process group, so a SIGKILL reaches the re-run that serves too. */
async function startChild(etcdUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["bin/tollgate.js", "emulator", "--port", "0", "--etcd-servers", etcdUrl], {
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: through tsx, on a machine busy with other suites, its start has taken over 15 s.
    const timer = setTimeout(() => {
      void killGroup(child);
      reject(new Error("child emulator did not say where it listens within 45 s"));
    }, 45_000);
    lines.on("line", (line) => {
      const m = /^listening on (\S+)/.exec(line);
      if (!m?.[1]) return;
      clearTimeout(timer);
      resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`child emulator exited (${code})`)));
  });
  return { child, url };
}

function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid, "SIGKILL");
  return gone;
}

/** Events of the watch until `done` says enough, or the stream ends, or the time is up. */
async function collect(w: WatchReader, done: (events: WatchEventLine[]) => boolean, timeoutMs: number): Promise<WatchEventLine[]> {
  const events: WatchEventLine[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!done(events) && Date.now() < deadline) {
    const e = await w.next(Math.max(1, deadline - Date.now()));
    if (!e) break;
    events.push(e);
  }
  return events;
}

const rvOf = (e: WatchEventLine): number => Number(e.object.metadata.resourceVersion);

describe.skipIf(skipReason("faults"))("faults the emulator on etcd survives", () => {
  let etcd: EtcdServer;
  let survivor: RunningEmulator;
  let victim: ChildProcess | undefined;
  let victimUrl = "";

  beforeAll(async () => {
    etcd = await startEtcd();
    // Both at once: the child's start (a second Node through tsx) is most of this file's time.
    const [s, started] = await Promise.all([
      startEmulator({ etcdServers: [etcd.url], namespaceContent: false, etcdRequestTimeoutMs: 1500, leaderElect: false }),
      startChild(etcd.url),
    ]);
    survivor = s;
    victim = started.child;
    victimUrl = started.url;
  }, 60_000);
  afterAll(async () => {
    if (victim) await killGroup(victim);
    await survivor?.close();
    await etcd?.dispose();
  });

  it("keeps every acknowledged write of an emulator killed with SIGKILL mid-stream, half-applies none, and the survivor's watch sees each once, in order", async () => {
    const child = victim as ChildProcess;
    const call = client(survivor.url);
    const listed = await call("GET", CM);
    const w = await openWatch(survivor.url, `${CM}?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    // Four writers in parallel to the victim; the kill lands once a dozen are acknowledged, so some are in flight.
    const outcomes: Outcome[] = [];
    let n = 0;
    let killed: Promise<void> | undefined;
    const writer = async () => {
      for (;;) {
        const i = n++;
        if (i >= 200) return;
        const o = await create(victimUrl, `crash-${i}`, { i: String(i), pad: "x".repeat(512) });
        outcomes.push(o);
        if (o.status === "no answer") return;
        expect(o.status).toBe(201);
        if (!killed && outcomes.filter((x) => x.status === 201).length >= 12) killed = killGroup(child);
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    await killed;
    victim = undefined;
    const acked = outcomes.filter((o) => o.status === 201);
    const unanswered = outcomes.filter((o) => o.status !== 201);
    expect(acked.length).toBeGreaterThanOrEqual(12);
    expect(unanswered.length).toBeGreaterThan(0);

    const after = await call("GET", CM);
    const present = new Map<string, any>(
      after.json.items.filter((i: any) => i.metadata.name.startsWith("crash-")).map((i: any) => [i.metadata.name, i] as [string, any]),
    );
    for (const o of acked) {
      const item = present.get(o.name);
      expect(item?.metadata.resourceVersion, o.name).toBe(o.body.metadata.resourceVersion);
      expect(item?.data).toEqual(o.body.data);
    }
    // Unanswered: absent, or there in full (its data as sent).
    for (const o of unanswered) {
      const item = present.get(o.name);
      if (item) expect(item.data).toEqual({ i: o.name.slice("crash-".length), pad: "x".repeat(512) });
    }
    // The watch: one ADDED per object present (acknowledged or applied unanswered), in resourceVersion
    // order; the victim's own controllers (kube-root-ca.crt) may write here too.
    const crash = (es: WatchEventLine[]) => es.filter((e) => String(e.object.metadata?.name).startsWith("crash-"));
    const events = crash(await collect(w, (es) => crash(es).length >= present.size, 5000));
    w.close();
    expect(events.map((e) => e.type)).toEqual(Array(present.size).fill("ADDED"));
    const names = events.map((e) => e.object.metadata.name as string);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(names)).toEqual(new Set(present.keys()));
    const rvs = events.map(rvOf);
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
    for (const o of acked) expect(events.find((e) => e.object.metadata.name === o.name)?.object.metadata.resourceVersion).toBe(o.body.metadata.resourceVersion);
  }, 30_000);

  it("answers every request during an etcd restart with 2xx or a Status within a bound, recovers, and its open watch misses nothing", async () => {
    const call = client(survivor.url);
    const listed = await call("GET", CM);
    const w = await openWatch(survivor.url, `${CM}?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    let watchEnded = false;
    void w.ended.then(() => {
      watchEnded = true;
    });
    const outcomes: Outcome[] = [];
    let n = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const o = await create(survivor.url, `restart-${n++}`, { v: "1" });
        outcomes.push(o);
        // Failures come fast while etcd refuses connections: no busy loop meanwhile.
        if (o.status !== 201) await new Promise((r) => setTimeout(r, 20));
      }
    };
    // Lists too: a read during the outage must end the same way.
    const reads: Outcome[] = [];
    const reader = async () => {
      while (!stop) {
        const o = await send(survivor.url, "list", "GET");
        reads.push(o);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const writers = [writer(), writer(), reader()];
    await new Promise((r) => setTimeout(r, 300));
    const restartedAt = { begin: Date.now(), end: 0 };
    await etcd.restart();
    restartedAt.end = Date.now();
    // Load until a few writes answered after the restart are acknowledged.
    const deadline = Date.now() + 8000;
    while (Date.now() < deadline && outcomes.filter((o) => o.status === 201 && o.end > restartedAt.end).length < 5) {
      await new Promise((r) => setTimeout(r, 50));
    }
    stop = true;
    await Promise.all(writers);

    for (const o of [...outcomes, ...reads]) {
      expect(o.status, `${o.name} after ${o.ms} ms`).not.toBe("no answer");
      expect(o.ms).toBeLessThan(ANSWER_BOUND_MS);
      if (o.status === 201 || (o.name === "list" && o.status === 200)) continue;
      // A failure is a Status: 5xx, its code in the body.
      expect(o.status as number).toBeGreaterThanOrEqual(500);
      expect(o.body?.status).toBe("Failure");
      expect(o.body?.code).toBe(o.status);
      expect(typeof o.body?.message).toBe("string");
    }
    // The restart was under load: writes were sent while etcd was down. Whether one failed depends
    // on how long etcd took to come back against the emulator's 1.5 s bound (a write may wait it
    // out and succeed); each failure's shape is checked above.
    const during = outcomes.filter((o) => o.end - o.ms < restartedAt.end && o.end > restartedAt.begin);
    expect(during.length, `writes sent or answered during the restart (${restartedAt.end - restartedAt.begin} ms)`).toBeGreaterThan(0);
    // Recovered: a write and a read answer again.
    const again = await call("POST", CM, configMapBody("restart-final", { v: "1" }));
    expect(again.status).toBe(201);
    const acked = [...outcomes.filter((o) => o.status === 201).map((o) => o.body), again.json];

    const now = await call("GET", CM);
    const present = new Map<string, any>(
      now.json.items.filter((i: any) => i.metadata.name.startsWith("restart-")).map((i: any) => [i.metadata.name, i] as [string, any]),
    );
    for (const a of acked) expect(present.get(a.metadata.name)?.metadata.resourceVersion, a.metadata.name).toBe(a.metadata.resourceVersion);
    // The watch either went on without a gap (one ADDED per object there, in order), or ended with
    // an ERROR (410 or otherwise): then the relist above already holds every acknowledged write.
    const events = await collect(w, (es) => es.length >= present.size || es.some((e) => e.type === "ERROR"), 5000);
    w.close();
    const error = events.find((e) => e.type === "ERROR");
    if (error) {
      expect(error.object.kind).toBe("Status");
      expect(error.object.status).toBe("Failure");
    } else if (!watchEnded || events.length >= present.size) {
      expect(events.map((e) => e.type)).toEqual(Array(present.size).fill("ADDED"));
      expect(new Set(events.map((e) => e.object.metadata.name))).toEqual(new Set(present.keys()));
      const rvs = events.map(rvOf);
      expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
      expect(new Set(rvs).size).toBe(rvs.length);
    }
  }, 30_000);
});

/**
 * Stopping `tollgate run` safely, through the real CLI against emulators this test starts:
 * SIGINT and SIGTERM clean up what the run created and write the report; a target that dies or
 * stalls mid-run ends the run in bounded time with exit 2, one line, and no failed rule; and
 * `tollgate cleanup` removes what a run left, webhook configurations first. Each run is one or
 * two small suites with short bounds set by flags.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, type ExpectStatic, it, type TestContext } from "vitest";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import type { KubeObject } from "../../lib/harness/objects.js";
import type { Summary } from "../../lib/report/summary.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");
const RUN_LABEL = "tollgate.dev/run-id";
const SUITE_LABEL = "tollgate.dev/suite";

/**
 * What a test started, stopped when it ends (last first). The tests run concurrently (each
 * waits mostly on its own child run), so each has its own list, emptied by its own context's hook.
 */
function stopsOfThisTest(onTestFinished: TestContext["onTestFinished"]): (() => Promise<void>)[] {
  const stops: (() => Promise<void>)[] = [];
  onTestFinished(async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  });
  return stops;
}

/**
 * Terminating namespaces are emptied after 50 ms instead of a second: still in the background,
 * after the DELETE's answer, as on a real cluster; the runs' cleanup and the polls below wait less.
 */
const NAMESPACE_CLEANUP = { namespaceCleanupDelayMs: 50 };

async function emulator(stops: (() => Promise<void>)[]): Promise<RunningEmulator> {
  const e = await startEmulator({ port: 0, ...NAMESPACE_CLEANUP });
  stops.push(() => e.close());
  return e;
}

async function list(base: string, path: string, selector = RUN_LABEL): Promise<KubeObject[]> {
  const res = await fetch(`${base}${path}?labelSelector=${encodeURIComponent(selector)}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
  return ((await res.json()) as { items: KubeObject[] }).items;
}

const WEBHOOKS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const NAMESPACES = "/api/v1/namespaces";

/** Everything on the emulator labelled with a run (any run when none is named); namespaces still terminating count. */
async function leftovers(base: string, runId?: string): Promise<string[]> {
  const selector = runId ? `${RUN_LABEL}=${runId}` : RUN_LABEL;
  const out: string[] = [];
  for (const path of [WEBHOOKS, MUTATING, CRDS, NAMESPACES])
    for (const o of await list(base, path, selector)) out.push(`${path.split("/").pop()}/${o.metadata.name}`);
  return out;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Run {
  out: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  signal(sig: NodeJS.Signals): void;
  summary(): Summary;
}

function startRun(stops: (() => Promise<void>)[], args: string[]): Run {
  const out = mkdtempSync(join(tmpdir(), "tollgate-stop-"));
  const child = spawn(process.execPath, [BIN, "run", "--no-html", "--qps", "0", "--output", out, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  stops.push(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return {
    out,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    signal: (sig) => child.kill(sig),
    summary: () => JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary,
  };
}

/** The namespace of the first suite (detection's own is labelled suite=detection); on a timeout, what the run printed so far. */
async function suiteNamespace(base: string, run: Run): Promise<KubeObject> {
  try {
    // A run that ends before any suite starts says why at once, not after the whole wait.
    let ended = false;
    void run.exited.then(() => (ended = true));
    const found = await until("a suite's namespace", 60_000, async () => {
      const ns = (await list(base, NAMESPACES)).find((n) => n.metadata.labels?.[SUITE_LABEL] !== "detection");
      return ns ?? (ended ? null : undefined);
    });
    if (found === null) throw new Error("the run ended before any suite's namespace appeared");
    return found;
  } catch (e) {
    throw new Error(`${(e as Error).message}; the run printed:\n${run.stdout()}${run.stderr()}`);
  }
}

/** The lines tollgate itself printed to stderr. */
const ownLines = (stderr: string): string[] => stderr.split("\n").filter((l) => l.startsWith("tollgate: "));

describe.concurrent("a run stopped by a signal", () => {
  for (const [sig, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${sig}: the run stops, removes its namespaces, CRDs and webhook configurations, writes the report and exits ${code}`, {
      timeout: 120_000,
    }, async ({ expect, onTestFinished }) => {
      const stops = stopsOfThisTest(onTestFinished);
      const e = await emulator(stops);
      const run = startRun(stops, ["--target", e.url, "--suite", "custom-resources", "--suite", "admission-webhooks"]);
      const ns = await suiteNamespace(e.url, run);
      const runId = ns.metadata.labels?.[RUN_LABEL] as string;
      // SIGTERM once a cluster-scoped object of the run exists too (a CRD), SIGINT as soon as a suite has its namespace.
      if (sig === "SIGTERM")
        await until("a CRD of the run", 60_000, async () => ((await list(e.url, CRDS, `${RUN_LABEL}=${runId}`)).length > 0 ? true : undefined));
      run.signal(sig);
      expect(await run.exited, run.stdout() + run.stderr()).toBe(code);
      expect(ownLines(run.stderr())[0]).toMatch(
        sig === "SIGINT" ? /^tollgate: interrupted \(SIGINT\): stopping the run/ : /^tollgate: terminated \(SIGTERM\): stopping the run/,
      );
      expect(run.stderr()).not.toMatch(/\n\s+at /);
      // Namespaces go through Terminating; the emulator finalizes them at once, the rest is gone already.
      await until("nothing of the run left", 10_000, async () => ((await leftovers(e.url, runId)).length === 0 ? true : undefined));
      expect(existsSync(join(run.out, "summary.json"))).toBe(true);
      const s = run.summary();
      expect(s.runId).toBe(runId);
      expect(s.stopped?.reason).toBe(sig);
      expect(s.exit.code).toBe(code);
      expect(s.rules.filter((r) => r.status === "failed").map((r) => r.id)).toEqual([]);
      expect(run.stdout()).toMatch(/^tollgate: report written to /m);
    });
  }
});

describe.concurrent("tollgate cleanup", () => {
  // Asynchronous: the emulator answering the command lives in this process.
  const cli = (...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> =>
    new Promise((done) => {
      const child = spawn(process.execPath, [BIN, "cleanup", ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.once("exit", (status) => done({ status, stdout, stderr }));
    });

  it("removes what runs left by the run label, webhook configurations first, and says what it removed", { timeout: 60_000 }, async ({
    expect,
    onTestFinished,
  }) => {
    const e = await emulator(stopsOfThisTest(onTestFinished));
    const post = async (path: string, body: unknown): Promise<void> => {
      const res = await fetch(`${e.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    };
    const labels = (run: string) => ({ [RUN_LABEL]: run, [SUITE_LABEL]: "x" });
    for (const [run, n] of [
      ["run-a", 2],
      ["run-b", 1],
    ] as const) {
      for (let i = 0; i < n; i += 1)
        await post(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: `tollgate-${run}-${i}`, labels: labels(run) } });
    }
    await post(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: "someone-elses", labels: { team: "x" } } });
    await post(CRDS, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.cleanup.tollgate.dev", labels: labels("run-a") },
      spec: {
        group: "cleanup.tollgate.dev",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
      },
    });
    // A webhook whose server is gone, failing closed on namespace deletions: left in place, it would refuse the rest.
    await post(WEBHOOKS, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "tollgate-gone", labels: labels("run-a") },
      webhooks: [
        {
          name: "gone.tollgate.dev",
          clientConfig: { url: "https://127.0.0.1:1/gone" },
          rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"], scope: "*" }],
          failurePolicy: "Fail",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 1,
        },
      ],
    });
    const blocked = await fetch(`${e.url}${NAMESPACES}/tollgate-run-b-0`, { method: "DELETE" });
    expect(blocked.status, "the webhook does refuse namespace deletions").toBeGreaterThanOrEqual(400);

    const dry = await cli("--target", e.url, "--run-id", "run-a", "--dry-run");
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /4 object\(s\) of run run-a:\n {2}validatingwebhookconfigurations\/tollgate-gone\n {2}customresourcedefinitions\/widgets\.cleanup\.tollgate\.dev\n {2}namespaces\/tollgate-run-a-0\n {2}namespaces\/tollgate-run-a-1\n/,
    );
    expect((await leftovers(e.url)).length).toBe(5);

    const one = await cli("--target", e.url, "--run-id", "run-a");
    expect(one.status, one.stdout + one.stderr).toBe(0);
    expect(one.stdout).toMatch(
      /^tollgate: removed 4 \(validatingwebhookconfigurations\/tollgate-gone, customresourcedefinitions\/widgets\.cleanup\.tollgate\.dev, namespaces\/tollgate-run-a-0, namespaces\/tollgate-run-a-1\)$/m,
    );
    // Namespaces are removed in the background, as on a real cluster: Terminating for a moment.
    await expect.poll(() => leftovers(e.url), { timeout: 15_000, interval: 200 }).toEqual(["namespaces/tollgate-run-b-0"]);

    const all = await cli("--target", e.url);
    expect(all.status, all.stdout + all.stderr).toBe(0);
    expect(all.stdout).toMatch(/1 object\(s\) of run run-b:\n {2}namespaces\/tollgate-run-b-0 {2}run run-b\n/);
    await expect.poll(() => leftovers(e.url), { timeout: 15_000, interval: 200 }).toEqual([]);
    expect(
      (await list(e.url, NAMESPACES, "team")).map((n) => n.metadata.name),
      "nothing else touched",
    ).toEqual(["someone-elses"]);
    expect((await cli("--target", e.url)).stdout).toMatch(/^tollgate: nothing of tollgate runs on /);

    const bad = await cli("--run-id", "x");
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^tollgate: cleanup needs a target/)]);
  });
});

/** A TCP proxy that forwards until `stall()`, then accepts and reads but never answers, on new and open connections alike. */
async function stallingProxy(stops: (() => Promise<void>)[], upstream: string): Promise<{ url: string; stall(): void }> {
  const up = new URL(upstream);
  let stalled = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("error", () => undefined);
    client.on("close", () => sockets.delete(client));
    if (stalled) return;
    const target = connect(Number(up.port), up.hostname);
    sockets.add(target);
    target.on("error", () => client.destroy());
    client.on("data", (d) => void (stalled || target.write(d)));
    target.on("data", (d) => void (stalled || client.write(d)));
    client.on("close", () => target.destroy());
    target.on("close", () => void (stalled || client.destroy()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  stops.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, stall: () => void (stalled = true) };
}

/**
 * After the runs above (a plain describe: not in their concurrent group), the two of these at
 * the same time: their short --request-timeout is met by emulators in this process, which
 * four runs at once (and a loaded machine) slowed past it before the suites started.
 */
describe("a target that stops answering mid-run", () => {
  // Short enough to keep the runs bounded, long enough that a loaded machine's slow answers are
  // not taken for a stall before the suites start (1 s failed there about once in twenty runs).
  const bounds = ["--request-timeout", "3s", "--unavailable-after", "6s"];

  function expectTargetStop(expect: ExpectStatic, run: Run, code: number | null, startedAt: number): Summary {
    const output = run.stdout() + run.stderr();
    expect(code, output).toBe(2);
    expect(Date.now() - startedAt, "bounded time").toBeLessThan(60_000);
    const s = run.summary();
    expect(
      s.rules.filter((r) => r.status === "failed").map((r) => r.id),
      output,
    ).toEqual([]);
    expect(s.totals.tests.failed).toBe(0);
    expect(s.target.problem, output).toBeDefined();
    expect(s.problems).toEqual([]);
    expect(s.exit.code).toBe(2);
    // One line of its own about it on stderr, and no stack trace of tollgate's.
    expect(ownLines(run.stderr()).length, run.stderr()).toBeLessThanOrEqual(1);
    return s;
  }

  it.concurrent("dies (the emulator stops): exit 2, its tests target unavailable, no failed rule", { timeout: 120_000 }, async ({ expect, onTestFinished }) => {
    const stops = stopsOfThisTest(onTestFinished);
    const e = await emulator(stops);
    const started = Date.now();
    const run = startRun(stops, ["--target", e.url, "--suite", "watch-history", "--suite", "crud", "--suite", "chunked-list", ...bounds]);
    await suiteNamespace(e.url, run);
    await e.close();
    const s = expectTargetStop(expect, run, await run.exited, started);
    expect(s.target.problem?.message).toMatch(/ECONNREFUSED|ECONNRESET|socket|closed/);
  });

  it.concurrent("stalls (accepts and never answers): exit 2 within bounded time, no failed rule", { timeout: 120_000 }, async ({ expect, onTestFinished }) => {
    const stops = stopsOfThisTest(onTestFinished);
    const e = await emulator(stops);
    const proxy = await stallingProxy(stops, e.url);
    const started = Date.now();
    const run = startRun(stops, ["--target", proxy.url, "--suite", "watch-history", "--suite", "crud", "--suite", "chunked-list", ...bounds]);
    await suiteNamespace(e.url, run);
    proxy.stall();
    const s = expectTargetStop(expect, run, await run.exited, started);
    expect(s.target.problem?.message).toMatch(/no answer/);
    expect(s.stopped?.reason ?? "ended on its own").toMatch(/target-unavailable|ended on its own/);
  });
});

/** The command line as a user meets it: one-line errors, exit codes, the emulator banner. */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { parseEmulatorArgs } from "../../lib/cli/emulator.js";
import { main } from "../../lib/cli/main.js";
import { verdictEnvironment } from "../../lib/cli/run.js";
import { loadEnvironment, runBounds } from "../../lib/cli/run-flags.js";
import { UsageError } from "../../lib/cli/usage.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });

describe("tollgate CLI", () => {
  it("an unreachable target exits 2 with one line naming it, and no stack trace", () => {
    const r = run("run", "--target", "http://127.0.0.1:1");
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^tollgate: cannot reach http:\/\/127\.0\.0\.1:1: ECONNREFUSED/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("bad usage exits 2 with one line naming the mistake and where the usage is", { timeout: 60_000 }, async () => {
    const usageLine = /^tollgate: .*\(see tollgate (\w+ )?--help\)$/;
    // One through the real CLI (the unreachable target above goes through the re-run with a larger stack)...
    const r = run("nope");
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(usageLine)]);
    // ...the others in this process, where main() prints through console.error: a child each cost about 2 s of CPU.
    const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const out = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      for (const args of [
        ["run", "--bogus"],
        ["run", "--target", "not a url"],
        ["emulator", "--port", "x"],
        ["rules", "coverage", "--doc", "doc9"],
      ]) {
        err.mockClear();
        out.mockClear();
        expect(await main(args), args.join(" ")).toBe(2);
        expect(out.mock.calls, args.join(" ")).toEqual([]);
        expect(
          err.mock.calls.map((c) => String(c[0])),
          args.join(" "),
        ).toEqual([expect.stringMatching(usageLine)]);
      }
    } finally {
      err.mockRestore();
      out.mockRestore();
    }
  });

  it("--help and -h on every command and subcommand print its usage to stdout and exit 0", async () => {
    const r = run("run", "--help");
    expect([r.status, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toMatch(/^usage:\n {2}tollgate run \[--target URL/);
    // The others in this process: main() prints through console.log.
    const cases: [string[], RegExp][] = [
      [["--help"], /^usage:\n {2}tollgate run .*\n {2}tollgate cleanup /s],
      [["-h"], /^usage:\n/],
      [["run", "--target", "http://127.0.0.1:1", "-h"], /^usage:\n {2}tollgate run /],
      [["cleanup", "--help"], /^usage:\n {2}tollgate cleanup /],
      [["cleanup", "-h"], /^usage:\n {2}tollgate cleanup /],
      [["emulator", "--help"], /^usage:\n {2}tollgate emulator /],
      [["flags", "--help"], /^usage:\n {2}tollgate flags check /],
      [["flags", "check", "-h"], /^usage:\n {2}tollgate flags check /],
      [["rules", "-h"], /^usage:\n {2}tollgate rules coverage /],
      [["rules", "coverage", "--help"], /^usage:\n {2}tollgate rules coverage /],
      [["help", "cleanup"], /^usage:\n {2}tollgate cleanup /],
    ];
    const out = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      for (const [args, usage] of cases) {
        out.mockClear();
        expect(await main(args), args.join(" ")).toBe(0);
        expect(String(out.mock.calls[0]?.[0]), args.join(" ")).toMatch(usage);
      }
      // A daemon's own -h after "--" belongs to the daemon's command line.
      out.mockClear();
      await main(["flags", "check", "node-agent", "--", "-h"]);
      expect(out.mock.calls.some((c) => String(c[0]).startsWith("usage:"))).toBe(false);
      // And mistakes in the new flags are one line each, exit 2.
      for (const args of [
        ["run", "--timeout", "5"],
        ["run", "--focus", "/(/"],
        ["run", "--qps", "-1"],
        ["cleanup"],
        ["cleanup", "--target", "http://127.0.0.1:1", "--run-id", "-x-"],
      ]) {
        err.mockClear();
        expect(await main(args), args.join(" ")).toBe(2);
        expect(
          err.mock.calls.map((c) => String(c[0]).split("\n").length),
          args.join(" "),
        ).toEqual([1]);
      }
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });

  it("the load and bound flags: each mistake named in one line, each valid value passed on", () => {
    expect(loadEnvironment({ qps: "50", burst: "300", "max-inflight": "4", "request-timeout": "1m30s" })).toEqual({
      TOLLGATE_QPS: "50",
      TOLLGATE_BURST: "300",
      TOLLGATE_MAX_INFLIGHT: "4",
      TOLLGATE_REQUEST_TIMEOUT_MS: "90000",
    });
    expect(loadEnvironment({ qps: "0", "request-timeout": "0" })).toMatchObject({ TOLLGATE_QPS: "0", TOLLGATE_REQUEST_TIMEOUT_MS: "0" });
    expect(() => loadEnvironment({ burst: "0" })).toThrow(/^--burst must be a whole number of at least 1, not "0"$/);
    expect(() => loadEnvironment({ qps: "-1" })).toThrow(/^--qps must be a number/);
    expect(runBounds({})).toEqual({ timeoutMs: undefined, unavailableAfterMs: 60_000 });
    expect(runBounds({ timeout: "10m", "unavailable-after": "30s" })).toEqual({ timeoutMs: 600_000, unavailableAfterMs: 30_000 });
    expect(() => runBounds({ timeout: "0" })).toThrow(/^--timeout must be longer than 0$/);
  });

  it("--list names each test with its rules and needs, narrowed like a run, without contacting the target", { timeout: 60_000 }, () => {
    // Port 1 answers nothing: a list that tried to reach it would fail.
    const r = run("run", "--list", "--target", "http://127.0.0.1:1", "--suite", "suites/crud", "--focus", "doc1.paths.list-all-namespaces");
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^suites\/crud\.test\.ts\n {2}.*all-namespaces path.*\n {6}rules: doc1\.paths\.list-all-namespaces/m);
    expect(r.stdout).toMatch(/^tollgate: 2 test\(s\) in 1 file\(s\), naming \d+ rule\(s\); 23 left out by the selection$/m);

    const report = mkdtempSync(join(tmpdir(), "tollgate-report-"));
    writeFileSync(
      join(report, "summary.json"),
      JSON.stringify({
        tests: [{ name: "'Event (events group)' > a missing object gives 404 with a NotFound Status naming it", file: "suites/crud.test.ts", state: "failed" }],
        rules: [],
      }),
    );
    const again = run("run", "--list", "--suite", "suites/crud", "--rerun-failed", report);
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(again.stdout.match(/^ {2}\S.*$/gm)).toEqual(["  'Event (events group)' > a missing object gives 404 with a NotFound Status naming it"]);
  });

  // A run with --focus (the tests left out are in no verdict, their rules untested): test/cli/credentials-run.test.ts's --in-cluster run.

  it("a bad verdict flag exits 2 with one line, before anything runs", async () => {
    // In this process: the exit code and the one line are main()'s (the unreachable target above shows the real CLI passes them on).
    const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(await main(["run", "--target", "http://127.0.0.1:1", "--require", "core,nonsense"])).toBe(2);
      const lines = err.mock.calls.map((c) => String(c[0]));
      expect(lines).toEqual([expect.stringMatching(/^tollgate: --require: no profile "nonsense" \(profiles: core, /)]);
      expect(lines.join("\n")).not.toMatch(/\n\s+at /);
    } finally {
      err.mockRestore();
    }
  });

  it("the verdict flags: each mistake named in one line, each valid value passed on to the run", () => {
    const cases: [Record<string, string | boolean | string[]>, RegExp][] = [
      [{ "feature-gates": "WatchList=maybe" }, /^--feature-gates: "WatchList=maybe" is not Name=true or Name=false$/],
      [{ "feature-gates": "NoSuchGate=true" }, /^--feature-gates: NoSuchGate is not a gate tollgate's verdicts depend on/],
      [{ require: ["core,nonsense"] }, /^--require: no profile "nonsense"/],
      [{ seed: "1e3" }, /^--seed: seed "1e3": expected an integer/],
      [{ "thorough-minutes": "5" }, /^--thorough-minutes goes with --thorough$/],
      [{ thorough: true, "thorough-minutes": "0" }, /^--thorough-minutes: thorough minutes "0"/],
    ];
    for (const [values, message] of cases) expect(() => verdictEnvironment(values), JSON.stringify(values)).toThrow(message);
    expect(verdictEnvironment({ "feature-gates": "WatchList=false", require: ["core", "cbor,admin"], seed: "7", thorough: true })).toEqual({
      TOLLGATE_FEATURE_GATES: "WatchList=false",
      TOLLGATE_REQUIRE: "core,cbor,admin",
      TOLLGATE_SEED: "7",
      TOLLGATE_THOROUGH_MINUTES: "11",
    });
  });

  // One emulator child for both: each costs about 2.5 s of CPU to start.
  it("tollgate emulator prints where it listens once it accepts connections, --max-storage-request-bytes and --storage-quota-bytes set the store's etcd limits, and it stops on SIGTERM", async () => {
    expect(parseEmulatorArgs(["--max-storage-request-bytes", "4096", "--storage-quota-bytes", "65536"])).toMatchObject({
      maxStorageRequestBytes: 4096,
      storageQuotaBytes: 65536,
    });
    expect(parseEmulatorArgs([])).not.toHaveProperty("maxStorageRequestBytes");
    expect(parseEmulatorArgs(["--watch-backlog-bytes", "262144"])).toMatchObject({ watchBacklogBytes: 262144 });
    expect(parseEmulatorArgs([])).not.toHaveProperty("watchBacklogBytes");
    for (const flag of ["--max-storage-request-bytes", "--storage-quota-bytes", "--watch-backlog-bytes"]) {
      for (const bad of ["0", "-1", "1.5", "1e6", "x", ""]) {
        expect(() => parseEmulatorArgs([`${flag}=${bad}`]), `${flag} ${bad}`).toThrow(
          new UsageError(`${flag} must be a whole number of bytes from 1, not "${bad}"`),
        );
      }
    }
    const child = spawn(process.execPath, [BIN, "emulator", "--port", "0", "--max-storage-request-bytes", "4096", "--storage-quota-bytes", "65536"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      child.stdout.setEncoding("utf8");
      const url = await new Promise<string>((resolveLine, reject) => {
        child.stdout.on("data", (d: string) => {
          out += d;
          const m = out.match(/listening on (http:\/\/\S+)/);
          if (m) resolveLine(m[1] as string);
        });
        child.once("exit", () => reject(new Error(`emulator exited early: ${out}`)));
      });
      expect((await fetch(`${url}/version`)).status).toBe(200);
      const post = (name: string, bytes: number) =>
        fetch(`${url}/api/v1/namespaces/default/configmaps`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ metadata: { name }, data: { v: "x".repeat(bytes) } }),
        });
      const large = await post("large", 8192);
      expect(large.status).toBe(500);
      expect(((await large.json()) as { message: string }).message).toBe("etcdserver: request is too large");
      let last = await post("fill", 3000);
      for (let i = 0; i < 40 && last.status === 201; i++) last = await post(`fill-${i}`, 3000);
      expect(last.status).toBe(500);
      expect(((await last.json()) as { message: string }).message).toBe("etcdserver: mvcc: database space exceeded");
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});

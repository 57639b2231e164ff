/** The command line as a user meets it: one-line errors, exit codes, the emulator banner. */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { verdictEnvironment } from "../../lib/cli/run.js";

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

  it("bad usage exits 2 with the reason and the usage text", () => {
    for (const args of [["nope"], ["run", "--bogus"], ["run", "--target", "not a url"], ["emulator", "--port", "x"], ["rules", "coverage", "--doc", "doc9"]]) {
      const r = run(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(/^tollgate: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("a bad verdict flag exits 2 with one line, before anything runs", () => {
    const r = run("run", "--target", "http://127.0.0.1:1", "--require", "core,nonsense");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^tollgate: --require: no profile "nonsense" \(profiles: core, /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
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

  it("tollgate emulator prints where it listens once it accepts connections, and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [BIN, "emulator", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    const line = await new Promise<string>((resolveLine, reject) => {
      child.stdout.on("data", (d: string) => {
        out += d;
        const m = out.match(/listening on (http:\/\/\S+)/);
        if (m) resolveLine(m[1] as string);
      });
      child.once("exit", () => reject(new Error(`emulator exited early: ${out}`)));
    });
    const res = await fetch(`${line}/version`);
    expect(res.status).toBe(200);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});

/**
 * JSON nested up to Go's 10000 levels (wire-facts §11, JSON depth): the CLI emulator, which
 * bin/tollgate.js runs in a worker thread with a stack large enough, writes and reads such custom resources like a
 * real server; an emulator on a small stack (this test worker's) refuses what it cannot follow
 * with a 400 that says so, never a 500.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorDepthMessage, emulatorMaxDepth } from "../../lib/emulator/apimachinery/json.js";
import { type RunningEmulator, startEmulator } from "../../lib/emulator/index.js";
import { client } from "./support.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");
const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "deeps.depth.example.com" },
  spec: {
    group: "depth.example.com",
    names: { plural: "deeps", kind: "Deep" },
    scope: "Namespaced",
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};
const DEEPS = "/apis/depth.example.com/v1/namespaces/default/deeps";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const MERGE = { "content-type": "application/merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };
const APPLY = { "content-type": "application/apply-patch+yaml" };

/** `{"k":{"k":…1…}}`, `levels` objects deep. */
const nested = (levels: number, k = "a"): string => `${`{"${k}":`.repeat(levels)}1${"}".repeat(levels)}`;
/** A Deep whose spec makes the whole object `levels` deep. */
const deep = (name: string, levels: number, k = "a"): string =>
  `{"apiVersion":"depth.example.com/v1","kind":"Deep","metadata":{"name":"${name}"},"spec":${nested(levels - 1, k)}}`;

async function defineDeeps(call: ReturnType<typeof client>): Promise<void> {
  expect([201, 409]).toContain((await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)).status);
  for (let i = 0; i < 50; i++) {
    if ((await call("GET", DEEPS)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("deeps never served");
}

/** The first line of a watch (raw text: the values are too deep for a recursive comparison). */
async function firstWatchLine(url: string): Promise<string> {
  const abort = new AbortController();
  const res = await request(url, { signal: abort.signal });
  let text = "";
  for await (const chunk of res.body) {
    text += (chunk as Buffer).toString("utf8");
    if (text.includes("\n")) break;
  }
  abort.abort();
  return text.slice(0, text.indexOf("\n"));
}

describe("the CLI emulator", () => {
  let child: ChildProcess;
  let base: string;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, "emulator", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout?.setEncoding("utf8");
    base = await new Promise<string>((resolveUrl, reject) => {
      child.stdout?.on("data", (d: string) => {
        out += d;
        const m = out.match(/listening on (http:\/\/\S+)/);
        if (m) resolveUrl(m[1] as string);
      });
      child.once("exit", () => reject(new Error(`emulator exited early: ${out}`)));
    });
    call = client(base);
    await defineDeeps(call);
  }, 30_000);
  // Ends as "bin/tollgate.js re-run with a larger stack" below would with a child of its own: a
  // SIGINT sent to the parent alone is passed on, and both stop cleanly (SIGTERM's exit 0 is
  // test/cli/cli.test.ts's; an emulator child costs about 2.5 s of CPU).
  afterAll(async () => {
    process.kill(child.pid as number, "SIGINT");
    const [code, signal] = await once(child, "exit");
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });

  // The re-run with a larger stack needs Linux's /proc/self/limits and an 8 MB ulimit -s.
  it.runIf(process.platform === "linux")(
    "writes a custom resource 9999 levels deep by create, JSON patch and apply, and reads it back the same by GET, YAML, list and watch",
    async () => {
      const created = await call("POST", DEEPS, undefined, { raw: deep("d", 9999) });
      expect(created.status, created.text.slice(0, 300)).toBe(201);
      // Texts this long are compared by includes: a failing toContain would print megabytes.
      expect(created.text.includes(`"spec":${nested(9998)}}`)).toBe(true);
      const patched = await call("PATCH", `${DEEPS}/d`, undefined, {
        raw: `[{"op":"replace","path":"/spec","value":${nested(9998, "b")}}]`,
        headers: JSON_PATCH,
      });
      expect(patched.status, patched.text.slice(0, 300)).toBe(200);
      expect(patched.text.includes(`"spec":${nested(9998, "b")}}`)).toBe(true);
      const applied = await call("PATCH", `${DEEPS}/d?fieldManager=depth&force=true`, undefined, { raw: deep("d", 9999, "c"), headers: APPLY });
      expect(applied.status, applied.text.slice(0, 300)).toBe(200);
      expect(applied.text.includes(`"c":${nested(9997, "c")}`)).toBe(true);

      const got = await call("GET", `${DEEPS}/d`);
      expect(got.status).toBe(200);
      expect(got.text === applied.text).toBe(true);
      // Too deep for block style (and for js-yaml's reader): written as JSON, which YAML reads the same.
      const yaml = await call("GET", `${DEEPS}/d`, undefined, { headers: { accept: "application/yaml" } });
      expect(yaml.status).toBe(200);
      expect(yaml.headers["content-type"]).toBe("application/yaml");
      expect(yaml.text === got.text).toBe(true);
      const list = await call("GET", DEEPS);
      expect(list.status).toBe(200);
      // A custom resource's list item is the object as GET gives it, kind and apiVersion included.
      expect(list.text.includes(`"items":[${got.text.trimEnd()}]`)).toBe(true);
      const line = await firstWatchLine(`${base}${DEEPS}?watch=true&resourceVersion=0`);
      expect(line === `{"type":"ADDED","object":${got.text.trimEnd()}}`).toBe(true);
    },
    60_000,
  );

  it("refuses 10001 levels with the real server's message", async () => {
    const body = deep("e", 10001);
    const r = await call("POST", DEEPS, undefined, { raw: body });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
    expect(r.json.message).toBe(
      `the object provided is unrecognized (must be of type Deep): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${body.slice(0, 30)} ...)`,
    );
  });
});

/** Spawns the CLI with args and resolves once a line of its stdout contains `ready`. */
async function spawnUntil(args: string[], ready: string, detached = false): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], detached });
  let out = "";
  child.stdout?.setEncoding("utf8");
  await new Promise<void>((resolveUp, reject) => {
    child.stdout?.on("data", (d: string) => {
      out += d;
      if (out.includes(ready)) resolveUp();
    });
    child.once("exit", () => reject(new Error(`exited early: ${out}`)));
  });
  return child;
}

/** The pids of a process's children (pgrep exits 1 when there are none). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("bin/tollgate.js: the emulator in a worker thread with a larger stack", () => {
  it("is one process (the deep bodies above were served by it)", async () => {
    const child = await spawnUntil(["emulator", "--port", "0"], "listening on");
    try {
      expect(childrenOf(child.pid as number)).toEqual([]);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("stops once, cleanly, on a SIGINT to its whole process group (Ctrl-C) and on a SIGTERM to it", async () => {
    for (const [sig, group] of [
      ["SIGINT", true],
      ["SIGTERM", false],
    ] as const) {
      const child = await spawnUntil(["emulator", "--port", "0"], "listening on", true);
      const pid = child.pid as number;
      process.kill(group ? -pid : pid, sig);
      const [code, signal] = await once(child, "exit");
      expect({ sig, code, signal }).toEqual({ sig, code: 0, signal: null });
    }
  }, 30_000);

  it("ends on a second SIGINT sent at once: by the first's clean stop or by the second's default action, never a hang", async () => {
    // The first SIGINT starts the emulator's close and its once-listener is gone: a second that
    // reaches the worker takes the default action (the process ends by SIGINT). Two signals sent
    // together may reach the process as one, so a clean exit 0 is the other right ending.
    const child = await spawnUntil(["emulator", "--port", "0"], "listening on");
    child.kill("SIGINT");
    child.kill("SIGINT");
    const [code, signal] = await once(child, "exit");
    expect([
      { code: 0, signal: null },
      { code: null, signal: "SIGINT" },
    ]).toContainEqual({ code, signal });
  }, 30_000);
});

describe("bin/tollgate.js: tollgate run re-runs itself with a larger stack when it embeds the emulator", () => {
  // The re-run needs Linux's /proc/self/limits; elsewhere there is one process.
  it.runIf(process.platform === "linux")(
    "does not leave the re-run behind when it is killed outright",
    async () => {
      // The embedded run: the re-run serves the emulator, and lives long enough to be seen.
      const out = mkdtempSync(join(tmpdir(), "tollgate-rerun-"));
      const child = spawn(process.execPath, [BIN, "run", "--suite", "crud", "--no-html", "--output", out], { stdio: "ignore" });
      let rerun: number | undefined;
      for (let i = 0; i < 250 && rerun === undefined && child.exitCode === null; i++) {
        rerun = childrenOf(child.pid as number)[0];
        if (rerun === undefined) await new Promise((r) => setTimeout(r, 20));
      }
      expect(rerun).toBeGreaterThan(0);
      child.kill("SIGKILL");
      for (let i = 0; i < 100 && alive(rerun as number); i++) await new Promise((r) => setTimeout(r, 100));
      expect(alive(rerun as number)).toBe(false);
      rmSync(out, { recursive: true, force: true });
    },
    30_000,
  );

  it.runIf(process.platform === "linux")(
    "runs as one process against a target: no emulator here, so no re-run (one Node start fewer)",
    async () => {
      // An unreachable target ends the run in well under a second; a re-run would be there all along.
      const child = spawn(process.execPath, [BIN, "run", "--target", "http://127.0.0.1:9"], { stdio: "ignore" });
      const exited = once(child, "exit");
      const seen = new Set<number>();
      let polls = 0;
      while (child.exitCode === null && child.signalCode === null) {
        for (const pid of childrenOf(child.pid as number)) seen.add(pid);
        polls++;
        await new Promise((r) => setTimeout(r, 10));
      }
      const [code] = await exited;
      expect({ code, children: [...seen] }).toEqual({ code: 2, children: [] });
      expect(polls).toBeGreaterThan(3);
    },
    30_000,
  );
});

describe("an emulator on a small stack", () => {
  let emu: RunningEmulator;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    call = client(emu.url);
    await defineDeeps(call);
    // The patches go to objects that exist at every depth.
    expect((await call("POST", DEEPS, undefined, { raw: deep("base", 2) })).status).toBe(201);
    expect((await call("POST", CONFIGMAPS, { metadata: { name: "base" } })).status).toBe(201);
  });
  afterAll(async () => {
    await emu.close();
  });

  it("follows less than Go's 10000 levels here, as the probe of its stack says", () => {
    expect(emulatorMaxDepth()).toBeLessThan(10000);
    expect(emulatorDepthMessage()).toBe(
      `nesting deeper than ${emulatorMaxDepth()} levels, more than this emulator follows on its stack (a real server reads up to 10000; run it with node's --stack-size larger)`,
    );
  });

  it("answers create, merge patch and apply of a custom resource and a ConfigMap at any depth up to 12000 without a 500", async () => {
    const cap = emulatorMaxDepth();
    const depths = new Set<number>();
    for (let d = 1; d <= 12000; d += d < 40 ? 1 : 397) depths.add(d);
    for (const d of [cap - 2, cap - 1, cap, cap + 1, cap + 2, 9999, 10000, 10001, 10002, 12000]) depths.add(d);
    for (const d of [...depths].sort((a, b) => a - b)) {
      const within = d <= cap;
      const name = `d${d}`;
      const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"x":${nested(Math.max(d - 1, 0))}}`;
      const attempts: Array<[string, string, string, Record<string, string>]> = [
        ["POST", DEEPS, deep(name, d), {}],
        ["PATCH", `${DEEPS}/base`, `{"spec":${nested(Math.max(d - 1, 0), "m")}}`, MERGE],
        ["PATCH", `${DEEPS}/base?fieldManager=depth&force=true`, deep("base", d, "p"), APPLY],
        ["POST", CONFIGMAPS, cm, {}],
        ["PATCH", `${CONFIGMAPS}/base`, `{"x":${nested(Math.max(d - 1, 0), "m")}}`, MERGE],
        ["PATCH", `${CONFIGMAPS}/base?fieldManager=depth`, cm.replace(name, "base"), APPLY],
      ];
      for (const [method, path, raw, headers] of attempts) {
        const r = await call(method, path, undefined, { raw, headers: { "content-type": "application/json", ...headers } });
        const what = `${method} ${path} ${headers["content-type"] ?? "json"} at ${d}: ${r.text.slice(0, 200)}`;
        expect(r.status, what).not.toBe(500);
        expect(r.text, what).not.toContain("Maximum call stack");
        // Within what the stack follows everything is written (but a ConfigMap applied with a
        // field it does not have); beyond, the honest 400s.
        if (within) expect(r.status < 300 || /\.x: field not declared in schema/.test(r.json.message), what).toBe(true);
        else if (d <= 10000) expect(r.json.message, what).toContain(emulatorDepthMessage());
        else expect(r.json.message, what).toMatch(/exceeded max depth/);
      }
    }
  }, 120_000);

  it("answers a JSON patch whose result nests past what the stack follows with the 400, the object unchanged", async () => {
    const d = emulatorMaxDepth() - 10;
    expect((await call("POST", DEEPS, undefined, { raw: deep("copied", d) })).status).toBe(201);
    // A copy of the spec deep inside itself doubles the nesting with a flat body.
    const copy = JSON.stringify([{ op: "copy", from: "/spec", path: `/spec${"/a".repeat(d - 2)}/z` }]);
    let last = await call("PATCH", `${DEEPS}/copied`, undefined, { raw: copy, headers: JSON_PATCH });
    for (let i = 0; i < 3 && last.status === 200; i++) last = await call("PATCH", `${DEEPS}/copied`, undefined, { raw: copy, headers: JSON_PATCH });
    expect(last.status).toBe(400);
    expect(last.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400, message: emulatorDepthMessage() });
    const before = last;
    const after = await call("GET", `${DEEPS}/copied`);
    expect(after.status).toBe(200);
    // Nothing half-written: another try fails the same, the object's version is where it was.
    const again = await call("PATCH", `${DEEPS}/copied`, undefined, { raw: copy, headers: JSON_PATCH });
    expect(again.status).toBe(before.status);
    expect((await call("GET", `${DEEPS}/copied`)).json.metadata.resourceVersion).toBe(after.json.metadata.resourceVersion);
  });
});

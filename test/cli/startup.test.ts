/**
 * What a start loads (issue #18): `tollgate emulator` leaves etcd3, ajv, protobufjs, pkijs and the
 * daemons' code to their first user, `--version` loads nothing of lib/, and the compiled emulator
 * command is one bundled file that still shares UsageError with main.js. A preload logs every
 * module as it loads (ES modules through a loader hook, CommonJS through Module._load), so the
 * test reads what was loaded at each step. Speed itself is measured by scripts/bench-start.ts.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin", "tollgate.js");
const dir = mkdtempSync(join(tmpdir(), "tollgate-startup-"));
const PRELOAD = join(dir, "log-loads.mjs");
writeFileSync(
  PRELOAD,
  `import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
const log = process.env.TOLLGATE_LOAD_LOG;
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (!url.startsWith("node:")) appendFileSync(\${JSON.stringify(log)}, "esm " + url + "\\\\n");
  return next(url, context);
}\`));
const load = Module._load;
Module._load = function (request, ...rest) {
  if (!request.startsWith("node:")) appendFileSync(log, "cjs " + request + "\\n");
  return load.call(this, request, ...rest);
};
`,
);

function withLog(name: string): { env: NodeJS.ProcessEnv; read(): string[] } {
  const file = join(dir, `${name}.log`);
  writeFileSync(file, "");
  return {
    env: { ...process.env, NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --import ${PRELOAD}`.trim(), TOLLGATE_LOAD_LOG: file },
    read: () => readFileSync(file, "utf8").split("\n").filter(Boolean),
  };
}

/** Loaded from a package's folder (an ES module URL or a CommonJS file), or required by the package's name. */
const loadsPackage = (lines: string[], pkg: string): boolean =>
  lines.some((l) => l.includes(`/node_modules/${pkg}/`) || l === `cjs ${pkg}` || l.startsWith(`cjs ${pkg}/`));

/** Project files loaded as ES modules, relative to the root (lib/..., dist/lib/..., fixtures/...). */
const projectFiles = (lines: string[]): string[] =>
  lines.flatMap((l) => {
    const m = /^esm file:\/\/(.*)$/.exec(l);
    const path = m ? decodeURIComponent(m[1] as string) : "";
    return path.startsWith(`${ROOT}/`) && !path.includes("/node_modules/") ? [path.slice(ROOT.length + 1)] : [];
  });

const HEAVY_UNTIL_USED = ["etcd3", "@grpc/grpc-js", "ajv", "protobufjs", "pkijs", "asn1js", "cbor-x", "vitest"];

describe("what a start loads", () => {
  const log = withLog("emulator");
  let child: ChildProcess;
  let url = "";
  let afterStart: string[] = [];

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, "emulator", "--port", "0"], { env: log.env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    url = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no "listening on" line: ${out}`)), 60_000);
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const m = /^listening on (\S+)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          done(m[1] as string);
        }
      });
      child.on("exit", (code) => fail(new Error(`the emulator exited (${code}): ${out}`)));
    });
    // A JSON request is served without the protobuf machinery.
    const res = await fetch(`${url}/api/v1/namespaces/default`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { metadata: { name: string } }).metadata.name).toBe("default");
    afterStart = log.read();
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((done) => child.once("exit", done));
    }
  });

  it("tollgate emulator serves JSON without loading etcd3, ajv, protobufjs, pkijs, cbor-x, vitest, the daemons or the runner", () => {
    // The log sees packages at all (js-yaml is loaded at start): an empty log would pass the rest.
    expect(loadsPackage(afterStart, "js-yaml")).toBe(true);
    expect(HEAVY_UNTIL_USED.filter((p) => loadsPackage(afterStart, p))).toEqual([]);
    const files = projectFiles(afterStart);
    // Run from the sources (dist/ stale after an edit) every module shows. The fault catalog, which
    // `--fault` is checked against, brings the embedded daemons' argument lists (paths and names,
    // no work at load) and the command line's shell-word and duration parsers; nothing else of
    // the daemons, the runner, the reports, the harness or the catalog of rules.
    const DATA_FOR_FLAGS = new Set([
      "lib/daemons/shell-words.ts",
      "lib/daemons/values/durations.ts",
      "lib/daemons/values/parse.ts",
      "lib/runner/embedded-daemons.ts",
      "fixtures/daemons/pki.ts",
      "fixtures/daemons/static-pods.ts",
    ]);
    expect(
      files.filter((f) => (/(^|\/)lib\/(daemons|runner|report|harness|spec)\//.test(f) || /(^|\/)fixtures\/daemons\//.test(f)) && !DATA_FOR_FLAGS.has(f)),
    ).toEqual([]);
    // Of the emulated daemons, only the fault names the command line checks.
    expect(files.filter((f) => /lib\/emulator\/daemons\//.test(f) && !/fault-names\.[jt]s$/.test(f))).toEqual([]);
  });

  it("when the compiled copy runs, the emulator command is one bundled file beside main.js", () => {
    const files = projectFiles(afterStart).filter((f) => f !== "bin/tollgate.js");
    // Run from the sources (dist/ missing or stale), every module is its own file: nothing to check here.
    if (!files.every((f) => f.startsWith("dist/"))) return;
    expect(files.filter((f) => !/^dist\/lib\/cli\/emulator(-[\w-]+)?\.js$/.test(f)).sort()).toEqual([
      "dist/lib/cli/main.js",
      "dist/lib/cli/usage.js",
      "dist/lib/project-root.js",
      "dist/lib/tool-version.js",
    ]);
  });

  it("answers the first protobuf request (compiled: with the precomputed table and at most protobufjs's minimal part)", async () => {
    const res = await fetch(`${url}/api/v1/namespaces/default`, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect(body.includes("default")).toBe(true);
    const lines = log.read();
    // The compiled copy reads the descriptor table the build precomputed and encodes with the
    // compiled encoder (lib/wire/protobuf/fast-encode.ts): of protobufjs, at most its Reader and Writer.
    if (projectFiles(afterStart).some((f) => f.startsWith("dist/"))) {
      expect(lines.filter((l) => /^cjs protobufjs(\/.*)?$/.test(l) && l !== "cjs protobufjs/minimal")).toEqual([]);
    }
  });
});

describe("the other commands' starts", () => {
  it("--version is answered by bin/tollgate.js alone: no module of lib/ or dist/ loads", () => {
    const log = withLog("version");
    const r = spawnSync(process.execPath, [BIN, "--version"], { env: log.env, encoding: "utf8", timeout: 60_000 });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, `tollgate ${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version}\n`, ""]);
    // The log sees the entry itself, so an empty list below is not a blind log.
    expect(projectFiles(log.read())).toEqual(["bin/tollgate.js"]);
  });

  it("a bad emulator flag is still a usage error of the emulator command (UsageError shared with the bundle)", () => {
    const r = spawnSync(process.execPath, [BIN, "emulator", "--port", "x"], { encoding: "utf8", timeout: 60_000 });
    expect([r.status, r.stdout, r.stderr]).toEqual([2, "", 'tollgate: --port must be a port number, not "x" (see tollgate emulator --help)\n']);
  });
});

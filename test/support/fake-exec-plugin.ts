/**
 * A fake exec credential plugin: a `#!/usr/bin/env node` script in a temp directory that
 * appends what it was given (args, KUBERNETES_EXEC_INFO, a chosen env variable, whether stdin
 * was a terminal) to runs.log, then does what response.json says: print a text, write a line
 * on standard error, exit with a code, or hang.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PluginResponse {
  /** What it prints on standard output (an object is printed as JSON). */
  stdout?: unknown;
  stderr?: string;
  exitCode?: number;
  hang?: boolean;
}

export interface PluginRun {
  args: string[];
  info: string | undefined;
  env: Record<string, string | undefined>;
  stdinTTY: boolean;
}

export interface FakePlugin {
  dir: string;
  /** The script's absolute path. */
  command: string;
  respond(r: PluginResponse): void;
  runs(): PluginRun[];
}

const SCRIPT = `#!/usr/bin/env node
const fs = require("node:fs");
const path = require("node:path");
const dir = __dirname;
const env = {};
for (const k of ["FAKE_ENV", "FAKE_OVERRIDE", "HOME"]) env[k] = process.env[k];
fs.appendFileSync(path.join(dir, "runs.log"), JSON.stringify({ args: process.argv.slice(2), info: process.env.KUBERNETES_EXEC_INFO, env, stdinTTY: Boolean(process.stdin.isTTY) }) + "\\n");
const r = JSON.parse(fs.readFileSync(path.join(dir, "response.json"), "utf8"));
if (r.stderr) process.stderr.write(r.stderr + "\\n");
if (r.hang) setInterval(() => {}, 1000);
else {
  if (r.stdout !== undefined) process.stdout.write(typeof r.stdout === "string" ? r.stdout : JSON.stringify(r.stdout));
  process.exitCode = r.exitCode ?? 0;
}
`;

export function fakePlugin(name = "fake-plugin", dir = mkdtempSync(join(tmpdir(), "tollgate-exec-"))): FakePlugin {
  const command = join(dir, name);
  writeFileSync(command, SCRIPT);
  chmodSync(command, 0o755);
  const respond = (r: PluginResponse): void => writeFileSync(join(dir, "response.json"), JSON.stringify(r));
  respond({ stdout: "" });
  return {
    dir,
    command,
    respond,
    runs: () => {
      const log = join(dir, "runs.log");
      if (!existsSync(log)) return [];
      return readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as PluginRun);
    },
  };
}

/** An ExecCredential as a plugin prints it. */
export function execCredential(apiVersion: string, status: Record<string, unknown> | undefined): Record<string, unknown> {
  return { kind: "ExecCredential", apiVersion, ...(status ? { status } : {}) };
}

/**
 * A fake exec credential plugin: a POSIX `#!/bin/sh` script in a temp directory (a shell starts
 * in about a millisecond; a Node script took 0.11–0.15 s of CPU, and one `npm test` runs the
 * plugin about 40 times). Each run records what it was given as raw files in its own directory
 * under runs/ (args NUL-separated, KUBERNETES_EXEC_INFO, the env variables FAKE_ENV,
 * FAKE_OVERRIDE and HOME, each only when set, and whether stdin was a terminal), named by the
 * time it started and its pid so the runs sort in the order they started; runs() rebuilds them.
 * Then it does what response/ says: write a line on standard error, and either hang or print a
 * text and exit with a code.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
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

/** The env variables a run records (an unset one is left out of its `env`). */
const ENV_KEYS = ["FAKE_ENV", "FAKE_OVERRIDE", "HOME"] as const;

// Values are written raw with printf '%s' (no escaping to get wrong in sh). A run's files are
// written in a dot directory and renamed into place, so runs() never sees a half-written run.
// response is a symlink swapped atomically by respond(); `cd -P` pins one response for the run.
// The hang is `exec sleep`: the pid the harness kills is the sleeper, so nothing is left behind.
const SCRIPT = `#!/bin/sh
d=\${0%/*}
t=$(date +%s%N)-$$
r="$d/runs/.$t"
mkdir "$r" || exit 97
if [ $# -gt 0 ]; then printf '%s\\0' "$@"; fi >"$r/args"
if [ -n "\${KUBERNETES_EXEC_INFO+set}" ]; then printf '%s' "$KUBERNETES_EXEC_INFO" >"$r/info"; fi
${ENV_KEYS.map((k) => `if [ -n "\${${k}+set}" ]; then printf '%s' "$${k}" >"$r/env.${k}"; fi`).join("\n")}
if [ -t 0 ]; then : >"$r/tty"; fi
mv "$r" "$d/runs/$t" || exit 97
cd -P "$d/response" || exit 97
if [ -f stderr ]; then cat stderr >&2; fi
if [ -f hang ]; then exec sleep 100000; fi
if [ -f stdout ]; then cat stdout; fi
read -r code <code
exit "$code"
`;

export function fakePlugin(name = "fake-plugin", dir = mkdtempSync(join(tmpdir(), "tollgate-exec-"))): FakePlugin {
  const command = join(dir, name);
  writeFileSync(command, SCRIPT);
  chmodSync(command, 0o755);
  mkdirSync(join(dir, "runs"));
  let responses = 0;
  const respond = (r: PluginResponse): void => {
    const name = `response.${++responses}`;
    const at = join(dir, name);
    mkdirSync(at);
    if (r.stdout !== undefined) writeFileSync(join(at, "stdout"), typeof r.stdout === "string" ? r.stdout : JSON.stringify(r.stdout));
    if (r.stderr) writeFileSync(join(at, "stderr"), `${r.stderr}\n`);
    if (r.hang) writeFileSync(join(at, "hang"), "");
    writeFileSync(join(at, "code"), `${r.exitCode ?? 0}\n`);
    // A run that started keeps the response it read; the next one sees this one whole.
    symlinkSync(name, join(dir, "response.next"));
    renameSync(join(dir, "response.next"), join(dir, "response"));
  };
  respond({ stdout: "" });
  return {
    dir,
    command,
    respond,
    runs: () => {
      const root = join(dir, "runs");
      return readdirSync(root)
        .filter((n) => !n.startsWith("."))
        .sort()
        .map((n) => {
          const file = (f: string): string | undefined => (existsSync(join(root, n, f)) ? readFileSync(join(root, n, f), "utf8") : undefined);
          // Each argument ends in a NUL: none is an empty file, [""] is "\0".
          const args = file("args") ?? "";
          const env: Record<string, string | undefined> = {};
          for (const k of ENV_KEYS) {
            const v = file(`env.${k}`);
            if (v !== undefined) env[k] = v;
          }
          return { args: args === "" ? [] : args.slice(0, -1).split("\0"), info: file("info"), env, stdinTTY: existsSync(join(root, n, "tty")) };
        });
    },
  };
}

/** An ExecCredential as a plugin prints it. */
export function execCredential(apiVersion: string, status: Record<string, unknown> | undefined): Record<string, unknown> {
  return { kind: "ExecCredential", apiVersion, ...(status ? { status } : {}) };
}

/**
 * The fault catalog from the command line: `tollgate emulator --fault`, `tollgate proxy`,
 * `tollgate run --fault` and `tollgate selftest` refuse what cannot apply in one line, and
 * apply what can (a failpoint inside the emulator, a wire fault in front of a target).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../lib/cli/main.js";
import { startEmulator } from "../../lib/emulator/index.js";

const BIN = resolve(import.meta.dirname, "../../bin/tollgate.js");

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
  child = undefined;
});

/** Starts `tollgate ARGS`, and resolves with the URL of its first "listening on" line. */
async function listening(args: string[]): Promise<{ url: string; out: () => string }> {
  const c = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  child = c;
  let out = "";
  c.stdout?.setEncoding("utf8");
  const url = await new Promise<string>((resolveUrl, reject) => {
    c.stdout?.on("data", (d: string) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[^\s,]+)/);
      if (m) resolveUrl(m[1] as string);
    });
    c.once("exit", () => reject(new Error(`exited early: ${out}`)));
  });
  return { url, out: () => out };
}

describe("faults on the command line", () => {
  it("each misuse is one line and exit 2", async () => {
    const err = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const cases: [string[], RegExp][] = [
        [["run", "--fault", "no-such-fault"], /no fault "no-such-fault"/],
        [["run", "--target", "http://127.0.0.1:1", "--fault", "conflict-as-500"], /applies to the embedded emulator only/],
        [["run", "--node-agent", "https://127.0.0.1:1", "--fault", "agent-healthz-not-ok"], /embedded run only/],
        [
          ["run", "--fault", "cm-tokens-without-authn-file", "--fault", "agent-always-allow-refuses-configz"],
          /different command lines: apply them in separate runs/,
        ],
        [["emulator", "--fault", "never-gzips"], /fault of the wire: .*tollgate proxy --fault never-gzips/],
        [["emulator", "--fault", "checker-without-agent-options-system-reserved-resources"], /flag checker/],
        [["emulator", "--fault", "cm-pprof-missing"], /needs that daemon/],
        [["proxy", "--fault", "never-gzips"], /--target URL is required/],
        [["proxy", "--target", "http://127.0.0.1:1"], /--fault NAME is required/],
        [["proxy", "--target", "ftp://x", "--fault", "never-gzips"], /http or https URL/],
        [["proxy", "--target", "http://127.0.0.1:1", "--fault", "conflict-as-500"], /not a fault of the wire \(emulator\)/],
        [["selftest", "--fault", "nope"], /no fault "nope"/],
        [["selftest", "--jobs", "0"], /--jobs must be/],
      ];
      for (const [args, message] of cases) {
        err.mockClear();
        expect(await main(args), args.join(" ")).toBe(2);
        expect(err.mock.calls.length, args.join(" ")).toBe(1);
        expect(String(err.mock.calls[0]?.[0]), args.join(" ")).toMatch(message);
      }
    } finally {
      err.mockRestore();
    }
  });

  it("tollgate emulator --fault switches a failpoint on: a dry run is stored", { timeout: 60_000 }, async () => {
    const { url, out } = await listening(["emulator", "--port", "0", "--fault", "dry-run-persists"]);
    expect(out()).toMatch(/faults on .*: dry-run-persists/);
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } });
    const created = await fetch(`${url}/api/v1/namespaces/default/configmaps?dryRun=All`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(created.status).toBe(201);
    // A faithful server stores nothing on a dry run (404 here); this one stored it.
    expect((await fetch(`${url}/api/v1/namespaces/default/configmaps/dry`)).status).toBe(200);
  });

  it("tollgate proxy --fault puts a wire fault in front of a target and passes the rest", { timeout: 60_000 }, async () => {
    const emulator = await startEmulator({ port: 0 });
    try {
      const { url, out } = await listening(["proxy", "--target", emulator.url, "--fault", "list-rv-zero"]);
      expect(out()).toMatch(/fault list-rv-zero: lists carry resourceVersion 0 \(breaks doc1\.versioning\.rv-decimal-form\)/);
      const list = (await (await fetch(`${url}/api/v1/namespaces/default/configmaps`)).json()) as { metadata: { resourceVersion: string } };
      expect(list.metadata.resourceVersion).toBe("0");
      const direct = (await (await fetch(`${emulator.url}/api/v1/namespaces/default/configmaps`)).json()) as { metadata: { resourceVersion: string } };
      expect(direct.metadata.resourceVersion).not.toBe("0");
      // What the fault does not touch passes as it is.
      expect(await (await fetch(`${url}/version`)).json()).toEqual(await (await fetch(`${emulator.url}/version`)).json());
    } finally {
      await emulator.close();
    }
  });
});

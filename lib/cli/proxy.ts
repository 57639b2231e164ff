/**
 * `tollgate proxy --fault NAME... --target URL [--port N] [--host H]`: a wire fault of the
 * catalog (lib/faults/) in front of any API server, so that a suite, a client or an operator
 * can see what that defect looks like from outside. Bodies it does not rewrite pass byte for
 * byte; watches stream through. Requests keep their own credentials (Authorization passes).
 */
import { readFileSync } from "node:fs";
import { faultByName, type WireFault } from "../faults/index.js";
import { startWireProxy } from "../faults/wire-proxy.js";
import { parseOptions, UsageError } from "./usage.js";

export function parseProxyCommand(argv: string[]): { target: string; host: string; port: number; faults: WireFault[]; upstreamCa?: string } {
  const { values } = parseOptions({
    args: argv,
    options: {
      target: { type: "string" },
      fault: { type: "string", multiple: true },
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      // The https target's CA bundle (PEM), as a kubeconfig's certificate-authority.
      ca: { type: "string" },
    },
    allowPositionals: false,
  });
  if (values.target === undefined) throw new UsageError("--target URL is required: the server the proxy stands in front of");
  let target: URL;
  try {
    target = new URL(values.target);
  } catch {
    throw new UsageError(`--target must be a URL, not "${values.target}"`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new UsageError(`--target must be an http or https URL, not "${values.target}"`);
  const names = values.fault ?? [];
  if (names.length === 0) throw new UsageError("--fault NAME is required (tollgate rules faults lists the wire faults)");
  const faults = names.map((name) => {
    const f = faultByName(name);
    if (!f) throw new UsageError(`--fault: no fault "${name}" (tollgate rules faults lists them)`);
    if (f.mode !== "wire")
      throw new UsageError(
        `--fault ${name} is not a fault of the wire (${f.mode}): ${f.mode === "checker" ? "tollgate run --fault" : "tollgate emulator --fault"} ${name} applies it`,
      );
    return f;
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  let upstreamCa: string | undefined;
  if (values.ca !== undefined) {
    try {
      upstreamCa = readFileSync(values.ca, "utf8");
    } catch {
      throw new UsageError(`--ca: cannot read ${values.ca}`);
    }
  }
  return { target: target.origin + target.pathname.replace(/\/$/, ""), host: values.host, port, faults, ...(upstreamCa ? { upstreamCa } : {}) };
}

export async function proxyCommand(argv: string[]): Promise<number> {
  const { target, host, port, faults, upstreamCa } = parseProxyCommand(argv);
  let proxy: Awaited<ReturnType<typeof startWireProxy>>;
  try {
    proxy = await startWireProxy(
      target,
      faults.map((f) => ({ name: f.name, ...f.wire })),
      { host, port, ...(upstreamCa ? { upstreamCa } : {}) },
    );
  } catch (e) {
    throw new Error(`cannot listen on ${host}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // The faults first: "listening on" is the line scripts wait for.
  for (const f of faults) console.log(`fault ${f.name}: ${f.models} (breaks ${f.rules.join(", ")})`);
  console.log(`listening on ${proxy.url}, in front of ${target}`);
  await new Promise<void>((resolve) => {
    const stop = (): void => void proxy.close().then(() => resolve());
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

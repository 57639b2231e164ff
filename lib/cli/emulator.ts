/** `tollgate emulator`: the reference server on its own, until interrupted. */
import { FeatureGateError, parseFeatureGates } from "../emulator/feature-gates.js";
import { startEmulator, type EmulatorOptions } from "../emulator/index.js";
import { parseOptions, UsageError } from "./usage.js";

/** setInterval's limit (2^31-1 ms) in whole seconds; one bound for every duration keeps the rule simple to state. */
const MAX_SECONDS = 2_147_483;

/**
 * A duration flag in decimal seconds, fractions allowed down to the millisecond the emulator
 * works in: 0 would mean "never" for bookmarks but "at once" for retention, so it is refused.
 */
function secondsFlag(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = /^[0-9]+(\.[0-9]+)?$/.test(raw) ? Math.round(Number(raw) * 1000) : NaN;
  if (!(ms >= 1 && ms <= MAX_SECONDS * 1000)) {
    throw new UsageError(`--${flag} must be a number of seconds from 0.001 to ${MAX_SECONDS}, not "${raw}"`);
  }
  return ms;
}

/** The command line as startEmulator options; a bad value is a UsageError (one line, exit 2). */
export function parseEmulatorArgs(argv: string[]): EmulatorOptions & { host: string; port: number } {
  const { values } = parseOptions({
    args: argv,
    options: {
      port: { type: "string", default: "8080" },
      host: { type: "string", default: "127.0.0.1" },
      admin: { type: "boolean", default: false },
      "bookmark-interval": { type: "string" },
      retention: { type: "string" },
      "continue-lifetime": { type: "string" },
      // kube-apiserver's form: --feature-gates CBORServingAndStorage=true,APIResponseCompression=false
      "feature-gates": { type: "string" },
    },
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  const options: EmulatorOptions & { host: string; port: number } = { host: values.host, port, admin: values.admin };
  const bookmarkIntervalMs = secondsFlag("bookmark-interval", values["bookmark-interval"]);
  const retentionMs = secondsFlag("retention", values.retention);
  const continueTokenLifetimeMs = secondsFlag("continue-lifetime", values["continue-lifetime"]);
  // Left out when not given, so the emulator's own defaults apply.
  if (bookmarkIntervalMs !== undefined) options.bookmarkIntervalMs = bookmarkIntervalMs;
  if (retentionMs !== undefined) options.retentionMs = retentionMs;
  if (continueTokenLifetimeMs !== undefined) options.continueTokenLifetimeMs = continueTokenLifetimeMs;
  const gates = values["feature-gates"];
  if (gates !== undefined) {
    try {
      options.featureGates = parseFeatureGates(gates);
    } catch (e) {
      if (e instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${e.message}`);
      throw e;
    }
  }
  return options;
}

export async function emulatorCommand(argv: string[]): Promise<number> {
  const options = parseEmulatorArgs(argv);
  let emu;
  try {
    emu = await startEmulator(options);
  } catch (e) {
    throw new Error(`cannot listen on ${options.host}:${options.port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  console.log(`listening on ${emu.url}`);
  const running = emu;
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      void running.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

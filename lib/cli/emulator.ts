/** `tollgate emulator`: the reference server on its own, until interrupted. */
import { startEmulator } from "../emulator/index.js";
import { parseOptions, UsageError } from "./usage.js";

export async function emulatorCommand(argv: string[]): Promise<number> {
  const { values } = parseOptions({
    args: argv,
    options: { port: { type: "string", default: "8080" }, host: { type: "string", default: "127.0.0.1" } },
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  let emu;
  try {
    emu = await startEmulator({ host: values.host as string, port });
  } catch (e) {
    throw new Error(`cannot listen on ${values.host}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
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

/**
 * Starts the emulator with time frozen and randomness replaced by counters, then prints its
 * URL: the same requests then get the same bytes on every run, so wire-bytes.test.ts can hold
 * the emulator's answers byte for byte across refactorings. Run as a child process, since it
 * patches node:crypto and Date for the whole process.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";

const crypto = createRequire(import.meta.url)("node:crypto") as {
  randomUUID: () => string;
  randomInt: (max: number) => number;
  randomBytes: (size: number) => Buffer;
};
let uuids = 0;
let ints = 0;
crypto.randomUUID = () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, "0")}`;
crypto.randomInt = (max: number) => ints++ % max;
crypto.randomBytes = (size: number) => Buffer.alloc(size, 7);
syncBuiltinESMExports();

const FROZEN = Date.UTC(2026, 0, 2, 3, 4, 5);
const RealDate = Date;
class FrozenDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(FROZEN);
    else super(...(args as [number]));
  }
  static override now(): number {
    return FROZEN;
  }
}
globalThis.Date = FrozenDate as DateConstructor;

const { startEmulator } = await import("../../../lib/emulator/index.js");
// Exact lists and streams of this file's own writes: without the namespace controllers' content.
const emulator = await startEmulator({ namespaceContent: false, featureGates: { CBORServingAndStorage: true } });
process.stdout.write(`${emulator.url}\n`);
process.on("SIGTERM", () => {
  void emulator.close().then(() => process.exit(0));
});

/**
 * tollgate's command line: run | emulator | flags | rules | report. Every failure is one line and an exit code.
 * Commands load lazily: `rules coverage` should not pay for vitest or the emulator.
 */
import { toolVersion } from "../tool-version.js";
import { USAGE, UsageError } from "./usage.js";

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "run":
        return await (await import("./run.js")).runCommand(rest);
      case "emulator":
        return await (await import("./emulator.js")).emulatorCommand(rest);
      case "flags":
        return await (await import("./flags.js")).flagsCommand(rest);
      case "rules":
        return (await import("./rules.js")).rulesCommand(rest);
      case "report":
        return await (await import("./report.js")).reportCommand(rest);
      case "--version":
      case "version":
        console.log(`tollgate ${toolVersion}`);
        return 0;
      case "--help":
      case "-h":
      case "help":
        console.log(USAGE);
        return 0;
      default:
        throw new UsageError(command ? `unknown command "${command}"` : "no command given");
    }
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`tollgate: ${e.message}\n${USAGE}`);
      return 2;
    }
    console.error(`tollgate: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
}

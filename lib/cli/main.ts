/**
 * tollgate's command line: run | cleanup | emulator | proxy | selftest | flags | rules | report. Every failure is one line
 * and an exit code; `--help` on any command prints its usage to stdout.
 * Commands load lazily: `rules coverage` should not pay for vitest or the emulator.
 */
import { toolVersion } from "../tool-version.js";
import { isCommand, USAGE, UsageError, usageOf, wantsHelp } from "./usage.js";

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (isCommand(command) && wantsHelp(rest)) {
      console.log(usageOf(command));
      return 0;
    }
    switch (command) {
      case "run":
        return await (await import("./run.js")).runCommand(rest);
      case "cleanup":
        return await (await import("./cleanup.js")).cleanupCommand(rest);
      case "emulator":
        return await (await import("./emulator.js")).emulatorCommand(rest);
      case "flags":
        return await (await import("./flags.js")).flagsCommand(rest);
      case "proxy":
        return await (await import("./proxy.js")).proxyCommand(rest);
      case "selftest":
        return await (await import("./selftest.js")).selftestCommand(rest);
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
        console.log(isCommand(rest[0]) ? usageOf(rest[0]) : USAGE);
        return 0;
      default:
        throw new UsageError(command ? `unknown command "${command}"` : "no command given");
    }
  } catch (e) {
    if (e instanceof UsageError) {
      // One line: the usage is a --help away.
      console.error(`tollgate: ${e.message} (see tollgate ${isCommand(command) ? `${command} ` : ""}--help)`);
      return 2;
    }
    console.error(`tollgate: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
}

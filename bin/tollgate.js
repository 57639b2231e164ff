#!/usr/bin/env node
// Entry point: load the TypeScript CLI through tsx, so the package runs without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../lib/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
